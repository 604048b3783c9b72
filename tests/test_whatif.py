"""Issue 39: the what-if lab's "no softmax" and word-order lessons, the attention-history drawing, the quiz's answer
key. Every statement is checked against the numbers it is written from."""

import itertools
import json
import re

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest
from conftest import run_app
from wording import said, told

from attention import core
from lessons import whatif
from lessons.questions import GROUPS, answer_sheet, quiz
from ui import figures
from ui.content import words
from ui.sections.whatif import no_softmax_statements
from ui.text import head_name, layer_name, pct, plain_small
from ui.sections.quiz import shown
from ui.text import quote

def where_said(name, text, *flags, **fixed):
    """Where the page says text `name` in `text`, whichever way its branches (`flags`) went: a match whose groups
    are the values it was filled with (those in `fixed` as given)."""
    for values in itertools.product((True, False), repeat=len(flags)):
        found = told(name, **dict(zip(flags, values)), **fixed).search(text)
        if found:
            return found
    return None


SENTENCES = ["I am good.", "The quick brown fox jumps over the lazy dog because it was playing in the park."]


def learned_steps(model, sentence, layer=1, head=8):
    analysis = model.analyze(sentence)
    x = analysis.hidden_states[layer].astype(np.float64)
    return analysis, core.run_steps(*core.learned_projection(x, model.head_weights(layer, head)))


# --- no softmax ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sentence", SENTENCES)
def test_no_softmax_weights_are_the_scaled_scores_and_the_page_says_what_they_break(model, sentence):
    _, normal = learned_steps(model, sentence)
    run = whatif.variants(normal.q, normal.k, normal.v)["no_softmax"]
    np.testing.assert_array_equal(run.weights, normal.scaled)
    np.testing.assert_allclose(run.output, normal.scaled @ normal.v)
    assert np.isnan(whatif.effect(run, normal).entropy)  # not shares: no entropy to print
    shares, output = no_softmax_statements(normal, [f"t{j}" for j in range(len(normal.q))], 1)
    report = whatif.no_softmax_report(normal, 1)
    negative = int((normal.scaled < 0).sum())
    assert report.negative == negative > 0  # this head's rows have negative scores: the negative branch
    assert report.negative_in_row == int((normal.scaled[1] < 0).sum()) and report.total == normal.scaled.size
    sums = normal.scaled.sum(axis=1)
    assert not np.allclose(sums, 1.0, atol=0.005)  # and rows that do not add up to 1: that branch too
    assert shares == " ".join((
        words("whatif.no_softmax_negative", negative=negative, total=normal.scaled.size,
              smallest=f"{normal.scaled.min():.2f}", row="“t1”", in_row=report.negative_in_row),
        words("whatif.no_softmax_rows_differ", lowest=f"{sums.min():.2f}", highest=f"{sums.max():.2f}", row="“t1”",
              row_sum=f"{sums[1]:.2f}")))
    lengths = np.linalg.norm(normal.scaled @ normal.v, axis=1).mean()
    for number in (lengths, np.linalg.norm(normal.output, axis=1).mean(), np.linalg.norm(normal.v, axis=1).max()):
        assert f"{number:.2f}" in output


def test_no_softmax_without_a_negative_score_says_so_instead():
    rng = np.random.default_rng(1)
    q, k, v = rng.random((4, 8)), rng.random((4, 8)), rng.standard_normal((4, 8))  # positive q, k: scores > 0
    normal = core.run_steps(q, k, v)
    assert (normal.scaled > 0).all()
    shares, _ = no_softmax_statements(normal, list("abcd"), 0)
    sums = normal.scaled.sum(axis=1)
    assert (sums > 1.005).any()  # these rows add up to more than 1
    assert shares == " ".join((words("whatif.no_softmax_no_negative", total=16), words(
        "whatif.no_softmax_rows_differ", lowest=f"{sums.min():.2f}", highest=f"{sums.max():.2f}", row="“a”",
        row_sum=f"{sums[0]:.2f}")))
    # A row that adds up to 1 by chance is said to be chance.
    ones = core.AttentionSteps(q=q, k=k, v=v, raw=normal.raw, scaled=np.full((4, 4), 0.25), weights=normal.weights,
                               output=normal.output)
    assert no_softmax_statements(ones, list("abcd"), 0)[0].endswith(words("whatif.no_softmax_rows_one"))


