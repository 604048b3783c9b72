"""A class opens the teacher's links at once on a fresh server: every tab gets the app, not a bare page.

Streamlit decides at a server's first session whether pages/ means its old multipage mode, and sessions
starting together used to import pandas at the same moment; both broke a classroom's first visit.
"""

import os
import urllib.parse
from pathlib import Path

import pytest

from devtools.browser import CHROMIUM, PAGES, chromium, streamlit_server, wait_for_page
from ui.settings import DEFAULT_LAYER

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
    pytest.skip("Debian's Chromium is not installed (apt-get install -y chromium)", allow_module_level=True)

# Deep links as a teacher shares them: a page, a sentence and a few settings.
LINKS = [(name, f"Student {i} reads that the cat sat on the mat.", {"layer": str(i % 6), "head": str(i % 12)})
         for i, name in enumerate(["step3", "step1", "pronoun", "multihead", "step2", "step4", "whatif", "quiz",
                                   "home", "step3", "step1", "step4"])]


def test_twelve_deep_links_on_a_fresh_server_at_once():
    with chromium() as browser, streamlit_server() as (url, _process, _seconds):
        tabs = []
        for name, sentence, params in LINKS:  # all requests go out before any page has finished
            tab = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
            query = urllib.parse.urlencode({"sentence": sentence, **params})
            tab.goto(f"{url}/{PAGES[name]}?{query}", wait_until="commit")
            tabs.append(tab)
        problems = []
        for (name, sentence, params), tab in zip(LINKS, tabs):
            # Twelve tabs share two cores with the server: wait for each script to finish and a figure to
            # exist, not for every background tab to paint it.
            wait_for_page(tab, timeout_ms=300_000, figures=False)
            if name != "quiz":
                tab.wait_for_selector(".js-plotly-plot", state="attached", timeout=300_000)
            box = tab.locator('[data-testid="stSidebar"] textarea').first
            navigation = tab.locator('.st-key-page_menu').inner_text()
            if tab.locator('[data-testid="stException"]').count():
                problems.append(f"{name}: exception {tab.locator('[data-testid=stException]').first.inner_text()}")
            if box.input_value() != sentence:
                problems.append(f"{name}: sentence {box.input_value()!r}")
            if "Query·Key scores" not in navigation or "step1 scores" in navigation:
                problems.append(f"{name}: navigation {navigation[:80]!r}")
            query = urllib.parse.parse_qs(urllib.parse.urlparse(tab.url).query)
            if name not in ("home", "quiz") and query.get("layer", [str(DEFAULT_LAYER)]) != [params["layer"]]:
                problems.append(f"{name}: url {tab.url}")
        assert not problems, problems
