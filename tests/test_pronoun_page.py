"""The pronoun page follows its sentence and prints the model's numbers (issue 14).

AppTest for the behaviour; one Chromium test types three sentences into the page box.
"""

import base64
import json
import os
from pathlib import Path

import numpy as np
import pytest

from lessons import pronoun as pr
from conftest import run_app
from ui.content import words
from ui.settings import MAX_SENTENCE_CHARS
from ui.sections.pronoun_verdict import numbers_say
from ui.text import layer_head_name, quote
from devtools.browser import CHROMIUM, chromium, streamlit_server, wait_for_page

PAGE = "app_pages/pronoun.py"
THREE = [  # sentence, pronoun, candidates A and B
    ("The trophy would not fit in the suitcase because it was too big.", "it", "trophy", "suitcase"),
    ("The cat chased the mouse because it was hungry.", "it", "cat", "mouse"),
    ("Anna thanked Maria because she had helped her.", "she", "anna", "maria"),
]


def all_text(at):
    return "\n".join(str(e.value) for kind in ("markdown", "caption", "info", "success", "warning", "error")
                     for e in at.get(kind))


def chart_array(at, index, field):
    spec = json.loads(at.get("plotly_chart")[index].proto.spec)
    values = spec["data"][0][field]
    if isinstance(values, dict):  # plotly's compact binary encoding
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).reshape(
            [int(d) for d in str(values.get("shape", len(values["bdata"]))).split(",")] if "shape" in values else -1)
    return np.array(values, dtype=float)


def analysed(at):
    """The words the page analyses: what its pronoun selectbox and candidate multiselect show."""
    pronoun_box = next(w for w in at.selectbox if w.label == words("pronoun.pronoun_label"))
    candidates = next(w for w in at.multiselect if w.label == words("pronoun.candidates_label"))
    label = lambda i: pronoun_box.format_func(i).split(" (#")[0]  # noqa: E731
    return label(pronoun_box.value), [label(i) for i in candidates.value]


def model_numbers(model, sentence, pronoun, a, b):
    analysis = model.analyze(sentence)
    words = pr.words_of(analysis.tokens, analysis.word_ids)
    p, wa, wb = (words[pr.find_word(words, t)] for t in (pronoun, a, b))
    share = pr.preference(analysis.attentions, p, wa, wb)
    return share, pr.weight_on(analysis.attentions, p, wa), analysis


def the_verdict(analysis, pronoun, a, b):
    """The facts of the page's verdict, from a model pass of its own."""
    sentence_words = pr.words_of(analysis.tokens, analysis.word_ids)
    p, wa, wb = (sentence_words[pr.find_word(sentence_words, t)] for t in (pronoun, a, b))
    return pr.verdict(analysis.attentions[:, :, list(p.pieces)].mean(2), wa, wb)


def test_three_sentences_in_a_row_each_get_their_own_words_and_the_models_counts(model):
    at = run_app(PAGE)
    for sentence, pronoun, a, b in THREE:
        at.text_input(key="pron_sentence").input(sentence).run()
        assert not at.exception, at.exception
        assert analysed(at) == (pronoun, [a, b]), sentence
        share, weight_a, analysis = model_numbers(model, sentence, pronoun, a, b)
        text = all_text(at)
        # The paragraph under the grids is the one the model's own numbers give, and they are the model's counts.
        found = the_verdict(analysis, pronoun, a, b)
        assert (found.n_prefer_a, found.n_prefer_b) == (int((share > 0.5).sum()), int((share < 0.5).sum()))
        assert numbers_say(found, pronoun, a, b, analysis.tokens) in text
        # The verdict's head is the argmax of the absolute weight on A, and its chart shows that weight.
        best = np.unravel_index(np.argmax(weight_a), weight_a.shape)
        assert found.best == best and layer_head_name(*best, capital=True) in text  # counted from 1
        detail = (words("pronoun.layer_label"), words("pronoun.head_label"))
        assert [w.value for w in at.main.selectbox if w.label in detail] == [best[0], best[1]]  # not the sidebar's
        np.testing.assert_allclose(chart_array(at, 0, "z"), weight_a, atol=1e-6)
        bars = chart_array(at, 2, "y")
        analysis = model.analyze(sentence)
        sentence_words = pr.words_of(analysis.tokens, analysis.word_ids)
        a_word = sentence_words[pr.find_word(sentence_words, a)]
        assert bars[list(a_word.pieces)].sum() == pytest.approx(weight_a[best], abs=1e-6)


