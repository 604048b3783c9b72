"""A lesson run from the front of the room (issue 41), measured in Chromium.

- The projector, 1920×1080 in teaching mode with the sidebar put away: the sentence, an example, the layer and head
  and the next page are all changed on the slide, and teaching mode holds; the content is ≥ 1600 px wide; every
  score and weight matrix at 4 and 12 tokens writes its values in the cells at ≥ 18 px.
- The phone, 390×844: no number label is cut (its drawn box lies inside every clip region around it, and it is not
  squeezed), no plotly control covers another, and every table cell's text contrasts ≥ 4.5:1 with its cell, read
  from the colours the browser drew.
- A cold server's first screen never lists the pages' raw file names.
- Predict, then reveal (in-process): a slide's numbers hidden until "Reveal the numbers".
"""

import json
import os
import re
import time
import urllib.parse
from pathlib import Path

import pytest
from conftest import run_app

from devtools.browser import CHROMIUM, PAGES, streamlit_server, wait_for_page
from ui.content import words
from ui.names import head_name

SENTENCES = {4: "I am good.", 12: "The cat sat on the mat and looked at the bird."}
LONG = "The animal didn't cross the street because it was too tired and hungry."  # 16 word pieces



def next_link(page_key):
    """The tour's Next link to a page, as the slide's first row names it (in English: no ?lang= in these links)."""
    return words("tour.next", language="en", page=words(f"tour.name_{page_key}", language="en"))


def branch_sentences(name, flag, **values):
    """The sentence a text says when `flag` is true and the one it says instead (the other values the same)."""
    said = [words(name, language="en", **values, **{flag: on}) for on in (True, False)]
    start = os.path.commonprefix(said).rfind(". ") + 2  # from the start of the sentence where they part
    return said[0][start:], said[1][start:]


browser_only = pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                  reason="Debian's Chromium is not installed (apt-get install -y chromium)")


def open_page(page, server, name, sentence, teaching=True, figures=True, **more):
    query = urllib.parse.urlencode({"sentence": sentence, "teach": "true" if teaching else "false", **more})
    page.goto(f"{server}/{PAGES[name]}?{query}")
    wait_for_page(page, figures=figures)
    assert page.locator('[data-testid="stException"]').count() == 0


def wait_for_row(page, token):
    page.wait_for_function("token => [...document.querySelectorAll('.js-plotly-plot .ytick text')]"
                           ".some(t => t.textContent === token)", arg=token, timeout=60_000)
    wait_for_page(page)


def still_teaching(page):
    assert new_query(page).get("teach") == ["true"]
    assert page.locator('[data-testid="stSidebar"]').get_attribute("data-collapsed") == "true"
    assert page.locator(".st-key-sentence_inline_box textarea").is_visible()


def new_query(page):
    return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)


@pytest.fixture(scope="module")
def projector(browser):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    yield context.new_page()
    context.close()


@browser_only
def test_a_teacher_drives_the_lesson_from_the_slide(server, projector):
    page = projector
    open_page(page, server, "home", SENTENCES[4])
    content = page.evaluate("() => { const box = document.querySelector('[data-testid=\"stMainBlockContainer\"]');"
                            " const style = getComputedStyle(box); return box.clientWidth"
                            " - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight); }")
    assert content >= 1600, content  # the screen's width, not a 1280 px column
    still_teaching(page)
    assert page.locator('[data-testid="stExpandSidebarButton"]').is_visible()  # the sidebar can come back
    # The sentence, typed on the slide.
    box = page.locator(".st-key-sentence_inline_box textarea")
    box.fill("Cats chase mice.")
    box.press("Control+Enter")
    wait_for_row(page, "mice")
    still_teaching(page)
    # An example, one click on the slide.
    page.locator('.st-key-slide_top [data-testid="stPopover"] button').click()  # the slide's "Examples"
    page.locator('[data-testid="stPopoverBody"] button', has_text="river bank").first.click()
    wait_for_row(page, "river")
    still_teaching(page)
    # A layer and a head, on the slide's own row: buttons counted from 1, the link in the code's numbers, from 0.
    groups = page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]')
    groups.nth(0).get_by_text("4", exact=True).click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('layer') === '3'", timeout=60_000)
    wait_for_page(page)
    groups.nth(1).get_by_text("2", exact=True).click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('head') === '1'", timeout=60_000)
    wait_for_page(page)
    still_teaching(page)
    # The next pages, from the slide: attention by hand, then step 1, the head kept on the way.
    page.locator('.st-key-slide_top a', has_text=next_link("by_hand")).click()  # the slide's first row
    page.wait_for_function("() => location.pathname.endsWith('/by_hand')", timeout=60_000)
    wait_for_page(page)
    page.locator('.st-key-slide_top a', has_text=next_link("step1_scores")).click()
    page.wait_for_function("() => location.pathname.endsWith('/step1_scores')", timeout=60_000)
    wait_for_row(page, "river")
    still_teaching(page)
    assert new_query(page)["layer"] == ["3"] and new_query(page)["head"] == ["1"]
    assert re.search(r"layer\s*4,\s*head\s*2\b", page.locator(".js-plotly-plot .gtitle-subtitle").first.text_content())


