"""The first screen teaches every step: its head has a pattern a student can name and its selected row is soft
(issue 29), measured from the model, not from the page; the one-hot previous-word head is one click away."""

import json

import numpy as np
from conftest import run_app

from attention import core
from lessons.heads import describe_heads, row_softness, teaching_heads
from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER, DEFAULT_SENTENCE, HEAD_PRESETS
from ui.content import words

LONG = "The animal didn't cross the street because it was too tired."


def default_row(model):
    """The default view's selected row (token 0 among the shown tokens), from the model's own attention."""
    analysis = model.analyze(DEFAULT_SENTENCE)
    position = int(np.flatnonzero(~analysis.is_special)[0])
    x = analysis.hidden_states[DEFAULT_LAYER].astype(np.float64)
    q, k, _ = core.learned_projection(x, model.head_weights(DEFAULT_LAYER, DEFAULT_HEAD))
    return analysis, position, q @ k.T, q.shape[1]


def test_the_default_row_is_soft_and_scaling_changes_it(model):
    analysis, position, raw, d_k = default_row(model)
    scaled = analysis.attentions[DEFAULT_LAYER, DEFAULT_HEAD, position]  # the model's own probabilities
    np.testing.assert_allclose(core.softmax(raw[position:position + 1] / np.sqrt(d_k))[0], scaled,
                               atol=1e-5)
    unscaled = core.softmax(raw[position:position + 1])[0]
    drawn = np.append(scaled[~analysis.is_special], scaled[analysis.is_special].sum())  # as step 3 draws it
    assert drawn.max() <= 0.9
    assert (drawn >= 0.05).sum() >= 2
    bits = lambda w: float(-(w[w > 0] * np.log2(w[w > 0])).sum())  # noqa: E731
    assert abs(bits(scaled) - bits(unscaled)) >= 0.25
    # The function that chose the default says the same.
    softness = row_softness(raw[position], d_k, np.flatnonzero(~analysis.is_special),
                            np.flatnonzero(analysis.is_special))
    assert softness["soft"] and abs(softness["largest weight"] - drawn.max()) < 1e-5


def test_the_default_head_is_the_clearest_nameable_soft_head(model):
    analysis, position, _, _ = default_row(model)
    found = teaching_heads(model, analysis, position)
    assert (found[0][0], found[0][1]) == (DEFAULT_LAYER, DEFAULT_HEAD)
    # Its pattern holds on the pronoun sentence too, so a student who types a longer sentence sees it again.
    for sentence in (DEFAULT_SENTENCE, LONG):
        other = model.analyze(sentence)
        name, share = describe_heads(other.attentions[DEFAULT_LAYER], other.tokens, other.is_special)[DEFAULT_HEAD]
        assert name == "next token" and share > 0.5


def test_the_previous_word_preset_is_still_one_hot(model):
    layer, head = HEAD_PRESETS["a head that looks at the previous word"]
    for sentence in (DEFAULT_SENTENCE, LONG):
        analysis = model.analyze(sentence)
        name, share = describe_heads(analysis.attentions[layer], analysis.tokens, analysis.is_special)[head]
        assert name == "previous token" and share > 0.9


def test_the_pages_open_on_the_default_and_its_row_is_drawn_soft():
    at = run_app("app_pages/step3_softmax.py")
    assert not at.exception, at.exception
    s = at.session_state["_settings"]
    assert (s.sentence, s.layer, s.head, s.token) == (DEFAULT_SENTENCE, DEFAULT_LAYER, DEFAULT_HEAD, 0)
    spec = next(json.loads(e.proto.spec) for e in at.get("plotly_chart")
                if json.loads(e.proto.spec)["layout"]["title"]["text"].startswith(words("step3.weights_title")))
    from test_steps import z_of
    row = z_of(spec)[0]
    assert row.max() <= 0.9 and (row >= 0.05).sum() >= 2
    # The preset buttons (key "preset-<layer>-<head>") are clicked in Chromium: tests/test_browser.py.
    home = run_app("app_pages/home.py")
    assert home.button(key=f"preset-{DEFAULT_LAYER}-{DEFAULT_HEAD}").disabled  # the current head is ticked
    assert not home.button(key="preset-0-2").disabled
