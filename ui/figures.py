"""Every figure the app draws. Pages call these and never style plotly themselves.

Each builder assembles a plain plotly spec (traces and layout as dicts) and wraps it once, unvalidated:
plotly's per-property validation and update_* calls cost ~20 ms per figure, which made a rerun's figures
slower than the model pass. tests/test_figures.py validates every builder's spec instead.
"""

from __future__ import annotations

import html
import textwrap

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from .text import shorten, slug

# Resolved once to explicit colour lists: plotly.js itself knows neither "_r" names nor PiYG.
WEIGHTS_SCALE = get_colorscale("Blues")
SIGNED_SCALE = get_colorscale("RdBu_r")
PREFERENCE_SCALE = get_colorscale("PiYG")
DISTANCE_SCALE = get_colorscale("Viridis_r")
HIGHLIGHT = "#f59e0b"
CELL_TEXT_LIMIT = 14          # tokens per side up to which values are written in the cells
TEACHING_CELL_TEXT_LIMIT = 18
TICK_COLOUR = "#1f2937"       # near-black: light grey tick labels vanish on a projector
SUBTITLE_COLOUR = "#4b5563"
# Plotly's toolbar floats over the figure's top-right corner while the pointer is on it (and so in a
# screenshot taken then). The title block starts this far down, so the toolbar never covers it.
TOOLBAR_BAND = 38
SUBTITLE_CHARS = 80
# A longer title is wrapped onto more lines: the narrowest figure (half a page, or a column beside the text)
# holds about this many characters of title at each size.
TITLE_LINE_CHARS = {False: 46, True: 44}
# Streamlit themes a chart through its layout.template; an empty one keeps that theme without shipping
# (and deep-copying on every rerun) plotly's 10 KB default template.
EMPTY_TEMPLATE = {"layout": {}}


def axis_labels(tokens) -> list[str]:
    """Labels plotly shows as plain text, made unique so repeated words keep their own row.

    Plotly reads a subset of HTML in labels, so <, > and & are escaped; a repeated token gets
    invisible zero-width spaces so the categorical axis does not merge the two rows.
    """
    seen: set[str] = set()
    labels = []
    for token in tokens:
        label = html.escape(str(token), quote=False) or "␣"
        if label.startswith("$") and label.endswith("$"):
            label = "\u200b" + label  # plotly would treat $…$ as LaTeX
        while label in seen:
            label += "\u200b"
        seen.add(label)
        labels.append(label)
    return labels


def split_title(title: str) -> tuple[str, str]:
    """'Step 3 · weights · “sentence” · view' → ('Step 3 · weights', '“sentence” · view').

    The part from the quoted sentence on becomes a smaller subtitle, so a long sentence never pushes
    the title out of a narrow figure.
    """
    head, separator, tail = title.partition(" · “")
    if not separator or not head:
        return title, ""
    return head, shorten("“" + tail, SUBTITLE_CHARS)


def font_sizes(teaching: bool) -> dict[str, int]:
    """Screen sizes, or slide sizes that stay readable from the back of a classroom."""
    if teaching:
        return {"base": 16, "title": 24, "subtitle": 17, "tick": 18, "cell": 16}
    return {"base": 13, "title": 17, "subtitle": 13, "tick": 12, "cell": 12}


def title_lines(title: str, teaching: bool) -> list[str]:
    """The main title, wrapped at word boundaries so it is never cut off at a narrow figure's edge."""
    main, _ = split_title(title)
    return textwrap.wrap(main, TITLE_LINE_CHARS[teaching], break_long_words=False) or [main]


def _line_lift(sizes: dict[str, int]) -> int:
    """How far plotly lifts a top-anchored title per extra line (it centres the lines on the anchor)."""
    return int(0.75 * sizes["title"])


def title_block_height(title: str, teaching: bool) -> int:
    """Pixels the toolbar band, title and subtitle take at the top of a figure."""
    sizes = font_sizes(teaching)
    _, subtitle = split_title(title)
    lines = len(title_lines(title, teaching))
    return (TOOLBAR_BAND + _line_lift(sizes) * (lines - 1) + int(1.35 * sizes["title"] * lines)
            + (int(1.5 * sizes["subtitle"]) if subtitle else 0) + 18)


