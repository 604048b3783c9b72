"""“Play the four steps”: the selected token's row through the four steps as one animated plotly figure.

The frames are plotly animation frames: Play/Pause and the step slider run in the browser, so playing and
moving the slider never run the page's script. The numbers come from lessons/walkthrough.py on the view's
whole-sentence steps (learned mode: hidden [CLS]/[SEP] folded into one column, as the step pages fold them).
The captions are written from those numbers in walkthrough_text.py; walkthrough_section.py puts the figure on
the start page.
"""

from __future__ import annotations

import html
import textwrap
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from lessons.walkthrough import Frame, Walkthrough, walk_through

from ui.figures.layout import (HIGHLIGHT, SUBTITLE_COLOUR, TICK_COLOUR, _category_axis, _figure, axis_labels,
                             font_sizes, title_block_height)
from ui.figures.matrices import on_a_phone
from ui.figures.animation import with_frames
from ui.content import current_language, words
from ui.sections.walkthrough_text import _num, captions, frame_words, hover_template

if TYPE_CHECKING:  # a type only: the figure is drawn from numbers, without the app's state and model
    from ui.view import View

BAR = "#3b82f6"
FAINT = "rgba(148, 163, 184, 0.45)"
# Step 1's finished scores: neutral, since its vector panel already uses red and blue for the products' signs.
SCORE = "#64748b"
POSITIVE, NEGATIVE = "#dc2626", "#2563eb"
TOTAL = "#1f2937"
# One frame shows this long while playing: a caption of about 20 words, read aloud.
FRAME_MS = 2200
TRANSITION_MS = 500
# Values written on the bars while the row has at most this many columns (else on hover only).
BAR_TEXT_LIMIT = {False: 14, True: 12}
# Characters of caption per line at the figure's width (an 18 px slide font is wider).
CAPTION_LINE_CHARS = {False: 120, True: 112}
PHONE_LINE_CHARS = 44  # a 390 px phone: captions and the vector panel's title wrap this short

# The whole figure, title included, before upright token labels add their height; a teaching-mode slide of
# 1280 × 720 holds it (at most SLIDE_HEIGHT) with nothing else.
BASE_HEIGHT = {False: 620, True: 600}
SLIDE_HEIGHT = 710
# The plot area's width the figure gets (the page's main column; a slide's 1280 px less Streamlit's padding).
PLOT_WIDTH = {False: 880, True: 1080}
LEFT_MARGIN = {False: 64, True: 84}  # fixed: y tick labels of every frame fit, so the panels never jump sideways


def _line_chars(teaching: bool) -> int:
    """Characters a caption line may have: the figure's width is known on the server only as 'a phone' or not."""
    return PHONE_LINE_CHARS if not teaching and on_a_phone() else CAPTION_LINE_CHARS[teaching]


def walkthrough_of(view: View) -> Walkthrough:
    """The selected token's walk-through on the numbers the step pages show (learned mode: the model's whole
    sentence, hidden tokens in one column)."""
    base, row = view.base, view.base_index
    if view.is_toy:
        groups = [[j] for j in range(len(view.tokens))]
    else:
        groups = [[int(j)] for j in view.shown] + ([[int(j) for j in view.hidden]] if view.hidden.size else [])
    return walk_through(base.q[row], base.k, base.v, row, groups)


# --- the figure --------------------------------------------------------------------------------------------------

def _finite_bound(*arrays, floor: float = 1e-9) -> float:
    values = np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays])
    values = values[np.isfinite(values)]
    return max(float(np.abs(values).max()) if values.size else 0.0, floor)


def _signed_range(*arrays) -> list[float]:
    values = np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays])
    values = values[np.isfinite(values)]
    low, high = min(0.0, float(values.min())), max(0.0, float(values.max()))
    pad = 0.18 * ((high - low) or 1.0)
    return [low - (pad if low < 0 else 0), high + pad]


def _bar_text(values, fmt: str, show: bool) -> list[str]:
    if not show:
        return [""] * len(values)
    return ["" if not np.isfinite(v) else (f"{100 * v:.0f}%" if fmt == "%" else _num(v)) for v in values]


