"""The figure builders skip plotly's validation for speed, so these tests validate what they build."""

import json
import re

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest

from ui import figures

TOKENS = ["I", "am", "good", ".", "<b>x</b>", "am"]
RNG = np.random.default_rng(0)
WEIGHTS = RNG.dirichlet(np.ones(6), size=6)
SIGNED = RNG.standard_normal((6, 6))

BUILDERS = {
    "weights heatmap": lambda: figures.matrix_heatmap(WEIGHTS, TOKENS, TOKENS, "Step 3 & <i>", highlight_row=2),
    "signed heatmap, teaching": lambda: figures.matrix_heatmap(SIGNED, TOKENS, TOKENS, "t", kind="signed",
                                                               teaching=True),
    "vectors heatmap": lambda: figures.matrix_heatmap(SIGNED[:, :4], TOKENS, None, "t", kind="vectors"),
    "row bars": lambda: figures.row_bars(WEIGHTS[0], TOKENS, "t", highlight=1),
    "row bars, plain numbers": lambda: figures.row_bars(SIGNED[0], TOKENS, "t", percent=False),
    "marker bars": lambda: figures.marker_bars(WEIGHTS[0], TOKENS, [i == 0 for i in range(len(TOKENS))], "t"),
    "compare bars": lambda: figures.compare_bars({"scaled": WEIGHTS[0], "not <scaled>": WEIGHTS[1]}, TOKENS, "t"),
    "line chart": lambda: figures.line_chart([1, 4, 16], {"spread": [1.0, 2.0, 4.0]}, "t", "d_k", "std",
                                             log_x=True),
    "layer × head grid": lambda: figures.layer_head_grid(RNG.random((6, 12)), "t", highlight=(1, 2),
                                                         colorbar_title="share"),
    "small multiples": lambda: figures.small_multiples([WEIGHTS] * 12, TOKENS, [f"H{h}" for h in range(12)], "t"),
    "similarity map": lambda: figures.similarity_map(WEIGHTS, [f"H{h}" for h in range(6)], "t"),
    "shared colour range": lambda: figures.matrix_heatmap(SIGNED / 4, TOKENS, TOKENS, "t", kind="signed", bound=3.0),
    "query meets keys": lambda: figures.query_meets_keys(SIGNED * SIGNED[2], (SIGNED * SIGNED[2]).sum(1), TOKENS,
                                                         "<b>", "t"),
    "softmax table": lambda: figures.softmax_table(np.c_[SIGNED[0], SIGNED[0], WEIGHTS[0], WEIGHTS[0]], TOKENS,
                                                   ["a", "b", "c", "d"], "t", highlight=2),
    "token lines": lambda: figures.token_lines(WEIGHTS[:, :5], TOKENS, TOKENS[:5], "t", selected=1, teaching=True),
}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_every_builder_makes_a_valid_plotly_figure(name):
    spec = BUILDERS[name]().to_dict()
    go.Figure(spec)  # plotly's full validation: raises on any unknown property or bad value


@pytest.mark.parametrize("name", list(BUILDERS))
def test_figures_keep_streamlits_theme_and_use_explicit_colour_lists(name):
    spec = json.loads(plotly.io.to_json(BUILDERS[name](), validate=False))
    # Streamlit styles the chart through layout.template; plotly's own default would override the app theme.
    assert spec["layout"]["template"] == figures.EMPTY_TEMPLATE
    for trace in spec["data"]:
        if "colorscale" in trace:
            assert isinstance(trace["colorscale"], list), "plotly.js does not know Python-side names such as RdBu_r"


def test_invalid_spec_is_caught_by_the_validation_these_tests_use():
    spec = figures.row_bars(WEIGHTS[0], TOKENS, "t").to_dict()
    spec["data"][0]["no_such_property"] = 1
    with pytest.raises(ValueError):
        go.Figure(spec)


def test_small_multiples_lay_out_one_grid_cell_per_head_top_row_first():
    layout = figures.small_multiples([WEIGHTS] * 6, TOKENS, [f"H{h}" for h in range(6)], "t", columns=4).layout
    assert layout.xaxis.domain[0] == 0 and layout.xaxis4.domain[1] == pytest.approx(1)
    # The top row ends a little below 1: its head titles sit above it, under the figure's own title.
    assert 0.9 < layout.yaxis.domain[1] < 1 and layout.yaxis5.domain[0] == pytest.approx(0)
    assert [a.text for a in layout.annotations] == [f"H{h}" for h in range(6)]
    assert layout.annotations[0].x == pytest.approx(sum(layout.xaxis.domain) / 2)
    # Row labels once per grid row, on the left: inner columns' labels would sit on the neighbouring heatmap.
    assert [layout[f"yaxis{'' if i == 0 else i + 1}"].showticklabels for i in range(6)] == [True, False, False,
                                                                                            False, True, False]