def _figure(traces: list[dict], title: str, teaching: bool, height: int | None = None, top_axis: bool = False,
            **layout) -> go.Figure:
    """The shared frame of every figure: a left-aligned title (sentence in a subtitle), slide-size fonts, margins.

    The title owns the top margin, below the toolbar's band. Axes therefore sit at the bottom and left, where
    plotly's automargin gives long or upright labels their room (a top axis's labels ran into the title:
    plotly's title automargin does not count them). top_axis is accepted and ignored, for older callers.
    """
    sizes = font_sizes(teaching)
    _, subtitle = split_title(title)
    main = "<br>".join(html.escape(line, quote=False) for line in title_lines(title, teaching))
    # plotly lifts a wrapped title by part of a line; the extra pad keeps its first line below the toolbar.
    extra_lines = main.count("<br>")
    title_spec = {"text": main, "font": {"size": sizes["title"]},
                  "x": 0.0, "xanchor": "left", "xref": "container", "y": 1.0, "yanchor": "top",
                  "yref": "container", "pad": {"t": TOOLBAR_BAND + _line_lift(sizes) * extra_lines, "l": 6}}
    if subtitle:
        title_spec["subtitle"] = {"text": html.escape(subtitle, quote=False),
                                  "font": {"size": sizes["subtitle"], "color": SUBTITLE_COLOUR}}
    top = title_block_height(title, teaching)
    frame = {
        "template": EMPTY_TEMPLATE,
        "title": title_spec,
        "font": {"size": sizes["base"]},
        "margin": {"l": 10, "r": 10, "t": top, "b": 10, "pad": 2},
    }
    if height is not None:
        frame["height"] = height + top - 60  # builders size the plot area for the old 60 px title margin
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")):
            layout[name] = _readable_axis(axis, sizes["tick"])
    return go.Figure({"data": traces, "layout": {**frame, **layout}}, _validate=False)


def _readable_axis(axis: dict, tick_size: int) -> dict:
    """Dark tick labels at the page's size; labels that do not fit turn upright (never at a slant, which
    overlaps its neighbours) and plotly thins them; the margins grow to hold them."""
    axis = dict(axis)
    if axis.get("side") == "top":
        del axis["side"]  # the title owns the top margin (see _figure)
    font = {"size": tick_size, "color": TICK_COLOUR, **axis.get("tickfont", {})}
    axis["tickfont"] = font
    axis.setdefault("automargin", True)
    if axis.get("type") == "category":
        axis.setdefault("autotickangles", [0, 90])
    title = axis.get("title")
    if isinstance(title, dict):
        axis["title"] = {"standoff": 6, "font": {"color": SUBTITLE_COLOUR, "size": max(13, tick_size - 2)}, **title}
    return axis


def _category_axis(**extra) -> dict:
    return {"type": "category", **extra}


def _reversed_category_axis(**extra) -> dict:
    return {"autorange": "reversed", "type": "category", **extra}


def _axis_title(text: str) -> dict:
    return {"text": text}


def figure_title(step: str, sentence: str, view_label: str) -> str:
    return f"{step} · “{shorten(sentence, 32)}” · {view_label}"


def _row_outline(row: int) -> dict:
    return {"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": row - 0.5, "y1": row + 0.5,
            "line": {"color": HIGHLIGHT, "width": 3}, "fillcolor": "rgba(0,0,0,0)"}


def values_fit(n_rows: int, n_cols: int, teaching: bool, limit: int | None = None) -> bool:
    """Whether a 4-character value ("0.07") fits in every cell: up to CELL_TEXT_LIMIT tokens a side on screen
    (a figure beside the text still gives such a cell ~28 px), more at slide size and full width."""
    limit = limit or (TEACHING_CELL_TEXT_LIMIT if teaching else CELL_TEXT_LIMIT)
    return n_rows <= limit and n_cols <= limit


