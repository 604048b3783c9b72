"""Heatmaps and grids: a matrix, a layer × head grid, small multiples, a query against every key, softmax's sums."""

from __future__ import annotations

import html
import textwrap

import numpy as np
import plotly.graph_objects as go

from ui.content import words
from ui.text import head_tag, layer_tag
from ui.figures.layout import (CELL_TEXT_LIMIT, DISTANCE_SCALE, FOCUS_FROM, HIGHLIGHT, PREFERENCE_SCALE, SIGNED_SCALE,
                     TEACHING_CELL_TEXT_LIMIT, TICK_COLOUR, WEIGHTS_SCALE, _axis_title, _category_axis, _figure,
                     _grid_domains, _reversed_category_axis, _row_outline, axis_labels, focus_rows, font_sizes,
                     values_fit)


def matrix_heatmap(matrix, row_tokens, col_tokens, title: str, kind: str = "weights",
                   highlight_row: int | None = None, teaching: bool = False,
                   x_title: str | None = None, y_title: str | None = None,
                   value_limit: int | None = None, column_groups: int | None = None, bound: float | None = None,
                   last_column: str | None = None):
    """A matrix with tokens on the axes. kind: 'weights' (0..1), 'signed' (diverging at 0) or 'vectors'.

    value_limit: the most tokens a side with values written in the cells (lower it for a half-width figure).
    column_groups: for a wide vector matrix made of equal blocks (the 12 heads' 32 numbers each), the block
    width: the blocks are separated by white lines and the axis names the blocks (H1, H2, …) instead of
    384 column numbers.
    bound: the colour range ±bound for signed/vector kinds (shared by figures that must compare); default
    the matrix's own largest magnitude.
    last_column: what the last column is when it is not one token (the hidden [CLS]/[SEP]: their scores' larger
    one, or their weights added up), said in the figure itself: under the axis, and a dashed line sets it apart.
    """
    matrix = np.asarray(matrix, dtype=np.float32)  # float32 keeps the page's payload small
    x_short = words("figures.axis_key_short") if x_title is None else x_title.split(" (")[0]
    y_short = words("figures.axis_query_short") if y_title is None else y_title.split(" (")[0]
    x_title = words("figures.axis_key") if x_title is None else x_title
    y_title = words("figures.axis_query") if y_title is None else y_title
    rows = axis_labels(row_tokens)
    if kind != "weights":
        bound = bound or float(np.abs(matrix).max()) or 1.0  # the whole matrix's range, also in a focus view
    if teaching and highlight_row is not None and matrix.shape[0] >= FOCUS_FROM:
        kept = focus_rows(matrix.shape[0], highlight_row)
        # Short: an upright axis title longer than the 11 rows would run into the subtitle.
        y_title = words("figures.axis_rows_shown", axis=y_short, first=kept.start + 1, last=kept.stop,
                        n=matrix.shape[0])
        matrix, rows = matrix[kept.start:kept.stop], rows[kept.start:kept.stop]
        highlight_row -= kept.start
    # a vector's numbers counted from 1, as people count (the dimension axis of Q, K, V and outputs)
    cols = axis_labels(col_tokens) if col_tokens is not None else list(range(1, matrix.shape[1] + 1))
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
        colour = {"colorscale": SIGNED_SCALE, "zmin": -bound, "zmax": bound, "zmid": 0.0}
    trace = {
        "type": "heatmap", "z": matrix, "x": cols, "y": rows, **colour,
        "textfont": {"size": sizes["cell"]},
        # plotly's %{…} in code: the pseudo-language would accent their letters
        "hovertemplate": f"{html.escape(y_title)}: %{{y}}<br>{html.escape(x_title)}: %{{x}}<br>"
                         f"{words('figures.hover_value')}: %{{z:.4f}}<extra></extra>",
        "colorbar": {"thickness": 12},
        "xgap": 1 if show_values else 0, "ygap": 1 if show_values else 0,
    }
    if show_values:
        trace["texttemplate"] = f"%{{z:.{decimals}f}}"
    shapes = [_row_outline(highlight_row)] if highlight_row is not None and 0 <= highlight_row < matrix.shape[0] else []
    side = max(matrix.shape[0], 3)
    # Rows tall enough for their 18 px label; ≤ 14 tokens in teaching mode still fit a 720 px slide under a title
    # whose subtitle takes two lines (the sentence, and the head named "layer 2, head 9").
    row_px = 33 if teaching else 30
    # On a slide every row keeps its 18 px label: a long matrix without a selected row grows past 720 px.
    height = int(min(1700 if teaching else 900, 140 + side * row_px)) if col_tokens is not None else \
        int(min(1700 if teaching else 700, 140 + side * (30 if teaching else 26)))
    if last_column and col_tokens is not None:
        x_title = words("figures.axis_last_column", axis=x_short, last_column=last_column)  # a phone holds it
        shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": matrix.shape[1] - 1.5,
                       "x1": matrix.shape[1] - 1.5, "y0": 0, "y1": 1,
                       "line": {"color": "#4b5563", "width": 2, "dash": "dash"}})
    xaxis = {"title": _axis_title(x_title), "type": "category" if col_tokens is not None else "linear"}
    if column_groups and col_tokens is None and matrix.shape[1] > column_groups:
        n_groups = matrix.shape[1] // column_groups
        edges = [g * column_groups + 0.5 for g in range(1, n_groups)]  # x counts from 1
        shapes += [{"type": "line", "xref": "x", "yref": "paper", "x0": e, "x1": e, "y0": 0, "y1": 1,
                    "line": {"color": "white", "width": 2}} for e in edges]
        xaxis.update(tickmode="array", tickvals=[(g + 0.5) * column_groups + 0.5 for g in range(n_groups)],
                     ticktext=[head_tag(g) for g in range(n_groups)], ticks="", showgrid=False, zeroline=False)
    return _figure([trace], title, teaching, height, top_axis=True,
                   yaxis=_reversed_category_axis(title=_axis_title(y_title)), xaxis=xaxis, shapes=shapes)