def test_heatmap_writes_values_in_cells_only_while_they_fit():
    small = figures.matrix_heatmap(WEIGHTS, TOKENS, TOKENS, "t")
    big_tokens = [f"w{i}" for i in range(40)]
    big = figures.matrix_heatmap(np.full((40, 40), 1 / 40), big_tokens, big_tokens, "t")
    assert small.data[0].texttemplate == "%{z:.2f}"
    assert big.data[0].texttemplate is None
    assert big.data[0].z.dtype == np.float32


def test_the_sentence_moves_to_a_subtitle_and_long_titles_wrap():
    title = figures.figure_title("Step 3 · attention weights", "The animal didn't cross the street because it "
                                 "was too tired.", "learned weights, layer 0 head 3")
    layout = figures.matrix_heatmap(WEIGHTS, TOKENS, TOKENS, title).layout
    assert layout.title.text == "Step 3 · attention weights"
    assert layout.title.subtitle.text.startswith("“The animal") and layout.title.subtitle.text.endswith("head 3")
    long = figures.line_chart([1, 2], {"s": [1.0, 2.0]}, "Spread (standard deviation) of 2,000 random dot "
                              "products as d_k grows", "d_k", "std").layout
    assert long.title.text.count("<br>") == 1 and long.margin.t > layout.margin.t


def test_signed_values_too_wide_for_the_cells_are_left_out():
    tokens = [f"w{i}" for i in range(12)]
    small_values = figures.matrix_heatmap(RNG.random((12, 12)), tokens, tokens, "t")
    wide_values = figures.matrix_heatmap(-20 * RNG.random((12, 12)), tokens, tokens, "t", kind="signed")
    assert small_values.data[0].texttemplate == "%{z:.2f}"
    assert wide_values.data[0].texttemplate is None  # "-12.3" needs more room than 12 cells a side give
    assert figures.matrix_heatmap(-20 * RNG.random((6, 6)), TOKENS, TOKENS, "t",
                                  kind="signed").data[0].texttemplate == "%{z:.1f}"


def test_teaching_mode_ticks_are_large_and_dark():
    layout = figures.matrix_heatmap(WEIGHTS, TOKENS, TOKENS, "t", teaching=True).layout
    assert layout.xaxis.tickfont.size >= 18 and layout.yaxis.tickfont.color == figures.TICK_COLOUR
    assert layout.title.font.size >= 22


def test_download_config_names_the_png_and_the_page_adds_an_svg_button():
    config = figures.download_config("step3_weights_i-am-good_L1H1")
    assert config["toImageButtonOptions"] == {"format": "png", "filename": "step3_weights_i-am-good_L1H1",
                                              "scale": 3}
    assert "options.format = 'svg'" in figures.SVG_EXPORT_HTML
    script = figures.SVG_EXPORT_HTML.split("<script>")[1].removesuffix("</script>")
    assert not re.search(r"<[/\w]", script)  # markup-like text inside: Streamlit's HTML sanitizer drops it all


def test_line_charts_mark_each_point_only_while_points_are_few():
    """The six layers or eight values of d_k are points to read one by one; a 301-step loss curve is a line (a dot
    per step drew a beaded band, 2,000 shapes for the browser on the Training lab)."""
    layers = figures.line_chart(range(6), {"weight": RNG.random(6)}, "t", "layer", "weight").to_dict()
    steps = figures.line_chart(np.arange(301), {"loss": RNG.random(301)}, "t", "step", "loss").to_dict()
    assert layers["data"][0]["mode"] == "lines+markers"
    assert steps["data"][0]["mode"] == "lines"


# --- issue 32: every figure's text alternative, slide sizes, the focus view --------------------------------

LONG = [f"w{j}" for j in range(40)]
LONG_WEIGHTS = RNG.dirichlet(np.ones(40), size=40)
BUILDERS.update({
    "focus view, teaching": lambda: figures.matrix_heatmap(LONG_WEIGHTS, LONG, LONG, "t", highlight_row=38,
                                                           teaching=True),
    "heads, focus view": lambda: figures.small_multiples([LONG_WEIGHTS] * 12, LONG, [f"H{h}" for h in range(12)],
                                                         "t", teaching=True, selected=3),
    "heads, teaching": lambda: figures.small_multiples([WEIGHTS] * 12, TOKENS, [f"H{h}" for h in range(12)], "t",
                                                       teaching=True, selected=3),
})


