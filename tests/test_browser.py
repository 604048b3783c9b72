"""Real-browser tests: `streamlit run` on localhost, Debian's Chromium driven by Playwright.

Every page is opened and photographed (artifacts/screenshots/), a new sentence is typed, a shared link is
reopened, and a figure's PNG is downloaded.
"""

import os
import urllib.parse
from pathlib import Path

import pytest

from devtools.browser import CHROMIUM, PAGES, streamlit_server, type_sentence, wait_for_page
from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER
from ui.names import layer_head_name
from ui.text import quote
from wording import said

SHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
    pytest.skip("Debian's Chromium is not installed (apt-get install -y chromium)", allow_module_level=True)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
    p = context.new_page()
    dialogs = []
    p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    p.dialogs = dialogs
    yield p
    context.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_renders_in_chromium(server, page, name):
    page.goto(f"{server}/{PAGES[name]}")
    wait_for_page(page, figures=name not in ("quiz", "glossary"))
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("Page not found").count() == 0
    if name not in ("quiz", "glossary"):
        assert page.locator(".js-plotly-plot").count() >= 1
    else:
        assert page.get_by_text(said(f"menu.page_{name}")).count() >= 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def heatmap_ticks(page):
    return page.locator(".js-plotly-plot >> visible=true").first.locator(".ytick text").all_text_contents()


def test_typing_a_sentence_updates_the_figures(server, page):
    page.goto(f"{server}/step3_softmax")
    wait_for_page(page)
    assert "good" in heatmap_ticks(page)
    type_sentence(page, "Cats chase mice", "mice")
    assert "good" not in heatmap_ticks(page)
    assert "sentence=Cats" in page.url  # the view lives in the link


def test_shared_link_restores_the_view(server, page):
    query = urllib.parse.urlencode({"sentence": "The cat sat on the mat.", "layer": 2, "head": 5,
                                    "special": "true", "token": 2})  # token by index
    page.goto(f"{server}/step3_softmax?{query}")
    wait_for_page(page)
    title = page.locator(".js-plotly-plot .g-gtitle >> visible=true").first.text_content()
    # the link's layer=2&head=5, named as people count them ("layer 3, head 6")
    assert layer_head_name(2, 5) in title and "The cat sat" in title
    assert "[CLS]" in heatmap_ticks(page)
    assert page.get_by_text(said("step3.reading_header", token=quote("cat"))).count() == 1


