"""Every screen a class uses, measured in Chromium (issue 32).

- The projector: teaching mode on every page at 4, 20 and 40 tokens (1280×720). In each figure the smallest
  rendered text is at least 18 px and everything off the coloured cells is dark; plotly thinned no category
  label away (from 20 tokens on, a focus view keeps the selected row and its neighbours instead); no text is
  clipped or overlaps (devtools/layout.py, as tests/test_layout.py measures).
- The phone: every page at 390×844 with 20 tokens. No element reaches past the screen's edge (a formula or a
  table scrolls inside its own box), no figure text overlaps, and axe-core finds no serious or critical
  violation there either (a box that scrolls only on a phone must be reachable by keyboard).
Screenshots: artifacts/screens/<page>_teach20.png and <page>_phone.png.
"""

import os
import urllib.parse
from pathlib import Path

import pytest

from devtools.a11y import axe_violations, describe
from devtools.browser import CHROMIUM, PAGES, wait_for_page
from devtools.layout import figure_texts, layout_problems, slide_problems, slide_texts, too_wide

SHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screens"
SENTENCES = {  # word-piece counts without [CLS]/[SEP]
    4: "I am good.",
    20: "The animal didn't cross the busy street because it was too tired and hungry that cold day.",
    40: "The animal didn't cross the street because it was too tired, and the children who had waited all "
        "afternoon by the old stone bridge finally walked home together singing softly in the cold dark "
        "evening rain.",
}
NO_FIGURES = ("quiz", "glossary")

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
    pytest.skip("Debian's Chromium is not installed (apt-get install -y chromium)", allow_module_level=True)


def open_page(page, server, name, sentence, teaching):
    query = urllib.parse.urlencode({"sentence": sentence, "teach": "true" if teaching else "false"})
    page.goto(f"{server}/{PAGES[name]}?{query}")
    wait_for_page(page, figures=name not in NO_FIGURES)
    assert page.locator('[data-testid="stException"]').count() == 0
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert "data-testid" not in text and "font-size" not in text  # the page's CSS never leaks out as text


def whole_page_shot(page, path: Path) -> None:
    """The whole page, not one screen: Streamlit scrolls inside its main area, so the window is made as tall as
    the content for the picture (and set back)."""
    size = page.viewport_size
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": min(max(height, size["height"]), 16_000)})
    page.wait_for_timeout(400)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)


@pytest.fixture(scope="module")
def slide(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    yield context.new_page()
    context.close()


def test_the_word_piece_counts():
    from attention.model import AttentionModel

    tokenize = AttentionModel().tokenize
    for count, sentence in SENTENCES.items():
        assert len(tokenize(sentence)) - 2 == count, (count, tokenize(sentence))


@pytest.mark.parametrize("name", list(PAGES))
def test_teaching_mode_is_a_slide_at_every_length(server, slide, name):
    problems = []
    for length, sentence in SENTENCES.items():
        open_page(slide, server, name, sentence, teaching=True)
        where = f"{length} tokens"
        problems += [f"{where}: {p}" for p in slide_problems(slide_texts(slide)) + layout_problems(figure_texts(slide))]
        if length == 20:
            assert slide.locator('[data-testid="stSidebar"]').get_attribute("data-collapsed") == "true"
            whole_page_shot(slide, SHOTS / f"{name}_teach20.png")
    assert not problems, "\n".join(problems[:20])


def test_a_slide_keeps_the_token_chips_and_a_compact_layer_head_control(server, slide):
    open_page(slide, server, "step3", SENTENCES[20], teaching=True)
    chips = slide.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]')
    assert chips.count() == 3  # layer, head, tokens
    heads = chips.nth(1)
    heads.get_by_text("6", exact=True).click()  # the sixth head: the code's head 5, in the link
    slide.wait_for_function("() => new URL(location.href).searchParams.get('head') === '5'", timeout=60_000)
    wait_for_page(slide)
    assert "head 6" in slide.locator(".js-plotly-plot .gtitle-subtitle").first.text_content()
    chips.nth(2).get_by_text("tired", exact=True).click()
    wait_for_page(slide)
    rows = slide.locator(".js-plotly-plot").first.locator(".ytick text").all_text_contents()
    assert "tired" in rows and len(rows) == 11  # the focus view moved to the clicked token
    assert slide.locator(".st-key-sentence_inline_box").is_visible()  # a slide has the sentence box (issue 41)


@pytest.mark.parametrize("name", list(PAGES))
def test_a_phone_shows_every_page_within_its_width(server, phone, name):
    open_page(phone, server, name, SENTENCES[20], teaching=False)
    width = too_wide(phone)
    assert width["scrollWidth"] <= width["width"] + 1 and not width["wide"], width
    problems = layout_problems(figure_texts(phone))
    assert not problems, "\n".join(problems[:20])
    violations = axe_violations(phone)
    assert not violations, "\n".join(describe(violations))
    if name == "multihead":  # the 12 heads two a row, each head's title readable
        columns = phone.locator(".js-plotly-plot").first.evaluate(
            "(plot) => new Set([...plot.querySelectorAll('.annotation-text')]"
            ".map((t) => Math.round(t.getBoundingClientRect().left / 40))).size")
        assert columns == 2
    whole_page_shot(phone, SHOTS / f"{name}_phone.png")


def test_a_phone_has_the_sentence_box_on_the_page(server, phone):
    """On a phone the sidebar hides behind "»": the sentence can be typed on the page, and the figures follow."""
    open_page(phone, server, "step3", SENTENCES[4], teaching=False)
    box = phone.locator(".st-key-sentence_inline_box textarea")
    assert box.is_visible() and box.input_value() == SENTENCES[4]
    box.fill("Cats chase mice.")
    box.press("Control+Enter")
    phone.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot .ytick text')]"
                            ".some((t) => t.textContent === 'mice')", timeout=60_000)
    assert "sentence=Cats" in phone.url
