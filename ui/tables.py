"""Tables (st.dataframe, st.table): every page shows its tables through here, after their heavy imports.

Streamlit imports pandas and pyarrow (about 0.4 s) lazily inside st.dataframe and st.table. When a class opens
the teacher's link at the same moment, several sessions start those imports together and one of them can see
a half-imported module ("partially initialized module 'pandas' has no attribute 'Series'"). Importing this
module does them under Python's import lock, so a second session waits until the first is done. The start
page shows no table: a server's first visitor does not wait for pandas (tests/test_performance.py).
"""

import pandas  # noqa: F401
import pyarrow  # noqa: F401
import streamlit as st
from streamlit import dataframe_util  # noqa: F401

from serving.memory import freeze_long_lived

freeze_long_lived()  # the libraries just imported stay as long as the process


def dataframe(data, **kwargs):
    """st.dataframe, with pandas already imported."""
    return st.dataframe(data, **kwargs)


def table(data):
    """st.table, with pandas already imported."""
    return st.table(data)