def matrix_heatmap(matrix, row_tokens, col_tokens, title: str, kind: str = "weights",
                   highlight_row: int | None = None, teaching: bool = False,
                   x_title: str = "key token (looked at)", y_title: str = "query token (looking)",
                   value_limit: int | None = None, column_groups: int | None = None, bound: float | None = None):
    """A matrix with tokens on the axes. kind: 'weights' (0..1), 'signed' (diverging at 0) or 'vectors'.

    value_limit: the most tokens a side with values written in the cells (lower it for a half-width figure).
    column_groups: for a wide vector matrix made of equal blocks (the 12 heads' 32 numbers each), the block
    width: the blocks are separated by white lines and the axis names the blocks (H0, H1, …) instead of
    384 column numbers.
    bound: the colour range ±bound for signed/vector kinds (shared by figures that must compare); default
    the matrix's own largest magnitude.
    """
    matrix = np.asarray(matrix, dtype=np.float32)  # float32 keeps the page's payload small
    rows = axis_labels(row_tokens)
    cols = axis_labels(col_tokens) if col_tokens is not None else list(range(matrix.shape[1]))
    # Two decimals, or one once values reach ±10: the widest value decides how many cells it fits in.
    largest = float(np.abs(matrix).max()) if matrix.size else 0.0
    decimals = 1 if largest >= 10 else 2
    widest = len(f"{-largest if (matrix < 0).any() else largest:.{decimals}f}")
    limit = (value_limit or (TEACHING_CELL_TEXT_LIMIT if teaching else CELL_TEXT_LIMIT)) * 4 // \
        (4 if widest <= 4 else widest + 1)  # "-10.8" needs its sign and a gap: wider than 5/4 of "0.07"
    show_values = values_fit(matrix.shape[0], matrix.shape[1], teaching, limit)
    sizes = font_sizes(teaching)
    if kind == "weights":
        colour = {"colorscale": WEIGHTS_SCALE, "zmin": 0.0, "zmax": 1.0}
    else:
        bound = bound or float(np.abs(matrix).max()) or 1.0
        colour = {"colorscale": SIGNED_SCALE, "zmin": -bound, "zmax": bound, "zmid": 0.0}
    trace = {
        "type": "heatmap", "z": matrix, "x": cols, "y": rows, **colour,
        "textfont": {"size": sizes["cell"]},
        "hovertemplate": f"{html.escape(y_title)}: %{{y}}<br>{html.escape(x_title)}: %{{x}}<br>"
                         f"value: %{{z:.4f}}<extra></extra>",
        "colorbar": {"thickness": 12, "tickfont": {"size": sizes["tick"] - 2 if teaching else 11}},
        "xgap": 1 if show_values else 0, "ygap": 1 if show_values else 0,
    }
    if show_values:
        trace["texttemplate"] = f"%{{z:.{decimals}f}}"
    shapes = [_row_outline(highlight_row)] if highlight_row is not None and 0 <= highlight_row < matrix.shape[0] else []
    side = max(matrix.shape[0], 3)
    # Rows tall enough for their label; ≤ 14 tokens in teaching mode still fit a 720 px slide.
    row_px = 36 if teaching else 30
    height = int(min(900, 140 + side * row_px)) if col_tokens is not None else \
        int(min(700, 140 + side * (30 if teaching else 26)))
    xaxis = {"title": _axis_title(x_title), "type": "category" if col_tokens is not None else "linear"}
    if column_groups and col_tokens is None and matrix.shape[1] > column_groups:
        n_groups = matrix.shape[1] // column_groups
        edges = [g * column_groups - 0.5 for g in range(1, n_groups)]
        shapes += [{"type": "line", "xref": "x", "yref": "paper", "x0": e, "x1": e, "y0": 0, "y1": 1,
                    "line": {"color": "white", "width": 2}} for e in edges]
        xaxis.update(tickmode="array", tickvals=[(g + 0.5) * column_groups - 0.5 for g in range(n_groups)],
                     ticktext=[f"H{g}" for g in range(n_groups)], ticks="", showgrid=False, zeroline=False)
    return _figure([trace], title, teaching, height, top_axis=True,
                   yaxis=_reversed_category_axis(title=_axis_title(y_title)), xaxis=xaxis, shapes=shapes)


