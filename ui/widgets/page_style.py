"""The page's look: readable captions and scrolling boxes, teaching mode's slide layout, the scripts app.py adds.

Streamlit has no option for these (its theme is one per server; a slide is one session's), so they select
Streamlit's own markup: every such selector is listed in ui/widgets/injected_scripts.py with the version it was
checked on, and tests/test_injected_scripts.py fails when one is added unlisted or, in Chromium, finds nothing.
"""

from __future__ import annotations

import json

import streamlit as st

from ui.content import words

# The header stays: it holds the only button that opens the sidebar again (issue 41: without it a slide was a dead
# end). The content takes the screen's width (a 1920 px projector: ~1820 px), and the sentence box is on the
# slide itself, so a teacher changes the sentence with the sidebar put away.
TEACHING_CSS = """<style>
[data-testid="stMainBlockContainer"] {padding-top: 3.5rem; padding-left: 3rem; padding-right: 3rem;
                                      max-width: none;}
.st-key-sentence_inline_box {display: block;}
/* The slide's first row (ui/widgets/tour.py slide_top): Previous / Next look like buttons, found at a glance. */
.st-key-slide_top [data-testid="stPageLink-NavLink"] {border: 1px solid rgba(49, 51, 63, 0.35);
  border-radius: 0.5rem; padding: 0.35rem 0.8rem; justify-content: center; min-height: 2.9rem;}
[data-testid="stMain"] textarea, [data-testid="stMain"] input,
[data-testid="stMain"] [data-testid="stSelectbox"] div {font-size: 1.3rem;}
/* A slide shows the picture: no parity badge (warnings and errors stay), downloads or tables. */
[data-testid="stMain"] [data-testid="stElementContainer"]:has([data-testid="stAlertContentSuccess"]),
[data-testid="stMain"] [data-testid="stElementContainer"]:has([data-testid="stDownloadButton"]),
[data-testid="stMain"] [data-testid="stElementContainer"]:has([data-testid="stDataFrame"]),
[data-testid="stMain"] [data-testid="stElementContainer"]:has([data-testid="stTable"]) {display: none;}
/* except the files for class, in their closed box under the walk-through (ui/sections/walkthrough_section.py) */
[data-testid="stMain"] .st-key-class_downloads [data-testid="stElementContainer"]:has([data-testid="stDownloadButton"]) {
  display: block;}
/* Text read from the back of a room: larger body text and captions. */
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li {font-size: 1.25rem; line-height: 1.5;}
[data-testid="stMain"] [data-testid="stCaptionContainer"] p {font-size: 1.15rem;}
@media (min-width: 1600px) {
  [data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
  [data-testid="stMain"] [data-testid="stMarkdownContainer"] li {font-size: 1.45rem;}
  [data-testid="stMain"] [data-testid="stCaptionContainer"] p {font-size: 1.3rem;}
}
/* A slider's value sits in a box of fixed offset above its handle: the slide's larger body line (35 px) ran down
   over the handle. Larger than Streamlit's 14 px, in the box's own 22.4 px line. */
[data-testid="stMain"] [data-testid="stSliderThumbValue"] [data-testid="stMarkdownContainer"] p {font-size: 1.2rem;
  line-height: 1.4rem;}
</style>"""


# The formulas' large brackets, sums and symbols come in KaTeX fonts that the browser fetches only when a formula
# first needs them, and then lays the page out again: measured in Chromium, that made the first visit to step 1
# (Σ, underbraces) and to multi-head 10-12 % slower. Fetched once per tab while the reader reads instead: when the
# browser is idle and nobody has clicked, typed or scrolled for QUIET_MS. Fetched as soon as the browser was idle,
# they landed on a visitor's first click after the page appeared (a token chip 0.28 s instead of 0.24 s, 7 pairs).
# (No "<" inside the script: Streamlit's HTML sanitizer drops a script that holds markup-like text.)
FORMULA_FONTS_QUIET_MS = 2500
FORMULA_FONTS_HTML = """<script>
(() => {
  if (window.__formulaFonts) return;
  window.__formulaFonts = true;
  const families = /^KaTeX_(Main|Math|AMS|Size[1-4])$/;
  const later = (task) => (window.requestIdleCallback || ((f) => setTimeout(f, 500)))(task, {timeout: 3000});
  const inputs = ['pointerdown', 'keydown', 'wheel', 'touchstart'];
  let tries = 0, quiet;
  function fetchFonts() {
    let found = false;
    for (const face of document.fonts) {
      if (!families.test(face.family.replace(/["']/g, ''))) continue;
      found = true;
      if (face.status === 'unloaded') face.load().catch(() => {});
    }
    tries += 1;
    if (found || tries === 20) {
      inputs.forEach((type) => window.removeEventListener(type, whenQuiet, true));
    } else {
      setTimeout(whenQuiet, 1000);  // KaTeX's styles not loaded yet
    }
  }
  function whenQuiet() {
    clearTimeout(quiet);
    quiet = setTimeout(() => later(fetchFonts), QUIET_MS);
  }
  inputs.forEach((type) => window.addEventListener(type, whenQuiet, {capture: true, passive: true}));
  whenQuiet();
})();
</script>""".replace("QUIET_MS", str(FORMULA_FONTS_QUIET_MS))