def _geometry(labels: list[str], lines: list[str], title: str, teaching: bool) -> dict:
    """Where everything goes, in paper fractions computed from pixels: the controls, the step heading, the
    caption (as many lines as the longest), the vector panel and the row panel above the token labels."""
    sizes = font_sizes(teaching)
    longest = max(len(label) for label in labels)
    # Plotly turns the labels upright when two neighbours would touch (a character is about 0.55 of the size).
    widths = [0.55 * sizes["tick"] * len(label) for label in labels]
    slot = PLOT_WIDTH[teaching] / len(labels)
    upright = any((a + b) / 2 + 6 > slot for a, b in zip(widths, widths[1:]))
    label_px = int(0.62 * sizes["tick"] * min(longest, 16)) + 14 if upright else sizes["tick"] + 14
    top = title_block_height(title, teaching)
    total = BASE_HEIGHT[teaching] + (label_px - sizes["tick"] - 14)
    if teaching:
        total = min(total, SLIDE_HEIGHT)
    bottom = label_px + 6
    paper = total - top - bottom
    caption_lines = max(len(textwrap.wrap(line, _line_chars(teaching))) for line in lines)
    heading_at = 56 if teaching else 50  # below the Play button and the slider's labels
    caption_at = heading_at + int(1.5 * (sizes["title"] - 4))
    vector_top = caption_at + int(caption_lines * 1.35 * (sizes["base"] + 1)) + 12
    rest = paper - vector_top - 34  # the vector panel's axis title sits in the gap
    vector_bottom = vector_top + int(0.36 * rest)

    def y(px):
        return round(1 - px / paper, 4)

    return {"total": total, "bottom": bottom, "top": top, "heading": y(heading_at), "caption": y(caption_at),
            "vector": [y(vector_bottom), y(vector_top)], "row": [0.0, y(vector_bottom + 34)]}


def _frame_spec(walk: Walkthrough, frame: Frame, caption: str, labels: list[str], query_label: str, teaching: bool,
                ranges: dict, number: int, n_frames: int, where: dict, language: str) -> tuple[list[dict], dict]:
    """The four traces' data and the layout of one frame (its words in `language`)."""
    n_columns = len(labels)
    show_text = n_columns <= BAR_TEXT_LIMIT[teaching]
    colours = [HIGHLIGHT if c in frame.columns else (SCORE if frame.step == 1 else BAR) for c in range(n_columns)]
    percent = frame.kind in ("weights", "share", "others", "output")
    if frame.step == 4:  # the shares added so far blue, the one being added orange, the rest pale
        added = set()
        for earlier in walk.frames[:number + 1]:
            if earlier.step == 4:
                added |= set(earlier.columns)
        colours = [HIGHLIGHT if c in frame.columns else (BAR if c in added or frame.kind == "output" else FAINT)
                   for c in range(n_columns)]
    d = frame.vector.size if np.isfinite(frame.vector).any() else frame.total.size
    dims = list(range(d))
    vector = np.nan_to_num(frame.vector, nan=0.0) if np.isfinite(frame.vector).any() else np.zeros(d)
    total = frame.total if np.isfinite(frame.total).any() else np.full(d, np.nan)
    vector_colours = [POSITIVE if v >= 0 else NEGATIVE for v in vector]
    if frame.step == 4:
        vector_colours = ["rgba(245, 158, 11, 0.55)"] * d
    traces = [
        {"x": dims, "y": vector, "marker": {"color": vector_colours}},
        {"x": dims, "y": total},
        {"x": labels, "y": frame.before},
        {"x": labels, "y": frame.bars, "marker": {"color": colours},
         "text": _bar_text(frame.bars, "%" if percent else "", show_text)},
    ]
    top_visible = frame.kind in ("key", "share", "others", "output")
    sizes = font_sizes(teaching)
    top_title, bottom_title, heading, board = frame_words(walk, frame, labels, query_label, d, number,
                                                          n_frames, language)
    wrapped = "<br>".join(html.escape(line, quote=False)
                          for line in textwrap.wrap(caption, _line_chars(teaching)))
    annotations = [
        {"text": heading, "xref": "paper", "yref": "paper", "x": 0, "y": where["heading"], "xanchor": "left",
         "yanchor": "top",
         "showarrow": False, "align": "left", "font": {"size": sizes["title"] - 4, "color": TICK_COLOUR}},
        {"text": wrapped, "xref": "paper", "yref": "paper", "x": 0, "y": where["caption"], "xanchor": "left",
         "yanchor": "top", "showarrow": False, "align": "left", "font": {"size": sizes["base"] + 1,
                                                                          "color": TICK_COLOUR}},
    ]
    # Every frame has the same three annotations: plotly merges a frame's list into the last one item by item.
    annotations.append(_board(board, sizes, where))
    bottom_range = ranges["weights"] if percent else ranges["exps"] if frame.kind == "exp" else ranges["scores"]
    layout = {
        "annotations": annotations,
        "xaxis": {"visible": top_visible, "title": {"text": "<br>".join(
            html.escape(line, quote=False) for line in textwrap.wrap(top_title, _line_chars(teaching)))}},
        "yaxis": {"visible": top_visible, "range": ranges["products" if frame.step == 1 else "output"]},
        "yaxis2": {"range": bottom_range, "title": {"text": bottom_title},
                   "tickformat": ".0%" if percent else ""},
    }
    return traces, layout


