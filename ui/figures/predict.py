"""Predict first (teaching mode): a figure's answers, its numbers and colours, hidden until the teacher reveals
them, so the class guesses first; which figures this session has revealed."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from ui.content import words

NEUTRAL_CELL = "#e5e7eb"  # a hidden heatmap's one colour: light grey, read as "nothing shown yet"


def predicting(teaching: bool) -> bool:
    """Teaching mode with "Predict first" on."""
    import streamlit as st

    return teaching and st.session_state.get("predict") is True


def answers_hidden(filename: str, teaching: bool) -> bool:
    """Whether the figure of this file name is hidden for the class to predict: the page's sentences that state
    its numbers wait for its reveal too (hidden_text() stands in for them)."""
    return predicting(teaching) and not revealed(filename)


def hidden_text() -> str:
    """What stands in for the sentences that state a hidden figure's numbers, in the page's language."""
    return words("figures.hidden_text")


def predict_text() -> str:
    """A hidden figure's text alternative (HTML)."""
    return f'<div class="figure-text"><p>{html.escape(words("figures.hidden_figure_text"))}</p></div>'


REVEALED_KEY = "_revealed"  # the file names of the figures whose numbers this session has revealed


def revealed(filename: str) -> bool:
    import streamlit as st

    return filename in st.session_state.get(REVEALED_KEY, ())


def toggle_reveal(filename: str) -> None:
    """on_click of "Reveal the numbers" / "Hide the numbers again"."""
    import streamlit as st

    shown = set(st.session_state.get(REVEALED_KEY, ()))
    shown ^= {filename}
    st.session_state[REVEALED_KEY] = shown
    # The sentences stating the figure's numbers may stand outside the fragment the button is in (the start page's
    # above its matrix): the fragment then asks for the whole page (ui/widgets/pickers.py WHOLE_PAGE_RERUN).
    st.session_state["_whole_page_rerun"] = True


def writes_numbers(fig: go.Figure) -> bool:
    """Whether the figure shows numbers a class could guess (cell values or colours, bar or table numbers, value
    ticks)."""
    meta = fig._layout.get("meta") if isinstance(fig._layout.get("meta"), dict) else {}
    return bool(meta.get("value_ticks")) or any(
        trace.get("texttemplate") or trace.get("type") in ("table", "heatmap")
        or (trace.get("type") == "bar" and trace.get("text") is not None) for trace in fig._data)


def with_numbers_hidden(fig: go.Figure) -> go.Figure:
    """The same figure with its answers left out: no values in heatmap cells, on bars or in a table's number
    columns (each shows “?”), no hover label; a heatmap's cells all one neutral colour with no colour scale, every
    bar as long as the longest. The labels stay: a class guesses the numbers."""
    traces = []
    for trace in fig._data:
        trace = {key: value for key, value in trace.items() if key not in ("texttemplate", "hovertemplate")}
        trace["hoverinfo"] = "skip"
        if trace.get("type") == "bar" and trace.get("text") is not None:
            trace["text"] = ["?"] * len(trace["text"])
        if trace.get("type") == "table":
            columns = trace["cells"]["values"]
            trace["cells"] = {**trace["cells"], "values": [columns[0]] + [["?"] * len(c) for c in columns[1:]]}
        if trace.get("type") == "heatmap":
            trace.pop("text", None)
            trace.pop("customdata", None)
            shape = np.shape(trace["z"])
            trace.update(z=np.zeros(shape, dtype=np.float32), colorscale=[[0, NEUTRAL_CELL], [1, NEUTRAL_CELL]],
                         showscale=False, zmin=0.0, zmax=1.0)
            trace.pop("zmid", None)
        if trace.get("type") == "bar":
            along = "x" if trace.get("orientation") == "h" else "y"
            lengths = np.abs(np.asarray(trace.get(along, ()), dtype=float))
            if lengths.size:
                trace[along] = np.full(lengths.shape, np.nanmax(lengths) if np.isfinite(lengths).any() else 1.0)
        traces.append(trace)
    layout = dict(fig._layout)
    meta = layout.get("meta") if isinstance(layout.get("meta"), dict) else {}
    for axis in meta.get("value_ticks", ()):  # numbers written as an axis's tick labels (step 1's sums)
        layout[axis] = {**layout[axis], "ticktext": ["?"] * len(layout[axis]["ticktext"])}
    return go.Figure({"data": traces, "layout": layout}, _validate=False)


# Heatmap cell values drawn only where they fit: the server cannot know the screen's width, so on a phone a
# 14-token heatmap's "0.07"s ran together ("0.000.000.00…"). After each draw (and resize) the browser measures
# each heatmap's values; if two neighbours touch, the figure's values are hidden (the hover and the text
# alternative still give every number). No "<" in the script (Streamlit's HTML sanitizer).