def row_bars(values, tokens, title: str, teaching: bool = False, percent: bool = True, highlight: int | None = None):
    """One row of a matrix as bars, one per token (the read-out beside a heatmap)."""
    values = np.asarray(values, dtype=np.float32)
    trace = {
        "type": "bar", "x": axis_labels(tokens), "y": values,
        "marker": {"color": [HIGHLIGHT if i == highlight else "#3b82f6" for i in range(len(values))]},
        "textposition": "outside", "hovertemplate": "%{x}: %{y:.4f}<extra></extra>",
    }
    if len(values) <= 24:
        trace["text"] = [f"{100 * v:.0f}%" if percent else f"{v:.2f}" for v in values]
    yaxis = {"range": [0, 1.1], "tickformat": ".0%"} if percent else {}
    return _figure([trace], title, teaching, 360, xaxis=_category_axis(), yaxis=yaxis)


def compare_bars(series: dict[str, np.ndarray], tokens, title: str, teaching: bool = False, percent: bool = True):
    """Several rows side by side (e.g. softmax with and without scaling)."""
    labels = axis_labels(tokens)
    traces = [{"type": "bar", "name": html.escape(name), "x": labels, "y": np.asarray(v, dtype=np.float32),
               "hovertemplate": "%{x}: %{y:.4f}<extra>" + html.escape(name) + "</extra>"}
              for name, v in series.items()]
    yaxis = {"range": [0, 1.05], "tickformat": ".0%"} if percent else {}
    return _figure(traces, title, teaching, 380, barmode="group", legend={"orientation": "h", "y": -0.2},
                   xaxis=_category_axis(), yaxis=yaxis)


# A marker on each point while points are few (6 layers, 8 values of d_k); a training curve of 151 or 301 steps
# is a plain line: a dot per step blurred it into a beaded band and made the browser draw 2,000 more shapes.
MAX_MARKED_POINTS = 40


def line_chart(x, series: dict[str, np.ndarray], title: str, x_title: str, y_title: str,
               teaching: bool = False, log_x: bool = False):
    x = list(x)
    mode = "lines+markers" if len(x) <= MAX_MARKED_POINTS else "lines"
    traces = [{"type": "scatter", "x": x, "y": np.asarray(v, dtype=np.float64), "mode": mode,
               "name": html.escape(name)} for name, v in series.items()]
    return _figure(traces, title, teaching, 380, legend={"orientation": "h", "y": -0.25},
                   xaxis={"title": _axis_title(x_title), "type": "log" if log_x else "linear"},
                   yaxis={"title": _axis_title(y_title)})


def layer_head_grid(values, title: str, teaching: bool = False, highlight: tuple[int, int] | None = None,
                    zmid: float = 0.0, bound: float | None = None, colorbar_title: str = "",
                    text_format: str = "%{z:.2f}"):
    """A layers × heads grid, diverging around 'no preference'."""
    values = np.asarray(values, dtype=np.float32)
    bound = bound or float(np.nanmax(np.abs(values - zmid))) or 1.0
    n_layers, n_heads = values.shape
    trace = {
        "type": "heatmap", "z": values, "x": [f"H{h}" for h in range(n_heads)],
        "y": [f"L{layer}" for layer in range(n_layers)],
        "colorscale": PREFERENCE_SCALE, "zmid": zmid, "zmin": zmid - bound, "zmax": zmid + bound,
        "texttemplate": text_format, "textfont": {"size": 14 if teaching else 11},
        "hovertemplate": "layer %{y}, head %{x}: %{z:.3f}<extra></extra>", "xgap": 1, "ygap": 1,
        "colorbar": {"thickness": 12, "title": {"text": html.escape(colorbar_title)}},
    }
    shapes = []
    if highlight is not None:
        layer, head = highlight
        shapes.append({"type": "rect", "x0": head - 0.5, "x1": head + 0.5, "y0": layer - 0.5, "y1": layer + 0.5,
                       "line": {"color": HIGHLIGHT, "width": 3}})
    return _figure([trace], title, teaching, 150 + 48 * n_layers, top_axis=True,
                   yaxis=_reversed_category_axis(title=_axis_title("layer")),
                   xaxis=_category_axis(title=_axis_title("head")), shapes=shapes)


def _grid_domains(count: int, spacing: float) -> list[tuple[float, float]]:
    """Equal cells along one side of a subplot grid, as plotly's make_subplots lays them out."""
    size = (1 - spacing * (count - 1)) / count
    return [(i * (size + spacing), i * (size + spacing) + size) for i in range(count)]


