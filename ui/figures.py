"""Every figure the app draws. Pages call these and never style plotly themselves.

Each builder assembles a plain plotly spec (traces and layout as dicts) and wraps it once, unvalidated:
plotly's per-property validation and update_* calls cost ~20 ms per figure, which made a rerun's figures
slower than the model pass. tests/test_figures.py validates every builder's spec instead.
"""

from __future__ import annotations

import html

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


def _figure(traces: list[dict], title: str, teaching: bool, height: int | None = None, top_axis: bool = False,
            **layout) -> go.Figure:
    """The shared frame of every figure: a left-aligned title, font sizes for screen or slides, margins."""
    size = 18 if teaching else 13
    frame = {
        "template": EMPTY_TEMPLATE,
        "title": {"text": html.escape(title, quote=False), "font": {"size": size + 4}, "x": 0.0,
                  "xanchor": "left", "y": 0.99, "yanchor": "top", "yref": "container"},
        "font": {"size": size},
        "margin": {"l": 10, "r": 10, "t": 110 if top_axis else 60, "b": 10},
    }
    if height is not None:
        frame["height"] = height
    return go.Figure({"data": traces, "layout": {**frame, **layout}}, _validate=False)


def _category_axis(**extra) -> dict:
    return {"type": "category", **extra}


def _reversed_category_axis(**extra) -> dict:
    return {"autorange": "reversed", "type": "category", **extra}


def _axis_title(text: str) -> dict:
    return {"text": text}


def figure_title(step: str, sentence: str, view_label: str) -> str:
    return f"{step} · “{shorten(sentence, 40)}” · {view_label}"


def _row_outline(row: int) -> dict:
    return {"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": row - 0.5, "y1": row + 0.5,
            "line": {"color": HIGHLIGHT, "width": 3}, "fillcolor": "rgba(0,0,0,0)"}


def matrix_heatmap(matrix, row_tokens, col_tokens, title: str, kind: str = "weights",
                   highlight_row: int | None = None, teaching: bool = False,
                   x_title: str = "key token (looked at)", y_title: str = "query token (looking)",
                   bound: float | None = None):
    """A matrix with tokens on the axes. kind: 'weights' (0..1), 'signed' (diverging at 0) or 'vectors'.

    bound: the colour range ±bound for signed/vector kinds (shared by figures that must compare); default
    the matrix's own largest magnitude."""
    matrix = np.asarray(matrix, dtype=np.float32)  # float32 keeps the page's payload small
    rows = axis_labels(row_tokens)
    cols = axis_labels(col_tokens) if col_tokens is not None else list(range(matrix.shape[1]))
    limit = TEACHING_CELL_TEXT_LIMIT if teaching else CELL_TEXT_LIMIT
    show_values = matrix.shape[0] <= limit and matrix.shape[1] <= limit
    if kind == "weights":
        colour = {"colorscale": WEIGHTS_SCALE, "zmin": 0.0, "zmax": 1.0}
    else:
        bound = bound or float(np.abs(matrix).max()) or 1.0
        colour = {"colorscale": SIGNED_SCALE, "zmin": -bound, "zmax": bound, "zmid": 0.0}
    trace = {
        "type": "heatmap", "z": matrix, "x": cols, "y": rows, **colour,
        "textfont": {"size": 16 if teaching else 12},
        "hovertemplate": f"{html.escape(y_title)}: %{{y}}<br>{html.escape(x_title)}: %{{x}}<br>"
                         f"value: %{{z:.4f}}<extra></extra>",
        "colorbar": {"thickness": 12},
        "xgap": 1 if show_values else 0, "ygap": 1 if show_values else 0,
    }
    if show_values:
        trace["texttemplate"] = "%{z:.2f}"
    shapes = [_row_outline(highlight_row)] if highlight_row is not None and 0 <= highlight_row < matrix.shape[0] else []
    side = max(matrix.shape[0], 3)
    height = int(min(900, 140 + side * (42 if teaching else 32))) if col_tokens is not None else \
        int(min(700, 140 + side * 26))
    return _figure([trace], title, teaching, height, top_axis=True,
                   yaxis=_reversed_category_axis(title=_axis_title(y_title)),
                   xaxis={"title": _axis_title(x_title), "side": "top",
                          "type": "category" if col_tokens is not None else "linear"},
                   shapes=shapes)


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


