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
SENTENCE_CHARS = 32          # of the sentence in a figure's subtitle on screen (a slide shows all of it)
TEACHING_SUBTITLE_CHARS = 56  # a slide's subtitle line (a half-width figure holds it): the whole sentence wraps
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


def split_title(title: str, whole_sentence: bool = False) -> tuple[str, str]:
    """'Step 3 · weights · “sentence” · view' → ('Step 3 · weights', '“sentence” · view').

    The part from the quoted sentence on becomes a smaller subtitle, so a long sentence never pushes
    the title out of a narrow figure. On a screen the sentence is shortened to SENTENCE_CHARS; a slide
    (whole_sentence) keeps all of it, wrapped over lines (_title_layout), so an exported slide says what was run.
    """
    head, separator, tail = title.partition(" · “")
    if not separator or not head:
        return title, ""
    if whole_sentence:
        return head, shorten("“" + tail, 6 * TEACHING_SUBTITLE_CHARS)  # at most six lines
    sentence, closing, view = tail.rpartition("” · ")
    if closing:
        tail = shorten(sentence, SENTENCE_CHARS) + closing + view
    return head, shorten("“" + tail, SUBTITLE_CHARS)


def font_sizes(teaching: bool) -> dict[str, int]:
    """Screen sizes, or slide sizes that stay readable from the back of a classroom."""
    if teaching:  # every word of a slide at least 18 px (issue 32): legends, cells, colour bars, axis titles
        return {"base": 18, "title": 24, "subtitle": 18, "tick": 18, "cell": 18}
    return {"base": 13, "title": 17, "subtitle": 13, "tick": 12, "cell": 12}


def title_lines(title: str, teaching: bool) -> list[str]:
    """The main title, wrapped at word boundaries so it is never cut off at a narrow figure's edge."""
    main, _ = split_title(title)
    return textwrap.wrap(main, TITLE_LINE_CHARS[teaching], break_long_words=False) or [main]


def _line_lift(sizes: dict[str, int]) -> int:
    """How far plotly lifts a top-anchored title per extra line (it centres the lines on the anchor)."""
    return int(0.75 * sizes["title"])


def title_block_height(title: str, teaching: bool) -> int:
    """Pixels the toolbar band, title and subtitle take at the top of a figure (as _figure lays them out: on a
    slide the subtitle is the whole sentence, wrapped)."""
    return _title_layout(title, teaching, TITLE_LINE_CHARS[teaching], None)[1]


# A figure narrower than this (on a phone) is relaid out in the browser with its layout.meta["narrow"]
# (FIT_CELL_TEXT_HTML's script), and back with meta["wide"]: the server cannot know the screen's width.
NARROW_FIGURE_PX = 520
NARROW_TITLE_CHARS = 30
NARROW_SUBTITLE_CHARS = 40


def _title_layout(title: str, teaching: bool, line_chars: int, subtitle_chars: int | None) -> tuple[dict, int]:
    """(title spec, pixels of the title block) with the title wrapped at line_chars and, if given, the
    subtitle at subtitle_chars (a narrow figure wraps its subtitle rather than cut it at the edge)."""
    sizes = font_sizes(teaching)
    main_text, subtitle = split_title(title, whole_sentence=teaching)
    if teaching and subtitle_chars is None:
        subtitle_chars = TEACHING_SUBTITLE_CHARS
    lines = textwrap.wrap(main_text, line_chars, break_long_words=False) or [main_text]
    main = "<br>".join(html.escape(line, quote=False) for line in lines)
    spec = {"text": main, "font": {"size": sizes["title"]},
            "x": 0.0, "xanchor": "left", "xref": "container", "y": 1.0, "yanchor": "top",
            "yref": "container", "pad": {"t": TOOLBAR_BAND + _line_lift(sizes) * (len(lines) - 1), "l": 6}}
    sub_lines = []
    if subtitle:
        sub_lines = textwrap.wrap(subtitle, subtitle_chars, break_long_words=True) if subtitle_chars else [subtitle]
        spec["subtitle"] = {"text": "<br>".join(html.escape(line, quote=False) for line in sub_lines),
                            "font": {"size": sizes["subtitle"], "color": SUBTITLE_COLOUR}}
    block = (TOOLBAR_BAND + _line_lift(sizes) * (len(lines) - 1) + int(1.35 * sizes["title"] * len(lines))
             + int(1.5 * sizes["subtitle"] * len(sub_lines)) + 18)
    return spec, block


