"""The "why" answers of the step pages and the start page (ui/sections/whys.py, token_whys.py) say the numbers of the
matrices the pages draw, computed here again from the model, and take the branch those numbers call for. Built
straight from a view (no page run); the words themselves are content/en/whys.toml's, checked by tests/test_content.py.
"""

import numpy as np
import pytest

from attention import core
from lessons import explain
from ui.sections.training_words import small_words
from ui.content import words
from ui.sections import whys
from ui.sections.token_whys import term_url, token_whys
from ui.settings import Settings
from ui.text import layer_name, pct, quote
from ui.view import build_view

LONG = "The animal didn't cross the street because it was too tired."


def view_of(model, sentence=LONG, mode="learned", layer=1, head=8, token=9, special=False):
    settings = Settings(sentence, mode, 16, 1, layer, head, special, token, False, "")
    return build_view(settings, model, model.analyze(sentence))


def answers(view):
    return {question: answer for build in (whys.step1_whys, whys.step2_whys, whys.step3_whys, whys.step4_whys)
            for question, answer in build(view)}


def test_the_scaling_verdict_follows_the_two_rates():
    assert whys.scaling_verdict(0.20, 0.05) == "slower"       # without the division the row learns more slowly
    assert whys.scaling_verdict(0.05, 0.20) == "not_slower"
    assert whys.scaling_verdict(0.1000, 0.1003) == "same"     # closer than they print
    # each verdict is its own sentence
    rendered = {words("whys.gradient_answer", gradient_url="g", token="“it”", with_scaling="0.2", without="0.1",
                      verdict=verdict, saturated=False) for verdict in ("slower", "not_slower", "same")}
    assert len(rendered) == 3


@pytest.mark.parametrize("special", [False, True])
def test_the_step_answers_say_the_drawn_matrices_numbers(model, special):
    view = view_of(model, special=special)
    said = answers(view)
    analysis, i = view.analysis, view.base_index
    scaled = core.scale_scores(view.base.raw, view.steps.d_k)
    weights = core.softmax(scaled)  # the model's whole matrix, computed again

    # step 1: the model's matrix size, and d_k
    n_all = analysis.n_tokens
    assert f"{n_all} × {n_all}" in said[words("whys.self_question")]
    assert f"d_k = {view.steps.d_k}" in said[words("whys.qkv_question")]

    # step 2: the fastest rate w(1 - w), with scaling and with the division removed
    gradient = said[words("whys.gradient_question")]
    unscaled = core.softmax(view.base.raw[i][None])[0]
    assert small_words((weights[i] * (1 - weights[i])).max()) in gradient
    assert small_words((unscaled * (1 - unscaled)).max()) in gradient

    # step 3: the drawn rows' and columns' sums, the share one softmax over every cell leaves the row
    drawn = view.weights
    rows = said[words("whys.rows_question")]
    assert f"{drawn.sum(1).mean():.4f}" in rows and str(drawn.shape[0]) in rows
    whole = said[words("whys.row_by_row_question")]
    every_cell = np.exp(scaled - scaled.max()) / np.exp(scaled - scaled.max()).sum()
    assert pct(every_cell[i].sum()) in whole and f"{n_all * n_all}" in whole
    assert f"{drawn.sum(0).min():.2f}" in whole and f"{drawn.sum(0).max():.2f}" in whole
    top = int(np.argmax(weights[i] * (1 - weights[i])))
    nudged = core.softmax((scaled[i] + 0.1 * (np.arange(n_all) == top))[None])[0]
    differentiable = said[words("whys.differentiable_question")]
    assert f"from {pct(weights[i, top])} to {pct(nudged[top])}" in differentiable
    assert quote(view.base_labels[top]) in differentiable

    # step 4: the selected row's weight on the other words and on itself, and counted by length
    words_ = ~analysis.is_special
    words_[int(view.shown[view.token])] = False
    context = said[words("whys.context_question")]
    assert pct(weights[i][words_].sum()) in context and pct(weights[i, i]) in context
    lengths = explain.length_shares(weights[i], view.base.v)
    assert pct(lengths[words_].sum()) in context


def test_a_saturated_row_says_so_and_a_soft_one_does_not(model):
    """The previous-word head (layer 1, head 3) gives a row almost all to one token: the nudge changes little and
    the answer says so; a soft row gets the other branch."""
    for layer, head, saturated in ((0, 2, True), (1, 8, False)):
        view = view_of(model, layer=layer, head=head, token=3)
        row = view.base.weights[view.base_index]
        assert (row.max() > 0.99) == saturated
        answer = answers(view)[words("whys.differentiable_question")]
        top = int(np.argmax(row * (1 - row)))
        nudged = core.softmax((view.base.scaled[view.base_index] + 0.1 * (np.arange(len(row)) == top))[None])[0]
        told = {flag: words("whys.differentiable_answer", differentiable_url=term_url("differentiable"),
                            token=quote(view.token_label), key=quote(view.base_labels[top]), before=pct(row[top]),
                            after=pct(nudged[top]), saturated=flag) for flag in (True, False)}
        assert told[True] != told[False] and answer == told[saturated]


@pytest.mark.parametrize("mode", ["identity", "random", "learned"])
def test_the_q_k_v_answer_names_what_the_mode_computes(model, mode):
    view = view_of(model, mode=mode)
    answer = answers(view)[words("whys.qkv_question")]
    told = {m: words("whys.qkv_answer", from_embedding=mode != "learned", embedding_url=term_url("embedding"),
                     layer=layer_name(1, model.n_layers), weights_url=term_url("W_Q, W_K, W_V"), mode=m, seed=1,
                     d_k=view.steps.d_k, dimension_url=term_url("dimension"))
            for m in ("identity", "random", "learned")}
    assert len(set(told.values())) == 3 and answer == told[mode]  # one sentence per mode, the page's mode's


def test_the_token_notes_follow_the_typed_sentence(model):
    def notes(sentence):
        [(question, answer)] = token_whys(view_of(model, sentence=sentence, token=0))
        assert question == words("token_whys.question")
        return [line for line in answer.split("\n") if line.startswith("- ")]

    # a capital, a cut word, an apostrophe, punctuation, a repeated token, and always the markers
    assert len(notes("The animal didn't cross the street because it was too tired of Tokenization.")) == 6
    assert len(notes("dogs bark")) == 1
    assert len(notes("dogs, dogs")) == 3  # punctuation, the second "dogs" numbered, the markers
