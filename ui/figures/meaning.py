"""The meaning page's figures: the same- and different-meaning mean cosines, their difference (the separation) and
nearest-neighbour accuracy by layer, each beside the self-only control where it has one; the sentence-by-sentence
similarity matrix that plays layer by layer in the browser; and the drop in separation when one head is
mean-ablated, for this word and the built-in ones."""

from __future__ import annotations

import html

import numpy as np

from ui.content import words
from ui.text import head_name, layer_name, people_number
from ui.figures.animation import with_frames
from ui.figures.layout import (SUBTITLE_COLOUR, TICK_COLOUR, _axis_title, _category_axis, _figure,
                     _reversed_category_axis, font_sizes)

MODEL_COLOUR, KNOCKED_OUT_COLOUR, CHANCE_COLOUR = "#1f5fa8", "#c0392b", "#6b7280"
SAME_COLOUR, DIFFERENT_COLOUR = "#1f5fa8", "#d55e00"
# One colour per word in the heads' bars (Okabe & Ito's palette, told apart with every colour vision).
WORD_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7")
SIMILARITY_SCALE = "Viridis"
CONTROLS_PX = 150  # Play/Pause and the slider with its labels, above the matrix


def control_name() -> str:
    return words("meaning_figures.control")


def layer_labels(n_states: int) -> list[str]:
    """The x axis: the embedding (before any attention), then the output of each layer, counted from 1."""
    return [words("meaning_figures.embedding")] + [layer_name(layer) for layer in range(n_states - 1)]


def _narrow_layer_axis(fig, n_states: int, legend_y: float):
    """On a phone (the page's relayout script, ui/figures/show.py): the layers as bare numbers, so seven labels fit
    without turning, and the legend further down."""
    meta = fig._layout.setdefault("meta", {})
    labels = layer_labels(n_states)
    meta.setdefault("narrow", {}).update({"xaxis.tickmode": "array", "xaxis.tickvals": labels,
                                          "xaxis.ticktext": [words("meaning_figures.embedding_short")]
                                          + [people_number(n) for n in range(n_states - 1)],
                                          "xaxis.tickangle": 0,
                                          "xaxis.title.text": words("meaning_figures.x_title_short"),
                                          "legend.y": legend_y - 0.12})
    meta.setdefault("wide", {}).update({"xaxis.tickmode": "auto", "xaxis.title.text": words("meaning_figures.x_title"),
                                        "legend.y": legend_y})
    return fig


def _line(x, y, name: str, colour: str, dash: str = "solid", percent: bool = False, sign: bool = True) -> dict:
    value = "%{y:.0%}" if percent else "%{y:+.3f}" if sign else "%{y:.3f}"
    return {"type": "scatter", "x": x, "y": np.asarray(y, dtype=np.float64), "mode": "lines+markers",
            "name": html.escape(name), "line": {"color": colour, "width": 3, "dash": dash},
            "marker": {"size": 9}, "hovertemplate": f"{html.escape(name)}, %{{x}}: {value}<extra></extra>"}


def means_chart(same, different, title: str, teaching: bool = False):
    """The mean cosine of the word over same-meaning pairs and over different-meaning pairs, by layer."""
    x = layer_labels(len(same))
    traces = [_line(x, same, words("meaning_figures.same_pairs"), SAME_COLOUR, sign=False),
              _line(x, different, words("meaning_figures.different_pairs"), DIFFERENT_COLOUR, "dash", sign=False)]
    fig = _figure(traces, title, teaching, 380, legend={"orientation": "h", "y": -0.3},
                  xaxis=_category_axis(title=_axis_title(words("meaning_figures.x_title"))),
                  yaxis={"title": _axis_title(words("meaning_figures.mean_cosine")), "tickformat": ".2f"})
    return _narrow_layer_axis(fig, len(x), -0.3)


def separation_chart(separation, knocked_out, title: str, teaching: bool = False):
    """Separation by layer: the model, and the control, self-only attention (y = the numbers exactly)."""
    x = layer_labels(len(separation))
    traces = [_line(x, separation, words("meaning_figures.the_model"), MODEL_COLOUR),
              _line(x, knocked_out, control_name(), KNOCKED_OUT_COLOUR, "dash")]
    fig = _figure(traces, title, teaching, 380, legend={"orientation": "h", "y": -0.3},
                  xaxis=_category_axis(title=_axis_title(words("meaning_figures.x_title"))),
                  yaxis={"title": _axis_title(words("meaning_figures.separation")), "zeroline": True,
                         "zerolinecolor": "#9ca3af"})
    return _narrow_layer_axis(fig, len(x), -0.3)


