"""Slides that showed half a thing (teaching mode at 1920×1080, the first screen with no scrolling):

- in-process (AppTest): the what-if slide draws no table, so neither the table's key nor the intro's mention of it;
  the pronoun slide has no "exact difference" box without the statement it details; off a slide both stay;
- in Chromium: attention by hand's sentence under the drawing, both of the compare page's heatmaps, and a slider's
  value clear of its handle are on the first screen, for a short and a long sentence.
"""

import pytest
from conftest import run_app
from test_teaching_everywhere import browser_only, open_slide, projector, slide_server  # noqa: F401 (fixtures)
from wording import lead

from ui.content import words

SHORT, LONG = "I am good.", "The animal didn't cross the street because it was too tired."
SCREEN = {"width": 1920, "height": 1080}


def texts(at) -> list[str]:
    return [str(e.value) for kind in ("markdown", "caption") for e in getattr(at, kind)]


@pytest.mark.parametrize("teach", [True, False])
def test_the_whatif_slide_says_nothing_of_the_table_it_hides(teach):
    at = run_app("app_pages/whatif.py", LONG, teach=teach)
    assert not at.exception, at.exception
    key_start = words("whatif.table_caption", learned=True, n=16, bits="4.00").split(",")[0]
    says_table = [t for t in texts(at) if t.startswith(key_start)]
    assert bool(at.dataframe) == (not teach) and bool(says_table) == (not teach), says_table
    # the intro, which speaks of the table, is not on a slide either
    assert any(t.startswith(lead("whatif.intro")) for t in texts(at)) == (not teach)


@pytest.mark.parametrize("teach", [True, False])
def test_the_pronoun_slide_has_no_box_without_its_message(teach):
    at = run_app("app_pages/pronoun.py", LONG, teach=teach)
    assert not at.exception, at.exception
    label = words("pronoun.exact_label")
    boxes = [e for e in at.expander if e.label == label]
    # off a slide: the statement (a green badge) and its box; on a slide, where the badge is hidden, neither
    assert bool(boxes) == (not teach) and bool(at.success) == (not teach)


# --- in Chromium ------------------------------------------------------------------------------------------------

def bottom(locator) -> float:
    box = locator.bounding_box()
    return box["y"] + box["height"]


@browser_only
@pytest.mark.browser
@pytest.mark.parametrize("sentence", [SHORT, LONG])
def test_by_hand_says_what_the_drawing_shows_on_the_first_screen(slide_server, projector, sentence):  # noqa: F811
    open_slide(projector, slide_server, "app_pages/by_hand.py", sentence)
    live = projector.locator(".bh-live").first
    live.wait_for()
    projector.wait_for_timeout(500)
    assert live.text_content().strip()
    assert bottom(live) <= SCREEN["height"]


@browser_only
@pytest.mark.browser
@pytest.mark.parametrize("sentence", [SHORT, LONG])
def test_both_of_the_compare_pages_heatmaps_are_on_the_first_screen(slide_server, projector, sentence):  # noqa: F811
    open_slide(projector, slide_server, "app_pages/compare.py", sentence)
    figures = projector.locator('[data-testid="stMain"] .js-plotly-plot')
    assert figures.count() >= 2
    assert all(bottom(figures.nth(i)) <= SCREEN["height"] for i in range(2))


@browser_only
@pytest.mark.browser
@pytest.mark.parametrize("sentence", [SHORT, LONG])
def test_both_of_the_whatif_weight_heatmaps_are_on_the_first_screen(slide_server, projector, sentence):  # noqa: F811
    open_slide(projector, slide_server, "app_pages/whatif.py", sentence)
    # normal beside the changed computation: the slide's point (the output heatmaps under them may scroll)
    weights = projector.locator('[data-testid="stMain"] .js-plotly-plot').filter(has_text=lead("whatif.figure_weights"))
    assert weights.count() == 2
    assert all(bottom(weights.nth(i)) <= SCREEN["height"] for i in range(2))


@browser_only
@pytest.mark.browser
def test_a_sliders_value_stays_off_its_handle_on_a_slide(slide_server, projector):  # noqa: F811
    open_slide(projector, slide_server, "app_pages/training.py", SHORT)
    slider = projector.locator('[data-testid="stMain"] [data-testid="stSlider"]').first
    value = slider.locator('[data-testid="stSliderThumbValue"] p').first
    handle = value.locator("xpath=../../..")  # the handle's box holds its value (Streamlit 1.67)
    handle_top = projector.evaluate("(el) => { const r = el.getBoundingClientRect(); return r.top; }",
                                    handle.element_handle())
    assert bottom(value) <= handle_top + 1
