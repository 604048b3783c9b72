import numpy as np
import pytest

from attention import pronoun as pr


def test_words_join_pieces_and_skip_specials():
    tokens = ["[CLS]", "the", "un", "##believ", "##able", "dog", "[SEP]"]
    word_ids = [None, 0, 1, 1, 1, 2, None]
    words = pr.words_of(tokens, word_ids)
    assert [w.text for w in words] == ["the", "unbelievable", "dog"]
    assert words[1].pieces == (2, 3, 4)


def test_multi_piece_candidate_sums_its_pieces():
    tokens = ["a", "aard", "##vark", "ate", "it"]
    words = pr.words_of(tokens, [0, 1, 1, 2, 3])
    attn = np.zeros((5, 5))
    attn[4] = [0.1, 0.2, 0.3, 0.1, 0.3]
    it, aardvark, ate = words[3], words[1], words[2]
    assert pr.weight_on(attn, it, aardvark) == pytest.approx(0.5)
    assert pr.preference(attn, it, aardvark, ate) == pytest.approx(0.5 / 0.6)


def test_find_pronoun():
    words = pr.words_of(["a", "dog", "saw", "it"], [0, 1, 2, 3])
    assert pr.find_pronoun(words) == 3
    assert pr.find_pronoun(words[:3]) is None


def test_scoreboard_on_a_hand_checked_case():
    """Two pairs, a 1-layer model with 2 heads; the answers below are worked out by hand."""
    pairs = [
        (pr.PronounCase("x1", "it", ("dog", "food"), "dog"), pr.PronounCase("x2", "it", ("dog", "food"), "food")),
        (pr.PronounCase("y1", "it", ("cat", "mouse"), "cat"), pr.PronounCase("y2", "it", ("cat", "mouse"), "mouse")),
    ]
    # tokens: 0 a, 1 <A>, 2 ate, 3 <B>, 4 it
    # head 0 always prefers the first candidate (a 'subject' head): right on x1, y1 only.
    # head 1 prefers A in x1, B in x2, A in y1, A in y2: right on x1, x2, y1 (3 of 4), one pair fully right.
    prefs = {"x1": (0.7, 0.6), "x2": (0.8, 0.3), "y1": (0.9, 0.55), "y2": (0.6, 0.9)}
    names = {"x": ("dog", "food"), "y": ("cat", "mouse")}

    def attentions_of(sentence):
        a_name, b_name = names[sentence[0]]
        tokens = ["a", a_name, "ate", b_name, "it"]
        attn = np.full((1, 2, 5, 5), 0.2)
        for head, share_a in enumerate(prefs[sentence]):
            attn[0, head, 4] = [0.0, 0.5 * share_a, 0.5, 0.5 * (1 - share_a), 0.0]
        return attn, tokens, [0, 1, 2, 3, 4]

    board = pr.score_heads(pairs, attentions_of)
    assert board.head_correct.tolist() == [[2, 3]]
    assert board.head_pairs.tolist() == [[0, 1]]
    assert board.head_accuracy.tolist() == [[0.5, 0.75]]
    assert board.subject_correct == 2
    assert board.nearest_correct == 2  # nearest before "it" is always B: right on x2 and y2
    assert (board.n_sentences, board.n_pairs) == (4, 2)


def test_builtin_pairs_resolve_on_the_real_tokenizer(model):
    for pair in pr.PAIRS:
        assert pair[0].answer != pair[1].answer
        for case in pair:
            analysis = model.analyze(case.sentence)
            pr.case_words(case, analysis.tokens, analysis.word_ids)
