"""Accessibility, measured in Chromium: axe-core (bundled by the axe-playwright-python package, no network)
finds no serious or critical violation in the app's own content on any page (Streamlit's own page list in the
sidebar is left out), and every figure has its text alternative right under it. The expanders are opened first,
so the text alternatives' tables and the expanders' contents are checked too. The phone and teaching-mode
layouts are checked in tests/test_screens.py, which runs axe-core there as well."""

import os
import urllib.parse
from pathlib import Path

import pytest

from devtools.a11y import axe_violations, describe
from devtools.browser import CHROMIUM, PAGES, wait_for_page
from ui.figures import figure_text_label

SENTENCE = "The animal didn't cross the street because it was too tired."

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
    pytest.skip("Debian's Chromium is not installed (apt-get install -y chromium)", allow_module_level=True)

# For each figure: is the next element its "as text" expander, and what does that hold?
FIGURE_TEXTS_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].map((plot) => {
  const container = plot.closest('[data-testid="stElementContainer"]');
  let next = container.nextElementSibling;
  const expander = next && next.querySelector('[data-testid="stExpander"]');
  const text = expander && expander.querySelector('.figure-text');
  return {title: (plot.querySelector('.gtitle') || {}).textContent || '',
          label: expander ? expander.querySelector('summary').textContent : null,
          sentence: text ? text.querySelector('p').textContent : '',
          cells: text ? text.querySelectorAll('td').length : 0,
          rowHeaders: text ? text.querySelectorAll('tbody th[scope="row"]').length : 0};
})"""


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_no_serious_violation_and_every_figure_in_words(server, page, name):
    page.goto(f"{server}/{PAGES[name]}?" + urllib.parse.urlencode({"sentence": SENTENCE}))
    wait_for_page(page, figures=name not in ("quiz", "glossary"))
    page.evaluate("() => document.querySelectorAll('[data-testid=\"stExpander\"] details')"
                  ".forEach((d) => { d.open = true; })")
    page.wait_for_timeout(300)
    figures = page.evaluate(FIGURE_TEXTS_JS)
    for figure in figures:
        assert figure["label"] and figure_text_label() in figure["label"], figure
        assert len(figure["sentence"]) > 40 and any(c.isdigit() for c in figure["sentence"]), figure
        assert figure["cells"] >= 2 and figure["rowHeaders"] >= 2, figure  # the data, as a table
    violations = axe_violations(page)
    assert not violations, "\n".join(describe(violations))
