"""Every head of the model in one figure: 6 × 12 plotly frames of a sentence's attention weights, stepped through
by a layer/head slider and Play in the browser (no script runs), each frame titled with where that head's attention
goes on this sentence (lessons/heads.py describe_heads: its largest target and the share it gets).

The payload stays small: a frame carries only its z (float32) and its title; from FOCUS_FROM tokens on a slide, or
past FLIP_FULL_TOKENS on a screen, every frame shows the same focus window (the selected row and five either side,
every key column), as the slides' matrices do. At 256 tokens the spec is about 1 MB (bench/run.py measures it).
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from ui.content import words
from ui.text import layer_head_name, layer_tag
from ui.figures.animation import with_frames
from ui.figures.layout import FOCUS_FROM, TICK_COLOUR, focus_rows, font_sizes, split_title
from ui.figures.matrices import matrix_heatmap

# On a screen a whole matrix per frame up to this many tokens (72 × 64 × 64 float32: ~1.6 MB of spec); longer
# sentences flip through the focus window, as a slide does from FOCUS_FROM tokens on.
FLIP_FULL_TOKENS = 64
FRAME_MS = 1200  # Play: long enough to read a frame's title
# Above the matrix: a row of Play and Pause, under it the slider across the figure's whole width, and under that the
# link to the step pages. Play and Pause beside the slider covered its first layers and handle on a phone (issue 55:
# the slider began at 26% of the width, where Pause ended in a figure under ~770 px), so they have a row of their own.
BUTTONS_PX = 44
CONTROLS_PX = 150


def frame_name(layer: int, head: int, n_heads: int = 12) -> str:
    """Frames are numbered from 0 (the offline file saves frame k as …_frame{k+1}); layer-major."""
    return str(layer * n_heads + head)


def target_words(target: str, language: str | None = None) -> str:
    """One of describe_heads's targets as a title says it ("the token before"); the markers by their names; ""
    for a head whose attention is spread out (no target named)."""
    if target in ("[CLS]", "[SEP]"):
        return target
    return {"itself": lambda: words("head_flip.target_itself", language=language),
            "previous token": lambda: words("head_flip.target_previous", language=language),
            "next token": lambda: words("head_flip.target_next", language=language),
            "punctuation": lambda: words("head_flip.target_punctuation", language=language)}.get(target, str)()


def where_it_goes(target: str, share: float, language: str | None = None) -> str:
    """What describe_heads measured on one sentence, said as that: "62% to [SEP]" (the average share of a row),
    or "spread out" when no target gets its threshold. A measurement of this sentence, not a role."""
    from lessons.heads import LARGEST_TARGET_SHARE
    from ui.text import pct

    named = target_words(target, language)
    if not named:
        return words("head_flip.spread_out", language=language, threshold=pct(LARGEST_TARGET_SHARE))
    return words("head_flip.goes_to", language=language, share=pct(share), target=named)


def head_title(layer: int, head: int, target: str, share: float, language: str | None = None) -> str:
    return words("head_flip.frame_title", language=language, head=layer_head_name(layer, head, capital=True),
                 goes=where_it_goes(target, share, language))


def flip_rows(n_tokens: int, selected: int, teaching: bool) -> range:
    """The rows every frame shows: all of them, or the focus window around the selected row."""
    if n_tokens > FLIP_FULL_TOKENS or (teaching and n_tokens >= FOCUS_FROM):
        return focus_rows(n_tokens, selected)
    return range(n_tokens)


def head_flipbook(attentions, tokens, roles, sentence: str, teaching: bool = False, selected: int = 0,
                  start: tuple[int, int] = (0, 0), head_links: list[list[str]] | None = None,
                  key_tokens=None, last_column: str | None = None, language: str | None = None) -> go.Figure:
    """attentions: [layers][heads, n, n_keys] (the model's own weights, as drawn); tokens: row labels (unique);
    key_tokens: column labels when they are not the rows (the hidden markers as one column, said by last_column);
    roles: [layers][heads] of (role, share) (lessons/heads.py describe_heads); selected: the selected token's row
    (outlined, and the focus window's centre); start: the frame shown first; head_links: per layer and head, the
    address of the step pages showing that head (a link under the title of each frame); language: the words' (the
    page's when None; the offline file is built outside the page's run)."""
    n_layers, n_heads = len(attentions), len(attentions[0])
    n = len(tokens)
    rows = flip_rows(n, selected, teaching)
    row_tokens = list(tokens)[rows.start:rows.stop]
    y_title = (words("head_flip.axis_query", language=language) if len(rows) == n else
               words("head_flip.axis_query_window", language=language, first=rows.start + 1, last=rows.stop, n=n))

    def z_of(layer: int, head: int):
        return np.asarray(attentions[layer][head][rows.start:rows.stop], dtype=np.float32)

    def title_of(layer: int, head: int) -> str:
        role, share = roles[layer][head]
        return f"{head_title(layer, head, role, share, language)} · “{' '.join(str(sentence).split())}”"

    first_layer, first_head = start
    base = matrix_heatmap(z_of(first_layer, first_head), row_tokens, key_tokens or tokens,
                          title_of(first_layer, first_head), kind="weights", teaching=teaching, y_title=y_title,
                          last_column=last_column,
                          highlight_row=selected - rows.start if selected in rows else None)
    layout = dict(base._layout)
    trace = dict(base._data[0])
    sizes = font_sizes(teaching)
    height = int(layout.get("height", 500)) + CONTROLS_PX
    # The plot area's share of the figure below the controls (the top margin is the title block; the bottom one
    # grows for upright token labels, estimated as small_multiples does).
    label_px = int(0.62 * sizes["tick"] * max((len(t) for t in row_tokens), default=1)) if n > 8 else 2 * sizes["tick"]
    plot_px = max(120, height - layout["margin"]["t"] - label_px - 20)
    layout["height"] = height
    top = max(0.3, 1 - CONTROLS_PX / plot_px)
    layout["yaxis"] = {**layout["yaxis"], "domain": [0.0, top]}
    # A line drawn the paper's whole height (the marker column's edge) stops at the matrix, not across the slider.
    layout["shapes"] = [{**shape, "y1": min(shape.get("y1", 1), top)} if shape.get("yref") == "paper" else shape
                        for shape in map(dict, layout.get("shapes") or [])]

    frames, steps = [], []
    # A link's blue on screen; a slide's text must be dark (every channel ≤ 120: tests/test_screens.py): navy.
    link_font = {"size": sizes["base"], "color": "#1e3a6e" if teaching else "#1d4ed8"}
    for layer in range(n_layers):
        for head in range(n_heads):
            frame_layout = {"title": {"text": html.escape(split_title(title_of(layer, head))[0], quote=False)}}
            if head_links:
                frame_layout["annotations"] = [_link_annotation(head_links[layer][head], layer, head, link_font, top,
                                                                language)]
            frames.append({"name": frame_name(layer, head, n_heads), "data": [{"type": "heatmap", "z": z_of(layer, head)}],
                           "traces": [0], "layout": frame_layout})
            steps.append({"method": "animate", "label": layer_tag(layer) if head == 0 else "",
                          "args": [[frame_name(layer, head, n_heads)],
                                   {"mode": "immediate", "frame": {"duration": 0, "redraw": True},
                                    "transition": {"duration": 0}}]})
    if head_links:
        layout["annotations"] = [_link_annotation(head_links[first_layer][first_head], first_layer, first_head,
                                                  link_font, top, language)]
    # Play runs every frame from the head on screen round to the one before it (plotly's fromcurrent knows no
    # current frame before the first one is animated: with all frames, Play jumped back to the first head).
    names = [frame["name"] for frame in frames]
    first = first_layer * n_heads + first_head
    play = {"label": words("head_flip.play", language=language), "method": "animate",
            "args": [names[first:] + names[:first], {"frame": {"duration": FRAME_MS, "redraw": True},
                                                     "fromcurrent": True, "transition": {"duration": 0}}]}
    pause = {"label": words("head_flip.pause", language=language), "method": "animate",
             "args": [[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate",
                               "transition": {"duration": 0}}]}
    layout["updatemenus"] = [{"type": "buttons", "direction": "left", "showactive": False, "x": 0, "y": 1.0,
                              "xanchor": "left", "yanchor": "top", "pad": {"t": 0, "r": 10},
                              "font": {"size": sizes["base"] + 2, "color": TICK_COLOUR},
                              "buttons": [play, pause]}]
    layout["sliders"] = [{"active": first_layer * n_heads + first_head, "steps": steps, "x": 0.0, "len": 1.0,
                          "y": 1 - BUTTONS_PX / plot_px, "yanchor": "top", "pad": {"t": 0, "b": 0, "r": 16},
                          "ticklen": 4,
                          "currentvalue": {"visible": False},
                          "font": {"size": sizes["tick"], "color": TICK_COLOUR}}]
    layout["meta"] = {**layout.get("meta", {}), "head_flip": {"layers": n_layers, "heads": n_heads,
                                                              "rows": [rows.start, rows.stop]}}
    return with_frames(go.Figure({"data": [trace], "layout": layout}, _validate=False), frames)


def _link_annotation(href: str, layer: int, head: int, font: dict, plot_top: float, language: str | None) -> dict:
    """"Open this head in the step pages": a link in the figure, so the frame on screen decides the head."""
    opens = words("head_flip.open_head", language=language, head=layer_head_name(layer, head))
    return {"text": f'<a href="{html.escape(href)}" target="_self">{html.escape(opens, quote=False)}</a>',
            "showarrow": False, "xref": "paper", "yref": "paper", "x": 1.0, "y": plot_top,
            "xanchor": "right", "yanchor": "bottom", "yshift": 6, "font": font}