def _figure(traces: list[dict], title: str, teaching: bool, height: int | None = None, top_axis: bool = False,
            **layout) -> go.Figure:
    """The shared frame of every figure: a left-aligned title (sentence in a subtitle), slide-size fonts, margins.

    The title owns the top margin, below the toolbar's band. Axes therefore sit at the bottom and left, where
    plotly's automargin gives long or upright labels their room (a top axis's labels ran into the title:
    plotly's title automargin does not count them). top_axis is accepted and ignored, for older callers.
    """
    sizes = font_sizes(teaching)
    # plotly lifts a wrapped title by part of a line; the extra pad keeps its first line below the toolbar.
    title_spec, top = _title_layout(title, teaching, TITLE_LINE_CHARS[teaching], None)
    if "legend" in layout:  # Streamlit's theme draws legends at 12 px unless told
        layout["legend"] = {**layout["legend"], "font": {"size": sizes["base"], "color": TICK_COLOUR}}
    frame = {
        "template": EMPTY_TEMPLATE,
        "title": title_spec,
        "font": {"size": sizes["base"]},
        "margin": {"l": 10, "r": 10, "t": top, "b": 10, "pad": 2},
    }
    if height is not None:
        frame["height"] = height + top - 60  # builders size the plot area for the old 60 px title margin
    # On a phone: the title and subtitle wrapped to the width. (Within the same height: Streamlit keeps a drawn
    # figure's height, so a layout that needs more of it, e.g. two panels a row, is chosen on the server:
    # ui/page.py on_a_phone.)
    narrow_title, narrow_top = _title_layout(title, teaching, NARROW_TITLE_CHARS, NARROW_SUBTITLE_CHARS)
    if narrow_title != title_spec:
        layout["meta"] = {**layout.get("meta", {}), "narrow": {"title": narrow_title, "margin.t": narrow_top},
                          "wide": {"title": title_spec, "margin.t": top}}
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")):
            layout[name] = _readable_axis(axis, sizes["tick"], every_label=teaching)
    for trace in traces:  # colour bars: dark ticks and title, at the page's tick size on a slide
        if trace.get("type") == "heatmap" and trace.get("showscale", True):
            trace["colorbar"] = _readable_colorbar(trace.get("colorbar", {}), sizes["tick"] if teaching else 11)
    return go.Figure({"data": traces, "layout": {**frame, **layout}}, _validate=False)


def _readable_colorbar(colorbar: dict, size: int) -> dict:
    colorbar = dict(colorbar)
    colorbar["tickfont"] = {**colorbar.get("tickfont", {}), "size": size, "color": TICK_COLOUR}
    if isinstance(colorbar.get("title"), dict):
        colorbar["title"] = {**colorbar["title"], "font": {"size": size, "color": TICK_COLOUR}}
    return colorbar


def _readable_axis(axis: dict, tick_size: int, every_label: bool = False) -> dict:
    """Dark tick labels at the page's size; labels that do not fit turn upright (never at a slant, which
    overlaps its neighbours) and plotly thins them; the margins grow to hold them.
    every_label (teaching mode): a category axis labels every category (a slide never loses a token's label:
    its figures are sized so the labels fit, with a focus view from FOCUS_FROM tokens on)."""
    axis = dict(axis)
    if every_label and axis.get("type") == "category" and axis.get("showticklabels", True) \
            and "tickvals" not in axis:
        axis.setdefault("tickmode", "linear")
        axis.setdefault("tick0", 0)
        axis.setdefault("dtick", 1)
    if axis.get("side") == "top":
        del axis["side"]  # the title owns the top margin (see _figure)
    font = {"size": tick_size, "color": TICK_COLOUR, **axis.get("tickfont", {})}
    axis["tickfont"] = font
    axis.setdefault("automargin", True)
    if axis.get("type") == "category":
        axis.setdefault("autotickangles", [0, 90])
    title = axis.get("title")
    if isinstance(title, dict):
        axis["title"] = {"standoff": 6, "font": {"color": SUBTITLE_COLOUR,
                                                 "size": tick_size if every_label else max(13, tick_size - 2)},
                         **title}
    return axis