@pytest.mark.parametrize("sentence", SENTENCES)
def test_a_hard_pick_has_zero_rate_where_softmax_has_a_slope(model, sentence):
    _, normal = learned_steps(model, sentence)
    for row in normal.scaled:
        pick = whatif.hard_pick(row)
        assert pick.hard_rate == 0 and pick.hard_moved == 0 and pick.softmax_rate > 0
        weights = core.softmax(row[None])[0]
        assert pick.softmax_rate == pytest.approx((weights * (1 - weights)).max(), rel=0.02)  # w(1 − w)
    tie = whatif.hard_pick(np.array([1.0, 1.0 + 1e-4, 0.0]))  # two scores closer than the nudge: the pick jumps
    assert tie.hard_moved > 0 and tie.gap == pytest.approx(1e-4)


def choose(at, variant: str):
    """Choose a variant in the lab by its identity (the options are positions after "normal")."""
    at.radio(key="lab_variant").set_value(whatif.VARIANTS.index(variant)).run()
    return at


def definition(name: str, mode: str) -> str:
    """The one line that says what variant `name` is (the "other" variant is the projection the mode is not)."""
    if name == "other":
        return said("whatif.define_other_" + ("identity" if mode != "identity" else "learned"))
    return said(f"whatif.define_{name}", **({"factor": f"{whatif.HUGE:g}"} if name == "huge" else {}))


@pytest.mark.parametrize("teach", [False, True])
def test_the_line_under_the_choice_defines_the_variant_chosen_and_no_other(teach):
    at = run_app("app_pages/whatif.py", "The animal didn't cross the street because it was too tired.", teach=teach)
    mode = at.session_state["mode"]
    options = list(at.radio(key="lab_variant").options)
    assert len(options) == len(whatif.VARIANTS) - 1  # every variant but "normal" is a choice
    for position in range(1, len(whatif.VARIANTS)):
        chosen = whatif.VARIANTS[position]
        choose(at, chosen)
        assert not at.exception, at.exception
        captions = [c.value for c in at.caption]
        texts = captions + [m.value for m in at.markdown]
        # the chosen one's meaning, in one caption line of its own (on a slide the repeated-token note joins it)
        assert any(c.startswith(definition(chosen, mode)) and "\n" not in c.strip() for c in captions), chosen
        others = [name for name in whatif.VARIANTS[1:] if name != chosen]
        assert not [name for name in others if any(definition(name, mode) in t for t in texts)], chosen


def test_the_page_reads_out_no_softmax_from_the_sentence(model):
    at = choose(run_app("app_pages/whatif.py"), "no_softmax")
    assert not at.exception, at.exception
    text = "\n".join(m.value for m in at.markdown)
    analysis, normal = learned_steps(model, "I am good.")
    report = whatif.no_softmax_report(normal, 1)  # the page's default: layer 2, head 9, the row of "i"
    assert report.negative > 0 and f"**{report.negative} of the 36 weights are negative**" in text
    assert f"{report.row_sums.min():.2f}" in text and f"{report.row_sums.max():.2f}" in text
    # The sentence said twice and three times: each a real model pass, its mean output length read out.
    runs = [normal] + [learned_steps(model, " ".join(["I am good."] * count))[1] for count in (2, 3)]
    soft, hard = whatif.output_growth(runs)
    assert hard[-1] / hard[0] >= 1.2 and all(f"{value:.2f}" in text for value in (*soft, *hard))
    pick = whatif.hard_pick(normal.scaled[1])
    assert pick.hard_moved == 0  # no tie: the flat branch, its numbers read out
    assert words("whatif.hard_pick_flat", hard_rate=f"{pick.hard_rate:.3f}", moved=0, nudges=12,
                 gap=f"{pick.gap:.2f}") in text


# --- word order ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("head", [2, 8])
def test_shuffled_words_without_positions_give_the_same_weights_moved(model, sentence, head):
    analysis = model.analyze(sentence)
    ids = model.vocabulary_ids(analysis.tokens)
    order = whatif.word_order(model.embedding_tables(), ids, analysis.word_ids, analysis.is_special,
                              model.head_weights(0, head), model.layer_weights(0)["ln_eps"])
    perm = order.perm
    assert perm[0] == 0 and perm[-1] == len(perm) - 1 and (perm != np.arange(len(perm))).any()
    # Without positions: the shuffled sentence's weights are the original ones, rows and columns permuted.
    assert np.abs(order.plain_shuffled - order.plain[np.ix_(perm, perm)]).max() <= 1e-6
    assert order.gap_without <= 1e-6
    # With the model's position embeddings: the model's own layer 0, and shuffling changes it.
    assert np.abs(order.model - analysis.attentions[0, head]).max() <= 1e-5
    assert np.abs(order.model_placed - order.model).max() > 1e-3