def small_multiples(matrices, tokens, titles, title: str, columns: int = 4, teaching: bool = False):
    """One small heatmap per head, shared colour scale 0..1, tokens on the axes."""
    n = len(matrices)
    rows = (n + columns - 1) // columns
    labels = axis_labels(tokens)
    show_ticks = len(tokens) <= 20
    tick_size = 11 if teaching else 9
    # Upright token labels under each heatmap need vertical room between the grid rows.
    x_domains = _grid_domains(columns, 0.03)
    # Between grid rows: the upright token labels of the row above and the head titles of the row below.
    label_px = int(0.62 * tick_size * max(len(label) for label in labels)) if show_ticks and labels else 0
    gap_px = label_px + 30
    per_row = 230 + gap_px
    top_room = 28 / (per_row * rows)  # the first row's head titles sit above it, under the figure's title
    y_domains = [(low * (1 - top_room), high * (1 - top_room))
                 for low, high in _grid_domains(rows, gap_px / (per_row * rows))[::-1]]  # first row on top
    traces, axes, subplot_titles = [], {}, []
    for i, matrix in enumerate(matrices):
        suffix = "" if i == 0 else str(i + 1)
        row, column = divmod(i, columns)
        traces.append({"type": "heatmap", "z": np.asarray(matrix, dtype=np.float32), "x": labels, "y": labels,
                       "colorscale": WEIGHTS_SCALE, "zmin": 0, "zmax": 1, "showscale": i == 0,
                       "colorbar": {"thickness": 10}, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}",
                       "hovertemplate": f"{html.escape(titles[i])}<br>%{{y}} → %{{x}}: %{{z:.3f}}<extra></extra>"})
        axes[f"xaxis{suffix}"] = _category_axis(domain=list(x_domains[column]), anchor=f"y{suffix}",
                                                showticklabels=show_ticks, tickfont={"size": tick_size},
                                                tickangle=-90)
        # Every head has the same rows: labelling them once, left of the grid, keeps them off the neighbour.
        inner = {"showticklabels": False, "ticks": ""} if column else {"showticklabels": show_ticks}
        axes[f"yaxis{suffix}"] = _reversed_category_axis(domain=list(y_domains[row]), anchor=f"x{suffix}",
                                                         tickfont={"size": tick_size}, **inner)
        subplot_titles.append({"text": html.escape(titles[i]), "showarrow": False,
                               "font": {"size": 16 if teaching else 13, "color": TICK_COLOUR},
                               "xref": "paper", "yref": "paper", "xanchor": "center", "yanchor": "bottom",
                               "x": sum(x_domains[column]) / 2, "y": y_domains[row][1]})
    return _figure(traces, title, teaching, per_row * rows + 80, annotations=subplot_titles, **axes)


def similarity_map(matrix, labels, title: str, teaching: bool = False):
    trace = {"type": "heatmap", "z": np.asarray(matrix, dtype=np.float32), "x": labels, "y": labels,
             "colorscale": DISTANCE_SCALE, "zmin": 0, "hovertemplate": "%{y} vs %{x}: %{z:.3f}<extra></extra>",
             "colorbar": {"thickness": 12, "title": {"text": "distance"}}}
    return _figure([trace], title, teaching, 520, yaxis=_reversed_category_axis(), xaxis=_category_axis())


def download_config(filename: str, teaching: bool = False) -> dict:
    """Plotly's camera button: a 3× PNG with a name that says what it is (SVG_EXPORT_HTML adds the SVG button)."""
    config = {
        "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 3},
        "displaylogo": False,
    }
    # A short toolbar stays inside the band above the title even on a half-width figure.
    config["modeBarButtonsToRemove"] = ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "pan2d"]
    if teaching:
        config["modeBarButtonsToRemove"] += ["zoom2d", "resetScale2d"]
    return config


def figure_filename(step: str, sentence: str, view_code: str) -> str:
    return f"{slug(step, 24)}_{slug(sentence)}_{slug(view_code, 24, lower=False)}"


def show(fig: go.Figure, filename: str, teaching: bool = False, key: str | None = None) -> None:
    import streamlit as st

    st.plotly_chart(fig, config=download_config(filename, teaching), key=key)