# On every page, in both modes (static CSS, no user text):
# - captions dark enough to read (Streamlit's own grey, #828180, is 3.9:1 on white; WCAG asks 4.5:1);
# - a figure's text alternative (figures.show, a collapsed expander) scrolls inside its box when its table is wide;
# - a phone: nothing wider than the screen; a formula or table wider than its box scrolls inside it;
# - a page link longer than its line wraps between words: Streamlit keeps it on one line and clips it, which cut
#   the start page's link to the meaning page mid-word on a phone (issue 55) and the sidebar's in a 1440 px window.
BASE_CSS = """<style>
[data-testid="stCaptionContainer"] {color: #4b5563; opacity: 1;}
[data-selected="true"] [data-testid="stMarkdownContainer"] p {color: #a4161a;}
.st-key-sentence_inline_box {display: none;}
[data-testid="stMain"] .katex-display {overflow-x: auto; overflow-y: hidden; max-width: 100%;}
.figure-text {overflow-x: auto; max-width: 100%;}
.figure-text table {font-size: 0.9rem;}
[data-testid="stPageLink-NavLink"] > span, [data-testid="stPageLink-NavLink"] p {white-space: normal;
  overflow: visible; overflow-wrap: normal;}
@media (max-width: 640px) {
  .st-key-sentence_inline_box {display: block;}
  [data-testid="stMain"] h1 {font-size: 2rem;}
  [data-testid="stMain"] h2 {font-size: 1.5rem;}
  [data-testid="stMain"] h3 {font-size: 1.2rem;}
  [data-testid="stMain"] [data-testid="stMainBlockContainer"] {padding-left: 0.75rem; padding-right: 0.75rem;}
  [data-testid="stMain"] [data-testid="stMarkdownContainer"] {overflow-wrap: anywhere;}
  [data-testid="stMain"] [data-testid="stTable"] {overflow-x: auto; max-width: 100%;}
}
</style>"""


# axe-core's "scrollable-region-focusable": a box that scrolls (a long formula on a narrow screen, a wide table)
# must be reachable by keyboard, or a keyboard user can never read its hidden part. Any such box in the page gets
# tabindex=0 and a name; re-checked when the page has changed (once it is quiet for SCROLL_FOCUS_QUIET_MS, at most
# a second late while an animation keeps changing it: measuring at every drawn frame forced a layout per frame while
# a page was being drawn) or the window is resized (a formula scrolls only when it is wider than its box). All boxes
# are measured before any is marked, so marking one does not force the next measurement to lay the page out again.
# No "<" in the script: Streamlit's HTML sanitizer drops a script with markup-like text.
SCROLL_FOCUS_QUIET_MS = 150
# What the script sets on such a box (and takes off when it no longer scrolls).
SCROLL_FOCUS_ATTRIBUTES = ("tabindex", "role", "aria-label", "data-scroll-focus")
SCROLL_FOCUS_HTML = """<script>
(() => {
  if (window.__scrollFocus) return;
  window.__scrollFocus = true;
  const BOXES = '.katex-display, [data-testid="stTable"], [data-testid="stTable"] div, .figure-text';
  function scrollable(box) {
    if (!(box.scrollWidth - box.clientWidth > 1 || box.scrollHeight - box.clientHeight > 1)) return false;
    const style = getComputedStyle(box);
    return /(auto|scroll)/.test(style.overflowX + style.overflowY);
  }
  function mark() {
    timer = 0;
    const boxes = [...document.querySelectorAll(BOXES)];
    const scrolls = boxes.map(scrollable);
    boxes.forEach((box, i) => {
      if (scrolls[i] && !box.hasAttribute('tabindex')) {
        box.setAttribute('tabindex', '0');
        box.setAttribute('role', 'region');
        box.dataset.scrollFocus = '1';
      } else if (!scrolls[i] && box.dataset.scrollFocus) {
        ATTRIBUTES.forEach((name) => box.removeAttribute(name));
      }
    });
    // Numbered in page order: each region's name is unique (axe-core's "landmark-unique").
    document.querySelectorAll('[data-scroll-focus]').forEach((box, i) => {
      const names = window.__scrollNames || {formula: 'formula #, scrolls', table: 'table #, scrolls'};
      const name = (box.matches('.katex-display') ? names.formula : names.table).replace('#', String(i + 1));
      if (box.getAttribute('aria-label') !== name) box.setAttribute('aria-label', name);
    });
  }
  let timer = 0, since = 0;
  function later() {
    const now = performance.now();
    if (!timer) since = now;
    clearTimeout(timer);
    timer = setTimeout(mark, now - since > 1000 ? 0 : QUIET_MS);
  }
  new MutationObserver(later).observe(document.body, {childList: true, subtree: true});
  window.addEventListener('resize', later);
  later();
})();
</script>""".replace("QUIET_MS", str(SCROLL_FOCUS_QUIET_MS)).replace(
    "ATTRIBUTES", json.dumps(list(SCROLL_FOCUS_ATTRIBUTES)))


def scroll_focus_html() -> str:
    """SCROLL_FOCUS_HTML with its boxes' names in the page's language (the script reads them on every marking, so a
    switch of language renames the boxes; "#" is each box's number)."""
    names = {kind: words(f"page_style.scroll_{kind}", number="#") for kind in ("formula", "table")}
    return f"<script>window.__scrollNames = {json.dumps(names)};</script>" + SCROLL_FOCUS_HTML


def apply_teaching_layout(teaching: bool) -> None:
    """Slides: the screen's whole width, text for the back of the room, the sentence box on the page. Static CSS.
    The page-wide readable styles (BASE_CSS) come with it, in both modes."""
    css = BASE_CSS.replace("</style>", TEACHING_CSS.replace("<style>", "")) if teaching else BASE_CSS
    st.markdown(css, unsafe_allow_html=True)  # one <style> block: Markdown reads text after a closing tag
