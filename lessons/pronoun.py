"""Pronoun resolution as a measurement: which candidate does a head's attention from the pronoun prefer?

Pure numpy over a model's attention probabilities; multi-piece words are handled by summing the
weights of their pieces.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention.core import attention_rollout

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
    """Index (into words) of the word, or None; "cat²" is the second "cat"."""
    text, nth = (text[:-1], 1) if text.endswith("²") else (text, 0)
    found = [index for index, word in enumerate(words) if word.text.lower() == text.lower()]
    return found[nth] if len(found) > nth else None


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
    pronoun: str                  # the word that looks ("cat²": the second "cat")
    candidates: tuple[str, str]   # in the order they appear in the sentence
    answer: str                   # the candidate the pronoun refers to
    kind: str = ""                # why a held-out sentence is there ("the subject", "not the subject", …)


# The sentences that choose a role's head and the other sentences that check it are data, kept apart so a head is
# never judged on the sentences it was chosen on (lessons/data/role_heads.json says how each part is used).
ROLE_SETS = json.loads((Path(__file__).parent / "data" / "role_heads.json").read_text(encoding="utf-8"))


def _case(entry: dict) -> PronounCase:
    return PronounCase(entry["sentence"], entry["looking"], tuple(entry["candidates"]), entry["answer"],
                       entry.get("kind", ""))


def role_cases(role: str, part: str) -> list[PronounCase]:
    """A role's "selection" or "held_out" sentences (ROLE_SETS); a role's pairs are in PAIRS / role_pairs."""
    return [_case(entry) for entry in ROLE_SETS[role][part]]


def role_pairs(role: str) -> list[tuple[PronounCase, PronounCase]]:
    return [(_case(first), _case(second)) for first, second in ROLE_SETS[role].get("pairs", [])]


# Winograd-style pairs: the two sentences of a pair differ in a word or two and the referent flips, so only the
# meaning decides. Held out: no head is chosen on them.
PAIRS = role_pairs("pronoun")
SELECTION = role_cases("pronoun", "selection")   # the sentences the pronoun head is chosen on
HELD_OUT = role_cases("pronoun", "held_out")     # other sentences where grammar or an easy cue decides


def contrast_partner(sentence: str) -> str:
    """The test set's other sentence of the pair (one word changed, the pronoun means the other candidate);
    the sentence itself when it is in no pair."""
    return next((other.sentence for pair in PAIRS for case, other in (pair, pair[::-1]) if case.sentence == sentence),
                sentence)


def case_words(case: PronounCase, tokens, word_ids) -> tuple[Word, Word, Word]:
    words = words_of(tokens, word_ids)
    pronoun_index = find_word(words, case.pronoun)
    indices = [find_word(words, c) for c in case.candidates]
    if pronoun_index is None or None in indices:
        raise ValueError(f"{case.sentence!r}: pronoun or candidate not found among its words")
    return words[pronoun_index], words[indices[0]], words[indices[1]]


@dataclass(frozen=True)
class Scoreboard:
    head_correct: np.ndarray      # [n_layers, n_heads] number of pair sentences the head gets right
    head_pairs: np.ndarray        # [n_layers, n_heads] number of pairs where the head gets both right
    n_sentences: int
    n_pairs: int
    nearest_correct: int          # baseline: the candidate closest before the pronoun
    subject_correct: int          # baseline: always the first-mentioned candidate
    # The head chosen on the selection sentences (choose_head; -1 without them) and how many heads pass there.
    chosen_layer: int = -1
    chosen_head: int = -1
    n_passing: int = 0
    n_selection: int = 0
    held_out_right: np.ndarray | None = None  # [n_layers, n_heads, n_held_out] 1 where the head picks the answer
    held_out_subject: int = 0     # the same baselines on the held-out sentences outside the pairs
    held_out_nearest: int = 0
    to_candidates: np.ndarray | None = None  # [n_layers, n_heads] mean share of the two candidates, held-out sentences

    @property
    def head_accuracy(self) -> np.ndarray:
        return self.head_correct / self.n_sentences

    @property
    def chosen(self) -> tuple[int, int] | None:
        return (self.chosen_layer, self.chosen_head) if self.chosen_layer >= 0 else None


def case_weights(cases, attentions_of):  # -> answer [L, H, n], other [L, H, n], subject_right [n], nearest_right [n]
    """Each head's attention from each case's pronoun to its answer and to the other candidate, and what the two
    fixed rules answer: always the first-mentioned candidate, always the nearest one before the pronoun."""
    answer, other, subject, nearest = [], [], [], []
    for case in cases:
        attentions, tokens, word_ids = attentions_of(case.sentence)
        pronoun, a, b = case_words(case, tokens, word_ids)
        right, wrong = (a, b) if case.answer == case.candidates[0] else (b, a)
        answer.append(weight_on(attentions, pronoun, right))
        other.append(weight_on(attentions, pronoun, wrong))
        before = [w for w in (a, b) if w.position < pronoun.position]
        nearest_word = max(before, key=lambda w: w.position) if before else min((a, b), key=lambda w: abs(
            w.position - pronoun.position))
        nearest.append(nearest_word is right)
        subject.append(case.candidates[0] == case.answer)
    return np.stack(answer, -1), np.stack(other, -1), np.array(subject), np.array(nearest)


def choose_head(answer, other) -> tuple[int, int, int]:  # [L, H, n] each -> (layer, head, heads passing)
    """The head for a role, from its selection sentences only: of the heads that give the answer more attention than
    the other candidate in every sentence, the one with the largest mean difference (if none does: the most
    sentences right, then the difference)."""
    right = answer > other
    passing = right.all(-1)
    margin = (answer - other).mean(-1)
    score = np.where(passing, margin, -np.inf) if passing.any() else right.sum(-1) + margin / 2
    layer, head = np.unravel_index(int(np.argmax(score)), score.shape)
    return int(layer), int(head), int(passing.sum())


def score_heads(pairs, attentions_of, held_out=None, selection=None) -> Scoreboard:
    """How often each head's preference picks the right referent, and the head chosen in advance.

    attentions_of(sentence) -> (attentions [L, H, n, n], tokens, word_ids). A head 'answers' the candidate
    with the larger summed weight from the pronoun. held_out and selection default to the built-in sets
    (HELD_OUT, SELECTION); the head is chosen on selection alone, then scored on the pairs and held_out.
    """
    held_out = HELD_OUT if held_out is None else held_out
    selection = SELECTION if selection is None else selection
    answer, other, subject, nearest = case_weights([case for pair in pairs for case in pair], attentions_of)
    right = answer > other                                  # [L, H, 2 * n_pairs], the pairs' sentences in order
    chosen = choose_head(*case_weights(selection, attentions_of)[:2]) if selection else (-1, -1, 0)
    held_right, n_subject, n_nearest, together = None, 0, 0, answer + other
    if held_out:
        held_answer, held_other, held_subject, held_nearest = case_weights(held_out, attentions_of)
        held_right = (held_answer > held_other).astype(int)
        n_subject, n_nearest = held_subject.sum(), held_nearest.sum()
        together = np.concatenate([together, held_answer + held_other], -1)
    return Scoreboard(right.sum(-1), (right[..., 0::2] & right[..., 1::2]).sum(-1), 2 * len(pairs), len(pairs),
                      int(nearest.sum()), int(subject.sum()), *chosen, len(selection), held_right,
                      int(n_subject), int(n_nearest), together.mean(-1))


# --- choosing the pronoun and its candidates ------------------------------------------------------------

SUBJECT_PRONOUNS = ("it", "he", "she", "they")
OBJECT_PRONOUNS = ("him", "her", "them")
POSSESSIVE_PRONOUNS = ("its", "his", "their", "hers", "theirs")
PERSONAL = ("he", "she", "him", "her", "his", "hers")
# Words that open a noun phrase: the noun the pronoun could mean is the last word of the phrase.
DETERMINERS = frozenset("""the a an this that these those my your our his her its their some any every each no
another one two three four five six seven eight nine ten both all many several""".split())
# Words that are never the thing a pronoun refers to (a small list is enough for one sentence).
NOT_CANDIDATES = DETERMINERS | frozenset("""i you we me us him them it he she they itself himself herself
themselves myself who whom which what whose hers theirs
is are was were be been being am do does did done have has had having will would shall should can could may
might must didn doesn don wasn weren isn aren hasn haven hadn couldn wouldn shouldn won cannot ain
in on at to for from of with by about into onto over under after before through during without within between
against above below across up down off out around near behind beside than as like toward towards upon
and or but because so if when while although though since until unless whether then yet nor
not too very also just only even still really quite rather never always often again there here
yesterday today tomorrow now later soon already much more most less least""".split())
# Verbs that often follow a noun; "-ed" words are treated the same way. They end a noun phrase.
COMMON_VERBS = frozenset("""ate saw took gave made went came told said got put broke fit hit threw caught bought
brought found left ran beat won lost sold sent paid met kept held knew thought felt heard wrote read drove fell
hid lent sat stood spoke tried chose bit flew grew drew wore tore swam sang let cut set shut hurt
eats sees takes gives makes goes comes tells says gets puts breaks fits hits likes loves hates wants needs
runs chases beats wins loses sells sends pays meets keeps holds knows thinks feels hears helps asks
eat see take give make go come tell say get break like love hate want need run chase beat win lose sell
send pay meet keep hold know think feel hear help ask lift cross""".split())
APOSTROPHES = ("'", "’", "-")


@dataclass(frozen=True)
class Choice:
    """The default analysis of one sentence: which word is the pronoun and which two words it could mean."""

    pronoun: int | None            # index into words
    candidates: tuple[int, ...]    # indices into words, the likeliest first (the first two are the default pair)
    fragments: tuple[int, ...]     # word pieces that are not words of their own (the "t" of "didn't")

    @property
    def pair(self) -> tuple[int, ...]:
        """The default two candidates, in sentence order (fewer if the sentence has fewer)."""
        return tuple(sorted(self.candidates[:2]))


def _spans(sentence: str, words: list[Word]) -> list[tuple[int, int] | None]:
    """Where each word starts and ends in the typed sentence (the uncased tokenizer lowercases and drops accents)."""
    import unicodedata

    plain, where = [], []
    for index, char in enumerate(sentence):
        for c in unicodedata.normalize("NFKD", char):
            if not unicodedata.combining(c):
                plain.append(c.lower())
                where.append(index)
    plain = "".join(plain)
    spans, cursor = [], 0
    for word in words:
        found = plain.find(word.text.lower(), cursor) if word.text else -1
        if found < 0:
            spans.append(None)
            continue
        end = found + len(word.text)
        spans.append((where[found], where[end - 1] + 1))
        cursor = end
    return spans


def _is_verb_like(text: str) -> bool:
    return text in COMMON_VERBS or (len(text) >= 5 and text.endswith("ed"))


def choose(sentence: str, words: list[Word], pronoun: int | None = None) -> Choice:
    """The pronoun to analyse and the words it could refer to, as a reader would pick them.

    The pronoun: the first he/she/it/they, else the first him/her/them, else the first its/his/their.
    Candidates: before the pronoun, the last word of each noun phrase ("the city council" -> "council") and
    every capitalised name ("Anna"); if that gives fewer than two, other content words before the pronoun that
    do not look like verbs.
    Determiners, auxiliaries, punctuation and word-piece fragments are never candidates. Pass `pronoun` (an
    index into words) to find the candidates of a pronoun the user picked.
    """
    spans = _spans(sentence, words)
    texts = [w.text.lower() for w in words]
    fragments = tuple(i for i in range(1, len(words))
                      if texts[i - 1] in APOSTROPHES and spans[i] and spans[i - 1] and spans[i][0] == spans[i - 1][1])
    groups = (SUBJECT_PRONOUNS, OBJECT_PRONOUNS, POSSESSIVE_PRONOUNS)
    while pronoun is None and groups:
        pronoun = next((i for i, t in enumerate(texts) if t in groups[0] and i not in fragments), None)
        groups = groups[1:]
    if pronoun is None:
        return Choice(None, (), fragments)

    def content(i):
        return texts[i].isalpha() and texts[i] not in NOT_CANDIDATES and i not in fragments

    heads, names, others, phrase = [], [], [], None
    for i in range(pronoun + 1):
        ends_phrase = i == pronoun or not content(i) or (phrase and _is_verb_like(texts[i]))
        if phrase is not None and phrase and ends_phrase:
            heads.append(phrase[-1])
        if ends_phrase:
            # "the …" and the "s" of "Ann's …" open a noun phrase
            opens = texts[i] in DETERMINERS or (i in fragments and texts[i] == "s")
            phrase = [] if i < pronoun and opens else None
            continue
        capitalised = spans[i] is not None and sentence[spans[i][0]].isupper()
        if phrase is not None:
            phrase.append(i)
        elif capitalised and not _is_verb_like(texts[i]):
            heads.append(i)
            names.append(i)
        else:
            others.append(i)
    heads = sorted(set(heads))
    if texts[pronoun] in PERSONAL and len(names) >= 2:  # he/she: people first, the nearest names
        heads = sorted(names) + [i for i in heads if i not in names]
    if len(heads) < 2:
        fill = [i for i in others if not _is_verb_like(texts[i])]   # a verb is never offered by default
        heads = sorted(heads + fill[:2 - len(heads)])
    return Choice(pronoun, tuple(heads), fragments)


def has_pronoun(text: str) -> bool:
    """Whether the typed text contains a pronoun this page can analyse (no model needed)."""
    import re

    return any(w in PRONOUNS for w in re.findall(r"[a-z]+", text.lower()))


# --- the verdict: facts only, the page says them (ui/sections/pronoun_verdict.py) --------------------------

ELSEWHERE = 0.10   # below this, the two candidates together get too little attention to call it a preference


@dataclass(frozen=True)
class Verdict:
    weight_a: np.ndarray        # [L, H] attention the pronoun gives A (the ranking)
    weight_b: np.ndarray        # [L, H]
    share_a: np.ndarray         # [L, H] A's share of A + B
    looks_elsewhere: np.ndarray  # [L, H] bool: A + B < ELSEWHERE
    best: tuple[int, int]       # the head giving A the most weight
    n_prefer_a: int
    n_prefer_b: int
    top: int                    # the token the best head gives the most attention from the pronoun
    top_weight: float           # and how much
    a_pieces: tuple[int, ...]   # A's token positions

    @property
    def n_heads(self) -> int:
        return int(self.weight_a.size)

    @property
    def n_same(self) -> int:
        return self.n_heads - self.n_prefer_a - self.n_prefer_b

    @property
    def n_looking(self) -> int:
        """Heads where the two words together get at least ELSEWHERE of the pronoun's attention."""
        return self.n_heads - int(self.looks_elsewhere.sum())

    @property
    def n_looking_a(self) -> int:
        return int(((self.share_a > 0.5) & ~self.looks_elsewhere).sum())

    @property
    def looking(self) -> str:
        """"none": every head looks elsewhere; "all": every head looks at the two words; "some"."""
        return "none" if self.n_looking == 0 else "all" if self.n_looking == self.n_heads else "some"

    @property
    def best_reading(self) -> str:
        """What A's weight is in the best head: "most" of its attention, its "largest" single target though under
        half, or under half with an "other" token getting more (self.top)."""
        return ("most" if self.weight_a[self.best] >= 0.5 else "largest" if self.top in self.a_pieces
                else "other")


