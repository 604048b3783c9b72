"""Issue 55, item 2: with "Predict first" on, a slide gives no answer away before the reveal: neither the page's
sentences (no percentage of the hidden matrix) nor the figure's colours (one neutral colour, no colour scale)."""

import json
import re

import numpy as np
import pytest
from conftest import run_app

from ui.settings import DEFAULT_LAYER, DEFAULT_HEAD
from ui.text import pct
from wording import said

SENTENCES = ["I am good.", "The animal didn't cross the street because it was too tired."]
PAGES = {"app_pages/home.py": "fig-home-weights", "app_pages/step3_softmax.py": "fig-step3_weights"}


def page_text(at) -> str:
    return "\n".join(e.value for e in list(at.markdown) + list(at.caption) if isinstance(e.value, str))


def weights_figure(at) -> dict:
    return next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                if "weights" in json.loads(c.proto.spec)["layout"]["title"]["text"].lower())


def model_percentages(model, sentence: str) -> set[str]:
    """Every share the page could print for the matrix: the model's own weights of the head on screen, with the
    markers' column added up (the page folds [CLS] and [SEP] into one)."""
    analysis = model.analyze(sentence)
    rows = analysis.attentions[DEFAULT_LAYER, DEFAULT_HEAD]
    special = np.asarray(analysis.is_special, dtype=bool)
    words = rows[~special][:, ~special]
    folded = np.concatenate([words, rows[~special][:, special].sum(axis=1, keepdims=True)], axis=1)
    # Shares of 1% and more: "0%"/"100%"-like round numbers also name other things (a row adds up to 100%).
    return {pct(v) for v in folded.ravel() if 0.01 <= v < 0.995}


def percentages_in(text: str) -> set[str]:
    return set(re.findall(r"(?<![\d.<])\d+(?:\.\d)?%", text))


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("page", PAGES)
def test_predict_first_hides_the_matrix_in_words_and_colours_until_revealed(model, page, sentence):
    at = run_app(page, sentence, teach=True, predict=True)
    assert not at.exception, at.exception
    expected = model_percentages(model, sentence)
    revealed = run_app(page, sentence, teach=True)  # the same slide without predict: the shares it prints
    assert percentages_in(page_text(revealed)) & expected  # the test can fail: the open slide does state them
    assert not percentages_in(page_text(at)) & expected, percentages_in(page_text(at)) & expected
    trace = weights_figure(at)["data"][0]
    assert trace.get("showscale") is False
    assert len({colour for _, colour in trace["colorscale"]}) == 1  # one colour: nothing to read from a cell
    assert "texttemplate" not in trace

    next(b for b in at.button if b.label == said("figures.reveal_button")).click().run()
    assert not at.exception, at.exception
    trace = weights_figure(at)["data"][0]
    assert trace.get("showscale") is not False and len({c for _, c in trace["colorscale"]}) > 1
    # The model's shares are back in the page's words (the start page above the matrix too: a whole-page rerun).
    assert percentages_in(page_text(at)) & expected == percentages_in(page_text(revealed)) & expected
