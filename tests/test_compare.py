"""The compare page must not teach position as meaning: when one head sends the followed word's largest share to
the same place in both sentences (the next token, say), the page says the rows differ by the words at that place,
with the numbers its heatmaps draw (lessons/compare.py; ui/sections/compare.py). Otherwise it says nothing more."""

import numpy as np
import pytest
from conftest import run_app
from wording import lead, said, told

from attention import core
from lessons import explain
from lessons.compare import same_place, top_key
from serving.shared import COMPARE_DEFAULTS
from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER
from ui.text import pct, quote

PAGE = "app_pages/compare.py"
OTHER_HEAD = (1, 9)  # layer 2, head 10: "bank" looks at the word before it in one sentence, at the markers in the other


def drawn(model, text, layer, head, word):
    """What the page draws for `word` (markers hidden, folded into one column): its row, the columns' token
    positions (None: the marker column), the word's position and the keys' labels."""
    analysis = model.analyze(text)
    x = analysis.hidden_states[layer].astype(np.float64)
    weights = core.run_steps(*core.learned_projection(x, model.head_weights(layer, head))).weights
    shown = np.flatnonzero(~analysis.is_special)
    hidden = np.flatnonzero(analysis.is_special)
    position = analysis.tokens.index(word)
    row = explain.fold_hidden(weights[position], shown, hidden)
    keys = [analysis.tokens[j] for j in shown] + [explain.MARKER_COLUMN]
    return row, [int(j) for j in shown] + [None], position, keys


def fact_of(model, layer, head, word="bank"):
    parts = [drawn(model, text, layer, head, word) for text in COMPARE_DEFAULTS]
    fact = same_place(*([p[i] for p in parts] for i in range(3)))
    return fact, [p[3] for p in parts]


def test_the_top_key_is_the_rows_largest_share_and_its_place():
    assert top_key([0.1, 0.2, 0.6, 0.1], [1, 2, 3, None], 2).offset == 1
    assert top_key([0.1, 0.6, 0.2, 0.1], [1, 2, 3, None], 2).offset == 0
    assert top_key([0.1, 0.1, 0.2, 0.6], [1, 2, 3, None], 2).offset is None  # the folded markers: no place
    assert same_place([[0.7, 0.3], [0.3, 0.7]], [[1, 2], [1, 2]], [2, 1]).offset is None  # before, then after
    assert same_place([[0.3, 0.7], [0.2, 0.8]], [[4, 5], [2, 3]], [4, 2]).offset == 1
    assert same_place([[0.9, 0.1], [0.8, 0.2]], [[4, 7], [2, 5]], [1, -1]).offset is None  # +3 both: not beside it


def test_the_default_head_sends_bank_to_the_next_token_in_both_default_sentences(model):
    fact, keys = fact_of(model, DEFAULT_LAYER, DEFAULT_HEAD)
    assert [top.offset for top in fact.tops] == [1, 1] and fact.offset == 1
    for top, labels, text in zip(fact.tops, keys, COMPARE_DEFAULTS):
        tokens = model.analyze(text).tokens
        assert labels[top.column] == tokens[tokens.index("bank") + 1]


def notes(at):
    """The note's paragraphs, in whichever branch (its words before the first placeholder)."""
    return [m.value for m in at.markdown if m.value.startswith(lead("compare.same_place").strip())]


def test_the_page_says_position_when_both_rows_peak_at_the_next_token(model):
    at = run_app(PAGE)
    assert not at.exception, at.exception
    fact, keys = fact_of(model, DEFAULT_LAYER, DEFAULT_HEAD)
    [note] = notes(at)
    first, second = (quote(labels[top.column]) for labels, top in zip(keys, fact.tops))
    assert note == said("compare.same_place", word=quote("bank"), offset=fact.offset, first=first,
                                second=second, share_a=pct(fact.tops[0].share), share_b=pct(fact.tops[1].share),
                                same_token=first == second).strip()
    assert ("meaning", said("menu.page_meaning").strip()) in [
        (link.proto.page, link.proto.label) for link in at.main.get("page_link")]


@pytest.mark.parametrize("layer, head", [OTHER_HEAD])
def test_no_note_where_the_two_rows_peak_at_different_places(model, layer, head):
    fact, _keys = fact_of(model, layer, head)
    assert fact.offset is None and fact.tops[0].offset != fact.tops[1].offset
    at = run_app(PAGE, layer=layer, head=head, mode="learned")
    assert not at.exception, at.exception
    assert not notes(at)
    assert len([m for m in at.markdown if told("compare.looks", word=quote("bank")).fullmatch(m.value)]) == 2
