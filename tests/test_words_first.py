"""Words a student meets before they are explained: the raised number of a repeated token ("the²") is said under
the chips (or the heatmaps, on pages without chips) exactly when a label is numbered, and the start page's list of shares follows one rule (whole percents,
"<1%" under 1%) with the drawn row's own numbers."""

import re
from collections import Counter

import numpy as np
import pytest
from conftest import run_app

from lessons.explain import MARKER_COLUMN
from ui.content import words
from ui.labels import numbered_note, unique_labels
from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER
from ui.text import pct, quote

SENTENCES = ["I am good.", "The cat sat on the mat.",
             "The animal didn't cross the street because the animal was too tired."]
RULE = re.compile(r"^(<1%|\d+%)$")  # pct's one rule: whole percents, "<1%" for a share under 1%
PERCENT = re.compile(r"<1%|\d+(?:\.\d+)?%")


def shown_tokens(model, sentence):
    return [t for t in model.tokenize(sentence) if t not in model.special_tokens]


def expected_note(tokens) -> str:
    """The note, from the tokens alone: the first token said twice, its second (and third) time raised."""
    counts = Counter()
    times = {}
    for token in tokens:
        counts[token] += 1
        times.setdefault(token, []).append(counts[token])
    repeated = [t for t in dict.fromkeys(tokens) if counts[t] > 1]
    if not repeated:
        return ""
    # the first repeated token to be said a second time names the note
    first = min(repeated, key=lambda t: [k for k, u in enumerate(tokens) if u == t][1])
    third = quote(first + "³") if counts[first] > 2 else ""
    return words("pickers.numbered", token=quote(first), second=quote(first + "²"), third=third)


def captions(at) -> list[str]:
    return [str(c.value) for c in at.main.caption]


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("page", ["app_pages/home.py", "app_pages/step1_scores.py", "app_pages/multihead.py",
                                  "app_pages/whatif.py"])
def test_the_raised_number_is_explained_under_the_chips_only_when_a_label_is_numbered(model, page, sentence):
    tokens = shown_tokens(model, sentence)
    expected = expected_note(tokens)
    assert (expected != "") == (len(set(tokens)) < len(tokens))
    assert numbered_note(tokens) == expected
    at = run_app(page, sentence)
    assert not at.exception, at.exception
    start = words("pickers.numbered", token="\x00", second="\x00", third="").split("\x00")[0]
    said = [c for c in captions(at) if c.startswith(start)]
    assert said == ([expected] if expected else []), (said, expected)


def test_a_list_of_shares_follows_one_rule():
    for x in np.concatenate([np.linspace(0, 1, 2001), [0.0049, 0.005, 0.0099, 0.00999, 0.01, 0.0004]]):
        printed = pct(float(x))
        assert RULE.match(printed), (x, printed)
        assert printed == ("<1%" if 0 < x < 0.01 else f"{round(100 * x)}%"), (x, printed)


@pytest.mark.parametrize("sentence", SENTENCES[1:])
def test_the_start_pages_list_of_shares_is_the_drawn_rows_by_one_rule(model, sentence):
    at = run_app("app_pages/home.py", sentence)
    assert not at.exception, at.exception
    me = at.session_state["_settings"].token
    # the drawn row: the model's own weights, the hidden [CLS] and [SEP] folded into one column
    analysis = model.analyze(sentence)
    special = np.asarray(analysis.is_special, dtype=bool)
    rows = analysis.attentions[DEFAULT_LAYER, DEFAULT_HEAD][~special]
    row = np.append(rows[me][~special], rows[me][special].sum())
    keys = [str(k) for k in np.array(unique_labels(analysis.tokens))[~special]] + [MARKER_COLUMN]
    head = words("start.where_each_word_looks", head="\x00", token="\x00", focus="\x00", teaching=False,
                 anchor="x").split("\x00")[0]
    [line] = [str(m.value) for m in at.main.markdown if str(m.value).startswith(head)]
    focus = line.split(", puts ", 1)[1].split(". ", 1)[0]
    assert all(RULE.match(p) for p in PERCENT.findall(line)), line  # no "0.7%" beside "3%"
    named = re.findall(r"\*\*(<1%|\d+%)\*\* on (itself|“([^”]*)”)", focus)
    assert named, focus
    for printed, who, key in named:
        j = me if who == "itself" else keys.index(key.replace("\\", ""))
        assert printed == pct(row[j]), (printed, key, row[j])
    rest = re.search(r"and (<1%|\d+%|nothing) on the (one other key|other (\d+) keys)", focus)
    if rest:
        taken = {me if who == "itself" else keys.index(key.replace("\\", "")) for _, who, key in named}
        left = sum(row[j] for j in range(len(row)) if j not in taken)
        assert rest.group(1) == (pct(left) if left > 0 else words("readouts.nothing")), (rest.group(0), left)
        assert int(rest.group(3) or 1) == len(row) - len(taken)
