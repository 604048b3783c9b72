"""The meaning page's 2-D map: the word's vector in every sentence as a point, one frame per layer, the model beside
the self-only control on the same axes. Play and the slider step through the layers in the browser (no rerun);
between frames the points glide, so a student sees them move. How the map is made: lessons/meaning_map.py."""

from __future__ import annotations

import html

import numpy as np

from ui.figures.animation import with_frames
from ui.figures.layout import SUBTITLE_COLOUR, TICK_COLOUR, _axis_title, _figure, font_sizes
from ui.content import words
from ui.figures.meaning import layer_labels
from ui.text import no_bidi, shorten

# Okabe & Ito's blue and vermilion, told apart with every colour vision; the shapes differ too.
GROUP_COLOURS = ("#0072b2", "#d55e00")
GROUP_SYMBOLS = ("circle", "diamond")
CONTROLS_PX = 170  # Play/Pause and the slider, above the panels
HOVER_CHARS = 70


def _points(xy: np.ndarray, group: int, name: str, sentences: list[str], second: bool, sizes: dict,
            hover: str) -> dict:
    name = no_bidi(name)
    hollow = "-open" if second else ""
    return {"type": "scatter", "mode": "markers", "x": xy[:, 0], "y": xy[:, 1], "name": html.escape(name),
            "legendgroup": str(group), "showlegend": not second,
            "xaxis": "x2" if second else "x", "yaxis": "y2" if second else "y",
            "marker": {"color": GROUP_COLOURS[group], "symbol": GROUP_SYMBOLS[group] + hollow,
                       "size": sizes["base"] + (3 if second else 2), "line": {"width": 2 if second else 1,
                                                                              "color": GROUP_COLOURS[group] if second
                                                                              else "white"}},
            "customdata": [html.escape(no_bidi(shorten(s, HOVER_CHARS))) for s in sentences],
            "hovertemplate": hover}


def _limits(*arrays: np.ndarray) -> tuple[list[float], list[float]]:
    """One x range and one y range for every frame and both panels, so nothing jumps but the points."""
    every = np.concatenate([a.reshape(-1, 2) for a in arrays])
    low, high = every.min(axis=0), every.max(axis=0)
    pad = 0.08 * np.maximum(high - low, 1e-6)
    return [float(low[0] - pad[0]), float(high[0] + pad[0])], [float(low[1] - pad[1]), float(high[1] + pad[1])]


