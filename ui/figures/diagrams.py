"""Pictures that are not one matrix: a row of weights in two conditions side by side, and a schematic of the
attention that came before self-attention (drawn, not measured: its text alternative says so)."""

from __future__ import annotations

import html
import math

import numpy as np

from ui import content  # as content.words: attention_history has a parameter named words
from ui.figures.alt_text import _plain
from ui.figures.layout import (HIGHLIGHT, SUBTITLE_COLOUR, TICK_COLOUR, _category_axis, _figure, _grid_domains, axis_labels,
                     font_sizes)

PAIR_COLOURS = ("#1f5fa8", HIGHLIGHT)


# From this many tokens the panels are stacked, each the figure's full width: half a page cannot hold every
# label side by side (no label is thinned away on a slide).
STACK_FROM = 16


def paired_bar_panels(panels: dict[str, dict[str, np.ndarray]], tokens, title: str, teaching: bool = False):
    """Panels side by side (stacked for a long sentence), each with the same series as grouped bars over the same
    tokens (shares, 0..1): {panel title: {series name: values [n_tokens]}}. The same series has the same colour in
    every panel."""
    labels = axis_labels(tokens)
    stacked = len(labels) >= STACK_FROM
    # Stacked: the first panel on top (plotly counts y from the bottom), with room for the lower panel's title.
    domains = _grid_domains(len(panels), 0.22 if stacked else 0.06)
    if stacked:
        domains = domains[::-1]
    names = list(dict.fromkeys(name for series in panels.values() for name in series))
    traces, axes, annotations = [], {}, []
    for index, (panel_title, series) in enumerate(panels.items()):
        suffix = "" if index == 0 else str(index + 1)
        for name, values in series.items():
            traces.append({"type": "bar", "x": labels, "y": np.asarray(values, dtype=np.float32),
                           "name": html.escape(name), "legendgroup": html.escape(name), "showlegend": index == 0,
                           "marker": {"color": PAIR_COLOURS[names.index(name) % len(PAIR_COLOURS)]},
                           "xaxis": f"x{suffix}", "yaxis": f"y{suffix}",
                           "hovertemplate": f"%{{x}}: %{{y:.1%}}<extra>{html.escape(name)}</extra>"})
        along, across = ({"domain": [0.0, 1.0]}, {"domain": list(domains[index])}) if stacked else \
            ({"domain": list(domains[index])}, {})
        axes[f"xaxis{suffix}"] = _category_axis(anchor=f"y{suffix}", **along)
        axes[f"yaxis{suffix}"] = {"anchor": f"x{suffix}", "range": [0, 1.05], "tickformat": ".0%", **across,
                                  **({} if index == 0 else {"matches": "y", "showticklabels": stacked})}
        annotations.append({"text": html.escape(panel_title), "showarrow": False, "xref": "paper", "yref": "paper",
                            "xanchor": "center", "yanchor": "bottom",
                            "x": 0.5 if stacked else sum(domains[index]) / 2,
                            "y": domains[index][1] if stacked else 1.0,
                            "font": {"size": font_sizes(teaching)["base"], "color": TICK_COLOUR}})
    plain_tokens = [_plain(t) for t in labels]
    columns = [(panel, name, np.asarray(values, dtype=np.float64)) for panel, series in panels.items()
               for name, values in series.items()]
    said = [content.words("diagrams.pairs_said", n_panels=len(panels), panels=", ".join(_plain(p) for p in panels),
                          n_series=len(names), series=", ".join(_plain(n) for n in names))]
    for panel, series in panels.items():
        first, *rest = [np.asarray(v, dtype=np.float64) for v in series.values()]
        gap = max((float(np.abs(first - other).max()) for other in rest), default=0.0)
        said.append(content.words("diagrams.pairs_gap", panel=_plain(panel), gap=f"{100 * gap:.1f}"))
    text = {"said": said, "header": [content.words("diagrams.pairs_token")]
            + [f"{_plain(p)}: {_plain(n)}" for p, n, _ in columns],
            "rows": [[token] + [f"{100 * values[k]:.1f}%" for _, _, values in columns]
                     for k, token in enumerate(plain_tokens)]}
    return _figure(traces, title, teaching, 760 if stacked else 400, barmode="group",
                   legend={"orientation": "h", "y": -0.18 if stacked else -0.3},
                   annotations=annotations, meta={"text": text}, **axes)