@pytest.mark.parametrize("name", list(BUILDERS))
def test_every_figure_has_a_text_alternative(name):
    """A sentence with numbers in it, and a table whose rows each start with their label."""
    sentence, header, rows = figures.figure_text(BUILDERS[name]())
    assert re.search(r"\d", sentence) and len(sentence) > 40, sentence
    assert len(header) >= 2 and len(rows) >= 2
    assert all(len(row) == len(header) for row in rows), (header, rows[0])
    page_html = figures.figure_text_html(BUILDERS[name]())
    assert "<b>" not in page_html and "<i>" not in page_html  # user text is escaped, never markup
    assert page_html.count("<tr>") == len(rows) + 1


def test_the_text_alternative_says_the_numbers_drawn():
    sentence, header, rows = figures.figure_text(BUILDERS["weights heatmap"]())
    top = np.unravel_index(WEIGHTS.argmax(), WEIGHTS.shape)
    assert f"{WEIGHTS.max():.3f}" in sentence and f"row “{TOKENS[top[0]]}”" in sentence
    assert f"outlined row “{TOKENS[2]}”" in sentence and f"{WEIGHTS[2].max():.3f}" in sentence
    assert rows[2][1:] == [f"{v:.3f}" for v in WEIGHTS[2]]
    # A focus view's text is about the rows it draws, and says which they are.
    sentence, _, rows = figures.figure_text(BUILDERS["focus view, teaching"]())
    assert "rows 30–40 of 40" in sentence and [row[0] for row in rows] == LONG[29:]


def test_a_text_alternative_skips_masked_cells():
    masked = WEIGHTS.copy()
    masked[0] = np.nan
    sentence, _, rows = figures.figure_text(figures.matrix_heatmap(masked, TOKENS, TOKENS, "t", highlight_row=0))
    assert "nan" not in sentence.lower() and rows[0][1] == "–"


def test_slide_text_is_at_least_18_px():
    """Every size a teaching-mode figure sets: fonts, tick fonts, colour bars, legends, cells, subplot titles."""
    for name, build in BUILDERS.items():
        if "teaching" not in name:
            continue
        spec = json.loads(plotly.io.to_json(build()))

        def sizes(node):
            if isinstance(node, dict):
                for key, value in node.items():
                    if key == "size" and isinstance(value, (int, float)) and not isinstance(value, bool):
                        yield value
                    else:
                        yield from sizes(value)
            elif isinstance(node, list):
                for value in node:
                    yield from sizes(value)
        found = [size for part in ("data", "layout") for size in sizes(
            {k: v for k, v in spec[part].items() if k != "marker"} if isinstance(spec[part], dict) else
            [{k: v for k, v in trace.items() if k not in ("marker", "line")} for trace in spec[part]])]
        assert found and min(found) >= 18, (name, sorted(found)[:5])


def test_a_long_sentence_gets_a_focus_view_on_a_slide():
    fig = BUILDERS["focus view, teaching"]()
    trace = fig._data[0]
    assert list(trace["y"]) == LONG[29:] and list(trace["x"]) == LONG  # every column kept, 11 rows
    assert fig._layout["shapes"][0]["y0"] == 38 - 29 - 0.5  # the outline follows the selected row
    assert fig._layout["yaxis"]["dtick"] == 1 and fig._layout["xaxis"]["dtick"] == 1  # no label thinned
    # Not on screen (normal mode): every row, plotly may thin.
    full = figures.matrix_heatmap(LONG_WEIGHTS, LONG, LONG, "t", highlight_row=38)
    assert len(full._data[0]["y"]) == 40 and "dtick" not in full._layout["yaxis"]
    heads = BUILDERS["heads, focus view"]()
    assert len(heads._data) == 1 and list(heads._data[0]["y"]) == [f"H{h}" for h in range(12)]
    assert np.allclose(heads._data[0]["z"][0], LONG_WEIGHTS[3])


def test_a_slide_exports_16_by_9_with_the_whole_sentence():
    sentence = ("The animal didn't cross the street because it was too tired, and the children who had waited all "
                "afternoon by the old stone bridge finally walked home.")
    title = figures.figure_title("Step 3 · attention weights", sentence, "learned weights, layer 0 head 3")
    slide = figures.matrix_heatmap(WEIGHTS, TOKENS, TOKENS, title, teaching=True)
    subtitle = slide._layout["title"]["subtitle"]["text"].replace("<br>", " ")
    assert sentence in subtitle and "…" not in subtitle  # wrapped over lines, never cut
    screen = figures.matrix_heatmap(WEIGHTS, TOKENS, TOKENS, title)
    assert "…" in screen._layout["title"]["subtitle"]["text"]  # a screen's narrow figure shortens it
    for height in (500, 1500):
        options = figures.download_config("f", teaching=True, height=height)["toImageButtonOptions"]
        assert options["width"] * 9 == options["height"] * 16 and options["height"] >= max(height, 720)
    assert "width" not in figures.download_config("f")["toImageButtonOptions"]
