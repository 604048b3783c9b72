"""A class opens the teacher's links at once on a fresh server: every tab gets the app, not a bare page.

When the pages lived in a folder named pages/, Streamlit ran a server's first deep links in its old multipage
mode, without app.py and its start-up imports (import deadlocks, a bare page); and sessions starting together
used to import pandas at the same moment. Both broke a classroom's first visit. The pages now live in
app_pages/ (no old mode), and app.py imports everything first.
"""

import os
import urllib.parse
from pathlib import Path

import pytest

from devtools.browser import CHROMIUM, PAGES, chromium, streamlit_server, wait_for_page
from ui.settings import DEFAULT_LAYER
from wording import said

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
            # the menu names the pages as content/ does, not by their file names
            if said("menu.page_step1_scores") not in navigation or "step1 scores" in navigation:
                problems.append(f"{name}: navigation {navigation[:80]!r}")
            query = urllib.parse.parse_qs(urllib.parse.urlparse(tab.url).query)
            if name not in ("home", "quiz") and query.get("layer", [str(DEFAULT_LAYER)]) != [params["layer"]]:
                problems.append(f"{name}: url {tab.url}")
        assert not problems, problems


# Thirty first visits, each a different page or link: every page of the menu, with and without a table, a slide,
# [CLS] and [SEP] shown, random tables, another head (the pages import different libraries on their first run).
FIRST_VISITS = [(page, {"sentence": f"Student {i} reads that the cat sat on the mat.", "head": str(i % 12),
                        **({"teach": "true"} if i % 3 == 1 else {}), **({"special": "true"} if i % 3 == 2 else {}),
                        **({"mode": "random", "dk": "16"} if i % 5 == 4 else {})})
                for i, page in enumerate((list(PAGES.values()) * 3)[:30])]


def test_thirty_different_first_visits_on_a_fresh_server_show_no_error(monkeypatch):
    """A class's first minute: 30 students open different pages of a server that has just started, all at once.
    Sessions importing a library together once saw it half-imported ("partially initialized module 'pandas' has
    no attribute 'Series'"): 3 to 13 error boxes out of 30, on every fresh server tried. serving/startup.py imports
    every library a page may need before any page runs."""
    import asyncio

    from bench.load import Student
    from devtools.browser import server_log

    async def visit(url, page, query, problems):
        async with Student(url, page) as student:
            await student.run(query)
        problems.extend(f"{page or 'home'}: {message}" for message in student.exceptions)

    async def class_opens(url):
        problems = []
        await asyncio.gather(*(visit(url, page, query, problems) for page, query in FIRST_VISITS))
        return problems

    assert len({(page, tuple(sorted(query.items()))) for page, query in FIRST_VISITS}) == 30
    monkeypatch.setenv("STREAMLIT_LOGGER_ENABLE_RICH", "false")  # a page's traceback to the log, not to stdout
    with streamlit_server() as (url, process, _seconds):
        problems = asyncio.run(class_opens(url))
        log = server_log(process)
    causes = sorted({line.strip() for line in log.splitlines() if "Error" in line})  # each exception's last line
    assert not problems, (f"{len(problems)} of 30 pages showed an error", problems[:3], causes[:10])
    assert "Traceback" not in log, causes[:10] or log[-3000:]