def accuracy_chart(accuracy, knocked_out, chance: float, title: str, teaching: bool = False):
    """Nearest-neighbour accuracy by layer against chance (a random other sentence)."""
    x = layer_labels(len(accuracy))
    traces = [_line(x, accuracy, words("meaning_figures.the_model"), MODEL_COLOUR, percent=True),
              _line(x, knocked_out, control_name(), KNOCKED_OUT_COLOUR, "dash", percent=True),
              {**_line(x, [chance] * len(x), words("meaning_figures.chance"), CHANCE_COLOUR, "dot", percent=True),
               "mode": "lines"}]
    fig = _figure(traces, title, teaching, 380, legend={"orientation": "h", "y": -0.3},
                  xaxis=_category_axis(title=_axis_title(words("meaning_figures.x_title"))),
                  yaxis={"title": _axis_title(words("meaning_figures.accuracy")), "tickformat": ".0%",
                         "range": [0, 1.05]})
    return _narrow_layer_axis(fig, len(x), -0.3)


def head_drop_bars(drops: dict[str, np.ndarray], layer: int, title: str, teaching: bool = False):
    """For each head of one layer, the drop in separation when that head alone is mean-ablated: one bar per word
    set (this page's word and the built-in words measured at the same layer), side by side."""
    traces = []
    for index, (word, values) in enumerate(drops.items()):
        values = np.asarray(values, dtype=np.float64)
        name = html.escape(word)
        traces.append({"type": "bar", "x": [head_name(h) for h in range(len(values))], "y": values, "name": name,
                       "marker": {"color": WORD_COLOURS[index % len(WORD_COLOURS)]},
                       "hovertemplate": words("meaning_figures.head_hover", word=name, layer=layer_name(layer),
                                              x="%{x}", y="%{y:.4f}") + "<extra></extra>"})
    every = np.concatenate([np.asarray(v, dtype=np.float64) for v in drops.values()])
    top, low = max(float(every.max()), 0.0), min(float(every.min()), 0.0)
    pad = 0.1 * ((top - low) or 0.01)
    return _figure(traces, title, teaching, 380, barmode="group", legend={"orientation": "h", "y": -0.3},
                   xaxis=_category_axis(title=_axis_title(words("meaning_figures.head_axis",
                                                                layer=layer_name(layer)))),
                   yaxis={"title": _axis_title(words("meaning_figures.drop")), "range": [low - pad * (low < 0), top + pad],
                          "zeroline": True, "zerolinecolor": "#9ca3af"})


def similarity_range(similarity) -> tuple[float, float]:
    """The colour scale's ends: the lowest and highest cosine of two different sentences over every layer."""
    similarity = np.asarray(similarity, dtype=np.float32)
    off = similarity[:, ~np.eye(similarity.shape[1], dtype=bool)]
    return float(off.min()), float(off.max())