def layer_head_grid(values, title: str, teaching: bool = False, highlight: tuple[int, int] | None = None,
                    zmid: float = 0.0, bound: float | None = None, colorbar_title: str = "",
                    text_format: str = "%{z:.2f}"):
    """A layers × heads grid, diverging around 'no preference'."""
    values = np.asarray(values, dtype=np.float32)
    bound = bound or float(np.nanmax(np.abs(values - zmid))) or 1.0
    n_layers, n_heads = values.shape
    trace = {
        "type": "heatmap", "z": values, "x": [head_tag(h) for h in range(n_heads)],
        "y": [layer_tag(layer) for layer in range(n_layers)],
        "colorscale": PREFERENCE_SCALE, "zmid": zmid, "zmin": zmid - bound, "zmax": zmid + bound,
        "texttemplate": text_format, "textfont": {"size": font_sizes(teaching)["cell"] if teaching else 11},
        "hovertemplate": "%{y} %{x}: %{z:.3f}<extra></extra>", "xgap": 1, "ygap": 1,
        "colorbar": {"thickness": 12, "title": {"text": html.escape(colorbar_title)}},
    }
    shapes = []
    if highlight is not None:
        layer, head = highlight
        shapes.append({"type": "rect", "x0": head - 0.5, "x1": head + 0.5, "y0": layer - 0.5, "y1": layer + 0.5,
                       "line": {"color": HIGHLIGHT, "width": 3}})
    return _figure([trace], title, teaching, 150 + 48 * n_layers, top_axis=True,
                   yaxis=_reversed_category_axis(title=_axis_title(words("figures.axis_layer"))),
                   xaxis=_category_axis(title=_axis_title(words("figures.axis_head"))), shapes=shapes)


# The width a slide gives a figure (1280 px screen, the page's padding): multi-head panels a row in teaching mode.
SLIDE_FIGURE_WIDTH = 1200