def word_map_frames(points, control, meaning, sentences: list[str], names: tuple[str, str], axis_shares,
                    title: str, teaching: bool = False, stacked: bool = False, table: dict | None = None):
    """points, control: [n_states, m, 2]; meaning: [m] 0/1; axis_shares: the share of the spread each axis keeps.
    stacked: the control's panel under the model's (a phone), else beside it. table: the text alternative
    (layout.meta["text"]: its frames are not in its traces)."""
    points, control = np.asarray(points, dtype=np.float64), np.asarray(control, dtype=np.float64)
    meaning = np.asarray(meaning)
    sizes = font_sizes(teaching)
    n_states = points.shape[0]
    names_shown = layer_labels(n_states)
    groups = [np.flatnonzero(meaning == g) for g in (0, 1)]

    hovers = {(g, second): words("meaning_figures.map_hover_control" if second else "meaning_figures.map_hover",
                                 name=html.escape(no_bidi(names[g])), sentence="%{customdata}") + "<extra></extra>"
              for g in (0, 1) for second in (False, True)}

    def traces(L: int) -> list[dict]:
        return [_points(run[L][rows], g, names[g], [sentences[i] for i in rows], second, sizes, hovers[g, second])
                for second, run in ((False, points), (True, control)) for g, rows in enumerate(groups)]

    panel_px = (300 if stacked else 420) + (80 if teaching else 0)
    controls_px = CONTROLS_PX + (30 if teaching else 0)  # the slider's labels are larger on a slide
    height = controls_px + (2 * panel_px + 70 if stacked else panel_px) + 90
    plot_px = height - 60
    top = 1 - controls_px / plot_px
    x_range, y_range = _limits(points, control)
    x_title = words("meaning_figures.map_x_title", share=f"{axis_shares[0]:.0%}")
    y_title = words("meaning_figures.map_y_title", share=f"{axis_shares[1]:.0%}")
    axis = {"zeroline": True, "zerolinecolor": "#d1d5db", "showgrid": True, "gridcolor": "#eef0f3",
            "showticklabels": False, "fixedrange": True}
    if stacked:
        gap = 70 / plot_px
        domains = {"x": [0, 1], "x2": [0, 1], "y": [top - (top - gap) / 2, top], "y2": [0, (top - gap) / 2]}
    else:
        domains = {"x": [0, 0.47], "x2": [0.53, 1], "y": [0, top], "y2": [0, top]}
    layout = {
        "xaxis": {**axis, "domain": domains["x"], "range": x_range, "title": _axis_title(x_title)},
        "yaxis": {**axis, "domain": domains["y"], "range": y_range, "title": _axis_title(y_title)},
        "xaxis2": {**axis, "domain": domains["x2"], "range": x_range, "anchor": "y2",
                   "title": _axis_title(x_title)},
        "yaxis2": {**axis, "domain": domains["y2"], "range": y_range, "anchor": "x2",
                   "title": _axis_title(y_title if stacked else "")},
        "legend": {"orientation": "h", "x": 0, "y": -0.02 if stacked else -0.12, "yanchor": "top"},
        "annotations": [{"text": f"<b>{label}</b>", "xref": f"{x} domain", "yref": f"{y} domain", "x": 0.5, "y": 1.0,
                         "xanchor": "center", "yanchor": "bottom", "showarrow": False,
                         "font": {"size": sizes["base"], "color": TICK_COLOUR}}
                        for label, x, y in ((words("meaning_figures.the_model"), "x", "y"),
                                            (words("meaning_figures.map_control_panel"), "x2", "y2"))],
        "updatemenus": [_buttons(sizes)],
        "sliders": [_slider(names_shown, sizes, teaching, 1.0 - 44 / plot_px)],
        "hovermode": "closest",
    }
    if table is not None:
        layout["meta"] = {"text": table}
    fig = _figure(traces(0), title, teaching, height, **layout)
    frames = [{"name": str(L), "data": [{"type": "scatter", "x": t["x"], "y": t["y"]} for t in traces(L)],
               "traces": [0, 1, 2, 3]} for L in range(n_states)]
    return with_frames(fig, frames)


def _buttons(sizes: dict) -> dict:
    glide = {"duration": 500, "easing": "cubic-in-out"}
    play = {"label": words("meaning_figures.play"), "method": "animate",
            "args": [None, {"frame": {"duration": 1300, "redraw": False}, "fromcurrent": True, "transition": glide}]}
    pause = {"label": words("meaning_figures.pause"), "method": "animate",
             "args": [[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate",
                               "transition": {"duration": 0}}]}
    return {"type": "buttons", "direction": "left", "showactive": False, "x": 0, "y": 1.0, "xanchor": "left",
            "yanchor": "top", "pad": {"t": 0, "r": 10}, "font": {"size": sizes["base"] + 2, "color": TICK_COLOUR},
            "buttons": [play, pause]}


def _slider(names: list[str], sizes: dict, teaching: bool, y: float) -> dict:
    steps = [{"method": "animate", "label": name,
              "args": [[str(L)], {"mode": "immediate", "frame": {"duration": 0, "redraw": False},
                                  "transition": {"duration": 300, "easing": "cubic-in-out"}}]}
             for L, name in enumerate(names)]
    return {"active": 0, "steps": steps, "x": 0, "len": 1.0, "y": y, "yanchor": "top",
            "pad": {"t": 0, "b": 0, "l": 28, "r": 28},
            "currentvalue": {"visible": True, "prefix": words("meaning_figures.now"), "xanchor": "right",
                             "font": {"size": sizes["base"], "color": TICK_COLOUR}},
            "font": {"size": sizes["tick"] if teaching else sizes["tick"] - 1, "color": SUBTITLE_COLOUR},
            "ticklen": 4}
