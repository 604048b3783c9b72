"""Every figure the app draws. Pages call these and never style plotly themselves."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .text import shorten, slug

WEIGHTS_SCALE = "Blues"
SIGNED_SCALE = "RdBu_r"
PREFERENCE_SCALE = "PiYG"
HIGHLIGHT = "#f59e0b"
CELL_TEXT_LIMIT = 14          # tokens per side up to which values are written in the cells
TEACHING_CELL_TEXT_LIMIT = 18


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


def _layout(fig: go.Figure, title: str, teaching: bool, height: int | None = None, top_axis: bool = False) -> go.Figure:
    size = 18 if teaching else 13
    fig.update_layout(
        title={"text": html.escape(title, quote=False), "font": {"size": size + 4}, "x": 0.0, "xanchor": "left",
               "y": 0.99, "yanchor": "top", "yref": "container"},
        font={"size": size},
        margin={"l": 10, "r": 10, "t": 110 if top_axis else 60, "b": 10},
        height=height,
    )
    return fig


def figure_title(step: str, sentence: str, view_label: str) -> str:
    return f"{step} · “{shorten(sentence, 40)}” · {view_label}"


def matrix_heatmap(matrix, row_tokens, col_tokens, title: str, kind: str = "weights",
                   highlight_row: int | None = None, teaching: bool = False,
                   x_title: str = "key token (looked at)", y_title: str = "query token (looking)"):
    """A matrix with tokens on the axes. kind: 'weights' (0..1), 'signed' (diverging at 0) or 'vectors'."""
    matrix = np.asarray(matrix, dtype=np.float32)  # float32 keeps the page's payload small
    rows = axis_labels(row_tokens)
    cols = axis_labels(col_tokens) if col_tokens is not None else list(range(matrix.shape[1]))
    limit = TEACHING_CELL_TEXT_LIMIT if teaching else CELL_TEXT_LIMIT
    show_values = matrix.shape[0] <= limit and matrix.shape[1] <= limit
    if kind == "weights":
        colour = {"colorscale": WEIGHTS_SCALE, "zmin": 0.0, "zmax": 1.0}
    else:
        bound = float(np.abs(matrix).max()) or 1.0
        colour = {"colorscale": SIGNED_SCALE, "zmin": -bound, "zmax": bound, "zmid": 0.0}
    fig = go.Figure(go.Heatmap(
        z=matrix, x=cols, y=rows, **colour,
        texttemplate="%{z:.2f}" if show_values else None,
        textfont={"size": 16 if teaching else 12},
        hovertemplate=f"{html.escape(y_title)}: %{{y}}<br>{html.escape(x_title)}: %{{x}}<br>value: %{{z:.4f}}<extra></extra>",
        colorbar={"thickness": 12},
        xgap=1 if show_values else 0, ygap=1 if show_values else 0,
    ))
    fig.update_yaxes(autorange="reversed", title=y_title, type="category")
    fig.update_xaxes(title=x_title, side="top", type="category" if col_tokens is not None else "linear")
    if highlight_row is not None and 0 <= highlight_row < matrix.shape[0]:
        fig.add_shape(type="rect", xref="paper", x0=0, x1=1, yref="y",
                      y0=highlight_row - 0.5, y1=highlight_row + 0.5,
                      line={"color": HIGHLIGHT, "width": 3}, fillcolor="rgba(0,0,0,0)")
    side = max(matrix.shape[0], 3)
    height = int(min(900, 140 + side * (42 if teaching else 32))) if col_tokens is not None else \
        int(min(700, 140 + side * 26))
    return _layout(fig, title, teaching, height, top_axis=True)


def row_bars(values, tokens, title: str, teaching: bool = False, percent: bool = True, highlight: int | None = None):
    """One row of a matrix as bars, one per token (the read-out beside a heatmap)."""
    values = np.asarray(values, dtype=np.float32)
    labels = axis_labels(tokens)
    colours = [HIGHLIGHT if i == highlight else "#3b82f6" for i in range(len(values))]
    fig = go.Figure(go.Bar(
        x=labels, y=values, marker_color=colours,
        text=[f"{100 * v:.0f}%" if percent else f"{v:.2f}" for v in values] if len(values) <= 24 else None,
        textposition="outside",
        hovertemplate="%{x}: %{y:.4f}<extra></extra>",
    ))
    fig.update_xaxes(type="category")
    if percent:
        fig.update_yaxes(range=[0, 1.1], tickformat=".0%")
    return _layout(fig, title, teaching, 360)


def compare_bars(series: dict[str, np.ndarray], tokens, title: str, teaching: bool = False, percent: bool = True):
    """Several rows side by side (e.g. softmax with and without scaling)."""
    labels = axis_labels(tokens)
    fig = go.Figure([go.Bar(name=html.escape(name), x=labels, y=np.asarray(v, dtype=np.float32),
                            hovertemplate="%{x}: %{y:.4f}<extra>" + html.escape(name) + "</extra>")
                     for name, v in series.items()])
    fig.update_layout(barmode="group", legend={"orientation": "h", "y": -0.2})
    fig.update_xaxes(type="category")
    if percent:
        fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    return _layout(fig, title, teaching, 380)


def line_chart(x, series: dict[str, np.ndarray], title: str, x_title: str, y_title: str,
               teaching: bool = False, log_x: bool = False):
    fig = go.Figure([go.Scatter(x=list(x), y=np.asarray(v, dtype=np.float64), mode="lines+markers",
                                name=html.escape(name)) for name, v in series.items()])
    fig.update_xaxes(title=x_title, type="log" if log_x else "linear")
    fig.update_yaxes(title=y_title)
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return _layout(fig, title, teaching, 380)


def layer_head_grid(values, title: str, teaching: bool = False, highlight: tuple[int, int] | None = None,
                    zmid: float = 0.0, bound: float | None = None, colorbar_title: str = "",
                    text_format: str = "%{z:.2f}"):
    """A layers × heads grid, diverging around 'no preference'."""
    values = np.asarray(values, dtype=np.float32)
    bound = bound or float(np.nanmax(np.abs(values - zmid))) or 1.0
    n_layers, n_heads = values.shape
    fig = go.Figure(go.Heatmap(
        z=values, x=[f"H{h}" for h in range(n_heads)], y=[f"L{layer}" for layer in range(n_layers)],
        colorscale=PREFERENCE_SCALE, zmid=zmid, zmin=zmid - bound, zmax=zmid + bound,
        texttemplate=text_format, textfont={"size": 14 if teaching else 11},
        hovertemplate="layer %{y}, head %{x}: %{z:.3f}<extra></extra>", xgap=1, ygap=1,
        colorbar={"thickness": 12, "title": {"text": html.escape(colorbar_title)}},
    ))
    fig.update_yaxes(autorange="reversed", type="category", title="layer")
    fig.update_xaxes(type="category", title="head", side="top")
    if highlight is not None:
        layer, head = highlight
        fig.add_shape(type="rect", x0=head - 0.5, x1=head + 0.5, y0=layer - 0.5, y1=layer + 0.5,
                      line={"color": HIGHLIGHT, "width": 3})
    return _layout(fig, title, teaching, 150 + 48 * n_layers, top_axis=True)


def small_multiples(matrices, tokens, titles, title: str, columns: int = 4, teaching: bool = False):
    """One small heatmap per head, shared colour scale 0..1, tokens on the axes."""
    n = len(matrices)
    rows = (n + columns - 1) // columns
    labels = axis_labels(tokens)
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=[html.escape(t) for t in titles],
                        horizontal_spacing=0.03, vertical_spacing=0.08)
    show_ticks = len(tokens) <= 12
    for i, matrix in enumerate(matrices):
        fig.add_trace(go.Heatmap(z=np.asarray(matrix, dtype=np.float32), x=labels, y=labels,
                                 colorscale=WEIGHTS_SCALE, zmin=0, zmax=1, showscale=(i == 0),
                                 colorbar={"thickness": 10},
                                 hovertemplate=f"{html.escape(titles[i])}<br>%{{y}} → %{{x}}: %{{z:.3f}}<extra></extra>"),
                      row=i // columns + 1, col=i % columns + 1)
    fig.update_yaxes(autorange="reversed", type="category", showticklabels=show_ticks, tickfont={"size": 9})
    fig.update_xaxes(type="category", showticklabels=show_ticks, tickfont={"size": 9}, tickangle=-60)
    return _layout(fig, title, teaching, 260 * rows + 80)


def similarity_map(matrix, labels, title: str, teaching: bool = False):
    matrix = np.asarray(matrix, dtype=np.float32)
    fig = go.Figure(go.Heatmap(z=matrix, x=labels, y=labels, colorscale="Viridis_r", zmin=0,
                               hovertemplate="%{y} vs %{x}: %{z:.3f}<extra></extra>",
                               colorbar={"thickness": 12, "title": {"text": "distance"}}))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", side="top")
    return _layout(fig, title, teaching, 520, top_axis=True)


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