def _board(text: str, sizes: dict, where: dict) -> dict:
    """Big writing in the top panel's place, for the frames that have no vector to show."""
    return {"text": text, "xref": "paper", "yref": "paper", "x": 0.5, "y": sum(where["vector"]) / 2,
            "xanchor": "center", "yanchor": "middle", "showarrow": False,
            "font": {"size": sizes["title"] + 4, "color": TICK_COLOUR}}


def walkthrough_figure(walk: Walkthrough, columns: list[str], key_names: list[str], query_column: int,
                       title: str, teaching: bool = False, language: str | None = None) -> go.Figure:
    """The walk-through as one plotly figure with animation frames, Play/Pause and a slider (all in the browser).

    Top: a vector (q × k number by number in step 1; each weighted value and the output in step 4). Bottom: the
    token's row over the keys: raw scores, scaled, e^(score − largest), weights; each frame has its step and caption.
    """
    labels = axis_labels(columns)
    language = language or current_language()  # bound: an offline file is made after the page's run
    lines = captions(walk, columns, key_names, query_column, language)
    query_label = columns[query_column]
    raw_columns, scaled_columns = walk.score_per_column(walk.raw, walk.scale), walk.score_per_column(walk.scaled)
    partials = [f.total for f in walk.frames if f.step == 4] + [f.vector for f in walk.frames if f.step == 4]
    bound = _finite_bound(walk.products)
    out = _finite_bound(*partials)
    ranges = {"products": [-1.15 * bound, 1.15 * bound], "output": [-1.15 * out, 1.15 * out],
              "scores": _signed_range(raw_columns, scaled_columns),
              "exps": [0, 1.2 * float(walk.column_exps.max())],
              "weights": [0, min(1.08, 1.25 * float(walk.column_weights.max()))]}
    where = _geometry(labels, lines, title, teaching)
    specs = [_frame_spec(walk, frame, line, labels, query_label, teaching, ranges, number, len(walk.frames), where,
                         language)
             for number, (frame, line) in enumerate(zip(walk.frames, lines))]
    sizes = font_sizes(teaching)

    hover = partial(hover_template, language=language)
    base_traces = [
        {"type": "bar", "name": "vector", "xaxis": "x", "yaxis": "y", "showlegend": False,
         "hovertemplate": hover("walkthrough.hover_vector")},
        {"type": "bar", "name": "output", "xaxis": "x", "yaxis": "y", "width": 0.45, "showlegend": False,
         "marker": {"color": TOTAL}, "hovertemplate": hover("walkthrough.hover_output")},
        {"type": "bar", "name": "before", "xaxis": "x2", "yaxis": "y2", "showlegend": False,
         "marker": {"color": FAINT}, "hovertemplate": hover("walkthrough.hover_before")},
        {"type": "bar", "name": "row", "xaxis": "x2", "yaxis": "y2", "showlegend": False, "width": 0.6,
         "textposition": "outside", "cliponaxis": False, "textfont": {"size": sizes["cell"], "color": TICK_COLOUR},
         "hovertemplate": "%{x}: %{y:.4f}<extra></extra>"},
    ]
    first_traces, first_layout = specs[0]
    traces = [{**base, **data} for base, data in zip(base_traces, first_traces)]
    # A frame's trace needs its type (plotly.js draws a trace without one as a line); its x, the same in every
    # frame, comes from the figure's own trace (the token labels are most of a long sentence's payload).
    frames = [{"name": str(n), "data": [{**base, **{k: v for k, v in trace.items() if k != "x"}}
                                        for base, trace in zip(base_traces, data)],
               "traces": [0, 1, 2, 3], "layout": layout} for n, (data, layout) in enumerate(specs)]
    slider_steps = []
    previous_step = 0
    # Step 2 is one frame, so its label sits next to step 3's. Plotly shows every k-th label, k set by the widest
    # label: at 18 px past 14 frames "Step 1" made it every 2nd and dropped step 2's; bare numbers keep all four.
    short_labels = teaching and len(walk.frames) > 14
    for n, frame in enumerate(walk.frames):
        name = str(frame.step) if short_labels else words("walkthrough.slider_step", language=language,
                                                            step=frame.step)
        label = name if frame.step != previous_step else ""
        previous_step = frame.step
        slider_steps.append({"method": "animate", "label": label,
                             "args": [[str(n)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True},
                                                 "transition": {"duration": 0}}]})
    play = {"label": words("walkthrough.play", language=language), "method": "animate",
            "args": [None, {"frame": {"duration": FRAME_MS, "redraw": True}, "fromcurrent": True,
                            "transition": {"duration": TRANSITION_MS, "easing": "cubic-in-out"}}]}
    pause = {"label": words("walkthrough.pause", language=language), "method": "animate",
             "args": [[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate",
                               "transition": {"duration": 0}}]}
    # On a phone (a ~300 px plot) Play and Pause take half the plot's width: they start in the left margin and the
    # slider after them, not under them (it covered Pause).
    phone = not teaching and on_a_phone()
    buttons_x, slider_x = (-0.19, 0.38) if phone else (0, 0.24)
    button_font = {"size": sizes["base"] + 2, "color": TICK_COLOUR}  # dark: plotly's default grey is faint on a slide
    # From the top: Play/Pause and the slider, the step and its caption, the vector panel, the row panel (its
    # token labels below it, in the margin plotly grows for them).
    layout = {
        "barmode": "overlay", "bargap": 0.25, "showlegend": False,
        "xaxis": {"domain": [0, 1], "anchor": "y", "showticklabels": False, "ticks": "", "zeroline": False,
                  "showgrid": False, "fixedrange": True, **first_layout["xaxis"]},
        # Few ticks: a slide's whole-sentence subtitle can leave the panels short; 18 px ticks must not touch.
        "yaxis": {"domain": where["vector"], "anchor": "x", "automargin": False, "zeroline": True, "nticks": 4,
                  "zerolinecolor": "#9ca3af", "fixedrange": True, **first_layout["yaxis"]},
        "xaxis2": _category_axis(domain=[0, 1], anchor="y2", fixedrange=True),
        "yaxis2": {"domain": where["row"], "anchor": "x2", "automargin": False, "zeroline": True, "nticks": 5,
                   "zerolinecolor": "#6b7280", "fixedrange": True, **first_layout["yaxis2"]},
        "annotations": first_layout["annotations"],
        "updatemenus": [{"type": "buttons", "direction": "left", "showactive": False, "x": buttons_x, "y": 1.0,
                         "xanchor": "left", "yanchor": "top", "pad": {"t": 0, "r": 10}, "font": button_font,
                         "buttons": [play, pause]}],
        "sliders": [{"active": 0, "steps": slider_steps, "x": slider_x, "len": 1 - slider_x, "y": 1.0, "yanchor": "top",
                     "pad": {"t": 0, "b": 0, "r": 16}, "currentvalue": {"visible": False},
                     "font": {"size": sizes["tick"] if teaching else sizes["tick"] - 2, "color": SUBTITLE_COLOUR},
                     "ticklen": 4}],
    }
    layout["margin"] = {"l": LEFT_MARGIN[teaching], "r": 10, "t": where["top"], "b": where["bottom"], "pad": 2}
    height = where["total"] - where["top"] + 60  # _figure adds the title block
    return with_frames(_figure(traces, title, teaching, height, **layout), frames)
