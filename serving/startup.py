"""Heavy imports, done once per server process by the first session, never by two sessions at once.

Streamlit imports plotly lazily inside st.plotly_chart. When a class opens the teacher's link at the same
moment, several sessions start those imports together and one of them can see a half-imported module
("partially initialized module ... has no attribute ..."). app.py imports this module first: Python's import
lock makes every other session wait until it is done. pandas and pyarrow, which only tables need, are
imported the same way by ui/tables.py, on the first page that shows a table.
"""

import numpy  # noqa: F401
import plotly.graph_objects
import plotly.io  # noqa: F401
import tokenizers  # noqa: F401

from serving.memory import freeze_long_lived, start_memory_trimmer

start_memory_trimmer()
freeze_long_lived()
