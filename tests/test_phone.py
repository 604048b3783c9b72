"""A phone (issue 55): at 390×844 no control of any page overlaps another, and no link is cut mid-word.

Measured in Chromium with a phone's User-Agent (the app's on_a_phone reads it), page by page, on what the page
draws: the bounding boxes of its visible controls (buttons, pills, page links, sliders, switches, text boxes,
select boxes, and plotly's own Play/Pause buttons and slider), and the line boxes of every word of every link.
Before the fix the 72-head flip-through's Pause lay over its slider's first layers and handle, and the start
page's link to the meaning page was clipped at its box's edge in the middle of "layer".
Plotly's modebar (the camera and zoom icons) is left out: plotly draws it over the figure's top right only while a
pointer hovers the figure, which a phone has not, and it is plotly's own overlay, not a control of the page.
"""

import re
from pathlib import Path

import pytest

from devtools.browser import PAGES, show_walkthrough, wait_for_page

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]

# The page's controls as a reader sees them: visible, on the screen's width (the closed sidebar lies to its left),
# and each counted once (a select box's inner input and arrow are parts of the one box).
MEASURE = """() => {
  const inView = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.right <= 0 || r.left >= innerWidth) return false;
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) !== 0;
  };
  const CONTROLS = ['button', '[role="slider"]', '[role="switch"]', 'input:not([type="hidden"])', 'textarea',
                    '[data-baseweb="select"]', '[data-testid="stPageLink"] a', '.updatemenu-button',
                    '.slider-container'];
  const found = [...new Set(CONTROLS.flatMap((s) => [...document.querySelectorAll(s)]))]
    .filter((el) => !el.closest('.modebar') && inView(el));
  const controls = found.filter((el) => !found.some((other) => other !== el && other.contains(el)));
  const name = (el) => {
    const key = el.closest('[class*="st-key-"]');
    const label = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('class') || el.tagName);
    return `${String(label).trim().slice(0, 40)} (${key ? key.className.match(/st-key-\\S+/)[0] : el.tagName})`;
  };
  const overlaps = [];
  const boxes = controls.map((el) => el.getBoundingClientRect());
  for (let i = 0; i < boxes.length; i += 1) {
    for (let j = i + 1; j < boxes.length; j += 1) {
      const a = boxes[i], b = boxes[j];
      const wide = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const high = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (wide > 1 && high > 1) overlaps.push(`${name(controls[i])} × ${name(controls[j])}`);
    }
  }
  // A link's word is cut when its letters lie on two lines, or past the edge of a box that hides what overflows
  // it (a visually hidden link, such as "Skip to main content", sits in a box of 1 px on purpose).
  const cut = [];
  for (const link of document.querySelectorAll('a')) {
    if (!inView(link)) continue;
    const texts = document.createTreeWalker(link, NodeFilter.SHOW_TEXT);
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      for (const word of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        if (new Set(rects.map((r) => Math.round(r.top))).size > 1) cut.push(`${word[0]} (on two lines)`);
        for (let box = node.parentElement; box && box !== document.body; box = box.parentElement) {
          if (!/(hidden|clip)/.test(getComputedStyle(box).overflowX)) continue;
          const edge = box.getBoundingClientRect();
          if (edge.width < 4) break;
          if (rects.some((r) => r.right > edge.right + 1 || r.left < edge.left - 1)) {
            cut.push(`${word[0]} (clipped) in "${link.textContent.trim().slice(0, 60)}"`);
            break;
          }
        }
      }
    }
  }
  return {controls: controls.length, overlaps, cut, failed: !!document.querySelector('[data-testid="stException"]')
          || !document.querySelector('[data-testid="stMain"] h1')};
}"""


def test_every_page_of_the_navigation_is_walked():
    """The walk below goes through devtools.browser.PAGES: every page app.py lists must be in it."""
    listed = set(re.findall(r'st\.Page\("(app_pages/\w+\.py)"', (ROOT / "app.py").read_text()))
    assert listed and listed == {f"app_pages/{path or 'home'}.py" for path in PAGES.values()}


@pytest.fixture(scope="module")
def phone_pages(server, phone):
    """Every page at 390×844 as the phone draws it: {name: what MEASURE found}. The start page is measured with
    its walk-through shown too (its Play button and slider), and the sidebar once, open."""
    found = {}
    for name, path in PAGES.items():
        phone.goto(f"{server}/{path}")
        wait_for_page(phone, figures=False)
        phone.wait_for_timeout(1500)  # figures drawn, the narrow layouts applied
        found[name] = phone.evaluate(MEASURE)
        if name == "home":
            show_walkthrough(phone)
            found["home, walk-through shown"] = phone.evaluate(MEASURE)
    # The sidebar, opened: on a phone it lies over the page, so its controls are measured with the page put away.
    opener = phone.locator('[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"] button')
    opener.first.click()
    phone.wait_for_function("() => { const box = document.querySelector('[data-testid=\"stSidebar\"]')"
                            ".getBoundingClientRect(); return box.left >= 0 && box.width > 200; }")
    phone.wait_for_timeout(500)  # until it has slid in
    phone.add_style_tag(content='[data-testid="stMain"] {display: none !important;}')
    phone.wait_for_timeout(500)
    found["the sidebar, open"] = {**phone.evaluate(MEASURE), "failed": False}  # no page title: the page is away
    return found


def test_no_control_overlaps_another(phone_pages):
    for name, found in phone_pages.items():
        assert not found["failed"], f"{name}: the page did not draw"
        assert found["controls"] >= 3, (name, found)  # the page's own controls were measured
    overlapping = {name: found["overlaps"] for name, found in phone_pages.items() if found["overlaps"]}
    assert not overlapping, overlapping


def test_no_link_is_cut_mid_word(phone_pages):
    cut = {name: found["cut"] for name, found in phone_pages.items() if found["cut"]}
    assert not cut, cut
