"""Issue 55, item 3: teaching mode on every page. The slide's first row (ui/widgets/tour.py slide_top) holds the
sentence box (or says where the page's own input is), the examples and Previous / Next, in the menu's order.

- In-process (AppTest): the tour is app.py's menu in order; every page draws Previous / Next on a slide, before
  anything that can stop the page; the slide's box and the sidebar are one sentence.
- In Chromium at 1920×1080, teaching mode, sidebar put away, a 14-token sentence: every page shows its box and
  Previous / Next on the first screen, and its first figure starts within it; typing in the slide's box changes the
  sidebar's sentence; Next goes on with teaching mode kept.
"""

import os
import re
import urllib.parse
from pathlib import Path

import pytest
from conftest import APP, run_app

from devtools.browser import CHROMIUM, streamlit_server, wait_for_page
from ui.widgets.tour import OWN_INPUT, TOUR

LONG = "The animal didn't cross the street because it was too tired."  # 14 tokens
SCREEN = {"width": 1920, "height": 1080}


def menu_pages() -> list[str]:
    """app.py's navigation, in the order the menu lists it."""
    return re.findall(r'st\.Page\("(app_pages/[^"]+\.py)"', Path(APP).read_text())


def link_labels(at) -> list[str]:
    return [link.proto.label for link in at.get("page_link")]


def test_the_tour_is_the_menu_in_order():
    assert [path for path, _ in TOUR] == menu_pages()
    assert len(menu_pages()) == 14


@pytest.mark.parametrize("page", menu_pages())
def test_every_page_draws_previous_and_next_on_a_slide(page):
    at = run_app(page, LONG, teach=True)
    assert not at.exception, at.exception
    labels = link_labels(at)
    first, last = menu_pages()[0], menu_pages()[-1]
    assert (page == first) != any(label.startswith("← Previous") for label in labels), labels
    assert any(label.startswith("Next") for label in labels), labels
    shared_box = [box for box in at.text_area if box.key == "sentence_inline"]
    assert len(shared_box) == (page not in OWN_INPUT), page  # the shared sentence, or the page's own input
    if page == last:  # the last page's Next goes back to the start
        assert {link.proto.page or "home" for link in at.get("page_link") if link.proto.label.startswith("Next")} == {"home"}


def test_previous_and_next_come_before_anything_that_can_stop_the_page():
    # The compare page stops while a box is empty: its slide still has Previous and Next, at the top.
    at = run_app("app_pages/compare.py", teach=True)
    at.text_input(key="compare_b").set_value("").run()
    assert not at.exception and any("both boxes" in str(i.value) for i in at.info)
    assert {"← Previous", "Next"} <= {label.split(":")[0] for label in link_labels(at)}


def test_off_a_slide_the_first_row_is_not_drawn():
    at = run_app("app_pages/multihead.py", LONG)
    assert not at.exception
    assert not any(box.key == "sentence_inline" for box in at.text_area)
    assert not any(button.key and button.key.startswith("example-") for button in at.button)
    assert any(label.startswith("Next") for label in link_labels(at))  # the foot's Previous / Next stay


def test_the_slides_box_and_the_sidebar_are_one_sentence():
    at = run_app("app_pages/quiz.py", LONG, teach=True)
    at.text_area(key="sentence_inline").input("Cats chase mice.").run()
    assert not at.exception and at.session_state["sentence"] == "Cats chase mice."
    # an example from the slide's row sets the sentence too
    at.button(key="example-good").click().run()
    assert not at.exception and at.session_state["sentence"] == "I am good."


# --- in Chromium ------------------------------------------------------------------------------------------------

browser_only = pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                  reason="Debian's Chromium is not installed (apt-get install -y chromium)")
PORT = 8661
FIGURELESS = {"app_pages/quiz.py", "app_pages/glossary.py"}

