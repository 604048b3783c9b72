"""Every element the app's own CSS and scripts find by a selector that the app does not write itself.

The page's look (ui/widgets/page_style.py) and the scripts app.py adds (page_style's scroll-focus script,
ui/figures/show.py's SVG button and cell-text fitting) reach into Streamlit's, plotly's and KaTeX's own markup.
None of that markup is an API: a `data-testid` can be renamed in any Streamlit release, and nothing on the page
says so (a style stops applying, a script finds nothing). So every such selector is listed here, with what it is
for, the pages it is found on, and the version it was last seen on; tests/test_injected_scripts.py fails

- at once (fast lane) when a selector in those CSS or script texts is not listed here, or when the installed
  Streamlit is not the one the list was checked on: upgrade, run the browser test, then bump CHECKED_ON;
- in Chromium (`-m browser`) when a listed selector matches nothing on the pages it is listed for.

What an API does instead is not listed: a container's `key=` gives a class, `st-key-<key>`, that Streamlit
documents as stable (the app's own, KIND_KEY below, are still checked, as a key can be renamed); plotly's
toolbar is set through st.plotly_chart's config; the theme lives in .streamlit/config.toml. Streamlit has no
option for what is left (captions' colour, a slide's padding and type size for one session, a box that hides a
kind of element on slides only, a phone's headings), so that stays CSS, found through the selectors below.
"""

from __future__ import annotations

import dataclasses

# The versions the list was last checked on in Chromium (tests/test_injected_scripts.py -m browser).
CHECKED_ON = {"streamlit": "1.67.0", "plotly.js": "bundled with streamlit 1.67.0"}

KIND_STREAMLIT = "Streamlit's internal markup"    # may change in any release
KIND_KEY = "a container key= of the app's"        # Streamlit's stable st-key-<key> class
KIND_PLOTLY = "plotly.js's markup"                # comes with Streamlit's plotly.js bundle
KIND_KATEX = "KaTeX's markup (st.latex)"
KIND_APP = "markup the app writes itself (st.html)"

# Where a selector is found: the url path of a page ("" is the start page) and whether in teaching mode, plus an
# action the test takes first ("walkthrough": "Show the animation" pressed). A slide style that hides a kind of
# element is checked where that element is drawn (step 1 no longer draws its badge, downloads or table on a slide:
# the test found none there, so the rule may have nothing left to hide on that page).
HOME, HOME_TEACHING = ("", False, None), ("", True, None)
STEP1, STEP1_TEACHING = ("step1_scores", False, None), ("step1_scores", True, None)


@dataclasses.dataclass(frozen=True)
class Selector:
    css: str
    kind: str
    purpose: str
    found_on: tuple[tuple[str, bool, str | None], ...]


