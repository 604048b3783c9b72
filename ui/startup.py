"""Heavy imports, done once per server process by the first session, never by two sessions at once.

Streamlit imports pandas, pyarrow and plotly lazily inside st.dataframe/st.plotly_chart. When a class opens
the teacher's link at the same moment, several sessions start those imports together and one of them can
see a half-imported module ("partially initialized module 'pandas' has no attribute 'Series"). app.py
imports this module first: Python's import lock makes every other session wait until it is done.
"""

import numpy  # noqa: F401
import pandas  # noqa: F401
import plotly.graph_objects  # noqa: F401
import plotly.io  # noqa: F401
import pyarrow  # noqa: F401
import tokenizers  # noqa: F401
from streamlit import dataframe_util  # noqa: F401

from ui.memory import start_memory_trimmer  # noqa: E402

start_memory_trimmer()