def on_a_phone() -> bool:
    """Whether the visitor's browser says it is a phone ("Mobi" in its User-Agent, the usual test). The server
    cannot know the screen's width, and Streamlit keeps a drawn figure's height, so a figure that needs another
    shape on a phone (small multiples: two panels a row, more rows) is built for it on the server."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        # A file built on click (the walk-through's HTML) is built in another thread, for a computer: no browser
        # to ask there, and asking st.context logged a "missing ScriptRunContext" warning per frame (~45 a file).
        if get_script_run_ctx(suppress_warning=True) is None:
            return False
        import streamlit as st

        return "Mobi" in (st.context.headers.get("User-Agent") or "")
    except Exception:  # no browser behind this run (a test, a bare script)
        return False


def small_multiples(matrices, tokens, titles, title: str, columns: int = 4, teaching: bool = False,
                    selected: int | None = None, key_tokens=None):
    """One small heatmap per head, shared colour scale 0..1, tokens on the axes (key_tokens: the columns when they
    are not the rows, e.g. the words and the hidden markers' one column).

    Teaching mode keeps every token's 18 px label: fewer panels a row, each tall enough; from FOCUS_FROM tokens
    on (given the selected token) a focus view instead: the selected token's row in every head, one head a row.
    """
    if teaching and selected is not None and len(tokens) >= FOCUS_FROM:
        token = html.escape(str(tokens[selected]), quote=False)
        return matrix_heatmap(np.stack([np.asarray(m)[selected] for m in matrices]), titles,
                              key_tokens or tokens, title, kind="weights", teaching=True,
                              x_title=words("figures.axis_key"), y_title=words("figures.axis_head_row", token=token))
    n = len(matrices)
    labels = axis_labels(tokens)
    keys = axis_labels(key_tokens) if key_tokens is not None else labels
    show_ticks = teaching or len(keys) <= 20
    tick_size = font_sizes(True)["tick"] if teaching else 9
    panel_px = 230
    if teaching:  # a row of labels at 18 px needs ~24 px per token
        columns = max(1, min(columns, SLIDE_FIGURE_WIDTH // (len(keys) * 24 + 90)))
        panel_px = max(panel_px, len(keys) * 24)
    narrow = not teaching and on_a_phone()
    if narrow:  # two panels a row, each title wrapped to its ~170 px
        columns = min(columns, 2)
    panel_titles = [(textwrap.wrap(t, 20) if narrow else [t]) or [t] for t in titles]
    # Between grid rows: the upright token labels of the row above and the head titles of the row below.
    label_px = int(0.62 * tick_size * max(len(label) for label in keys)) if show_ticks and keys else 0
    gap_px = label_px + (40 if teaching else 30) + (16 if narrow else 0)
    rows, x_domains, y_domains, per_row = _multiples_grid(n, columns, gap_px, panel_px)
    traces, axes, subplot_titles = [], {}, []
    for i, matrix in enumerate(matrices):
        suffix = "" if i == 0 else str(i + 1)
        row, column = divmod(i, columns)
        traces.append({"type": "heatmap", "z": np.asarray(matrix, dtype=np.float32), "x": keys, "y": labels,
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
        subplot_titles.append({"text": "<br>".join(html.escape(line) for line in panel_titles[i]), "showarrow": False,
                               "font": {"size": 18 if teaching else 13, "color": TICK_COLOUR},
                               "xref": "paper", "yref": "paper", "xanchor": "center", "yanchor": "bottom",
                               "x": sum(x_domains[column]) / 2, "y": y_domains[row][1]})
    return _figure(traces, title, teaching, per_row * rows + 80, annotations=subplot_titles, **axes)


def _multiples_grid(n: int, columns: int, gap_px: int, panel_px: int):
    """(grid rows, x domains, y domains top row first, pixels a grid row) of n panels, `columns` a row."""
    rows = (n + columns - 1) // columns
    x_domains = _grid_domains(columns, 0.03)
    per_row = panel_px + gap_px
    top_room = 28 / (per_row * rows)  # the first row's head titles sit above it, under the figure's title
    y_domains = [(low * (1 - top_room), high * (1 - top_room))
                 for low, high in _grid_domains(rows, gap_px / (per_row * rows))[::-1]]  # first row on top
    return rows, x_domains, y_domains, per_row


def similarity_map(matrix, labels, title: str, teaching: bool = False):
    trace = {"type": "heatmap", "z": np.asarray(matrix, dtype=np.float32), "x": labels, "y": labels,
             "colorscale": DISTANCE_SCALE, "zmin": 0, "hovertemplate": "%{y} vs %{x}: %{z:.3f}<extra></extra>",
             "colorbar": {"thickness": 12, "title": {"text": words("figures.distance")}}}
    return _figure([trace], title, teaching, 520, yaxis=_reversed_category_axis(), xaxis=_category_axis())


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
            "hovertemplate": f"q({query}) × k(%{{y}}), {words('figures.hover_number')} %{{x}}: %{{z:.3f}}"
                             "<extra></extra>"}
    bars = {"type": "bar", "orientation": "h", "x": scores, "y": labels, "xaxis": "x2", "yaxis": "y2",
            "marker": {"color": ["#dc2626" if v >= 0 else "#2563eb" for v in scores]},
            "hovertemplate": f"{words('figures.hover_score_with')} %{{y}}: %{{x:.4f}}<extra></extra>"}
    # On a slide every key keeps its 18 px label: the figure grows past a screen's height rather than thin them.
    height = int(min(1600 if teaching else 900, 160 + max(len(labels), 3) * (34 if teaching else 26)))
    # A phone's narrow panel (inside a "More detail" box, narrower still): short axis titles, three sum ticks.
    phone = on_a_phone()
    sums_axis = {"domain": [0.76, 1.0], "anchor": "y2", "side": "top", "zeroline": True,
                 "title": _axis_title(words("figures.axis_score") if phone else words("figures.axis_sum_score"))}
    if phone:
        sums_axis["nticks"] = 3
    return _figure([heat, bars], title, teaching, height, top_axis=True,
                   xaxis={"domain": [0.0, 0.62], "side": "top",
                          "title": _axis_title(f"q({query})ᵢ × kᵢ" if phone else
                                               words("figures.axis_products", n=products.shape[1], query=query))},
                   yaxis=_reversed_category_axis(title=_axis_title(words("figures.axis_key_short"))),
                   xaxis2=sums_axis,
                   # Each sum as a tick label right of its bar: the margin grows for it, so it is never cut (as
                   # text on a bar it was, on a phone: "25.95" drawn as "2").
                   yaxis2=_reversed_category_axis(anchor="x2", side="right", tickmode="array", tickvals=labels,
                                                  ticktext=[f"{v:.2f}" for v in scores]),
                   meta={"value_ticks": ["yaxis2"]})


def softmax_table(arithmetic, key_tokens, columns, title: str, teaching: bool = False, highlight: int | None = None):
    """One row's softmax, column by column; the last column is the row of attention weights."""
    arithmetic = np.asarray(arithmetic, dtype=np.float64)
    cells = [axis_labels(key_tokens)] + [[f"{v:.4f}" for v in arithmetic[:, c]] for c in range(arithmetic.shape[1])]
    fill = [["#fde68a" if r == highlight else "white" for r in range(len(key_tokens))]] * len(cells)
    size = 18 if teaching else 13
    row_height = 32 if teaching else 26
    phone = not teaching and on_a_phone()
    # On a phone each column is ~60 px: the headers wrap over up to four lines, and the title over more lines
    # within the same height (Streamlit keeps a drawn figure's height), which cut the last row off.
    header_height = 4 * 17 if phone else row_height + 8
    # Dark text (plotly's default, inherited from Streamlit's theme, was grey rgb(128,132,149): 3.7:1 on white).
    font = {"size": size, "color": TICK_COLOUR}
    trace = {"type": "table", "columnwidth": [1.4] + [1.0] * arithmetic.shape[1],
             "header": {"values": [words("figures.axis_key_short")] + [html.escape(c) for c in columns],
                        "align": "center",
                        "fill": {"color": "#e5e7eb"}, "font": font, "height": header_height},
             "cells": {"values": cells, "align": ["left"] + ["right"] * arithmetic.shape[1],
                       "fill": {"color": fill}, "font": font, "height": row_height}}
    # Tall enough that plotly never scrolls inside the table (a screenshot would cut rows off).
    height = int(130 + (len(key_tokens) + 1) * row_height + header_height + (60 if phone else 0))
    return _figure([trace], title, teaching, height)


def weight_grid(values, title: str, teaching: bool = False, highlight: tuple[int, int] | None = None,
                colorbar_title: str = ""):
    """A layers × heads grid of attention weights: one colour from 0 (white) up, no 'negative' half."""
    values = np.asarray(values, dtype=np.float32)
    top = max(float(np.nanmax(values)), 0.01)
    fig = layer_head_grid(values, title, teaching, highlight, zmid=top / 2, bound=top / 2,
                          colorbar_title=colorbar_title)
    trace = dict(fig._data[0])  # the builder's own spec: to_dict() would turn z into a base64 typed array
    trace.update(colorscale=WEIGHTS_SCALE, zmin=0.0, zmax=top)
    trace.pop("zmid", None)
    return go.Figure({"data": [trace], "layout": fig._layout}, _validate=False)
