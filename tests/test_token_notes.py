"""The tokens are not always the words typed: the model reads "I" as "i" and "didn't" as "didn" "'" "t". Under the
chips a line says so, naming the first word read in small letters and the first read as several tokens; it is
measured on the sentence and its tokens (lessons/tokens_said.py) and absent when every word is read as typed."""

import string

import pytest
from conftest import run_app

from lessons.tokens_said import token_changes, token_spans, words_read
from ui.content import words
from ui.text import quote

SENTENCES = ["I am good.", "The animal didn't cross the street because it was too tired.", "The cat sat on the mat.",
             "the cat sat on the mat."]  # the last: every word read as typed, so no line
# Beyond plain English: accents stripped, an emoji the model does not know, "##" pieces, CJK characters, a
# zero-width space, a long sharp s, ligatures, a typed special token, control characters and a spaced-out text.
HARDER = ["Café naïve İstanbul 🙂 hi🙂 tokenization 東京 ẞtraße ﬁne", "x\u200by", "  lots   of\tspace\n",
          "[MASK] is here", "It's U.S.A. e-mail 3.14 ###", "ÀÉÎÕÜ Straße", "a\x0bb \ufffd c", "hello\u0301 World\u0300"]


def shown(model, text):
    return [t for t in model.tokenize(text) if t not in model.special_tokens]


def expected(model, sentence):
    """The facts from the tokenizer alone: each typed word (outer punctuation off) tokenized on its own gives the
    word's tokens; the first word with a capital is read lowercased, the first with more than one token is split."""
    typed = [w.strip(string.punctuation) for w in sentence.split()]
    typed = [w for w in typed if w]
    lowered = next((w for w in typed if w != w.lower()), None)
    split = next(((w, shown(model, w)) for w in typed if len(shown(model, w)) > 1), None)
    return lowered, split


def expected_note(model, sentence) -> str:
    lowered, split = expected(model, sentence)
    if lowered is None and split is None:
        return ""
    return words("pickers.changed", lowered=quote(lowered) if lowered else "",
                 read=quote(lowered.lower()) if lowered else "", split=quote(split[0]) if split else "",
                 pieces=" ".join(quote(t) for t in split[1]) if split else "")


@pytest.mark.parametrize("sentence", SENTENCES + HARDER)
def test_each_token_is_placed_where_the_tokenizer_says(model, sentence):
    tokens = model.tokenize(sentence)
    offsets = model._tokenizer.encode(sentence).offsets  # the tokenizer's own character offsets (numpy backend)
    assert token_spans(sentence, tokens, model.special_tokens) == [
        None if t in model.special_tokens else tuple(o) for t, o in zip(tokens, offsets)]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_the_facts_are_the_tokenizers(model, sentence):
    tokens = model.tokenize(sentence)
    read = words_read(sentence, tokens, model.special_tokens)
    typed = [w.strip(string.punctuation) for w in sentence.split()]
    assert [w.word for w in read] == [w for w in typed if w]
    for w in read:
        assert sentence[w.start:w.end] == w.word
        assert list(w.tokens) == shown(model, w.word)  # the word's tokens, as the tokenizer gives them alone
        assert w.read == w.word.lower()
    lowered, split = expected(model, sentence)
    changes = token_changes(sentence, tokens, model.special_tokens)
    assert (changes.lowercased.word if changes.lowercased else None) == lowered
    assert (changes.lowercased.read if changes.lowercased else None) == (lowered.lower() if lowered else None)
    assert ((changes.split.word, list(changes.split.tokens)) if changes.split else None) == split
    assert bool(changes) == (lowered is not None or split is not None)


def test_the_named_changes(model):
    """What the reviewer saw, measured: "I" read as "i"; "didn't" as three tokens; "The" as "the"."""
    good = token_changes("I am good.", model.tokenize("I am good."), model.special_tokens)
    assert (good.lowercased.word, good.lowercased.read, good.split) == ("I", "i", None)
    animal = SENTENCES[1]
    didnt = token_changes(animal, model.tokenize(animal), model.special_tokens)
    assert (didnt.lowercased.word, didnt.split.word, didnt.split.tokens) == ("The", "didn't", ("didn", "'", "t"))
    pieces = token_changes("tokenization", model.tokenize("tokenization"), model.special_tokens)
    assert pieces.split.tokens == ("token", "##ization") and pieces.lowercased is None  # "##" pieces are a split
    plain = "the cat sat on the mat."
    assert not token_changes(plain, model.tokenize(plain), model.special_tokens)


def test_tokens_that_cannot_be_placed_say_nothing():
    assert token_spans("I am good.", ["[CLS]", "you", "[SEP]"], {"[CLS]", "[SEP]"}) is None
    assert not token_changes("I am good.", ["[CLS]", "you", "[SEP]"], {"[CLS]", "[SEP]"})


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("page", ["app_pages/home.py", "app_pages/step1_scores.py"])
def test_the_line_under_the_chips_says_when_a_word_changed(model, page, sentence):
    note = expected_note(model, sentence)
    at = run_app(page, sentence)
    assert not at.exception, at.exception
    captions = [str(c.value) for c in at.main.caption]
    firsts = {words("pickers.changed", lowered=x, read=x, split=y, pieces=y).split("\x00")[0]
              for x, y in (("\x00", ""), ("", "\x00"))}
    said = [c for c in captions if any(c.startswith(first) for first in firsts)]
    assert said == ([note] if note else []), (said, note)