def _category_axis(**extra) -> dict:
    return {"type": "category", **extra}


def _reversed_category_axis(**extra) -> dict:
    return {"autorange": "reversed", "type": "category", **extra}


def _axis_title(text: str) -> dict:
    return {"text": text}


def figure_title(step: str, sentence: str, view_label: str) -> str:
    """The whole sentence: split_title shortens it on screen and keeps it all on a slide."""
    return f"{step} · “{' '.join(str(sentence).split())}” · {view_label}"


def _row_outline(row: int) -> dict:
    return {"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": row - 0.5, "y1": row + 0.5,
            "line": {"color": HIGHLIGHT, "width": 3}, "fillcolor": "rgba(0,0,0,0)"}


def values_fit(n_rows: int, n_cols: int, teaching: bool, limit: int | None = None) -> bool:
    """Whether a 4-character value ("0.07") fits in every cell: up to CELL_TEXT_LIMIT tokens a side on screen
    (a figure beside the text still gives such a cell ~28 px), more at slide size and full width."""
    limit = limit or (TEACHING_CELL_TEXT_LIMIT if teaching else CELL_TEXT_LIMIT)
    return n_rows <= limit and n_cols <= limit


# Teaching mode from this many rows on: a focus view, the selected row and FOCUS_NEIGHBOURS rows either side, each
# with its label, instead of every row with every other label thinned away (a slide is 720 px tall).
FOCUS_FROM = 20
FOCUS_NEIGHBOURS = 5