def test_a_shuffle_moves_whole_words_and_keeps_the_markers():
    tokens = ["[CLS]", "the", "un", "##believ", "##able", "dog", "[SEP]"]
    word_ids = [None, 0, 1, 1, 1, 2, None]
    special = np.array([True, False, False, False, False, False, True])
    perm = whatif.word_shuffle(word_ids, special, seed=0)
    shuffled = [tokens[j] for j in perm]
    assert shuffled[0] == "[CLS]" and shuffled[-1] == "[SEP]" and shuffled != tokens
    start = shuffled.index("un")
    assert shuffled[start:start + 3] == ["un", "##believ", "##able"]
    assert whatif.word_shuffle([None, 0, 0, None], np.array([True, False, False, True])) is None  # one word


@pytest.mark.parametrize("sentence", SENTENCES)
def test_the_word_order_section_says_its_numbers_and_limits(model, sentence):
    at = run_app("app_pages/whatif.py", sentence)
    assert not at.exception, at.exception
    text = "\n".join(m.value for m in at.markdown)
    head = at.selectbox(key="order_head").value
    analysis = model.analyze(sentence)
    ids = model.vocabulary_ids(analysis.tokens)
    order = whatif.word_order(model.embedding_tables(), ids, analysis.word_ids, analysis.is_special,
                              model.head_weights(0, head), model.layer_weights(0)["ln_eps"])
    me = int(np.flatnonzero(~analysis.is_special)[at.session_state["token"]])
    # a sentence without a repeated word has no note on twins: the text ends at the gap's sentence
    without = (where_said("whatif.order_without", text, "some")
               or where_said("whatif.order_without", text, "some", twins=""))
    assert without["gap"] == plain_small(order.gap_without) and order.gap_without <= 1e-6
    moved = order.moved_with
    assert where_said("whatif.order_with", text, "row_most", "is_most")["moved"] == pct(moved[me])  # the bars' numbers
    assert layer_name(0) in " ".join(c.value for c in at.caption)  # the code's layer 0, counted from 1


@pytest.mark.parametrize("mode", ["identity", "random"])
def test_the_lab_runs_its_new_lessons_in_the_toy_modes_too(model, mode):
    at = choose(run_app("app_pages/whatif.py", mode=mode, token=2), "no_softmax")
    assert not at.exception, at.exception
    text = "\n".join(m.value for m in at.markdown)
    # The word-order lesson reads the model's own first layer, whatever the lab's projection: the toy branch.
    head = head_name(at.selectbox(key="order_head").value)
    toy, learned = (words("whatif.order_intro", head=head, toy=toy, shuffled="") for toy in (True, False))
    assert toy != learned and toy.rstrip(".") in text
    assert "“good”" in text and f"±{whatif.hard_pick(np.zeros(3)).nudge:g}" in text


# --- figures ------------------------------------------------------------------------------------------------

BUILT = {
    "paired bars": lambda teaching: figures.paired_bar_panels(
        {"no positions": {"your order": [0.5, 0.3, 0.2], "shuffled": [0.5, 0.3, 0.2]},
         "with <b>positions</b>": {"your order": [0.5, 0.3, 0.2], "shuffled": [0.2, 0.6, 0.2]}},
        ["I", "<b>am</b>", "good"], "t", teaching=teaching),
    "history": lambda teaching: figures.attention_history(["I", "<i>am</i>", "good", "."], "t", teaching=teaching),
    "history, phone": lambda teaching: figures.attention_history(["I", "<i>am</i>", "good", "."], "t",
                                                                 teaching=teaching, narrow=True),
}


@pytest.mark.parametrize("name", list(BUILT))
@pytest.mark.parametrize("teaching", [False, True])
def test_new_figures_are_valid_with_a_text_alternative_and_slide_sizes(name, teaching):
    fig = BUILT[name](teaching)
    go.Figure(fig.to_dict())  # plotly's full validation
    sentence, header, rows = figures.figure_text(fig)
    assert re.search(r"\d", sentence) and len(header) >= 2 and len(rows) >= 2
    assert all(len(row) == len(header) for row in rows)
    page_html = figures.figure_text_html(fig)
    assert "<b>" not in page_html and "<i>" not in page_html
    if teaching:
        spec = json.dumps(json.loads(plotly.io.to_json(fig))["layout"].get("annotations", []))
        assert all(int(size) >= 18 for size in re.findall(r'"size": (\d+)', spec))
    if name.startswith("paired bars"):
        # the two panels' largest gaps between their bars: 0 and |0.3 - 0.6|, in percentage points
        assert words("diagrams.pairs_gap", language="en", panel="no positions", gap="0.0") in sentence
        assert words("diagrams.pairs_gap", language="en", panel="with positions", gap="30.0") in sentence
    else:  # a drawing of 4 words: 4 × 3 / 2 lines, no number on them
        assert words("diagrams.history_said", language="en", n=4, lines=6) in sentence
        assert rows[-1][-1] == "1" and rows[-1][1].startswith("3 ")


