"""The selectors the app's CSS and scripts depend on (ui/widgets/injected_scripts.py): every one listed, checked on the
installed Streamlit, and (in Chromium) found on the pages it is listed for.

A Streamlit upgrade that renames a `data-testid` leaves a style that no longer applies and a script that finds
nothing, with no error anywhere: the fast tests make the upgrade itself fail until the browser test has been run
on it; the browser test fails on any listed selector that matches nothing.
"""

import os
import re
import urllib.parse
from pathlib import Path

import pytest
import streamlit

from devtools.browser import CHROMIUM
from ui.figures import FIT_CELL_TEXT_HTML, SVG_EXPORT_HTML
from ui.widgets import injected_scripts
from ui.widgets.page_style import BASE_CSS, FORMULA_FONTS_HTML, SCROLL_FOCUS_HTML, TEACHING_CSS

INJECTED = {"BASE_CSS": BASE_CSS, "TEACHING_CSS": TEACHING_CSS, "SCROLL_FOCUS_HTML": SCROLL_FOCUS_HTML,
            "FORMULA_FONTS_HTML": FORMULA_FONTS_HTML, "SVG_EXPORT_HTML": SVG_EXPORT_HTML,
            "FIT_CELL_TEXT_HTML": FIT_CELL_TEXT_HTML}
PORT = 8641
# Markup-independent parts of a selector: an attribute test or a class (tag names are HTML's own).
PARTS = re.compile(r"\[data-[\w-]+(?:\^?=\"[^\"]*\")?\]|\.[A-Za-z][\w-]*")


def selector_texts(injected: str) -> list[str]:
    """The selectors in a <style> block's rules and in a script's quoted strings that look like one."""
    texts = []
    for style in re.findall(r"<style>(.*?)</style>", injected, re.S):
        style = re.sub(r"/\*.*?\*/", "", style, flags=re.S)
        texts += [prelude for prelude in re.findall(r"([^{}]+)\{", style) if not prelude.strip().startswith("@")]
    for script in re.findall(r"<script>(.*?)</script>", injected, re.S):
        texts += [s for s in re.findall(r"'([^'\n]*)'", script) if re.match(r"\s*[.\[]", s)]
    return texts


def parts(texts) -> set[str]:
    return {part for text in texts for part in PARTS.findall(text)}


LISTED = parts(s.css for s in injected_scripts.SELECTORS) | set(injected_scripts.SCRIPT_MARKS)


def test_the_parser_finds_what_a_script_and_a_style_select():
    found = parts(selector_texts('<style>/* x */ [data-testid="stA"] p, .b:has(.c) {x: 1}\n@media (w) {.d {y: 2}}'
                                 "</style><script>q('.e [data-f]'); t('not a selector');</script>"))
    assert found == {'[data-testid="stA"]', ".b", ".c", ".d", ".e", "[data-f]"}


@pytest.mark.parametrize("name", list(INJECTED))
def test_every_selector_the_app_injects_is_listed(name):
    used = parts(selector_texts(INJECTED[name])) - set(injected_scripts.OWN_MARKUP)
    assert used or name == "FORMULA_FONTS_HTML", f"{name}: no selector found (the parser no longer reads it)"
    missing = sorted(used - LISTED)
    assert not missing, f"{name} selects {missing}: list them in ui/widgets/injected_scripts.py"


def test_every_listed_selector_is_still_used():
    used = parts(text for injected in INJECTED.values() for text in selector_texts(injected))
    unused = [s.css for s in injected_scripts.SELECTORS if not parts([s.css]) <= used]
    assert not unused, f"listed but selected by nothing: {unused}"


def test_the_list_was_checked_on_the_installed_streamlit():
    assert streamlit.__version__ == injected_scripts.CHECKED_ON["streamlit"], (
        f"Streamlit {streamlit.__version__} is installed, the selectors were checked on "
        f"{injected_scripts.CHECKED_ON['streamlit']}: run pytest tests/test_injected_scripts.py -m browser, fix "
        "what it finds, then set CHECKED_ON")


@pytest.fixture(scope="module")
def app_url(browser):
    from devtools.browser import streamlit_server

    with streamlit_server(PORT) as (url, _process, _seconds):
        yield url


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"), reason="Debian's Chromium is missing")
@pytest.mark.parametrize("where", injected_scripts.pages(), ids=repr)
def test_every_listed_selector_finds_something_on_its_page(browser, app_url, where):
    from devtools.browser import show_walkthrough, wait_for_page

    path, teaching, action = where
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        page.goto(f"{app_url}/{path}?{urllib.parse.urlencode({'teach': 'true' if teaching else 'false'})}")
        wait_for_page(page)
        if action == "walkthrough":
            show_walkthrough(page)
        page.wait_for_selector("[data-svg-export]", state="attached", timeout=30_000)  # the scripts have run
        wanted = [s.css for s in injected_scripts.selectors_on(where)]
        wanted += [mark for mark, (_, on) in injected_scripts.SCRIPT_MARKS.items() if on == where]
        counts = page.evaluate("selectors => selectors.map(s => document.querySelectorAll(s).length)", wanted)
        missing = [css for css, count in zip(wanted, counts) if count == 0]
        assert not missing, (f"on /{path} (teaching mode {teaching}), Streamlit "
                             f"{streamlit.__version__}: nothing matches {missing}")
    finally:
        context.close()