def focus_rows(n_rows: int, selected: int) -> range:
    """The rows a focus view keeps: the selected one in the middle (or as near as the matrix's edge allows)."""
    size = 2 * FOCUS_NEIGHBOURS + 1
    start = min(max(0, selected - FOCUS_NEIGHBOURS), max(0, n_rows - size))
    return range(start, min(n_rows, start + size))


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
    if kind != "weights":
        bound = bound or float(np.abs(matrix).max()) or 1.0  # the whole matrix's range, also in a focus view
    if teaching and highlight_row is not None and matrix.shape[0] >= FOCUS_FROM:
        kept = focus_rows(matrix.shape[0], highlight_row)
        # Short: an upright axis title longer than the 11 rows would run into the subtitle.
        y_title = f"{y_title.split(' (')[0]} · rows {kept.start + 1}–{kept.stop} of {matrix.shape[0]}"
        matrix, rows = matrix[kept.start:kept.stop], rows[kept.start:kept.stop]
        highlight_row -= kept.start
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
        colour = {"colorscale": SIGNED_SCALE, "zmin": -bound, "zmax": bound, "zmid": 0.0}
    trace = {
        "type": "heatmap", "z": matrix, "x": cols, "y": rows, **colour,
        "textfont": {"size": sizes["cell"]},
        "hovertemplate": f"{html.escape(y_title)}: %{{y}}<br>{html.escape(x_title)}: %{{x}}<br>"
                         f"value: %{{z:.4f}}<extra></extra>",
        "colorbar": {"thickness": 12},
        "xgap": 1 if show_values else 0, "ygap": 1 if show_values else 0,
    }
    if show_values:
        trace["texttemplate"] = f"%{{z:.{decimals}f}}"
    shapes = [_row_outline(highlight_row)] if highlight_row is not None and 0 <= highlight_row < matrix.shape[0] else []
    side = max(matrix.shape[0], 3)
    # Rows tall enough for their label; ≤ 14 tokens in teaching mode still fit a 720 px slide.
    row_px = 35 if teaching else 30
    # On a slide every row keeps its 18 px label: a long matrix without a selected row grows past 720 px.
    height = int(min(1700 if teaching else 900, 140 + side * row_px)) if col_tokens is not None else \
        int(min(1700 if teaching else 700, 140 + side * (30 if teaching else 26)))
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
    xaxis = {"title": _axis_title(x_title), "type": "log" if log_x else "linear"}
    if log_x and 1 < len(x) <= 12:  # a label at each point measured: plotly's log axis adds small minor digits
        xaxis.update(tickmode="array", tickvals=x, ticktext=[f"{v:g}" for v in x])
    return _figure(traces, title, teaching, 380, legend={"orientation": "h", "y": -0.25},
                   xaxis=xaxis,
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
        "texttemplate": text_format, "textfont": {"size": font_sizes(teaching)["cell"] if teaching else 11},
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


# The width a slide gives a figure (1280 px screen, the page's padding): multi-head panels a row in teaching mode.
SLIDE_FIGURE_WIDTH = 1200


def on_a_phone() -> bool:
    """Whether the visitor's browser says it is a phone ("Mobi" in its User-Agent, the usual test). The server
    cannot know the screen's width, and Streamlit keeps a drawn figure's height, so a figure that needs another
    shape on a phone (small multiples: two panels a row, more rows) is built for it on the server."""
    try:
        import streamlit as st

        return "Mobi" in (st.context.headers.get("User-Agent") or "")
    except Exception:  # no browser behind this run (a test, a bare script)
        return False


def small_multiples(matrices, tokens, titles, title: str, columns: int = 4, teaching: bool = False,
                    selected: int | None = None):
    """One small heatmap per head, shared colour scale 0..1, tokens on the axes.

    Teaching mode keeps every token's 18 px label: fewer panels a row, each tall enough; from FOCUS_FROM tokens
    on (given the selected token) a focus view instead: the selected token's row in every head, one head a row.
    """
    if teaching and selected is not None and len(tokens) >= FOCUS_FROM:
        token = html.escape(str(tokens[selected]), quote=False)
        return matrix_heatmap(np.stack([np.asarray(m)[selected] for m in matrices]), titles, tokens, title,
                              kind="weights", teaching=True, x_title="key token (looked at)",
                              y_title=f"head · the row of “{token}”")
    n = len(matrices)
    labels = axis_labels(tokens)
    show_ticks = teaching or len(tokens) <= 20
    tick_size = font_sizes(True)["tick"] if teaching else 9
    panel_px = 230
    if teaching:  # a row of labels at 18 px needs ~24 px per token
        columns = max(1, min(columns, SLIDE_FIGURE_WIDTH // (len(tokens) * 24 + 90)))
        panel_px = max(panel_px, len(tokens) * 24)
    narrow = not teaching and on_a_phone()
    if narrow:  # two panels a row, each title wrapped to its ~170 px
        columns = min(columns, 2)
    panel_titles = [(textwrap.wrap(t, 20) if narrow else [t]) or [t] for t in titles]
    # Between grid rows: the upright token labels of the row above and the head titles of the row below.
    label_px = int(0.62 * tick_size * max(len(label) for label in labels)) if show_ticks and labels else 0
    gap_px = label_px + (40 if teaching else 30) + (16 if narrow else 0)
    rows, x_domains, y_domains, per_row = _multiples_grid(n, columns, gap_px, panel_px)
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
             "colorbar": {"thickness": 12, "title": {"text": "distance"}}}
    return _figure([trace], title, teaching, 520, yaxis=_reversed_category_axis(), xaxis=_category_axis())


SLIDE_EXPORT_HEIGHT = 720


def download_config(filename: str, teaching: bool = False, height: int | None = None) -> dict:
    """Plotly's camera button: a 3× PNG with a name that says what it is (SVG_EXPORT_HTML adds the SVG button).

    In teaching mode a 16:9 slide: the figure drawn at least SLIDE_EXPORT_HEIGHT px high (its own height if taller,
    so no label is squeezed) and 16/9 of that wide, at 2× (1280×720 → 2560×1440)."""
    options = {"format": "png", "filename": filename, "scale": 3}
    if teaching:
        slide_height = -(-max(int(height or 0), SLIDE_EXPORT_HEIGHT) // 9) * 9  # a multiple of 9: exactly 16:9
        options.update(scale=2, height=slide_height, width=slide_height * 16 // 9)
    config = {
        "toImageButtonOptions": options,
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
    """The figure, and right under it its text alternative (figure_text_html) in a collapsed expander: a screen
    reader reaches it by the next tab stop, and a student can copy the numbers from it."""
    import streamlit as st

    st.plotly_chart(fig, config=download_config(filename, teaching, fig._layout.get("height")), key=key)
    with st.expander(FIGURE_TEXT_LABEL):
        st.html(figure_text_html(fig))


# --- added for issue 32: every figure's text alternative -----------------------------------------------

FIGURE_TEXT_LABEL = "This figure as text and numbers"
# A screen reader's table stays a table a person can walk through: wider matrices (a vector of 384 numbers per
# token) are summarised row by row, said so in the sentence.
TEXT_TABLE_COLUMNS = 40
TEXT_TABLE_CELLS = 600  # (24 × 24): a larger matrix's table is one summary line a row (and its page payload small)


def _plain(text) -> str:
    """Plotly label text (HTML-escaped, maybe bold, with zero-width spaces) back to plain text."""
    text = str(text).replace("<br>", " ").replace("<b>", "").replace("</b>", "").replace("\u200b", "")
    return html.unescape(text).strip()


def _number(value: float) -> str:
    value = float(value)
    if not np.isfinite(value):
        return "–"
    if value.is_integer():
        return f"{value:.0f}"
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.1f}" if abs(value) >= 10 else f"{value:.3f}"


def _largest(values) -> int:
    """Index of the largest value, NaN (a masked cell, a step not run) never chosen; 0 if all are NaN."""
    values = np.asarray(values, dtype=np.float64)
    return int(np.argmax(np.where(np.isnan(values), -np.inf, values))) if values.size else 0


def _smallest(values) -> int:
    values = np.asarray(values, dtype=np.float64)
    return int(np.argmin(np.where(np.isnan(values), np.inf, values))) if values.size else 0


def _axis_name(layout: dict, axis: str, default: str) -> str:
    title = layout.get(axis, {}).get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return _plain(text) if text else default


def _figure_name(layout: dict) -> str:
    title = layout.get("title", {})
    subtitle = title.get("subtitle", {}).get("text", "")
    return _plain(title.get("text", "")) + (f" ({_plain(subtitle)})" if subtitle else "")


def _outlined_row(layout: dict) -> int | None:
    for shape in layout.get("shapes", []):
        if shape.get("type") == "rect" and shape.get("xref") == "paper" and shape.get("yref") == "y":
            return int(round(shape["y0"] + 0.5))
    return None


def _heatmap_text(trace: dict, layout: dict) -> tuple[list[str], list[list[str]], list[str]]:
    """(sentences, table header, table rows) of one heatmap."""
    z = np.asarray(trace["z"], dtype=np.float64)
    rows = [_plain(label) for label in trace.get("y", range(z.shape[0]))]
    columns = [_plain(label) for label in trace.get("x", range(z.shape[1]))]
    row_name = _axis_name(layout, "yaxis", "row")
    column_name = _axis_name(layout, "xaxis", "column")
    top = np.unravel_index(_largest(z), z.shape)
    low = np.unravel_index(_smallest(z), z.shape)
    said = [f"A grid of {z.shape[0]} rows ({row_name}) by {z.shape[1]} columns ({column_name}), values from "
            f"{_number(z[low])} to {_number(z[top])}. The largest, {_number(z[top])}, is in row “{rows[top[0]]}”, "
            f"column “{columns[top[1]]}”."]
    outlined = _outlined_row(layout)
    if outlined is not None and 0 <= outlined < z.shape[0]:
        row = z[outlined]
        said.append(f"The outlined row “{rows[outlined]}”: largest {_number(row[_largest(row)])} in column "
                    f"“{columns[_largest(row)]}”, smallest {_number(row[_smallest(row)])} in column "
                    f"“{columns[_smallest(row)]}”.")
    if z.shape[1] > TEXT_TABLE_COLUMNS or z.size > TEXT_TABLE_CELLS:
        said.append(f"The table gives each row's two largest and its smallest of its {z.shape[1]} values.")
        header = [row_name, "largest", f"at {column_name}", "second", "at", "smallest", "at"]
        body = []
        for r in range(z.shape[0]):
            first = _largest(z[r])
            second = _largest(np.where(np.arange(z.shape[1]) == first, np.nan, z[r]))
            low = _smallest(z[r])
            body.append([rows[r], _number(z[r][first]), columns[first], _number(z[r][second]), columns[second],
                         _number(z[r][low]), columns[low]])
    else:
        header = [row_name] + columns
        body = [[rows[r]] + [_number(v) for v in z[r]] for r in range(z.shape[0])]
    return said, header, body


def _panels_text(traces: list[dict], layout: dict) -> tuple[list[str], list[list[str]], list[str]]:
    """Small multiples: per panel its strongest cell; the table names each row's strongest column per panel."""
    names = [_plain(a.get("text", "")) for a in layout.get("annotations", [])]
    names = [name.split(":")[0] or f"panel {i}" for i, name in enumerate(names)] + \
        [f"panel {i}" for i in range(len(names), len(traces))]
    said = [f"{len(traces)} grids side by side, one per panel ({', '.join(names[:len(traces)])})."]
    strongest = []
    for name, trace in zip(names, traces):
        z = np.asarray(trace["z"], dtype=np.float64)
        rows, columns = [_plain(t) for t in trace["y"]], [_plain(t) for t in trace["x"]]
        r, c = np.unravel_index(_largest(z), z.shape)
        strongest.append(f"{name}: {_number(z[r, c])} from “{rows[r]}” to “{columns[c]}”")
    said.append("Strongest cell of each: " + "; ".join(strongest) + ".")
    said.append("The table gives, for each row, the column it gives the most in each panel.")
    first = traces[0]
    header = ["row"] + names[:len(traces)]
    body = []
    for r, label in enumerate(first["y"]):
        cells = [_plain(label)]
        for trace in traces:
            row = np.asarray(trace["z"][r], dtype=np.float64)
            cells.append(f"{_plain(trace['x'][_largest(row)])} {_number(row[_largest(row)])}")
        body.append(cells)
    return said, header, body


def _series_text(traces: list[dict], layout: dict) -> tuple[list[str], list[list[str]], list[str]]:
    """Bars or lines sharing one category or number axis: one table column per series."""
    horizontal = traces[0].get("orientation") == "h"
    category_key, value_key = ("y", "x") if horizontal else ("x", "y")
    categories = [_plain(v) if not isinstance(v, (int, float, np.number)) else _number(v)
                  for v in traces[0][category_key]]
    category_name = _axis_name(layout, "yaxis" if horizontal else "xaxis", "item")
    said = []
    names = []
    for i, trace in enumerate(traces):
        values = np.asarray(trace[value_key], dtype=np.float64)
        name = _plain(trace.get("name") or (f"series {i + 1}" if len(traces) > 1 else "value"))
        names.append(name)
        top, low = _largest((values)), _smallest((values))
        said.append(f"{name}: from {_number(values[0])} at “{categories[0]}” to {_number(values[-1])} at "
                    f"“{categories[-1]}”; largest {_number(values[top])} at “{categories[top]}”, smallest "
                    f"{_number(values[low])} at “{categories[low]}”.")
    header = [category_name] + names
    body = [[category] + [_number(trace[value_key][k]) for trace in traces] for k, category in enumerate(categories)]
    return said, header, body


def figure_text(fig: go.Figure) -> tuple[str, list[str], list[list[str]]]:
    """A figure in words and numbers, for a screen reader (or a student who copies them): one sentence with its
    key numbers, and the data as a table's header and rows. Read from the figure's own spec, so no figure can
    go without one; a builder whose picture is not in its traces (token_lines) puts it in layout.meta["text"]."""
    # The spec as the builders wrote it (numpy arrays, not plotly's base64 typed arrays): see the module's docstring.
    traces, layout = fig._data, fig._layout
    meta = layout.get("meta") or {}
    said, header, body = [], [], []
    heatmaps = [t for t in traces if t.get("type") == "heatmap"]
    series = [t for t in traces if t.get("type") in ("bar", "scatter") and t.get("mode") != "text"]
    tables = [t for t in traces if t.get("type") == "table"]
    if isinstance(meta, dict) and meta.get("text"):
        said, header, body = list(meta["text"]["said"]), meta["text"]["header"], meta["text"]["rows"]
    elif len(heatmaps) > 1:
        said, header, body = _panels_text(heatmaps, layout)
    elif heatmaps:
        said, header, body = _heatmap_text(heatmaps[0], layout)
        if series:  # query_meets_keys: the heatmap's rows summed, as bars beside it
            more, bar_header, bar_body = _series_text(series, layout)
            said += more
            if len(header) > len(bar_header):
                header = header + bar_header[1:]
                body = [row + extra[1:] for row, extra in zip(body, bar_body)]
    elif series:
        said, header, body = _series_text(series, layout)
    elif tables:
        table = tables[0]
        header = [_plain(h) for h in table["header"]["values"]]
        columns = table["cells"]["values"]
        body = [[_plain(column[r]) for column in columns] for r in range(len(columns[0]))]
        said = [f"A table of {len(body)} rows and {len(header)} columns ({', '.join(header)})."]
        try:
            last = np.array([float(row[-1]) for row in body])
            top = _largest(last)
            said.append(f"The largest {header[-1]}, {body[top][-1]}, is in row “{body[top][0]}”.")
        except ValueError:  # a column of words
            pass
    name = _figure_name(layout)
    return (f"{name}. " if name else "") + " ".join(said), header, body


def figure_text_html(fig: go.Figure) -> str:
    """figure_text as HTML: a paragraph and a table. Every piece of text is escaped (tokens are user text)."""
    sentence, header, body = figure_text(fig)
    esc = lambda text: html.escape(str(text))  # noqa: E731
    head = "".join(f"<th scope=\"col\">{esc(h)}</th>" for h in header)
    rows = "".join("<tr>" + (f"<th scope=\"row\">{esc(row[0])}</th>" if row else "") +
                   "".join(f"<td>{esc(cell)}</td>" for cell in row[1:]) + "</tr>" for row in body)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>" if header else ""
    return f'<div class="figure-text"><p>{esc(sentence)}</p>{table}</div>'


# Heatmap cell values drawn only where they fit: the server cannot know the screen's width, so on a phone a
# 14-token heatmap's "0.07"s ran together ("0.000.000.00…"). After each draw (and resize) the browser measures
# each heatmap's values; if two neighbours touch, the figure's values are hidden (the hover and the text
# alternative still give every number). No "<" in the script (Streamlit's HTML sanitizer).
FIT_CELL_TEXT_HTML = """<style>.js-plotly-plot.cells-do-not-fit .heatmaplayer text {visibility: hidden;}</style>
<script>
(() => {
  if (window.__fitCellText) return;
  window.__fitCellText = true;
  const GAP = 2;
  const NARROW_PX = NARROW_FIGURE_PX;
  function crowded(texts) {
    const boxes = texts.map((t) => t.getBoundingClientRect()).filter((r) => r.width > 0);
    const rows = new Map();
    for (const box of boxes) {
      const key = Math.round((box.top + box.bottom) / 2);
      if (!rows.has(key)) rows.set(key, []);
      rows.get(key).push(box);
    }
    for (const row of rows.values()) {
      row.sort((a, b) => a.left - b.left);
      for (let i = 1; i !== row.length; i += 1) {
        if (row[i - 1].right + GAP > row[i].left) return true;
      }
    }
    const keys = [...rows.keys()].sort((a, b) => a - b);
    for (let i = 1; i !== keys.length; i += 1) {
      const above = rows.get(keys[i - 1])[0], below = rows.get(keys[i])[0];
      if (above.bottom > below.top + 0.25 * (below.bottom - below.top)) return true;
    }
    return false;
  }
  function relayout(plot) {  // layout.meta.narrow on a narrow figure, meta.wide again when it widens
    const meta = plot.layout && plot.layout.meta;
    if (!meta || !meta.narrow || !window.Plotly || !plot.clientWidth) return false;
    const want = plot.clientWidth >= NARROW_PX ? 'wide' : 'narrow';
    if ((meta.applied || 'wide') === want) return false;
    window.Plotly.relayout(plot, {...meta[want], 'meta.applied': want});
    return true;
  }
  function fit() {
    queued = false;
    document.querySelectorAll('.js-plotly-plot').forEach((plot) => {
      if (relayout(plot)) return;  // measured again after plotly has redrawn it
      const texts = [...plot.querySelectorAll('.heatmaplayer text')];
      if (!texts.length) return;
      plot.classList.toggle('cells-do-not-fit', crowded(texts));
    });
  }
  let queued = false;
  const later = () => { if (!queued) { queued = true; requestAnimationFrame(fit); } };
  new MutationObserver(later).observe(document.body, {childList: true, subtree: true});
  window.addEventListener('resize', later);
  later();
})();
</script>""".replace("NARROW_FIGURE_PX", str(NARROW_FIGURE_PX))


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
    # On a slide every key keeps its 18 px label: the figure grows past a screen's height rather than thin them.
    height = int(min(1600 if teaching else 900, 160 + max(len(labels), 3) * (34 if teaching else 26)))
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
    size = 18 if teaching else 13
    row_height = 32 if teaching else 26
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
            "textposition": "middle left", "textfont": {"size": size, "color": TICK_COLOUR}, "hoverinfo": "skip"}
    right_text = axis_labels(key_tokens)
    hover = [f"{right_text[j]}: {weights[selected, j]:.1%} of the attention of the selected token"
             if selected is not None else right_text[j] for j in range(n_k)]
    right = {"type": "scatter", "mode": "text", "x": [1.0] * n_k, "y": list(range(n_k)), "text": right_text,
             "textposition": "middle right", "textfont": {"size": size, "color": TICK_COLOUR}, "hovertext": hover,
             "hoverinfo": "text"}
    height = int(min(1000, 120 + max(n_q, n_k, 3) * (34 if teaching else 26)))
    return _figure([left, right], title, teaching, height, showlegend=False, shapes=shapes,
                   meta={"text": _lines_text(weights, query_tokens, key_tokens, selected)},
                   xaxis={"range": [-0.9, 1.9], "visible": False, "fixedrange": True},
                   yaxis={"range": [max(n_q, n_k) - 0.5, -1.4], "visible": False, "fixedrange": True},
                   annotations=[{"text": "looking (query)", "x": 0.0, "y": -0.9, "xanchor": "right",
                                 "showarrow": False, "xref": "x", "yref": "y", "font": {"color": SUBTITLE_COLOUR}},
                                {"text": "looked at (key)", "x": 1.0, "y": -0.9, "xanchor": "left",
                                 "showarrow": False, "xref": "x", "yref": "y", "font": {"color": SUBTITLE_COLOUR}}])


def _lines_text(weights, query_tokens, key_tokens, selected: int | None) -> dict:
    """token_lines' text alternative (its lines are shapes, not data): the selected row's weights, or each row's
    strongest key."""
    queries = [_plain(t) for t in axis_labels(query_tokens)]
    keys = [_plain(t) for t in axis_labels(key_tokens)]
    said = ["Lines join each token on the left (looking) to the tokens it looks at on the right; thicker means "
            "more attention."]
    if selected is not None:
        row = weights[selected]
        order = np.argsort(row)[::-1][:3]
        said.append(f"“{queries[selected]}” looks most at " +
                    ", ".join(f"“{keys[j]}” ({100 * row[j]:.0f}%)" for j in order) + ".")
        return {"said": said, "header": ["key token (looked at)", f"share of “{queries[selected]}”"],
                "rows": [[keys[j], f"{100 * row[j]:.1f}%"] for j in range(len(keys))]}
    return {"said": said, "header": ["query token (looking)", "looks most at", "share"],
            "rows": [[queries[i], keys[int(np.argmax(r))], f"{100 * r.max():.1f}%"] for i, r in enumerate(weights)]}


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
                            "font": {"size": font_sizes(teaching)["base"], "color": TICK_COLOUR}})
    return _figure(traces, title, teaching, 400, legend={"orientation": "h", "y": -0.3},
                   annotations=annotations, **axes)