SELECTORS: tuple[Selector, ...] = (
    Selector('[data-testid="stMain"]', KIND_STREAMLIT,
             "the page's body, apart from the sidebar: slide and phone styles apply inside it only", (HOME, HOME_TEACHING)),
    Selector('[data-testid="stMainBlockContainer"]', KIND_STREAMLIT,
             "the body's padding: a slide uses the projector's width, a phone its narrow screen", (HOME, HOME_TEACHING)),
    Selector('[data-testid="stMarkdownContainer"]', KIND_STREAMLIT,
             "body text: larger on a slide, broken anywhere on a phone, red on the selected token chip", (HOME, HOME_TEACHING)),
    Selector('[data-testid="stCaptionContainer"]', KIND_STREAMLIT,
             "captions: darker than Streamlit's grey (#828180 is 3.9:1 on white; WCAG asks 4.5:1), larger on a slide",
             (HOME, HOME_TEACHING)),
    Selector('[data-testid="stElementContainer"]', KIND_STREAMLIT,
             "one element's box: a slide hides the boxes of badges, downloads and tables", (HOME_TEACHING, STEP1_TEACHING)),
    Selector('[data-testid="stAlertContentSuccess"]', KIND_STREAMLIT,
             "the green parity badge (ui/widgets/parity.py), hidden on a slide", (STEP1,)),
    Selector('[data-testid="stDownloadButton"]', KIND_STREAMLIT,
             "download buttons, hidden on a slide except the files for class", (HOME_TEACHING, STEP1)),
    Selector('[data-testid="stDataFrame"]', KIND_STREAMLIT, "tables (st.dataframe), hidden on a slide",
             (STEP1,)),
    Selector('[data-testid="stTable"]', KIND_STREAMLIT,
             "tables (st.table): hidden on a slide; a wide one scrolls on a phone and is reachable by keyboard",
             (("pronoun", True, None),)),
    # Until 1.67 this was Base Web's [data-baseweb="select"], which 1.67 no longer draws: the slide's drop-downs
    # stayed at 14 px, and only the browser test noticed.
    Selector('[data-testid="stSelectbox"]', KIND_STREAMLIT, "a drop-down in the page, its text larger on a slide",
             (("multihead", True, None),)),
    Selector('[data-testid="stSliderThumbValue"]', KIND_STREAMLIT,
             "a slider's value above its handle: larger on a slide, in its own line so it stays off the handle",
             (("training", True, None),)),
    Selector('[data-selected="true"]', KIND_STREAMLIT,
             "the selected token chip (st.pills): its word in red, not only its button's colour", (HOME,)),
    Selector(".st-key-sentence_inline_box", KIND_KEY,
             "the sentence box on the page itself: shown on a slide and a phone, where the sidebar is put away",
             (HOME, HOME_TEACHING)),
    Selector(".st-key-slide_top", KIND_KEY,
             "a slide's first row: sentence box, examples, Previous / Next (ui/widgets/tour.py slide_top)",
             (HOME_TEACHING, STEP1_TEACHING)),
    Selector('[data-testid="stPageLink-NavLink"]', KIND_STREAMLIT,
             "a page link's clickable box: wraps between words, not clipped; Previous / Next as buttons on a slide",
             (HOME, HOME_TEACHING, STEP1_TEACHING)),
    Selector(".st-key-class_downloads", KIND_KEY, "the files for class, which a slide still shows (in a closed box)",
             (HOME_TEACHING,)),
    Selector(".katex-display", KIND_KATEX, "a formula: scrolls inside its box when wider, reachable by keyboard",
             (STEP1,)),
    Selector(".figure-text", KIND_APP, "a figure's text alternative (its table scrolls inside the expander)",
             (HOME,)),
    Selector(".js-plotly-plot", KIND_PLOTLY, "a figure: where the SVG button and the cell-text fitting look",
             (HOME,)),
    Selector(".js-plotly-plot .modebar", KIND_PLOTLY, "a figure's toolbar, kept on one row with the SVG button",
             (HOME,)),
    Selector('.modebar-btn[data-title^="Download plot"]', KIND_PLOTLY,
             "the camera button the SVG button sits beside and clicks", (HOME,)),
    Selector(".heatmaplayer text", KIND_PLOTLY, "a heatmap's cell values, hidden when they overlap", (HOME,)),
)

# What the scripts write themselves, found once they have run: proof that they ran on this Streamlit.
SCRIPT_MARKS = {
    "[data-svg-export]": ("the SVG button beside each camera (ui/figures/show.py)", HOME),
}

# What the scripts mark themselves (a class or attribute they set and then select): nobody else's markup.
OWN_MARKUP = (".cells-do-not-fit", "[data-scroll-focus]", "[data-svg-export]")


def selectors_on(page: tuple[str, bool, str | None]) -> list[Selector]:
    return [selector for selector in SELECTORS if page in selector.found_on]


def pages() -> list[tuple[str, bool, str | None]]:
    """Every page (and mode, and action) some selector is listed for, in a fixed order."""
    return sorted({page for selector in SELECTORS for page in selector.found_on}
                  | {page for _, page in SCRIPT_MARKS.values()}, key=repr)
