"""The quiz: every answer follows the live numbers, feedback names the right option, state follows the sentence."""

import dataclasses
import difflib
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, run_app

from attention import core
from lessons.questions import GROUPS, answer_key, quiz, score, verdict

SENTENCES = ["I am good.", "The animal didn't cross the street because it was too tired."]


def model_view(model, sentence, layer=2, head=5, token=1):
    """The learned view on the full sentence ([CLS]/[SEP] kept): the model's own attention, as the page shows it."""
    analysis = model.analyze(sentence)
    x = analysis.hidden_states[layer].astype(np.float64)
    steps = core.run_steps(*core.learned_projection(x, model.head_weights(layer, head)))
    return analysis, steps, token


@pytest.fixture(scope="module", params=SENTENCES)
def live(request, model):
    analysis, steps, token = model_view(model, request.param)
    return analysis, steps, token, {q.key: q for q in quiz(steps, analysis.tokens, token)}


def test_explanations_quote_the_models_own_numbers(live):
    analysis, steps, i, questions = live
    own = analysis.attentions[2, 5].astype(np.float64)  # the model's attention, not our recomputation
    np.testing.assert_allclose(steps.weights, own, atol=1e-5)
    row, n = own[i], len(analysis.tokens)
    assert f"add up to {row.sum():.6f}" in questions["role"].explanation
    assert ", ".join(f"{v:.6f}" for v in own.sum(1)[:5]) in questions["sum_to_one"].explanation
    assert f"{100 * row.max():.0f}%" in questions["scale"].explanation
    unscaled = core.softmax(steps.raw[i:i + 1])[0]
    assert f"{100 * unscaled.max():.0f}%" in questions["scale"].explanation
    assert f"{steps.scaled[i].std():.2f}" in questions["scale"].explanation
    top = int(row.argmax())
    assert f"{100 * row[top]:.0f}% on {'itself' if top == i else '“' + analysis.tokens[top] + '”'}" in \
        questions["read_row"].explanation
    assert f"{own.sum(0).min():.2f} to {own.sum(0).max():.2f}" in questions["row_by_row"].explanation
    assert f"{int((steps.scaled[i] < 0).sum())} negative entries" in questions["no_softmax"].explanation
    assert f"{n}×{n} matrix times a {n}×32 matrix" in questions["final"].explanation
    assert f"{(row * (1 - row)).max():.3f}" in questions["gradient"].explanation
    assert f"1/{n}" in questions["uniform"].explanation


def test_feedback_says_right_or_wrong_and_names_the_right_option(live):
    *_, questions = live
    graded = [q for q in questions.values() if q.options is not None]
    assert len(graded) >= 15
    for q in graded:
        assert sorted(q.shuffled_options()) == sorted(q.options)
        right = verdict(q, q.right_option)
        assert right.right and right.text.startswith("**Right:**") and q.right_option in right.text
        for wrong in (o for o in q.options if o != q.right_option):
            result = verdict(q, wrong)
            assert not result.right and f"The right answer is “{q.right_option}”" in result.text
            assert q.explanation in result.text
    # the right answer is not always in the same place
    assert len({q.shuffled_options().index(q.right_option) for q in graded}) == 3


def test_questions_follow_the_sentence_and_do_not_repeat(live):
    analysis, steps, i, questions = live
    texts = [q.text for q in questions.values()]
    if analysis.sentence != "I am good.":
        assert not any("I am good" in t or "“good”" in t for t in texts)
    assert any(f"“{analysis.tokens[i]}”" in t for t in texts)  # the selected token is the running example
    assert f"“{analysis.tokens[-1]}”" in questions["last_word"].text
    for a, b in ((a, b) for k, a in enumerate(texts) for b in texts[k + 1:]):
        assert difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() < 0.7, (a, b)
    assert [q.group for q in questions.values()] == sorted((q.group for q in questions.values()), key=GROUPS.index)
    app_pages = set(re.findall(r'st\.Page\("([^"]+)"', (ROOT / "app.py").read_text()))
    assert {q.page for q in questions.values()} <= app_pages
    assert all((ROOT / q.page).exists() for q in questions.values())


def test_score_counts_only_answered_choices(live):
    *_, questions = live
    qs = list(questions.values())
    graded = [q for q in qs if q.options]
    choices = {graded[0].key: graded[0].right_option, graded[1].key: graded[1].options[1 - graded[1].correct],
               graded[2].key: None, "arithmetic": "free text is not graded"}
    assert score(qs, choices) == (1, 2, len(graded))


def page_text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_page_checks_answers_keeps_them_per_sentence_and_links_the_explaining_page():
    at = run_app("app_pages/quiz.py")
    assert not at.exception, at.exception
    first = "I am good."
    right_q = at.radio(key=answer_key(first, "sum_to_one"))
    right_q.set_value("So the output is a weighted average of the values")
    at.radio(key=answer_key(first, "no_softmax")).set_value("Nothing would change")
    at.text_area(key=answer_key(first, "arithmetic")).input("e to each score, divided by the total")
    at.run()
    assert not at.exception, at.exception
    assert [s.value for s in at.success][0].startswith("**Right:**")
    assert "The right answer is “Weights could be negative" in at.error[0].value
    assert any(i.value.startswith("**A model answer:**") and "Divide each by their total" in i.value for i in at.info)
    assert "**1 right** of 2 answered" in page_text(at)
    # The answers' own links ("Read more"), not the tour's Previous / Next at the page's foot.
    links = [link.proto.page for link in at.get("page_link") if link.proto.label.startswith("Read more")]
    # One per answered question: two explained on step 3, "no softmax" in the what-if lab that shows it.
    assert sorted(links) == ["step3_softmax", "step3_softmax", "whatif"]

    at.session_state["sentence"] = "Dogs chase cats."  # the sidebar's box; app.py hands it to the page
    at.run()  # a new sentence: a fresh quiz
    assert not at.exception and not at.success and not at.error
    assert "**0 right** of 0 answered" in page_text(at)
    assert not any("good" in m.value for m in at.markdown if m.value.startswith("**"))
    at.session_state["sentence"] = first
    at.run()  # the same sentence again: its answers are back
    assert "**1 right** of 2 answered" in page_text(at)
    assert len(at.success) == 1 and len(at.error) == 1

    at.switch_page("app_pages/step3_softmax.py").run()  # leave the page and come back
    at.switch_page("app_pages/quiz.py").run()
    assert "**1 right** of 2 answered" in page_text(at)
    assert Path(ROOT / "app_pages/quiz.py").read_text().count("st.radio") == 1  # a thin loop over the data
