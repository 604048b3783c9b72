"""Property-based tests over random sentences and random projections, on the real model."""


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention import core
from attention.model import SentenceError
from conftest import run_app
from ui.settings import MAX_SENTENCE_CHARS

WORDS = ["the", "dog", "ate", "food", "because", "it", "was", "hungry", "I", "am", "good", ".", ",", "unbelievably",
         "東京", "🙂", "שלום", "مرحبا", "e\u0301", "\u200b", "\t", "\n", "!!!", "$x$", "<b>", "**"]

sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=25).map(" ".join)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sentence=sentences, mode=st.sampled_from(["identity", "random", "learned"]),
       d_k=st.sampled_from([1, 2, 8, 32, 384]), seed=st.integers(0, 9999), layer=st.integers(0, 5),
       head=st.integers(0, 11))
def test_any_sentence_any_projection_keeps_the_invariants(model, sentence, mode, d_k, seed, layer, head):
    try:
        analysis = model.analyze(sentence)
    except SentenceError:
        assert not any(ch.isalnum() or ch in ".,!$<>*" or ord(ch) > 0x2000 and ch != "\u200b" for ch in sentence)
        return
    if mode == "learned":
        x = analysis.hidden_states[layer]
        q, k, v = core.learned_projection(x, model.head_weights(layer, head))
    elif mode == "random":  # the toys start from the embedding layer's output, as the pages do
        x = analysis.hidden_states[0]
        q, k, v = core.random_projection(x, d_k, seed)
    else:
        q, k, v = core.identity_projection(analysis.hidden_states[0])
    steps = core.run_steps(q, k, v)
    n = analysis.n_tokens
    assert steps.weights.shape == (n, n)
    assert np.all(np.isfinite(steps.output))
    np.testing.assert_allclose(steps.weights.sum(1), 1, atol=1e-5)
    np.testing.assert_allclose(core.attention(q, k, v), steps.output, atol=1e-4)
    if mode == "learned":
        assert np.abs(steps.weights - analysis.attentions[layer, head]).max() <= 1e-5


ISSUE_8_INPUTS = {
    "whitespace only": " \t\n ",
    "one token": "Hi",
    # the longest text the sidebar accepts (3,000 characters since issue 34: the model reads 256 tokens of it)
    "the longest accepted text": ("lorem ipsum dolor " * 600)[:MAX_SENTENCE_CHARS],
    "emoji": "I 💜 attention 🙂🐶",
    "CJK": "我喜欢自注意力机制",
    "right-to-left": "שלום עולם مرحبا بالعالم",
    "combining marks": "cafe\u0301 nai\u0308ve",
    "zero-width and control": "a\u200bb\u200dc\u0007d\u0000e",
    "tabs and newlines": "one\ttwo\nthree\r\nfour",
    "only punctuation": "?!... ,;:",
    "same word 300 times": " ".join(["buffalo"] * 300),
}


@pytest.mark.parametrize("name", list(ISSUE_8_INPUTS))
@pytest.mark.parametrize("page", ["app_pages/step3_softmax.py", "app_pages/pronoun.py", "app_pages/multihead.py"])
def test_issue_8_inputs_render_without_traceback(page, name):
    text = ISSUE_8_INPUTS[name]
    at = run_app(page, text, pron_sentence=text)
    assert not at.exception, at.exception
    assert at.session_state["sentence"] == text
    shown = [e.value for kind in ("info", "warning", "error") for e in at.get(kind)]
    figures = at.get("plotly_chart")
    assert figures or shown, "the page showed neither a figure nor a message"