def verdict(pronoun_rows, a: Word, b: Word) -> Verdict:
    """What the heads say, computed: pronoun_rows [L, H, n] is each head's attention from the pronoun."""
    rows = np.asarray(pronoun_rows, dtype=np.float64)
    weight_a = rows[..., list(a.pieces)].sum(axis=-1)
    weight_b = rows[..., list(b.pieces)].sum(axis=-1)
    share = weight_a / np.maximum(weight_a + weight_b, 1e-12)
    best = tuple(int(i) for i in np.unravel_index(np.argmax(weight_a), weight_a.shape))
    top = int(np.argmax(rows[best]))
    return Verdict(weight_a, weight_b, share, (weight_a + weight_b) < ELSEWHERE, best, int((share > 0.5).sum()),
                   int((share < 0.5).sum()), top, float(rows[best][top]), tuple(a.pieces))


def guessing_range(n_pairs: int, p: float = 0.25) -> tuple[int, int]:
    """The pairs one head that guesses gets fully right 9 times in 10 (its 5th to 95th percentile): a head chosen in
    advance is one head, so its count is read against one guesser's spread, never against the best of many."""
    from math import comb

    cumulative, low, high = 0.0, None, n_pairs
    for k in range(n_pairs + 1):
        cumulative += comb(n_pairs, k) * p ** k * (1 - p) ** (n_pairs - k)
        if low is None and cumulative >= 0.05:
            low = k
        if cumulative >= 0.95:
            high = k
            break
    return low, high


