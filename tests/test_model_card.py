"""The model card (issue 51): what the model is, its limits, and what attention shows, with the sizes of the model
that runs; its words live in content/ (a placeholder the code does not fill fails tests/test_content.py)."""

import re

from conftest import run_app
from ui.sections.model_card import card_text
from wording import said


def test_the_card_states_the_running_models_own_sizes(model):
    card = card_text(model)
    # every size in the card is the loaded model's, read from it, not typed into the text
    for size in (model.d_model, model.n_layers, model.n_heads, model.max_length):
        assert re.search(rf"\b{size}\b", card), size
    assert "{" not in card and "}" not in card  # no placeholder left unfilled


def test_the_start_page_offers_the_card_one_click_away_and_the_slide_does_not():
    at = run_app("app_pages/home.py", "I am good.")
    assert not at.exception
    labels = [e.label for e in at.expander]
    assert said("about_model.box_label") in labels
    slide = run_app("app_pages/home.py", "I am good.", teach=True)
    assert not slide.exception and slide.session_state["_settings"].teaching
    assert said("about_model.box_label") not in [e.label for e in slide.expander]
