"""Where the model's tokens differ from the words typed: which word it reads in small letters ("I" -> "i") and which
word it reads as several tokens ("didn't" -> "didn" "'" "t"; a "##" word piece is one kind of split).

Pure Python over the sentence and the tokenizer's tokens. The tokens do not carry the tokenizer's character offsets,
so each token is found again in the sentence after the tokenizer's own normalisation (BertNormalizer: control
characters dropped, accents stripped, then lowercased), keeping each normalised character's place in the sentence;
tests/test_token_notes.py checks these places against the tokenizer's offsets. When a token cannot be found the
measurement says nothing rather than guess.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

UNKNOWN = "[UNK]"
CONTINUATION = "##"


@dataclass(frozen=True)
class WordRead:
    """One typed word (whitespace-separated, outer punctuation left off) and the tokens the model reads for it."""

    word: str                 # as typed
    tokens: tuple[str, ...]   # the model's tokens for it, "##" kept
    start: int                # the word's place in the sentence: sentence[start:end] == word
    end: int

    @property
    def read(self) -> str:
        """The word as the model reads it: its tokens joined, the "##" marks left off."""
        return "".join(t[len(CONTINUATION):] if t.startswith(CONTINUATION) and len(t) > 2 else t for t in self.tokens)

    @property
    def lowercased(self) -> bool:
        """Typed with a capital letter that the model reads as a small one."""
        return any(c != c.lower() for c in self.word) and self.read != self.word

    @property
    def split(self) -> bool:
        return len(self.tokens) > 1


@dataclass(frozen=True)
class TokenChanges:
    """The first word the model reads lowercased and the first it splits (None when no word is)."""

    lowercased: WordRead | None
    split: WordRead | None

    def __bool__(self) -> bool:
        return self.lowercased is not None or self.split is not None


def _is_control(c: str) -> bool:
    return c not in "\t\n\r" and unicodedata.category(c)[0] == "C"


def _is_punctuation(c: str) -> bool:
    """BERT's punctuation: every ASCII non-letter non-digit symbol, and Unicode's punctuation."""
    cp = ord(c)
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 or unicodedata.category(c)[0] == "P"


def _is_cjk(c: str) -> bool:
    cp = ord(c)
    return any(lo <= cp <= hi for lo, hi in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
                                             (0x2A700, 0x2B73F), (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF),
                                             (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


def normalized(sentence: str) -> tuple[str, list[int]]:
    """The sentence as the tokenizer's normaliser hands it on, and each of its characters' index in the sentence."""
    chars, origin = [], []
    for i, c in enumerate(sentence):
        if c in "\x00\ufffd" or _is_control(c):
            continue
        if c.isspace():
            chars.append(" ")
            origin.append(i)
            continue
        for d in unicodedata.normalize("NFD", c):
            if unicodedata.category(d) != "Mn":
                for e in d.lower():
                    chars.append(e)
                    origin.append(i)
    return "".join(chars), origin


def token_spans(sentence: str, tokens, special=()) -> list[tuple[int, int] | None] | None:
    """Each token's characters in the sentence, (start, end), as the tokenizer's offsets give them; None for a
    special token ([CLS], [SEP]). None altogether when a token cannot be found where it should be."""
    text, origin = normalized(sentence)
    special = set(special)
    spans: list[tuple[int, int] | None] = []
    at = 0
    for token in map(str, tokens):
        continues = token.startswith(CONTINUATION) and len(token) > 2
        if not continues:
            while at < len(text) and text[at] == " ":
                at += 1
        if token in special:
            if text.startswith(token.lower(), at):  # typed in the sentence ("[MASK]"): it takes its characters
                at += len(token)
            spans.append(None)
            continue
        if token == UNKNOWN:  # one pre-tokenised word: a punctuation or CJK character, or a run up to the next one
            end = at + 1
            if at < len(text) and not (_is_punctuation(text[at]) or _is_cjk(text[at])):
                while end < len(text) and text[end] != " " and not (_is_punctuation(text[end]) or _is_cjk(text[end])):
                    end += 1
        else:
            piece = token[len(CONTINUATION):] if continues else token
            if not text.startswith(piece, at):
                return None
            end = at + len(piece)
        if end > len(text):
            return None
        spans.append((origin[at], origin[end - 1] + 1))
        at = end
    return spans


def typed_words(sentence: str) -> list[tuple[int, int]]:
    """The sentence's words as typed: split at spaces, punctuation at either end left off ("tired." -> "tired")."""
    spans, start = [], None
    for i, c in enumerate(sentence + " "):
        if c.isspace() and start is not None:
            s, e = start, i
            while s < e and _is_punctuation(sentence[s]):
                s += 1
            while e > s and _is_punctuation(sentence[e - 1]):
                e -= 1
            if s < e:
                spans.append((s, e))
            start = None
        elif not c.isspace() and start is None:
            start = i
    return spans


def words_read(sentence: str, tokens, special=()) -> list[WordRead]:
    """Each typed word the model reads (none after a cut), with its tokens; a word with an unknown token is left
    out (what the model read for it is not a piece of the word). [] when the tokens cannot be placed."""
    spans = token_spans(sentence, tokens, special)
    if spans is None:
        return []
    tokens = [str(t) for t in tokens]
    read = []
    for start, end in typed_words(sentence):
        mine = [t for t, span in zip(tokens, spans) if span is not None and span[0] < end and span[1] > start]
        if mine and UNKNOWN not in mine:
            read.append(WordRead(sentence[start:end], tuple(mine), start, end))
    return read


def token_changes(sentence: str, tokens, special=()) -> TokenChanges:
    """The first word read in small letters and the first read as several tokens."""
    read = words_read(sentence, tokens, special)
    return TokenChanges(lowercased=next((w for w in read if w.lowercased), None),
                        split=next((w for w in read if w.split), None))