def test_step4_ends_with_the_attention_before_self_attention(model):
    at = run_app("app_pages/step4_output.py", "I am good.")
    assert not at.exception, at.exception
    text = "\n".join(m.value for m in at.markdown)
    n = sum(t not in model.special_tokens for t in model.tokenize("I am good."))  # the words drawn: 4
    assert words("history.before", language="en") in text
    assert words("history.changes", language="en", n_tokens=n, n_steps=n - 1) in text  # n - 1 steps first to last
    assert words("history.caption", language="en", cut=False, drawn=0, n_tokens=n) in [c.value for c in at.caption]


# --- the quiz's answer key ----------------------------------------------------------------------------------

def test_the_answer_key_lists_every_question_with_its_right_answer(model):
    analysis, steps = learned_steps(model, "I am good.")
    questions = quiz(steps, analysis.tokens, 1, shown=np.flatnonzero(~analysis.is_special))
    sheet = answer_sheet(questions)
    assert sorted(e.question.key for e in sheet) == sorted(q.key for q in questions)
    assert [e.number for e in sheet] == list(range(1, len(questions) + 1))
    assert [e.question.group for e in sheet] == sorted((e.question.group for e in sheet), key=GROUPS.index)
    for entry in sheet:
        q = entry.question
        assert (q.right in q.options) if q.options else q.right is None
        said = shown(q, "en")
        assert said.answer == (said.options[q.right] if q.options else None)


def test_the_last_token_question_names_the_last_token_the_pages_show(model):
    analysis, steps = learned_steps(model, "I am good.")
    shown_rows = np.flatnonzero(~analysis.is_special)
    last = {q.key: q for q in quiz(steps, analysis.tokens, 1, shown=shown_rows)}["last_word"]
    assert last.facts["last"].text == "." and [m.text for m in last.facts["markers"]] == ["[CLS]", "[SEP]"]
    said = shown(last, "en")
    assert quote(".") in said.text and "SEP" not in said.text
    assert said.text == words("quiz.last_word_question", last=quote("."), markers=[quote("[CLS]"), quote("[SEP]")])
    assert last.facts["marker_total"].value == pytest.approx(steps.weights[4, [0, 5]].sum())
    assert f"{steps.weights[4, [0, 5]].sum():.3f}" in said.explanation
    every = {q.key: q for q in quiz(steps, analysis.tokens, 1)}["last_word"]  # every row shown: [SEP] is last
    assert every.facts["last"].text == "[SEP]" and not every.facts["markers"]
    assert quote("[SEP]") in shown(every, "en").text


def test_the_page_shows_all_answers_only_when_asked():
    at = run_app("app_pages/quiz.py")
    assert not at.exception, at.exception
    assert at.toggle(key="quiz_show_answers").value is False
    answer_start = words("quiz.sheet_answer", answer="", explanation="").split(" ")[0]  # its label, whatever it says
    open_start = words("quiz.sheet_open", explanation="").strip()
    assert not any(m.value.startswith(answer_start) for m in at.markdown)
    n_radios = len(at.main.radio)  # not the sidebar's
    at.toggle(key="quiz_show_answers").set_value(True).run()
    assert not at.exception, at.exception
    answers = [m.value for m in at.markdown if m.value.startswith((answer_start, open_start))]
    numbered = [m.value for m in at.markdown if re.match(r"\*\*\d+\. ", m.value)]
    assert len(answers) == len(numbered) == n_radios + sum(a.startswith(open_start) for a in answers) >= 20
    read_more = words("quiz.read_more", page="")
    assert len([link for link in at.get("page_link") if link.proto.label.startswith(read_more)]) == len(numbered)
    assert not at.main.radio
    # the right option's words, as the radios show them
    right = words("quiz.sum_to_one_option_average")
    assert any(a.startswith(answer_start) and right in a for a in answers)
    last = words("quiz.last_word_question", last=quote("."), markers=[quote("[CLS]"), quote("[SEP]")])
    assert any(last in m for m in numbered)