def test_the_formula_fonts_arrive_while_the_start_page_is_idle(server, page):
    """Step 1's sums and underbraces need KaTeX's large-symbol fonts; fetched while the reader is on the start
    page (which has no formula), the first visit to step 1 does not wait for them and lay out twice; fetched only
    once the reader has not clicked or typed for a moment, they do not slow the reader's own clicks."""
    from ui.widgets.page_style import FORMULA_FONTS_QUIET_MS

    fetched = []
    # requests as they start: one that step 1 starts is step 1 waiting for a font, whenever it finishes
    page.on("request", lambda request: fetched.append(request.url.rsplit("/", 1)[-1]))
    page.goto(server)
    # Not while the reader acts: a key pressed every half second from the first moment holds them back, for twice
    # the quiet time after the page is drawn (they used to land on the first click after the page appeared).
    page.wait_for_selector('[data-testid="stSidebar"]')
    page.keyboard.press("Shift")
    wait_for_page(page)
    for _ in range(2 * FORMULA_FONTS_QUIET_MS // 500):
        page.keyboard.press("Shift")
        page.wait_for_timeout(500)
    assert not [name for name in fetched if name.startswith("KaTeX")]
    assert page.locator(".katex").count() == 0  # nothing on the start page asks for them itself
    # Every face the page fetches, loaded (waiting for one of them let step 1 open while Size4 was still on its way)
    page.wait_for_function("() => { const faces = [...document.fonts].filter(f => "
                           "/^KaTeX_(Main|Math|AMS|Size[1-4])$/.test(f.family.replace(/[\"']/g, '')));"
                           " return faces.length && faces.every(f => f.status === 'loaded'); }", timeout=20_000)
    assert any(name.startswith("KaTeX_Size1") for name in fetched)
    fetched.clear()
    page.locator('.st-key-page_menu a', has_text=said("menu.page_step1_scores")).first.click()
    wait_for_page(page)
    assert page.locator(".katex").count() >= 2  # step 1 does draw its formulas ...
    assert not [name for name in fetched if name.startswith("KaTeX")]  # ... with the fonts already there


# Counts the page's searches for boxes that may scroll (ui/widgets/page_style.py SCROLL_FOCUS_HTML): the selector names
# formulas and figure texts together.
COUNT_BOX_SEARCHES = """
window.__boxSearches = 0;
const search = Document.prototype.querySelectorAll;
Document.prototype.querySelectorAll = function (selector) {
  if (String(selector).includes('.katex-display') && String(selector).includes('.figure-text')) {
    window.__boxSearches += 1;
  }
  return search.call(this, selector);
};
"""


def test_boxes_that_scroll_are_measured_once_the_page_is_quiet_not_at_every_frame(server, page):
    """Measuring every box at every frame in which the page changed forced a layout per frame while a page was
    drawn (9 times on a switch to step 3); the boxes are measured once the page is quiet, and a box that scrolls
    still becomes reachable by keyboard."""
    from ui.widgets.page_style import SCROLL_FOCUS_QUIET_MS

    page.add_init_script(COUNT_BOX_SEARCHES)
    page.goto(server)
    wait_for_page(page)
    page.wait_for_timeout(1000)
    before = page.evaluate("window.__boxSearches")
    page.locator('.st-key-page_menu a', has_text=said("menu.page_step3_softmax")).first.click()
    wait_for_page(page)
    page.wait_for_timeout(1000)
    assert 1 <= page.evaluate("window.__boxSearches") - before <= 4
    # A formula wider than its box, on a phone-wide window: reachable by keyboard, with a name.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server}/step1_scores")
    wait_for_page(page)
    page.wait_for_timeout(SCROLL_FOCUS_QUIET_MS + 300)
    scrolling = page.evaluate("() => [...document.querySelectorAll('.katex-display')]"
                              ".filter(b => b.scrollWidth - b.clientWidth > 1)"
                              ".map(b => [b.tabIndex, b.getAttribute('aria-label')])")
    assert scrolling, "no formula is wider than a phone's screen: the check has nothing to check"
    assert all(index == 0 and label.startswith("formula ") for index, label in scrolling)


def test_hostile_link_is_shown_as_text_and_bad_values_fall_back(server, page):
    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script> **b**'
    query = urllib.parse.urlencode({"sentence": hostile, "layer": 99, "head": "x", "mode": "evil"})
    page.goto(f"{server}/step1_scores?{query}")
    wait_for_page(page)
    assert page.dialogs == []
    assert page.locator('[data-testid="stMain"] img[src="x"]').count() == 0
    title = page.locator(".js-plotly-plot .g-gtitle", has_text=said("step1.scores_title")).first.text_content()
    assert layer_head_name(DEFAULT_LAYER, DEFAULT_HEAD) in title  # invalid layer/head ignored, defaults used
    assert page.get_by_text(said("links.not_valid", key="layer", value="99")).count() == 1
    assert "<img" in title  # the user's text is shown, as text


def test_png_download_from_the_camera_button(server, page):
    page.goto(f"{server}/step3_softmax")
    wait_for_page(page)
    plot = page.locator(".js-plotly-plot >> visible=true").first
    plot.hover()
    with page.expect_download(timeout=60_000) as info:
        plot.locator('.modebar-btn[data-title*="Download plot"]').click(force=True)
    download = info.value
    assert download.suggested_filename == f"step3_weights_i-am-good_L{DEFAULT_LAYER + 1}H{DEFAULT_HEAD + 1}.png"  # from 1
    path = download.path()
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(data[16:20], "big")
    assert width >= 2 * 700  # exported at 3x scale


def test_shared_link_as_the_first_visit_of_a_cold_server(browser):
    """The first visitor of a fresh server may arrive by a deep link (a hosted demo that was asleep)."""
    with streamlit_server() as (url, _process, _seconds):
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        query = urllib.parse.urlencode({"sentence": "Cats run fast", "layer": 2, "head": 5, "special": "true"})
        page.goto(f"{url}/step3_softmax?{query}")
        wait_for_page(page)
        page.wait_for_timeout(2000)
        assert page.get_by_text("Page not found").count() == 0
        assert page.locator('[data-testid="stSidebar"] textarea').input_value() == "Cats run fast"
        title = page.locator(".js-plotly-plot .g-gtitle >> visible=true").first.text_content()
        assert said("step3.weights_title") in title and "Cats run fast" in title and layer_head_name(2, 5) in title
        page.close()


def test_open_a_pronoun_head_in_the_step_pages(server, page):
    page.goto(f"{server}/pronoun")
    wait_for_page(page)
    page.get_by_role("button", name=said("pronoun.open_steps")).click()
    page.wait_for_url("**/step3_softmax**", timeout=60_000)
    wait_for_page(page)
    title = page.locator(".js-plotly-plot .g-gtitle >> visible=true").first.text_content()
    # the head that gives "dog" the most weight
    assert "A dog ate the food" in title and said("view.label_learned", head_name=layer_head_name(5, 11)) in title
    assert page.get_by_text(said("step3.reading_header", token=quote("it"))).count() == 1
    assert "sentence=A+dog" in page.url


def test_eight_sessions_at_once_get_their_own_sentences(server, browser):
    """8 browser sessions on one server, loaded together: no cross-talk through caches or globals."""
    contexts = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(8)]
    pages = [c.new_page() for c in contexts]
    words = ["apple", "river", "castle", "rocket", "garden", "violin", "desert", "harbor"]
    try:
        for word, p in zip(words, pages):
            p.goto(f"{server}/step3_softmax?" + urllib.parse.urlencode({"sentence": f"The {word} is here"}))
        for word, p in zip(words, pages):
            wait_for_page(p)
            ticks = p.locator(".js-plotly-plot >> visible=true").first.locator(".ytick text").all_text_contents()
            assert sorted(ticks) == sorted(["the", word, "is", "here"]), (word, ticks)
    finally:
        for c in contexts:
            c.close()