LOOKS_AT_NOUNS = 0.5   # the two candidate nouns get at least this share of the pronoun's attention on average


@dataclass(frozen=True)
class Record:
    """What the head chosen in advance does on the sentences it was not chosen on."""
    head: tuple[int, int]
    n_selection: int
    n_passing: int            # heads that pass the selection rule (choose_head) on the selection sentences
    held_right: int           # held-out sentences outside the pairs where it gives the answer more attention
    n_held: int
    subject: int              # the fixed rules on those sentences
    nearest: int
    pairs_right: int
    n_pairs: int
    to_candidates: float      # mean share of the pronoun's attention on its two candidates, all held-out sentences
    guess_low: int
    guess_high: int
    n_heads: int

    @property
    def follows_cues(self) -> bool:
        return self.held_right > max(self.subject, self.nearest)

    @property
    def pairs_against_guessing(self) -> str:
        return ("above" if self.pairs_right > self.guess_high else "below" if self.pairs_right < self.guess_low
                else "within")

    @property
    def looks_at_nouns(self) -> bool:
        """A pronoun gives its two candidate nouns most of its attention in this head, on average."""
        return self.to_candidates >= LOOKS_AT_NOUNS

    @property
    def reading(self) -> str:
        """The verdict's branch: "cues_and_meaning" (beats the fixed rules on easy cues and guessing on the pairs),
        "cues_only", "meaning_only" or "neither"."""
        cues, meaning = self.follows_cues, self.pairs_against_guessing == "above"
        return ("cues_and_meaning" if cues and meaning else "cues_only" if cues else "meaning_only" if meaning
                else "neither")

    @property
    def n_checked(self) -> int:
        """The sentences it was checked on: the held-out ones and both sentences of every pair."""
        return self.n_held + 2 * self.n_pairs

    @property
    def guess_mean(self) -> float:
        """The pairs a guessing head gets fully right on average (each sentence a coin toss: 1 in 4 per pair)."""
        return self.n_pairs / 4