@browser_only
def test_the_compare_page_has_its_layer_and_head_on_the_slide(server, projector):
    open_page(projector, server, "compare", SENTENCES[4])
    groups = projector.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]')
    assert groups.count() == 2  # layer, head
    groups.nth(1).get_by_text("5", exact=True).click()  # the fifth head: the code's head 4, in the link
    projector.wait_for_function("() => new URL(location.href).searchParams.get('head') === '4'", timeout=60_000)
    wait_for_page(projector)
    text = projector.locator('[data-testid="stMain"]').inner_text()
    on_the_slide, in_the_sidebar = branch_sentences(
        "compare.output", "teaching", cosine="0.50", word="“w”", place_a=1, place_b=1, place_a_text="second",
        place_b_text="second", before="1.00")
    assert head_name(4) in text and on_the_slide in text and in_the_sidebar not in text


# The drawn values of each token × token matrix (an x axis titled with "key"); vectors of 32 numbers a token are
# not asked to hold theirs.
MATRIX_VALUES_JS = r"""
() => [...document.querySelectorAll('.js-plotly-plot')].filter((plot) => plot.offsetParent !== null)
  .filter((plot) => [...plot.querySelectorAll('.xtitle, .x2title')].some((t) => /key/.test(t.textContent))
                    && plot.querySelector('.heatmaplayer'))
  .map((plot) => {
    const cells = [...plot.querySelectorAll('.heatmaplayer text')];
    const shown = cells.filter((t) => getComputedStyle(t).visibility !== 'hidden'
                                      && t.getBoundingClientRect().width > 0);
    return {title: (plot.querySelector('.gtitle') || {}).textContent || '', cells: cells.length,
            shown: shown.length,
            smallest: Math.min(...shown.map((t) => parseFloat(getComputedStyle(t).fontSize)))};
  })
"""


@browser_only
@pytest.mark.parametrize("length", [4, 12])
def test_every_matrix_on_a_slide_writes_its_values(server, projector, length):
    problems, seen = [], 0
    for name in ("home", "step1", "step2", "step3", "compare", "whatif"):
        open_page(projector, server, name, SENTENCES[length])
        projector.wait_for_timeout(600)  # the browser's fit check runs after the draw
        for matrix in projector.evaluate(MATRIX_VALUES_JS):
            seen += 1
            if not matrix["cells"] or matrix["shown"] < matrix["cells"] or matrix["smallest"] < 18:
                problems.append(f"{name} {matrix}")
    assert seen >= 8 and not problems, problems


# Every number label a figure draws (bar texts, tick labels, table cells): its box within each clip region around
# it, and not squeezed (plotly shrinks a bar's inside text to fit).
CUT_LABELS_JS = r"""
() => {
  const problems = [];
  const number = /^[\s−+-]*[0-9][0-9.,%]*$/;
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    if (plot.offsetParent === null) continue;
    const texts = plot.querySelectorAll('.bartext, .xtick text, .ytick text, .y2tick text, .cell-text');
    for (const text of texts) {
      if (!number.test(text.textContent) || getComputedStyle(text).visibility === 'hidden') continue;
      const box = text.getBoundingClientRect();
      if (box.width < 1) continue;
      const natural = text.getComputedTextLength ? text.getComputedTextLength() : box.width;
      if (box.width < 0.95 * natural) problems.push(`${text.textContent}: squeezed to ${box.width} of ${natural}`);
      for (let node = text.parentNode; node && node !== plot; node = node.parentNode) {
        const clip = node.getAttribute && node.getAttribute('clip-path');
        const id = clip && (clip.match(/#([^)"']+)/) || [])[1];
        const region = id && document.getElementById(id);
        const shape = region && region.firstElementChild;
        if (!shape || shape.tagName !== 'rect' || !node.getScreenCTM) continue;
        // A clip path's rect is never drawn: its corners are mapped from the clipped element's own user space.
        const m = node.getScreenCTM(), at = (x, y) => new DOMPoint(x, y).matrixTransform(m);
        const [x, y] = ['x', 'y'].map((name) => parseFloat(shape.getAttribute(name) || 0));
        const [w, h] = ['width', 'height'].map((name) => parseFloat(shape.getAttribute(name)));
        const a = at(x, y), b = at(x + w, y + h);
        const r = {left: Math.min(a.x, b.x), right: Math.max(a.x, b.x), top: Math.min(a.y, b.y),
                   bottom: Math.max(a.y, b.y)};
        if (box.left < r.left - 1 || box.right > r.right + 1 || box.top < r.top - 1 || box.bottom > r.bottom + 1) {
          problems.push(`${text.textContent}: cut by its clip region`);
        }
      }
    }
  }
  return problems;
}
"""

