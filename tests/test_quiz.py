"""The quiz: every answer follows the live numbers, feedback names the right option, state follows the sentence."""

import difflib
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, run_app
from wording import told

from attention import core
from lessons.questions import GROUPS, PAGES, answer_key, quiz, score
from ui.content import PSEUDO, english_runs, placeholders, words
from ui.sections.quiz import group_name, names, page_title, shown, verdict
from ui.text import quote

SENTENCES = ["I am good.", "The animal didn't cross the street because it was too tired."]
SESSION = dict(layer=3, head=1, token=2)


def page_questions(model, sentence):
    """The questions as app_pages/quiz.py builds them for SESSION (learned mode, markers hidden)."""
    from ui.sections.meaning import meaning_quiz
    from ui.settings import Settings
    from ui.view import build_view

    settings = Settings(sentence, "learned", 32, 0, SESSION["layer"], SESSION["head"], False, SESSION["token"],
                        False, "")
    view = build_view(settings, model, model.analyze(sentence))
    return quiz(view.base, view.base_labels, view.base_index, shown=view.shown) + meaning_quiz(model)


def model_view(model, sentence, layer=2, head=5, token=1):
    """The learned view on the full sentence ([CLS]/[SEP] kept): the model's own attention, as the page shows it."""
    analysis = model.analyze(sentence)
    x = analysis.hidden_states[layer].astype(np.float64)
    steps = core.run_steps(*core.learned_projection(x, model.head_weights(layer, head)))
    return analysis, steps, token


@pytest.fixture(scope="module", params=SENTENCES)
def live(request, model):
    analysis, steps, token = model_view(model, request.param)
    return analysis, steps, token, {q.key: shown(q, "en") for q in quiz(steps, analysis.tokens, token)}


def test_explanations_quote_the_models_own_numbers(live):
    analysis, steps, i, questions = live
    own = analysis.attentions[2, 5].astype(np.float64)  # the model's attention, not our recomputation
    np.testing.assert_allclose(steps.weights, own, atol=1e-5)
    row, n = own[i], len(analysis.tokens)
    assert told("quiz.role_why").search(questions["role"].explanation)["total"] == f"{row.sum():.6f}"
    assert ", ".join(f"{v:.6f}" for v in own.sum(1)[:5]) in questions["sum_to_one"].explanation
    assert f"{100 * row.max():.0f}%" in questions["scale"].explanation
    unscaled = core.softmax(steps.raw[i:i + 1])[0]
    assert f"{100 * unscaled.max():.0f}%" in questions["scale"].explanation
    assert f"{steps.scaled[i].std():.2f}" in questions["scale"].explanation
    top = int(row.argmax())
    facts = questions["read_row"].question.facts
    assert facts["shares"].items[0][0].value == pytest.approx(row[top], abs=1e-5)  # the largest share first
    assert (facts["shares"].items[0][1] is None) == (top == i)  # None: the token's share of itself
    assert f"{100 * row[top]:.0f}% on {'' if top == i else quote(analysis.tokens[top])}" in \
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
        assert sorted(q.question.shuffled_options()) == sorted(q.options)
        assert q.question.shuffled_options() == q.question.shuffled_options()  # fixed per question
        right, text = verdict(q, q.question.right, "en")
        assert right and q.answer in text and q.explanation in text
        for wrong in (o for o in q.options if o != q.question.right):
            right, text = verdict(q, wrong, "en")
            assert not right and q.options[wrong] in text and q.answer in text and q.explanation in text
    # the right answer is not always in the same place
    assert len({q.question.shuffled_options().index(q.question.right) for q in graded}) == 3


def test_every_question_fills_exactly_its_texts_placeholders_and_speaks_the_pages_language(live):
    """The texts' names are built from the question's key, so the static check of tests/test_content.py cannot read
    them: the facts a question carries are exactly the placeholders its texts use, and in the pseudo-language no
    sentence of a question is left in code."""
    analysis, *_, questions = live
    for q in questions.values():
        wanted = set().union(*(placeholders(name) for name in names(q.question)))
        assert set(q.question.facts) == wanted, (q.question.key, set(q.question.facts) ^ wanted)
        marked = shown(q.question, PSEUDO)
        for text in (marked.text, marked.explanation, *(marked.options or {}).values(), marked.page_title):
            assert "⟦" in text and not english_runs(text, tuple(analysis.tokens)), text