def chosen_record(board: Scoreboard) -> Record | None:
    if board.chosen is None or board.held_out_right is None:
        return None
    low, high = guessing_range(board.n_pairs)
    held = board.held_out_right[board.chosen]
    return Record(board.chosen, board.n_selection, board.n_passing, int(held.sum()), held.size,
                  board.held_out_subject, board.held_out_nearest, int(board.head_pairs[board.chosen]), board.n_pairs,
                  float(board.to_candidates[board.chosen]), low, high,
                  board.head_pairs.size)


@dataclass(frozen=True)
class Contrast:
    """Which heads are right on the first sentence, on the contrast, and on both (they change their mind the right
    way); blank: those of `both` that are blank in the first sentence's preference grid (None when the grid was not
    given); chosen_outcome: what the head chosen in advance does (None without it)."""
    right_first: np.ndarray      # [L, H] bool
    right_second: np.ndarray     # [L, H] bool
    both: np.ndarray             # [L, H] bool
    blank: np.ndarray | None     # [L, H] bool
    chosen: tuple[int, int] | None
    chosen_outcome: str | None   # "flips", "first_only", "contrast_only" or "wrong"

    @property
    def flipped(self) -> list[tuple[int, int]]:
        """(layer, head) of each head that flips the right way, in grid order."""
        return [(int(layer), int(head)) for layer, head in zip(*np.nonzero(self.both))]

    @property
    def blank_heads(self) -> list[tuple[int, int]]:
        return [] if self.blank is None else [(int(layer), int(head)) for layer, head in zip(*np.nonzero(self.blank))]