def similarity_frames(similarity, labels: list[str], title: str, teaching: bool = False, split: int | None = None,
                      short_labels: list[str] | None = None):
    """The cosine similarity of the word's vectors in each pair of sentences, one frame per layer: Play and the
    slider step through the layers in the browser (no rerun). The colour range is the same in every frame
    (the off-diagonal values of all layers), so a colour means one cosine in every layer. split: the number of
    sentences of the first meaning, where a line divides the two groups; short_labels: the x axis's labels on a
    phone."""
    similarity = np.asarray(similarity, dtype=np.float32)
    n_states, m = similarity.shape[0], similarity.shape[1]
    zmin, zmax = similarity_range(similarity)
    sizes = font_sizes(teaching)
    names = layer_labels(n_states)
    height = int(min(980 if teaching else 800, 300 + m * (40 if teaching else 30)))
    plot_px = height - 60  # _figure's plot area: the height less the old title margin; the labels below take ~80
    heat = {"type": "heatmap", "z": similarity[0], "x": labels, "y": labels, "colorscale": SIMILARITY_SCALE,
            "zmin": zmin, "zmax": zmax, "xgap": 1, "ygap": 1,
            "colorbar": {"thickness": 12, "title": {"text": words("meaning_figures.cosine")}, "y": 0, "yanchor": "bottom",
                         "len": 1 - CONTROLS_PX / plot_px},
            "hovertemplate": "%{y} and %{x}: %{z:.3f}<extra></extra>"}
    if m <= (10 if teaching else 16):
        heat["texttemplate"] = "%{z:.2f}"
        heat["textfont"] = {"size": sizes["cell"]}
    frames = [{"name": str(L), "data": [{"type": "heatmap", "z": similarity[L]}], "traces": [0]}
              for L in range(n_states)]
    steps = [{"method": "animate", "label": names[L],
              "args": [[str(L)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True},
                                  "transition": {"duration": 0}}]} for L in range(n_states)]
    play = {"label": words("meaning_figures.play"), "method": "animate",
            "args": [None, {"frame": {"duration": 1100, "redraw": True}, "fromcurrent": True,
                            "transition": {"duration": 0}}]}
    pause = {"label": words("meaning_figures.pause"), "method": "animate",
             "args": [[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate",
                               "transition": {"duration": 0}}]}
    shapes = []
    if split is not None and 0 < split < m:
        edge = split - 0.5
        line = {"color": "white", "width": 4}
        shapes = [{"type": "line", "xref": "x", "yref": "y", "x0": edge, "x1": edge, "y0": -0.5, "y1": m - 0.5,
                   "line": line},
                  {"type": "line", "xref": "x", "yref": "y", "x0": -0.5, "x1": m - 0.5, "y0": edge, "y1": edge,
                   "line": line}]
    layout = {
        "meta": {"text": _frames_text(similarity, names, split if split is not None else m)},
        "shapes": shapes,
        "xaxis": _category_axis(title=_axis_title(words("meaning_figures.sentence")), tickangle=-45),
        "yaxis": _reversed_category_axis(title=_axis_title(words("meaning_figures.sentence")),
                                         domain=[0, 1 - CONTROLS_PX / plot_px]),
        "updatemenus": [{"type": "buttons", "direction": "left", "showactive": False, "x": 0, "y": 1.0,
                         "xanchor": "left", "yanchor": "top", "pad": {"t": 0, "r": 10},
                         "font": {"size": sizes["base"] + 2, "color": TICK_COLOUR}, "buttons": [play, pause]}],
        # The slider on a row of its own under the buttons: beside them it ran into them on a phone.
        "sliders": [{"active": 0, "steps": steps, "x": 0, "len": 1.0, "y": 1.0 - 44 / plot_px, "yanchor": "top",
                     "pad": {"t": 0, "b": 0, "r": 16},
                     "currentvalue": {"visible": True, "prefix": words("meaning_figures.now"), "xanchor": "right",
                                      "font": {"size": sizes["base"], "color": TICK_COLOUR}},
                     "font": {"size": sizes["tick"] if teaching else sizes["tick"] - 1, "color": SUBTITLE_COLOUR},
                     "ticklen": 4}],
    }
    fig = _figure([heat], title, teaching, height, **layout)
    # On a phone the turned labels ran into each other: the group's letter and number (A1, B3), level.
    short = short_labels or [f"{'AB'[int(i >= (split if split is not None else m))]}"
                             f"{i + 1 - (split or 0) * int(i >= (split or m))}" for i in range(m)]
    meta = fig._layout["meta"]
    meta.setdefault("narrow", {}).update({"xaxis.tickmode": "array", "xaxis.tickvals": labels,
                                          "xaxis.ticktext": short, "xaxis.tickangle": 0})
    meta.setdefault("wide", {}).update({"xaxis.tickmode": "auto", "xaxis.tickangle": -45})
    return with_frames(fig, frames)


def _frames_text(similarity, names: list[str], split: int) -> dict:
    """The animated matrix's text alternative (its frames are not in its traces): for each layer, the mean
    similarity within each group of sentences and across them."""
    m = similarity.shape[1]
    first, second = np.arange(m) < split, np.arange(m) >= split
    off = ~np.eye(m, dtype=bool)

    def mean(rows, cols, layer):
        cells = similarity[layer][np.ix_(rows, cols)][off[np.ix_(rows, cols)]]
        return f"{float(cells.mean()):.3f}" if cells.size else "–"

    rows = [[names[L], mean(first, first, L), mean(second, second, L), mean(first, second, L)]
            for L in range(similarity.shape[0])]
    said = [words("meaning_figures.similarity_said", m=m, split=split, rest=m - split, within_a=rows[-1][1],
                  within_b=rows[-1][2], across=rows[-1][3])]
    header = [words(f"meaning_figures.{key}") for key in ("after", "within_first", "within_second", "across_groups")]
    return {"said": said, "header": header, "rows": rows}
