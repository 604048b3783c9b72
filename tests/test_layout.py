"""Slide-ready layouts, measured in a real browser.

On every page (devtools/browser.py PAGES, so pages added later are covered too) at 4, 14 and 40 tokens, in
normal and teaching mode, the bounding boxes of each plotly figure's title, subtitle, axis titles, tick labels,
annotations and cell values are read from the DOM: none may be clipped by its figure, none may overlap
another, and the toolbar may not cover the title. Plus: teaching mode is a slide, and the SVG button exports.
"""

import os
import re
import urllib.parse
from pathlib import Path

import pytest

from devtools.browser import CHROMIUM, PAGES, wait_for_page
from devtools.layout import figure_texts, layout_problems

SHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "layout"
SENTENCES = {  # word-piece counts without [CLS]/[SEP]
    4: "I am good.",
    14: "The animal didn't cross the street because it was too tired.",
    40: "The animal didn't cross the street because it was too tired, and the children who had waited all "
        "afternoon by the old stone bridge finally walked home together singing softly in the cold dark "
        "evening rain.",
}

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
    pytest.skip("Debian's Chromium is not installed (apt-get install -y chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def page(browser):
    """One slide-sized tab for the whole module: each check only changes the link."""
    context = browser.new_context(viewport={"width": 1280, "height": 720}, accept_downloads=True)
    yield context.new_page()
    context.close()


def open_page(page, server, name, sentence, teaching):
    query = urllib.parse.urlencode({"sentence": sentence, "teach": "true" if teaching else "false"})
    page.goto(f"{server}/{PAGES[name]}?{query}")
    wait_for_page(page, figures=name not in ("quiz", "glossary"))  # pages without a figure
    assert page.locator('[data-testid="stException"]').count() == 0


@pytest.mark.parametrize("name", list(PAGES))
def test_figure_text_is_never_clipped_or_overlapping(server, page, name):
    problems = []
    for length, sentence in SENTENCES.items():
        for teaching in (False, True):
            open_page(page, server, name, sentence, teaching)
            where = f"{length} tokens, {'teaching' if teaching else 'normal'} mode"
            problems += [f"{where}: {problem}" for problem in layout_problems(figure_texts(page))]
            if length == 14 or problems:
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / f"{name}_{length}_{'teach' if teaching else 'normal'}.png"),
                                full_page=True)
    assert not problems, "\n".join(problems[:20])


def test_teaching_mode_is_a_slide(server, page):
    open_page(page, server, "step3", SENTENCES[14], teaching=True)
    plot = page.locator(".js-plotly-plot >> visible=true").first
    box = plot.bounding_box()
    assert box["height"] <= 720 and box["width"] <= 1280  # the main figure fits a 1280×720 slide
    ticks = plot.locator(".ytick text").first
    assert float(ticks.evaluate("t => parseFloat(getComputedStyle(t).fontSize)")) >= 18
    colour = ticks.evaluate("t => getComputedStyle(t).fill")  # "rgb(r, g, b)": dark means every channel low
    assert max(int(c) for c in colour[colour.index("(") + 1:-1].split(",")[:3]) <= 80, colour
    title_size = plot.locator(".g-gtitle .gtitle").evaluate("t => parseFloat(getComputedStyle(t).fontSize)")
    assert title_size >= 22
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_attribute("data-collapsed") == "true"
    assert sidebar.bounding_box()["x"] + sidebar.bounding_box()["width"] <= 1  # off the slide
    for hidden in ("stAlertContentSuccess", "stDownloadButton", "stDataFrame"):
        assert not page.locator(f'[data-testid="{hidden}"] >> visible=true').count(), hidden
    assert page.locator(".katex >> visible=true").count() >= 1  # one line of formula stays


def test_svg_download_beside_the_camera_keeps_the_file_name(server, page):
    open_page(page, server, "step3", SENTENCES[4], teaching=False)
    plot = page.locator(".js-plotly-plot >> visible=true").first
    plot.hover()
    with page.expect_download(timeout=60_000) as info:
        plot.locator("[data-svg-export]").click(force=True)
    download = info.value
    # Today's PNG name with .svg: step, sentence, layer and head of the default view.
    assert re.fullmatch(r"step3_weights_i-am-good_L\d+H\d+\.svg", download.suggested_filename)
    text = Path(download.path()).read_text()
    assert text.lstrip().startswith("<svg") and "good" in text  # vector, with the token labels as text
