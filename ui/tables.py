"""Tables (st.dataframe, st.table): every page shows its tables through here.

Streamlit imports pandas and pyarrow lazily inside st.dataframe and st.table; a session doing so while another
session's figure looked pandas up saw it half-imported. serving/startup.py imports them before any page runs
(tests/test_crowd.py); this one door keeps any future table's needs in that one list.
"""

import streamlit as st

import serving.startup  # noqa: F401  (pandas, pyarrow and Streamlit's conversion to Arrow, once per process)


def dataframe(data, **kwargs):
    """st.dataframe, with pandas already imported."""
    return st.dataframe(data, **kwargs)


def table(data):
    """st.table, with pandas already imported."""
    return st.table(data)