# --- added for issue 15: one query meets every key, the softmax arithmetic, token lines ---------------

def query_meets_keys(products, scores, key_tokens, query_token: str, title: str, teaching: bool = False):
    """Left: q × k number by number, one row per key; right: each row's sum, the step-1 score."""
    products = np.asarray(products, dtype=np.float32)
    scores = np.asarray(scores, dtype=np.float32)
    labels = axis_labels(key_tokens)
    query = html.escape(str(query_token), quote=False)
    bound = float(np.abs(products).max()) or 1.0
    heat = {"type": "heatmap", "z": products, "x": list(range(products.shape[1])), "y": labels,
            "colorscale": SIGNED_SCALE, "zmin": -bound, "zmax": bound, "zmid": 0.0, "xaxis": "x", "yaxis": "y",
            "colorbar": {"thickness": 10, "x": 0.66, "title": {"text": "q×k"}},
            "hovertemplate": f"q({query}) × k(%{{y}}), number %{{x}}: %{{z:.3f}}<extra></extra>"}
    bars = {"type": "bar", "orientation": "h", "x": scores, "y": labels, "xaxis": "x2", "yaxis": "y2",
            "marker": {"color": ["#dc2626" if v >= 0 else "#2563eb" for v in scores]},
            "text": [f"{v:.2f}" for v in scores], "textposition": "auto",
            "hovertemplate": "score with %{y}: %{x:.4f}<extra></extra>"}
    height = int(min(900, 160 + max(len(labels), 3) * (34 if teaching else 26)))
    return _figure([heat, bars], title, teaching, height, top_axis=True,
                   xaxis={"domain": [0.0, 0.62], "side": "top",
                          "title": _axis_title(f"the {products.shape[1]} numbers: q({query})ᵢ × kᵢ")},
                   yaxis=_reversed_category_axis(title=_axis_title("key token")),
                   xaxis2={"domain": [0.76, 1.0], "anchor": "y2", "side": "top", "zeroline": True,
                           "title": _axis_title("sum = score")},
                   yaxis2=_reversed_category_axis(anchor="x2", showticklabels=False))


def softmax_table(arithmetic, key_tokens, columns, title: str, teaching: bool = False, highlight: int | None = None):
    """One row's softmax, column by column; the last column is the row of attention weights."""
    arithmetic = np.asarray(arithmetic, dtype=np.float64)
    cells = [axis_labels(key_tokens)] + [[f"{v:.4f}" for v in arithmetic[:, c]] for c in range(arithmetic.shape[1])]
    fill = [["#fde68a" if r == highlight else "white" for r in range(len(key_tokens))]] * len(cells)
    size = 16 if teaching else 13
    row_height = 30 if teaching else 26
    trace = {"type": "table", "columnwidth": [1.4] + [1.0] * arithmetic.shape[1],
             "header": {"values": ["key token"] + [html.escape(c) for c in columns], "align": "center",
                        "fill": {"color": "#e5e7eb"}, "font": {"size": size}, "height": row_height + 8},
             "cells": {"values": cells, "align": ["left"] + ["right"] * arithmetic.shape[1],
                       "fill": {"color": fill}, "font": {"size": size}, "height": row_height}}
    # Tall enough that plotly never scrolls inside the table (a screenshot would cut rows off).
    height = int(130 + (len(key_tokens) + 2) * row_height)
    return _figure([trace], title, teaching, height)


