"""Pronoun resolution as a measurement: which candidate does a head's attention from the pronoun prefer?

Pure numpy over a model's attention probabilities; multi-piece words are handled by summing the
weights of their pieces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PRONOUNS = ("it", "he", "she", "they", "him", "her", "them", "his", "its", "their", "hers", "theirs")


@dataclass(frozen=True)
class Word:
    text: str
    pieces: tuple[int, ...]  # token positions

    @property
    def position(self) -> int:
        return self.pieces[0]


def words_of(tokens, word_ids) -> list[Word]:
    """Group word pieces into words, skipping special tokens (word id None)."""
    groups: dict[int, list[int]] = {}
    for position, word_id in enumerate(word_ids):
        if word_id is not None:
            groups.setdefault(word_id, []).append(position)
    words = []
    for pieces in groups.values():
        text = "".join(tokens[p][2:] if tokens[p].startswith("##") else tokens[p] for p in pieces)
        words.append(Word(text, tuple(pieces)))
    return words


def find_pronoun(words: list[Word]) -> int | None:
    """Index (into words) of the first pronoun, or None."""
    for index, word in enumerate(words):
        if word.text.lower() in PRONOUNS:
            return index
    return None


def find_word(words: list[Word], text: str) -> int | None:
    text = text.lower()
    for index, word in enumerate(words):
        if word.text.lower() == text:
            return index
    return None


def weight_on(attentions, source: Word, target: Word):  # [..., n, n] -> [...]
    """Attention from the source word to the target word: mean over the source's pieces, sum over the target's."""
    rows = np.asarray(attentions)[..., list(source.pieces), :]
    return rows[..., list(target.pieces)].sum(axis=-1).mean(axis=-1)


def preference(attentions, pronoun: Word, candidate_a: Word, candidate_b: Word):  # [..., n, n] -> [...]
    """A's share of the attention the pronoun gives to A and B: 1 = all on A, 0.5 = no preference, 0 = all on B."""
    a = weight_on(attentions, pronoun, candidate_a)
    b = weight_on(attentions, pronoun, candidate_b)
    return a / np.maximum(a + b, 1e-12)


@dataclass(frozen=True)
class PronounCase:
    sentence: str
    pronoun: str
    candidates: tuple[str, str]   # in the order they appear in the sentence
    answer: str                   # the candidate the pronoun refers to


# Winograd-style pairs: the two sentences of a pair differ in one word and the referent flips.
PAIRS: list[tuple[PronounCase, PronounCase]] = [
    (PronounCase("A dog ate the food because it was hungry.", "it", ("dog", "food"), "dog"),
     PronounCase("A dog ate the food because it was delicious.", "it", ("dog", "food"), "food")),
    (PronounCase("The trophy did not fit in the suitcase because it was too big.", "it",
                 ("trophy", "suitcase"), "trophy"),
     PronounCase("The trophy did not fit in the suitcase because it was too small.", "it",
                 ("trophy", "suitcase"), "suitcase")),
    (PronounCase("The cat chased the mouse because it was hungry.", "it", ("cat", "mouse"), "cat"),
     PronounCase("The cat chased the mouse because it was tasty.", "it", ("cat", "mouse"), "mouse")),
    (PronounCase("The man could not lift his son because he was so weak.", "he", ("man", "son"), "man"),
     PronounCase("The man could not lift his son because he was so heavy.", "he", ("man", "son"), "son")),
    (PronounCase("The city council refused the demonstrators a permit because they feared violence.", "they",
                 ("council", "demonstrators"), "council"),
     PronounCase("The city council refused the demonstrators a permit because they advocated violence.",
                 "they", ("council", "demonstrators"), "demonstrators")),
    (PronounCase("The ball broke the window because it was made of steel.", "it", ("ball", "window"), "ball"),
     PronounCase("The ball broke the window because it was made of glass.", "it", ("ball", "window"),
                 "window")),
    (PronounCase("Anna thanked Maria because she had helped her.", "she", ("anna", "maria"), "maria"),
     PronounCase("Anna thanked Maria because she had been helped.", "she", ("anna", "maria"), "anna")),
    (PronounCase("The lawyer asked the witness a question, but he was reluctant to answer it.", "he",
                 ("lawyer", "witness"), "witness"),
     PronounCase("The lawyer asked the witness a question, but he was reluctant to repeat it.", "he",
                 ("lawyer", "witness"), "lawyer")),
]


def case_words(case: PronounCase, tokens, word_ids) -> tuple[Word, Word, Word]:
    words = words_of(tokens, word_ids)
    pronoun_index = find_word(words, case.pronoun)
    indices = [find_word(words, c) for c in case.candidates]
    if pronoun_index is None or None in indices:
        raise ValueError(f"{case.sentence!r}: pronoun or candidate not found among its words")
    return words[pronoun_index], words[indices[0]], words[indices[1]]


@dataclass(frozen=True)
class Scoreboard:
    head_correct: np.ndarray      # [n_layers, n_heads] number of sentences the head gets right
    head_pairs: np.ndarray        # [n_layers, n_heads] number of pairs where the head gets both right
    n_sentences: int
    n_pairs: int
    nearest_correct: int          # baseline: the candidate closest before the pronoun
    subject_correct: int          # baseline: always the first-mentioned candidate

    @property
    def head_accuracy(self) -> np.ndarray:
        return self.head_correct / self.n_sentences


def score_heads(pairs, attentions_of) -> Scoreboard:
    """How often each head's preference picks the right referent.

    attentions_of(sentence) -> (attentions [L, H, n, n], tokens, word_ids). A head 'answers' the candidate
    with the larger summed weight from the pronoun.
    """
    head_correct = head_pairs = None
    nearest = subject = 0
    for pair in pairs:
        both = None
        for case in pair:
            attentions, tokens, word_ids = attentions_of(case.sentence)
            pronoun, a, b = case_words(case, tokens, word_ids)
            share_a = preference(attentions, pronoun, a, b)
            right = (share_a > 0.5) if case.answer == case.candidates[0] else (share_a < 0.5)
            head_correct = right.astype(int) if head_correct is None else head_correct + right
            both = right if both is None else both & right
            before = [w for w in (a, b) if w.position < pronoun.position]
            nearest_word = max(before, key=lambda w: w.position) if before else min((a, b), key=lambda w: abs(
                w.position - pronoun.position))
            nearest += int(case.candidates[(a, b).index(nearest_word)] == case.answer)
            subject += int(case.candidates[0] == case.answer)
        head_pairs = both.astype(int) if head_pairs is None else head_pairs + both
    return Scoreboard(head_correct, head_pairs, 2 * len(pairs), len(pairs), nearest, subject)