# The walk-through's buttons and slider, and any two of a figure's controls, must not overlap.
COVERED_CONTROLS_JS = r"""
() => {
  const problems = [];
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const boxes = [...plot.querySelectorAll('.updatemenu-button, .slider-group')]
      .map((el) => [el.getAttribute('class'), el.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
    for (let i = 0; i < boxes.length; i += 1) {
      for (let j = i + 1; j < boxes.length; j += 1) {
        const [a, p] = boxes[i], [b, q] = boxes[j];
        if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) {
          problems.push(`${a} covers ${b}`);
        }
      }
    }
  }
  return problems;
}
"""

# Each table cell's text colour against its cell's fill, as drawn.
TABLE_CONTRAST_JS = r"""
() => {
  const channels = (colour) => (colour.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratios = [];
  for (const cell of document.querySelectorAll('.js-plotly-plot .table .column-cell')) {
    const text = cell.querySelector('.cell-text'), rect = cell.querySelector('.cell-rect');
    if (!text || !rect || !text.textContent.trim()) continue;
    const fg = luminance(channels(getComputedStyle(text).fill)), bg = luminance(channels(getComputedStyle(rect).fill));
    ratios.push([text.textContent, (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05)]);
  }
  return ratios;
}
"""


@browser_only
@pytest.mark.parametrize("name", ["home", "step1", "step2", "step3", "step4", "compare", "whatif"])
def test_a_phone_cuts_no_number_and_covers_no_control(server, phone, name):
    open_page(phone, server, name, LONG, teaching=False)
    phone.wait_for_timeout(600)
    assert phone.evaluate(CUT_LABELS_JS) == []
    assert phone.evaluate(COVERED_CONTROLS_JS) == []
    ratios = phone.evaluate(TABLE_CONTRAST_JS)
    assert all(ratio >= 4.5 for _, ratio in ratios), [r for r in ratios if r[1] < 4.5][:5]
    if name == "step3":
        assert len(ratios) >= 5 * 18  # the softmax table: every row drawn, its last one included
        last = phone.locator(".js-plotly-plot .table .column-cell .cell-text", has_text="[SEP]")
        assert last.count() == 1


@browser_only
def test_a_cold_server_never_lists_raw_file_names(browser):
    """The first visitor of a fresh server: from the first paint until the page is drawn, the sidebar shows no
    "app", "step1 scores" or the like (Streamlit's own page list), only the app's own menu."""
    with streamlit_server() as (url, _process, _seconds):
        page = browser.new_page()
        page.goto(f"{url}/step2_scaling")
        seen, deadline = set(), time.time() + 120
        while time.time() < deadline:
            seen.add(page.evaluate("() => (document.querySelector('[data-testid=\"stSidebar\"]') || {}).innerText"
                                   " || ''"))
            if page.locator(".js-plotly-plot .main-svg").count():
                break
            page.wait_for_timeout(100)
        wait_for_page(page)
        assert not [text for text in seen if re.search(r"\bstep1 scores\b|\bstep1_scores\b|^app$", text, re.M)], seen
        menu = page.locator(".st-key-page_menu").inner_text()
        page.close()
    assert words("menu.page_step1_scores", language="en") in menu and words("menu.page_glossary", language="en") in menu


def test_predict_first_hides_a_slides_numbers_until_revealed():
    at = run_app("app_pages/step3_softmax.py", "I am good.", teach=True, predict=True)
    assert not at.exception, at.exception
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "texttemplate" not in spec["data"][0]  # the weights' cells: colour only, until revealed
    table = json.loads(at.get("plotly_chart")[1].proto.spec)["data"][0]
    assert set(sum(table["cells"]["values"][1:], [])) == {"?"}
    reveal = [b for b in at.button if b.label == words("figures.reveal_button", language="en")]
    # One button a hidden figure; the lines of "attention as lines" wait for the matrix's reveal, with no button.
    assert len(reveal) == len(at.get("plotly_chart")) >= 2
    reveal[0].click().run()
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["data"][0]["texttemplate"] == "%{z:.2f}"  # this figure revealed ...
    table = json.loads(at.get("plotly_chart")[1].proto.spec)["data"][0]
    assert set(sum(table["cells"]["values"][1:], [])) == {"?"}  # ... the next one still hidden
    # Revealed for what it shows: the same session's figure for a new sentence is hidden again.
    again = run_app("app_pages/step3_softmax.py", "Cats chase mice.", teach=True, predict=True,
                    _revealed=set(at.session_state["_revealed"]))
    assert "texttemplate" not in json.loads(again.get("plotly_chart")[0].proto.spec)["data"][0]


def test_without_predict_first_a_slide_shows_its_numbers():
    at = run_app("app_pages/step3_softmax.py", "I am good.", teach=True)
    assert json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["texttemplate"] == "%{z:.2f}"
    assert words("figures.reveal_button", language="en") not in [b.label for b in at.button]