def token_lines(weights, query_tokens, key_tokens, title: str, selected: int | None = None, teaching: bool = False,
                min_weight: float = 0.02):
    """BertViz's head view in plotly: queries left, keys right, one line per weight (width and opacity = weight).

    The selected query's lines are drawn in the highlight colour; the others faint, and only above min_weight
    so a long sentence stays readable.
    """
    weights = np.asarray(weights, dtype=np.float64)
    n_q, n_k = weights.shape
    shapes = []
    for i in range(n_q):
        mine = i == selected
        for j in range(n_k):
            w = weights[i, j]
            if w < (0.005 if mine else min_weight) or (selected is not None and not mine and w < 0.1):
                continue
            shapes.append({"type": "line", "xref": "x", "yref": "y", "x0": 0.08, "x1": 0.92, "y0": i, "y1": j,
                           "line": {"color": HIGHLIGHT if mine else "#3b82f6", "width": 1 + 9 * w},
                           "opacity": float(min(1.0, 0.15 + w)) if mine else float(0.1 + 0.4 * w),
                           "layer": "below"})
    size = 18 if teaching else 13
    left = {"type": "scatter", "mode": "text", "x": [0.0] * n_q, "y": list(range(n_q)),
            "text": [f"<b>{t}</b>" if i == selected else t for i, t in enumerate(axis_labels(query_tokens))],
            "textposition": "middle left", "textfont": {"size": size}, "hoverinfo": "skip"}
    right_text = axis_labels(key_tokens)
    hover = [f"{right_text[j]}: {weights[selected, j]:.1%} of the attention of the selected token"
             if selected is not None else right_text[j] for j in range(n_k)]
    right = {"type": "scatter", "mode": "text", "x": [1.0] * n_k, "y": list(range(n_k)), "text": right_text,
             "textposition": "middle right", "textfont": {"size": size}, "hovertext": hover, "hoverinfo": "text"}
    height = int(min(1000, 120 + max(n_q, n_k, 3) * (34 if teaching else 26)))
    return _figure([left, right], title, teaching, height, showlegend=False, shapes=shapes,
                   xaxis={"range": [-0.9, 1.9], "visible": False, "fixedrange": True},
                   yaxis={"range": [max(n_q, n_k) - 0.5, -1.4], "visible": False, "fixedrange": True},
                   annotations=[{"text": "looking (query)", "x": 0.0, "y": -0.9, "xanchor": "right",
                                 "showarrow": False, "xref": "x", "yref": "y", "font": {"color": "#6b7280"}},
                                {"text": "looked at (key)", "x": 1.0, "y": -0.9, "xanchor": "left",
                                 "showarrow": False, "xref": "x", "yref": "y", "font": {"color": "#6b7280"}}])


def weight_grid(values, title: str, teaching: bool = False, highlight: tuple[int, int] | None = None,
                colorbar_title: str = ""):
    """A layers × heads grid of attention weights: one colour from 0 (white) up, no 'negative' half."""
    values = np.asarray(values, dtype=np.float32)
    top = max(float(np.nanmax(values)), 0.01)
    fig = layer_head_grid(values, title, teaching, highlight, zmid=top / 2, bound=top / 2,
                          colorbar_title=colorbar_title)
    trace = fig.to_dict()["data"][0]
    trace.update(colorscale=WEIGHTS_SCALE, zmin=0.0, zmax=top)
    trace.pop("zmid", None)
    return go.Figure({"data": [trace], "layout": fig.to_dict()["layout"]}, _validate=False)


# Plotly's toolbar has one download format per figure, and Streamlit passes its config as JSON, so a
# second button (a JS function) cannot travel in it. This script, run once in the page, adds an "SVG" button
# beside every camera button: it switches that figure's own download options to SVG for one click and lets
# plotly export it, so the file keeps the figure's name (…_L0H3.svg) and is drawn in the browser (no
# server-side renderer, which would need a Chrome on the hosted demo).
SVG_EXPORT_HTML = """<style>.js-plotly-plot .modebar {display: flex; flex-wrap: nowrap;}</style><script>
(() => {
  if (window.__svgExportButtons) return;
  window.__svgExportButtons = true;
  const SVG_NS = 'http://www.w3.org/2000/svg';
  function icon() {  // built node by node: the page's HTML sanitizer drops a script that holds markup text
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', '0 0 30 16');
    svg.setAttribute('width', '30');
    svg.setAttribute('height', '16');
    svg.style.cssText = 'display: block; margin-top: 3px;';
    const label = document.createElementNS(SVG_NS, 'text');
    const attributes = {x: '15', y: '12.5', 'text-anchor': 'middle', 'font-size': '11', 'font-weight': '700',
                        'font-family': 'sans-serif', fill: 'currentColor'};
    for (const name in attributes) label.setAttribute(name, attributes[name]);
    label.textContent = 'SVG';
    svg.appendChild(label);
    return svg;
  }
  function addButton(plot) {
    const camera = plot.querySelector('.modebar-btn[data-title^="Download plot"]');
    if (!camera || camera.parentNode.querySelector('[data-svg-export]')) return;
    const button = document.createElement('a');
    button.className = 'modebar-btn';
    button.setAttribute('rel', 'tooltip');
    button.setAttribute('data-title', 'Download as SVG (vector: sharp at any size)');
    button.setAttribute('data-svg-export', '1');
    button.style.cssText = 'color: rgba(68, 68, 68, 0.6); display: inline-block; height: 22px; line-height: 0;';
    button.appendChild(icon());
    button.addEventListener('click', (event) => {
      event.preventDefault();
      const options = plot._context && plot._context.toImageButtonOptions;
      if (!options) return;
      const format = options.format;
      options.format = 'svg';  // plotly copies the options when clicked, so restoring right after is safe
      try { camera.dispatchEvent(new MouseEvent('click', {bubbles: true})); } finally { options.format = format; }
    });
    camera.parentNode.insertBefore(button, camera.nextSibling);
  }
  let queued = false;
  const scan = () => {
    queued = false;
    document.querySelectorAll('.js-plotly-plot').forEach(addButton);
  };
  new MutationObserver(() => {
    if (!queued) { queued = true; requestAnimationFrame(scan); }
  }).observe(document.body, {childList: true, subtree: true});
  scan();
})();
</script>"""


