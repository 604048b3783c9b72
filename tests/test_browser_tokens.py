"""Chromium: a repeated word selects its own chip and row (issue 29), and the previous-word head is one click away.

A widget matches its options by their labels: with two chips labelled "the", clicking one highlighted the other.
The labels are now unique ("the", "the²"), so selection, highlight and explained row are one token."""

import os
import re
import urllib.parse
from pathlib import Path

import pytest

from devtools.browser import CHROMIUM, wait_for_page
from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER
from ui.names import layer_head_name

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
    pytest.skip("Debian's Chromium is not installed (apt-get install -y chromium)", allow_module_level=True)

LONG = "The animal didn't cross the street because it was too tired."
CHIPS = '[data-testid="stMain"] [role="radiogroup"][aria-label="Click a token to follow its row"] [role="radio"]'


def chip_states(page):
    chips = page.locator(CHIPS)
    return [(chips.nth(k).inner_text().strip(), chips.nth(k).get_attribute("aria-checked") == "true")
            for k in range(chips.count())]


def wait_for_row(page, label):
    page.get_by_role("heading", name=f"Reading the row of “{label}”").wait_for(timeout=60_000)
    wait_for_page(page)


def test_each_copy_of_a_repeated_word_selects_its_own_chip_and_row(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{server}/step3_softmax?" + urllib.parse.urlencode({"sentence": LONG}))
    wait_for_page(page)
    labels = [label for label, _ in chip_states(page)]
    assert labels[0] == "the" and labels[6] == "the²" and len(set(labels)) == len(labels)
    for index in (6, 0, 6):  # the second "the", back to the first, and again
        page.locator(CHIPS).nth(index).click()
        wait_for_row(page, labels[index])
        states = chip_states(page)
        assert [k for k, (_, on) in enumerate(states) if on] == [index], states
        sidebar = page.locator('[data-testid="stSidebar"] input[aria-label="Selected token (its row is explained)"]')
        assert sidebar.input_value() == f"{index + 1}: {labels[index]}"  # the list counts from 1; the link from 0
        # The step-3 heatmap outlines the same row, named by the same label.
        assert page.locator(".js-plotly-plot .ytick text").filter(has_text=labels[index]).count() >= 1
        assert ("token=6" in page.url) == (index == 6)
    page.close()


def test_the_previous_word_head_is_one_click_away(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{server}/step3_softmax")
    wait_for_page(page)
    title = page.locator(".js-plotly-plot").first.text_content()
    assert layer_head_name(DEFAULT_LAYER, DEFAULT_HEAD) in title
    # >> visible: a button with help text is drawn twice, once hidden (Streamlit 1.67)
    page.locator('[data-testid="stSidebar"] button >> visible=true').filter(
        has_text=re.compile(r"^a head that looks at the previous word: ")).click()
    page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')]"
                           ".some(t => t.textContent.includes('layer 1, head 3'))", timeout=60_000)
    wait_for_page(page)
    assert "layer=0" in page.url and "head=2" in page.url  # the link reopens it
    assert page.locator('[data-testid="stSidebar"] button >> visible=true').filter(
        has_text="✓ a head that looks at the previous word").is_disabled()
    page.close()