SLIDE_JS = """() => {
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0
                          && getComputedStyle(el).visibility !== 'hidden' && el.offsetParent !== null; };
  const main = document.querySelector('[data-testid="stMain"]');
  const top = (el) => el ? el.getBoundingClientRect().top : null;
  const bottom = (el) => el ? el.getBoundingClientRect().bottom : null;
  const row = main.querySelector('.st-key-slide_top');
  const links = row ? [...row.querySelectorAll('a')].filter(shown) : [];
  const link = (word) => links.find((a) => a.textContent.trim().startsWith(word));
  const box = main.querySelector('.st-key-sentence_inline_box textarea');
  // a page's own input: a text box, a drop-down, or attention by hand's drawing (its query is dragged)
  const inputs = [...main.querySelectorAll('textarea, input[type="text"], [data-baseweb="select"], .st-key-by-hand')]
    .filter(shown);
  // the page's main figure: attention by hand's drawing (a component, not plotly), else the first plotly figure
  const figure = [...main.querySelectorAll('.st-key-by-hand, .js-plotly-plot')].filter(shown)[0];
  return {previous: bottom(link('←')), next: bottom(link('Next')), box: box && shown(box) ? bottom(box) : null,
          input: inputs.length ? top(inputs[0]) : null, figure: top(figure), scrolled: main.scrollTop,
          collapsed: document.querySelector('[data-testid="stSidebar"]').getAttribute('data-collapsed')};
}"""


@pytest.fixture(scope="module")
def slide_server(browser):
    with streamlit_server(port=PORT) as (url, _process, _seconds):
        page = browser.new_page()
        page.goto(url)
        wait_for_page(page)
        page.close()
        yield url


@pytest.fixture(scope="module")
def projector(browser):
    context = browser.new_context(viewport=SCREEN)
    yield context.new_page()
    context.close()


def open_slide(page, server, path, sentence=LONG):
    url_path = "" if path == "app_pages/home.py" else path.removeprefix("app_pages/").removesuffix(".py")
    page.goto(f"{server}/{url_path}?{urllib.parse.urlencode({'sentence': sentence, 'teach': 'true'})}")
    wait_for_page(page, figures=path not in FIGURELESS)
    assert page.locator('[data-testid="stException"]').count() == 0


@browser_only
@pytest.mark.browser
@pytest.mark.parametrize("path", menu_pages())
def test_every_page_has_its_box_and_previous_next_on_the_first_screen(slide_server, projector, path):
    open_slide(projector, slide_server, path)
    slide = projector.evaluate(SLIDE_JS)
    height = SCREEN["height"]
    assert slide["collapsed"] == "true" and slide["scrolled"] == 0, slide
    assert slide["next"] is not None and slide["next"] <= height, slide
    if path != menu_pages()[0]:
        assert slide["previous"] is not None and slide["previous"] <= height, slide
    if path in OWN_INPUT:  # the page's own input, and no second sentence box saying otherwise
        # its first line at least (a text box's line, or the upper part of the drawing) on the first screen
        assert slide["box"] is None and slide["input"] is not None and slide["input"] + 40 <= height, slide
    else:
        assert slide["box"] is not None and slide["box"] <= height, slide
    if path not in FIGURELESS:
        assert slide["figure"] is not None and slide["figure"] < height, slide


@browser_only
@pytest.mark.browser
def test_typing_in_the_slides_box_changes_the_sidebars_sentence_and_next_keeps_the_slide(slide_server, projector):
    page = projector
    open_slide(page, slide_server, "app_pages/multihead.py")
    box = page.locator(".st-key-slide_top .st-key-sentence_inline_box textarea")
    box.fill("Cats chase mice.")
    box.press("Control+Enter")
    page.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === 'Cats chase mice.'",
                           timeout=60_000)
    wait_for_page(page)
    assert page.locator('[data-testid="stSidebar"] textarea').first.input_value() == "Cats chase mice."
    page.locator(".st-key-slide_top a", has_text="Next").click()
    page.wait_for_function("() => location.pathname.endsWith('/whatif')", timeout=60_000)
    wait_for_page(page)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert query.get("teach") == ["true"] and query.get("sentence") == ["Cats chase mice."], query
    assert page.locator('[data-testid="stSidebar"]').get_attribute("data-collapsed") == "true"
    assert page.locator(".st-key-slide_top .st-key-sentence_inline_box textarea").input_value() == "Cats chase mice."