# The Training lab's comparison: a colour per way of training, a shaded band from the lowest to the highest seed.
BAND_COLOURS = ("#1f5fa8", "#c0392b", "#222222")


def band_panels(x, panels: dict[str, dict[str, tuple]], title: str, x_title: str, y_title: str,
                teaching: bool = False, log_y: bool = True):
    """Side-by-side line charts sharing one y axis: panels {panel title: {series name: (mean, low, high)}}, each
    series a line (its mean over seeds) in a shaded band (low to high); a series with low = high = None is a
    dotted line alone. The same series name has the same colour and one legend entry in every panel."""
    x = np.asarray(list(x))
    domains = _grid_domains(len(panels), 0.04)
    names = list(dict.fromkeys(name for series in panels.values() for name in series))
    traces, axes, annotations = [], {}, []
    for index, (panel_title, series) in enumerate(panels.items()):
        suffix = "" if index == 0 else str(index + 1)
        for name, (mean, low, high) in series.items():
            colour = BAND_COLOURS[names.index(name) % len(BAND_COLOURS)]
            where = {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}", "legendgroup": html.escape(name)}
            if low is not None:
                red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
                traces.append({"type": "scatter", "x": x, "y": np.asarray(low, dtype=np.float64), "mode": "lines",
                               "line": {"width": 0}, "showlegend": False, "hoverinfo": "skip", **where})
                traces.append({"type": "scatter", "x": x, "y": np.asarray(high, dtype=np.float64), "mode": "lines",
                               "line": {"width": 0}, "fill": "tonexty", "showlegend": False, "hoverinfo": "skip",
                               "fillcolor": f"rgba({red}, {green}, {blue}, 0.22)", **where})
            traces.append({"type": "scatter", "x": x, "y": np.asarray(mean, dtype=np.float64), "mode": "lines",
                           "name": html.escape(name), "showlegend": index == 0,
                           "line": {"color": colour, "width": 2, "dash": "dot" if low is None else "solid"},
                           "hovertemplate": f"{html.escape(name)}<br>step %{{x}}: %{{y:.4f}}<extra></extra>",
                           **where})
        axes[f"xaxis{suffix}"] = {"domain": list(domains[index]), "anchor": f"y{suffix}",
                                  "title": _axis_title(x_title)}
        axes[f"yaxis{suffix}"] = {"anchor": f"x{suffix}", "type": "log" if log_y else "linear",
                                  **({"title": _axis_title(y_title)} if index == 0 else
                                     {"matches": "y", "showticklabels": False})}
        annotations.append({"text": html.escape(panel_title), "showarrow": False, "xref": "paper", "yref": "paper",
                            "xanchor": "center", "yanchor": "bottom", "x": sum(domains[index]) / 2, "y": 1.0,
                            "font": {"size": 16 if teaching else 13, "color": TICK_COLOUR}})
    return _figure(traces, title, teaching, 400, legend={"orientation": "h", "y": -0.3},
                   annotations=annotations, **axes)