def contrast_summary(share, contrast_share, first_is_a: bool, elsewhere=None, chosen=None) -> Contrast:
    """Heads right on the first sentence, on the contrast, and on both. elsewhere [L, H]: the heads blank in the first
    sentence's preference grid (the two words get too little of the pronoun's attention for a preference to mean
    much). chosen: the head chosen in advance for pronouns, whose result is said apart."""
    share, contrast_share = np.asarray(share), np.asarray(contrast_share)
    right_first = share > 0.5 if first_is_a else share < 0.5
    right_second = contrast_share < 0.5 if first_is_a else contrast_share > 0.5
    both = right_first & right_second
    blank = None if elsewhere is None else both & np.asarray(elsewhere, dtype=bool)
    outcome = None
    if chosen is not None:
        outcome = ("flips" if both[chosen] else "first_only" if right_first[chosen] else
                   "contrast_only" if right_second[chosen] else "wrong")
    return Contrast(right_first, right_second, both, blank, chosen, outcome)


@dataclass(frozen=True)
class RolloutLead:
    """What rollout's last-layer shares say: "nothing" (every candidate under `small`), a "tie" (the first two within
    `close`) or a "lead" of `top` by `lead` (a share's difference)."""
    reading: str
    top: str
    lead: float
    small: float


def rollout_lead(shares: dict[str, float], small: float = 0.05, close: float = 0.02) -> RolloutLead:
    ranked = sorted(shares.items(), key=lambda item: -item[1])
    (top, first), second = ranked[0], ranked[1][1] if len(ranked) > 1 else 0.0
    reading = "nothing" if first < small else "tie" if first - second < close else "lead"
    return RolloutLead(reading, top, first - second, small)


def across_layers(attentions, pronoun: Word, candidates: list[Word]):  # [L, H, n, n] -> 2 x [len(candidates), L]
    """The weight from the pronoun on each candidate after each layer: averaged over the layer's heads, and by
    attention rollout (through every layer so far, the residual connection counted as half of the mix)."""
    mean_heads = attentions.mean(axis=1)               # [L, n, n]
    rolled = attention_rollout(mean_heads)             # [L, n, n]
    return (np.array([weight_on(mean_heads, pronoun, c) for c in candidates]),
            np.array([weight_on(rolled, pronoun, c) for c in candidates]))


def best_heads(board: Scoreboard) -> tuple[tuple[int, int], tuple[int, int]]:
    """(layer, head) of the head with the most sentences right, and of the one with the most pairs fully right."""
    return (np.unravel_index(np.argmax(board.head_accuracy), board.head_accuracy.shape),
            np.unravel_index(np.argmax(board.head_pairs), board.head_pairs.shape))