def test_picks_for_the_same_sentence_are_kept_and_a_new_sentence_starts_fresh(model):
    at = run_app(PAGE)
    candidates = next(w for w in at.multiselect if w.label == words("pronoun.candidates_label"))
    food_first = list(candidates.value)[::-1]
    candidates.set_value(food_first).run()
    next(w for w in at.main.selectbox if w.label == words("pronoun.head_label")).set_value(0).run()
    at.run()                                            # any other rerun
    assert analysed(at)[1] == ["food", "dog"]
    _, weight_food, _ = model_numbers(model, at.text_input(key="pron_sentence").value, "it", "food", "dog")
    np.testing.assert_allclose(chart_array(at, 0, "z"), weight_food, atol=1e-6)  # candidate A is now "food"
    at.text_input(key="pron_sentence").input(THREE[1][0]).run()
    assert analysed(at) == ("it", ["cat", "mouse"])
    at.switch_page("app_pages/step3_softmax.py").run()
    at.switch_page(PAGE).run()                          # coming back: the typed sentence is still there
    assert at.text_input(key="pron_sentence").value == THREE[1][0]


def test_no_candidate_then_a_split_candidate_never_shows_a_stale_result(model):
    at = run_app(PAGE)
    at.text_input(key="pron_sentence").input("It is raining today.").run()
    assert not at.exception
    assert [i.value for i in at.info] == [words("pronoun.too_few_candidates", pronoun=quote("it"), found_one="")]
    assert not at.get("plotly_chart")                   # nothing left over from the previous sentence
    sentence = "The aardvark chased the wombat because it was hungry."
    at.text_input(key="pron_sentence").input(sentence).run()
    assert analysed(at) == ("it", ["aardvark", "wombat"])
    split = [w for w in ("aardvark", "wombat") if len(model.tokenize(w)) > 1]
    assert split and words("pronoun.split_pieces", split=", ".join(quote(w) for w in split)) in [
        c.value for c in at.caption]
    _, _, analysis = model_numbers(model, sentence, "it", "aardvark", "wombat")
    assert numbers_say(the_verdict(analysis, "it", "aardvark", "wombat"), "it", "aardvark", "wombat",
                       analysis.tokens) in all_text(at)


def type_in_sidebar(at, sentence):
    """The sidebar's box takes the sentence; app.py runs before the page and hands it over (the settings)."""
    at.session_state["sentence"] = sentence
    at.run()


def test_the_sidebar_sentence_flows_in_when_it_has_a_pronoun():
    at = run_app(PAGE, "The dog chased the cat because it was fast.")
    assert at.text_input(key="pron_sentence").value == "The dog chased the cat because it was fast."
    assert analysed(at) == ("it", ["dog", "cat"])
    type_in_sidebar(at, "I am good.")                   # no pronoun: the page keeps its sentence and says so
    assert at.text_input(key="pron_sentence").value == "The dog chased the cat because it was fast."
    assert words("pronoun.sidebar_no_pronoun", sentence=quote("I am good.")) in [c.value for c in at.caption]
    type_in_sidebar(at, THREE[2][0])
    assert analysed(at) == ("she", ["anna", "maria"])
    at.text_input(key="pron_sentence").input(THREE[1][0]).run()   # the page box wins until the sidebar changes
    assert analysed(at) == ("it", ["cat", "mouse"])
    assert at.button(key="pron_use_sidebar")


def test_a_sidebar_sentence_without_pronoun_leaves_the_pages_example():
    at = run_app(PAGE)                                  # the sidebar's default is "I am good."
    assert analysed(at) == ("it", ["dog", "food"])
    assert words("pronoun.sidebar_no_pronoun", sentence=quote("I am good.")) in [c.value for c in at.caption]


