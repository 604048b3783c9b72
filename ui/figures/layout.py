"""What every figure shares: colours, fonts, the title block, axes, and _figure, where a spec becomes a figure."""

from __future__ import annotations

import html
import textwrap

from plotly.colors import get_colorscale
import plotly.graph_objects as go

from ui.text import no_bidi, shorten

# Resolved once to explicit colour lists: plotly.js itself knows neither "_r" names nor PiYG.
WEIGHTS_SCALE = get_colorscale("Blues")
SIGNED_SCALE = get_colorscale("RdBu_r")
PREFERENCE_SCALE = get_colorscale("PiYG")
DISTANCE_SCALE = get_colorscale("Viridis_r")
HIGHLIGHT = "#f59e0b"
CELL_TEXT_LIMIT = 14          # tokens per side up to which values are written in the cells
TEACHING_CELL_TEXT_LIMIT = 40  # a 1920 px slide; the browser hides values that do not fit (FIT_CELL_TEXT_HTML)
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
        label = html.escape(no_bidi(token), quote=False) or "␣"
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
    if closing:  # the sentence gives way first: the view's layer and head are never cut off
        room = SUBTITLE_CHARS - len(closing + view) - 1
        tail = shorten(sentence, max(12, min(SENTENCE_CHARS, room))) + closing + view
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
    main_text, subtitle = split_title(no_bidi(title), whole_sentence=teaching)
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
    # ui/figures/matrices.py on_a_phone.)
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
    return no_bidi(f"{step} · “{' '.join(str(sentence).split())}” · {view_label}")


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


def _grid_domains(count: int, spacing: float) -> list[tuple[float, float]]:
    """Equal cells along one side of a subplot grid, as plotly's make_subplots lays them out."""
    size = (1 - spacing * (count - 1)) / count
    return [(i * (size + spacing), i * (size + spacing) + size) for i in range(count)]