def line_chart(x, series: dict[str, np.ndarray], title: str, x_title: str, y_title: str,
               teaching: bool = False, log_x: bool = False):
    traces = [{"type": "scatter", "x": list(x), "y": np.asarray(v, dtype=np.float64), "mode": "lines+markers",
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
                   xaxis=_category_axis(title=_axis_title("head"), side="top"), shapes=shapes)


def _grid_domains(count: int, spacing: float) -> list[tuple[float, float]]:
    """Equal cells along one side of a subplot grid, as plotly's make_subplots lays them out."""
    size = (1 - spacing * (count - 1)) / count
    return [(i * (size + spacing), i * (size + spacing) + size) for i in range(count)]


def small_multiples(matrices, tokens, titles, title: str, columns: int = 4, teaching: bool = False):
    """One small heatmap per head, shared colour scale 0..1, tokens on the axes."""
    n = len(matrices)
    rows = (n + columns - 1) // columns
    labels = axis_labels(tokens)
    show_ticks = len(tokens) <= 12
    x_domains = _grid_domains(columns, 0.03)
    y_domains = _grid_domains(rows, 0.08)[::-1]  # the first row at the top
    traces, axes, subplot_titles = [], {}, []
    for i, matrix in enumerate(matrices):
        suffix = "" if i == 0 else str(i + 1)
        row, column = divmod(i, columns)
        traces.append({"type": "heatmap", "z": np.asarray(matrix, dtype=np.float32), "x": labels, "y": labels,
                       "colorscale": WEIGHTS_SCALE, "zmin": 0, "zmax": 1, "showscale": i == 0,
                       "colorbar": {"thickness": 10}, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}",
                       "hovertemplate": f"{html.escape(titles[i])}<br>%{{y}} → %{{x}}: %{{z:.3f}}<extra></extra>"})
        axes[f"xaxis{suffix}"] = _category_axis(domain=list(x_domains[column]), anchor=f"y{suffix}",
                                                showticklabels=show_ticks, tickfont={"size": 9}, tickangle=-60)
        # Every head has the same rows: labelling them once, left of the grid, keeps them off the neighbour.
        inner = {"showticklabels": False, "ticks": ""} if column else {"showticklabels": show_ticks}
        axes[f"yaxis{suffix}"] = _reversed_category_axis(domain=list(y_domains[row]), anchor=f"x{suffix}",
                                                         tickfont={"size": 9}, **inner)
        subplot_titles.append({"text": html.escape(titles[i]), "showarrow": False, "font": {"size": 16},
                               "xref": "paper", "yref": "paper", "xanchor": "center", "yanchor": "bottom",
                               "x": sum(x_domains[column]) / 2, "y": y_domains[row][1]})
    return _figure(traces, title, teaching, 260 * rows + 80, annotations=subplot_titles, **axes)


def similarity_map(matrix, labels, title: str, teaching: bool = False):
    trace = {"type": "heatmap", "z": np.asarray(matrix, dtype=np.float32), "x": labels, "y": labels,
             "colorscale": DISTANCE_SCALE, "zmin": 0, "hovertemplate": "%{y} vs %{x}: %{z:.3f}<extra></extra>",
             "colorbar": {"thickness": 12, "title": {"text": "distance"}}}
    return _figure([trace], title, teaching, 520, top_axis=True, yaxis=_reversed_category_axis(),
                   xaxis=_category_axis(side="top"))


def download_config(filename: str, teaching: bool = False) -> dict:
    """Plotly's camera button: a 3× PNG with a name that says what it is."""
    config = {
        "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 3},
        "displaylogo": False,
    }
    if teaching:
        config["modeBarButtonsToRemove"] = ["zoom2d", "pan2d", "select2d", "lasso2d", "zoomIn2d",
                                            "zoomOut2d", "autoScale2d", "resetScale2d"]
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