def test_long_text_gets_the_truncation_notice_not_no_pronoun(model):
    sentence = "word " * 300 + "because it was hungry."
    at = run_app(PAGE, pron_sentence=sentence)
    assert not at.exception
    read = model.analyze(sentence)  # the notice states the model's own token counts (this page's box says where)
    notice = words("model.truncated", language="en", cut=False, kept=f"{MAX_SENTENCE_CHARS:,}", where="",
                   n_before=read.n_tokens_before_truncation, max_length=model.max_length, n_tokens=read.n_tokens)
    assert read.truncated and notice in [w.value for w in at.warning]
    assert [i.value for i in at.info] == [words("pronoun.pronoun_cut")]   # not "no pronoun"


def test_the_builtin_test_set_is_scored_once_for_two_sessions():
    import serving.shared

    serving.shared.SHARED_RESULTS.clear()
    before = serving.shared.BUILTIN_PRONOUN_SCORINGS["count"]
    first, second = run_app(PAGE), run_app(PAGE)
    assert not first.exception and not second.exception
    assert serving.shared.BUILTIN_PRONOUN_SCORINGS["count"] == before + 1
    # the test set's tables and its reading (the last paragraphs) are the same for both
    assert [t.value.to_dict() for t in first.get("table")] == [t.value.to_dict() for t in second.get("table")]
    assert [m.value for m in first.markdown][-3:] == [m.value for m in second.markdown][-3:]


@pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"), reason="Debian's Chromium is missing")
def test_typing_three_sentences_in_chromium():
    with streamlit_server() as (url, _process, _seconds), chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.goto(f"{url}/pronoun")
        wait_for_page(page)
        for sentence, pronoun, a, b in THREE:
            box = page.get_by_label(words("pronoun.sentence_label"), exact=True).and_(page.locator("input"))
            box.fill(sentence)
            box.press("Enter")
            page.get_by_text(words("pronoun.weight_header", pronoun=quote(pronoun), a=quote(a))).wait_for(
                timeout=60_000)
            wait_for_page(page)
            assert page.locator('[data-testid="stException"]').count() == 0
            assert page.get_by_role("combobox", name=words("pronoun.pronoun_label")).input_value().startswith(f"{pronoun} (#")
            tags = page.locator('[data-testid="stMultiSelect"] [data-tag] > span').all_text_contents()
            assert [t.split(" (#")[0] for t in tags] == [a, b], tags


def test_weight_grid_is_a_valid_figure_that_starts_at_zero():
    import plotly.graph_objects as go

    from ui import figures

    values = np.random.default_rng(0).random((6, 12)) * 0.6
    spec = figures.weight_grid(values, "t", highlight=(1, 2), colorbar_title="on dog").to_dict()
    go.Figure(spec)  # plotly's full validation
    trace = spec["data"][0]
    assert trace["zmin"] == 0 and trace["zmax"] == pytest.approx(values.max()) and "zmid" not in trace
    assert isinstance(trace["colorscale"], list) and spec["layout"]["shapes"]


def test_the_verdict_names_the_preset_head_and_its_held_out_record(model):
    """The verdict, the sidebar's preset and the start page's example are about one head: the one its selection
    sentences choose. The page states its record on the held-out sentences, computed here from the model."""
    from lessons.heads import role_check, role_head
    from ui.settings import HEAD_PRESETS, PRONOUN_HEAD

    layer, head, _ = role_head("pronoun", model.analyze)
    assert (layer, head) == PRONOUN_HEAD
    answer, other, _, _ = role_check("pronoun", model.analyze)
    right = (answer > other)[PRONOUN_HEAD]
    n_easy = len(pr.HELD_OUT)
    pairs = int((right[n_easy::2] & right[n_easy + 1::2]).sum())
    at = run_app(PAGE)
    from ui.settings import preset_name

    preset = next(name for name, preset in HEAD_PRESETS.items() if preset == PRONOUN_HEAD)
    # the verdict: the page's one text naming the preset, beside the head as people count (from 1)
    verdict = next(str(m.value) for m in at.main.markdown if f"“{preset_name(preset)}”" in str(m.value))
    name = layer_head_name(layer, head)
    assert name == f"layer {layer + 1}, head {head + 1}" and name in verdict
    assert f"{int(right[:n_easy].sum())} of {n_easy}" in verdict and f"{pairs} of {len(pr.PAIRS)}" in verdict
