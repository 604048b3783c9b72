"""Bars, lines and bands: a row of weights, series over layers or training steps, token lines."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from ui.content import words
from ui.figures.alt_text import _plain
from ui.figures.layout import (HIGHLIGHT, SUBTITLE_COLOUR, TICK_COLOUR, _axis_title, _category_axis, _figure, _grid_domains,
                     axis_labels, font_sizes)


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


MARKER_COLOUR = "#6b7280"  # grey and hatched: the markers read apart from the words without colour too


def marker_bars(values, tokens, is_marker, title: str, teaching: bool = False):
    """One head's whole row (every token the model sees) as bars that add up to 100%, the markers' bars grey and
    hatched: where the row puts the part the sentence's words did not take."""
    values = np.asarray(values, dtype=np.float32)
    trace = {
        "type": "bar", "x": axis_labels(tokens), "y": values,
        "marker": {"color": [MARKER_COLOUR if m else "#3b82f6" for m in is_marker],
                   "pattern": {"shape": ["/" if m else "" for m in is_marker]}},
        "textposition": "outside", "hovertemplate": "%{x}: %{y:.1%}<extra></extra>",
        # plotly shrinks a label wider than its bar; on a phone that made "22%" too small to read
        "constraintext": "none", "cliponaxis": False,
    }
    if len(values) <= 24:
        trace["text"] = [f"{100 * v:.0f}%" for v in values]
    return _figure([trace], title, teaching, 300, xaxis=_category_axis(),
                   yaxis={"range": [0, 1.12], "tickformat": ".0%"})


def compare_bars(series: dict[str, np.ndarray], tokens, title: str, teaching: bool = False, percent: bool = True):
    """Several rows side by side (e.g. softmax with and without scaling)."""
    labels = axis_labels(tokens)
    traces = [{"type": "bar", "name": html.escape(name), "x": labels, "y": np.asarray(v, dtype=np.float32),
               "hovertemplate": "%{x}: %{y:.4f}<extra>" + html.escape(name) + "</extra>"}
              for name, v in series.items()]
    yaxis = {"range": [0, 1.05], "tickformat": ".0%"} if percent else {}
    # The legend above the bars, in a band added to the top margin: below them it covered the upright token
    # labels ("animal" read "anir" on a slide), as plotly grows the margin for each, not for both.
    fig = _figure(traces, title, teaching, 380, barmode="group",
                  legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"},
                  xaxis=_category_axis(), yaxis=yaxis)
    band = int(2 * font_sizes(teaching)["base"])
    layout = dict(fig._layout)
    layout["margin"] = {**layout["margin"], "t": layout["margin"]["t"] + band}
    layout["height"] = layout["height"] + band
    for shape in ("narrow", "wide"):  # on a phone the legend's two entries take two lines
        if shape in layout.get("meta", {}):
            layout["meta"][shape]["margin.t"] += band * (2 if shape == "narrow" else 1)
    return go.Figure({"data": fig._data, "layout": layout}, _validate=False)


# A marker on each point while points are few (6 layers, 8 values of d_k); a training curve of 151 or 301 steps
# is a plain line: a dot per step blurred it into a beaded band and made the browser draw 2,000 more shapes.
MAX_MARKED_POINTS = 40