def test_questions_follow_the_sentence_and_do_not_repeat(live):
    analysis, steps, i, questions = live
    texts = [q.text for q in questions.values()]  # the question as the page writes it
    if analysis.sentence != "I am good.":
        assert not any("I am good" in t or "“good”" in t for t in texts)
    assert any(quote(analysis.tokens[i]) in t for t in texts)  # the selected token is the running example
    assert quote(analysis.tokens[-1]) in questions["last_word"].text
    for a, b in ((a, b) for k, a in enumerate(texts) for b in texts[k + 1:]):
        assert difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() < 0.7, (a, b)
    facts = [q.question for q in questions.values()]
    assert [q.group for q in facts] == sorted((q.group for q in facts), key=GROUPS.index)
    app_pages = set(re.findall(r'st\.Page\("([^"]+)"', (ROOT / "app.py").read_text()))
    assert {q.page for q in facts} <= app_pages and {q.page for q in facts} <= set(PAGES)
    assert all((ROOT / q.page).exists() for q in facts)


def test_every_group_and_page_has_its_name_in_every_language():
    for language in ("en", PSEUDO):
        titles = [page_title(page, language) for page in PAGES] + [group_name(g, language) for g in GROUPS]
        assert all(titles) and len(set(titles)) >= len(PAGES)


def test_score_counts_only_answered_choices(live):
    *_, questions = live
    qs = [q.question for q in questions.values()]
    graded = [q for q in qs if q.options]
    choices = {graded[0].key: graded[0].right, graded[1].key: graded[1].options[1 - graded[1].correct],
               graded[2].key: None, "arithmetic": "free text is not graded"}
    assert score(qs, choices) == (1, 2, len(graded))


def page_text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_page_checks_answers_keeps_them_per_sentence_and_links_the_explaining_page(model):
    first = "I am good."
    at = run_app("app_pages/quiz.py", first, **SESSION)
    assert not at.exception, at.exception
    page = {q.key: shown(q, "en") for q in page_questions(model, first)}
    # The radios' values are the options' identities; they show the options' words.
    right_q = at.radio(key=answer_key(first, "sum_to_one"))
    assert right_q.options == [page["sum_to_one"].options[o] for o in page["sum_to_one"].question.shuffled_options()]
    right_q.set_value("average")
    at.radio(key=answer_key(first, "no_softmax")).set_value("nothing")
    at.text_area(key=answer_key(first, "arithmetic")).input("e to each score, divided by the total")
    at.run()
    assert not at.exception, at.exception
    assert [s.value for s in at.success] == [verdict(page["sum_to_one"], "average", "en")[1]]
    assert [e.value for e in at.error] == [verdict(page["no_softmax"], "nothing", "en")[1]]
    assert page["no_softmax"].answer in at.error[0].value
    # the open question's model answer quotes the page's own numbers: the row's total of e^score
    total = page["arithmetic"].question.facts["exps_total"]
    assert [i.value for i in at.info] == [words("quiz.model_answer", explanation=page["arithmetic"].explanation)]
    assert f"{total.value:.3f}" in at.info[0].value
    graded = sum(q.options is not None for q in page.values())
    assert words("quiz.score", right=1, answered=2, total=graded) in page_text(at)
    # The answers' own links ("Read more"), not the tour's Previous / Next at the page's foot.
    links = [link.proto.page for link in at.get("page_link")
             if link.proto.label.startswith(words("quiz.read_more", page=""))]
    # One per answered question: two explained on step 3, "no softmax" in the what-if lab that shows it.
    assert sorted(links) == ["step3_softmax", "step3_softmax", "whatif"]

    at.session_state["sentence"] = "Dogs chase cats."  # the sidebar's box; app.py hands it to the page
    at.run()  # a new sentence: a fresh quiz
    assert not at.exception and not at.success and not at.error
    assert words("quiz.score", right=0, answered=0, total=graded) in page_text(at)
    assert not any("good" in m.value for m in at.markdown if m.value.startswith("**"))
    at.session_state["sentence"] = first
    at.run()  # the same sentence again: its answers are back
    assert words("quiz.score", right=1, answered=2, total=graded) in page_text(at)
    assert len(at.success) == 1 and len(at.error) == 1

    at.switch_page("app_pages/step3_softmax.py").run()  # leave the page and come back
    at.switch_page("app_pages/quiz.py").run()
    assert words("quiz.score", right=1, answered=2, total=graded) in page_text(at)
    assert Path(ROOT / "app_pages/quiz.py").read_text().count("st.radio") == 1  # a thin loop over the data


def test_the_page_speaks_the_pseudo_language_and_its_answers_still_count(model):
    """In another language the options keep their identities: a chosen answer is graded the same."""
    sentence = "I am good."
    at = run_app("app_pages/quiz.py", sentence, lang=PSEUDO, **SESSION)
    radio = at.radio(key=answer_key(sentence, "sum_to_one"))
    assert all(option.startswith("⟦") for option in radio.options)
    radio.set_value("average").run()
    assert not at.exception and len(at.success) == 1 and not at.error
    assert at.success[0].value.startswith("⟦")