def attention_history(words, title: str, teaching: bool = False, narrow: bool = False):
    """A schematic, not a measurement: left, a 2014 encoder–decoder (a recurrent network reads the source words
    one at a time; one decoder state asks every source state); right, self-attention (every word asks every word
    of the same sentence, all at once). No line carries a number. narrow (a phone): the two drawings one above
    the other, at the figure's full width."""
    words = [str(w) for w in words] or ["…"]
    n = len(words)
    sizes = font_sizes(teaching)
    labels = axis_labels(words)
    shapes, annotations = [], []
    # Left panel, x from 0 to 1: the source states in a row, read left to right; the decoder state above them.
    # On a phone it sits above the right panel instead: everything of it `lift` higher.
    lift = 3.4 if narrow else 0.0
    xs = [0.5] if n == 1 else [0.05 + 0.9 * j / (n - 1) for j in range(n)]
    for j in range(n - 1):
        annotations.append({"x": xs[j + 1] - 0.04, "y": lift, "ax": xs[j] + 0.04, "ay": lift, "xref": "x", "yref": "y",
                            "axref": "x", "ayref": "y", "showarrow": True, "arrowhead": 2, "arrowwidth": 2,
                            "arrowcolor": SUBTITLE_COLOUR, "text": ""})
    for x in xs:
        shapes.append({"type": "line", "xref": "x", "yref": "y", "x0": 0.5, "y0": 1.55 + lift, "x1": x,
                       "y1": 0.12 + lift,
                       "line": {"color": HIGHLIGHT, "width": 2, "dash": "dot"}, "layer": "below"})
    # Right panel, x from 1.35 to 2.35: the same words on a circle, a line between every two of them.
    centre, radius = ((0.5, 0.75) if narrow else (1.85, 0.75)), 0.62
    points = [(centre[0] + radius * math.cos(math.pi / 2 - 2 * math.pi * j / n) * (0.6 if narrow else 0.75),
               centre[1] + radius * math.sin(math.pi / 2 - 2 * math.pi * j / n)) for j in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            shapes.append({"type": "line", "xref": "x", "yref": "y", "x0": points[a][0], "y0": points[a][1],
                           "x1": points[b][0], "y1": points[b][1], "line": {"color": "#3b82f6", "width": 2},
                           "layer": "below"})
    text = {"size": sizes["base"], "color": TICK_COLOUR}
    node = {"size": 16 if teaching else 12, "line": {"color": TICK_COLOUR, "width": 1}}
    traces = [
        {"type": "scatter", "mode": "markers+text", "x": xs, "y": [lift] * n, "text": labels,
         "textposition": "bottom center", "textfont": text, "hoverinfo": "text",
         "hovertext": [content.words("diagrams.history_state_hover", word=w) for w in labels], "showlegend": False,
         "marker": {**node, "color": "#dbeafe"}},
        {"type": "scatter", "mode": "markers+text", "x": [0.5], "y": [1.55 + lift],
         "text": [content.words("diagrams.history_decoder")],
         "textposition": "top center", "textfont": text, "hoverinfo": "text", "showlegend": False,
         "hovertext": [content.words("diagrams.history_decoder_hover")],
         "marker": {**node, "color": HIGHLIGHT}},
        {"type": "scatter", "mode": "markers+text", "x": [p[0] for p in points], "y": [p[1] for p in points],
         "text": labels, "textfont": text, "hoverinfo": "text", "showlegend": False,
         # Each label outside the circle, away from the lines: above the upper half's words, below the lower's.
         "textposition": ["top center" if y >= centre[1] else "bottom center" for _, y in points],
         "hovertext": [content.words("diagrams.history_word_hover", word=w) for w in labels],
         "marker": {**node, "color": "#dbeafe"}},
    ]
    small = {"size": sizes["base"], "color": SUBTITLE_COLOUR}
    annotations += [
        {"text": content.words("diagrams.history_before_title"), "x": 0.5, "y": 2.15 + lift, "xref": "x",
         "yref": "y", "showarrow": False, "font": text},
        {"text": content.words("diagrams.history_source", narrow=narrow), "x": 0.5, "y": -0.55 + lift - 0.1 * narrow,
         "xref": "x", "yref": "y", "showarrow": False, "font": small},
        {"text": content.words("diagrams.history_self_title"), "x": centre[0], "y": 2.15, "xref": "x", "yref": "y",
         "showarrow": False,
         "font": text},
        {"text": content.words("diagrams.history_self"), "x": centre[0], "y": -0.55, "xref": "x", "yref": "y",
         "showarrow": False, "font": small},
    ]
    far = max(n - 1, 1)
    plain = [_plain(w) for w in labels]
    w = content.words
    meta = {"said": [w("diagrams.history_said", n=n, lines=n * (n - 1) // 2)],
            "header": ["", w("diagrams.history_before"), w("diagrams.history_self_column")],
            "rows": [[w("diagrams.history_who_asks"), w("diagrams.history_who_asks_before"),
                      w("diagrams.history_who_asks_self", n=n)],
                     [w("diagrams.history_who_answers"), w("diagrams.history_who_answers_before", n=n),
                      w("diagrams.history_who_answers_self", n=n)],
                     [w("diagrams.history_how_read"), w("diagrams.history_how_read_before"),
                      w("diagrams.history_how_read_self")],
                     [w("diagrams.history_steps", first=plain[0], last=plain[-1]),
                      w("diagrams.history_steps_before", steps=far), "1"]]}
    height = (700 if narrow else 360) + (70 if teaching else 0)
    return _figure(traces, title, teaching, height, shapes=shapes, annotations=annotations, meta={"text": meta},
                   xaxis={"range": [-0.15, 1.15] if narrow else [-0.15, 2.45], "visible": False, "fixedrange": True},
                   yaxis={"range": [-0.8, 2.35 + lift], "visible": False, "fixedrange": True})