def line_chart(x, series: dict[str, np.ndarray], title: str, x_title: str, y_title: str,
               teaching: bool = False, log_x: bool = False):
    x = list(x)
    mode = "lines+markers" if len(x) <= MAX_MARKED_POINTS else "lines"
    traces = [{"type": "scatter", "x": x, "y": np.asarray(v, dtype=np.float64), "mode": mode,
               "name": html.escape(name)} for name, v in series.items()]
    xaxis = {"title": _axis_title(x_title), "type": "log" if log_x else "linear"}
    if log_x and 1 < len(x) <= 12:  # a label at each point measured: plotly's log axis adds small minor digits
        xaxis.update(tickmode="array", tickvals=x, ticktext=[f"{v:g}" for v in x])
    return _figure(traces, title, teaching, 380, legend={"orientation": "h", "y": -0.25},
                   xaxis=xaxis,
                   yaxis={"title": _axis_title(y_title)})


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
            "textposition": "middle left", "textfont": {"size": size, "color": TICK_COLOUR}, "hoverinfo": "skip"}
    right_text = axis_labels(key_tokens)
    hover = [words("figures.lines_hover", token=right_text[j], share=f"{weights[selected, j]:.1%}")
             if selected is not None else right_text[j] for j in range(n_k)]
    right = {"type": "scatter", "mode": "text", "x": [1.0] * n_k, "y": list(range(n_k)), "text": right_text,
             "textposition": "middle right", "textfont": {"size": size, "color": TICK_COLOUR}, "hovertext": hover,
             "hoverinfo": "text"}
    height = int(min(1000, 120 + max(n_q, n_k, 3) * (34 if teaching else 26)))
    return _figure([left, right], title, teaching, height, showlegend=False, shapes=shapes,
                   meta={"text": _lines_text(weights, query_tokens, key_tokens, selected)},
                   xaxis={"range": [-0.9, 1.9], "visible": False, "fixedrange": True},
                   yaxis={"range": [max(n_q, n_k) - 0.5, -1.4], "visible": False, "fixedrange": True},
                   annotations=[{"text": words("figures.lines_looking"), "x": 0.0, "y": -0.9, "xanchor": "right",
                                 "showarrow": False, "xref": "x", "yref": "y", "font": {"color": SUBTITLE_COLOUR}},
                                {"text": words("figures.lines_looked_at"), "x": 1.0, "y": -0.9, "xanchor": "left",
                                 "showarrow": False, "xref": "x", "yref": "y", "font": {"color": SUBTITLE_COLOUR}}])


def _lines_text(weights, query_tokens, key_tokens, selected: int | None) -> dict:
    """token_lines' text alternative (its lines are shapes, not data): the selected row's weights, or each row's
    strongest key."""
    queries = [_plain(t) for t in axis_labels(query_tokens)]
    keys = [_plain(t) for t in axis_labels(key_tokens)]
    said = [words("figures.lines_said")]
    if selected is not None:
        row = weights[selected]
        order = np.argsort(row)[::-1][:3]
        said.append(words("figures.lines_looks_most", query=queries[selected], keys=", ".join(
            words("figures.lines_key_share", key=keys[j], share=f"{100 * row[j]:.0f}%") for j in order)))
        return {"said": said, "header": [words("figures.axis_key"),
                                         words("figures.lines_share_of", query=queries[selected])],
                "rows": [[keys[j], f"{100 * row[j]:.1f}%"] for j in range(len(keys))]}
    return {"said": said, "header": [words("figures.axis_query"), words("figures.lines_looks_most_at"),
                                     words("figures.lines_share")],
            "rows": [[queries[i], keys[int(np.argmax(r))], f"{100 * r.max():.1f}%"] for i, r in enumerate(weights)]}


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
                           "hovertemplate": f"{html.escape(name)}<br>{words('figures.band_step')} %{{x}}: "
                                            "%{y:.4f}<extra></extra>",
                           **where})
        axes[f"xaxis{suffix}"] = {"domain": list(domains[index]), "anchor": f"y{suffix}",
                                  "title": _axis_title(x_title)}
        axes[f"yaxis{suffix}"] = {"anchor": f"x{suffix}", "type": "log" if log_y else "linear",
                                  **({"title": _axis_title(y_title)} if index == 0 else
                                     {"matches": "y", "showticklabels": False})}
        annotations.append({"text": html.escape(panel_title), "showarrow": False, "xref": "paper", "yref": "paper",
                            "xanchor": "center", "yanchor": "bottom", "x": sum(domains[index]) / 2, "y": 1.0,
                            "font": {"size": font_sizes(teaching)["base"], "color": TICK_COLOUR}})
    return _figure(traces, title, teaching, 400, legend={"orientation": "h", "y": -0.3},
                   annotations=annotations, **axes)
