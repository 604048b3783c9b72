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

from .names import layer_head_name, layer_head_tag

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


# --- the verdict ------------------------------------------------------------------------------------------

ELSEWHERE = 0.10   # below this, the two candidates together get too little attention to call it a preference


def percent(x: float) -> str:
    return f"{100 * x:.0f}%" if x >= 0.01 or x == 0 else f"{100 * x:.1f}%"


@dataclass(frozen=True)
class Verdict:
    weight_a: np.ndarray        # [L, H] attention the pronoun gives A (the ranking)
    weight_b: np.ndarray        # [L, H]
    share_a: np.ndarray         # [L, H] A's share of A + B
    looks_elsewhere: np.ndarray  # [L, H] bool: A + B < ELSEWHERE
    best: tuple[int, int]       # the head giving A the most weight
    n_prefer_a: int
    n_prefer_b: int
    sentences: tuple[str, ...]


def verdict(pronoun_rows, tokens, a: Word, b: Word, pronoun_text: str, quote=lambda t: f"“{t}”") -> Verdict:
    """What the heads say, computed: pronoun_rows [L, H, n] is each head's attention from the pronoun."""
    rows = np.asarray(pronoun_rows, dtype=np.float64)
    weight_a = rows[..., list(a.pieces)].sum(axis=-1)
    weight_b = rows[..., list(b.pieces)].sum(axis=-1)
    share = weight_a / np.maximum(weight_a + weight_b, 1e-12)
    elsewhere = (weight_a + weight_b) < ELSEWHERE
    best = tuple(int(i) for i in np.unravel_index(np.argmax(weight_a), weight_a.shape))
    n = weight_a.size
    n_a, n_b = int((share > 0.5).sum()), int((share < 0.5).sum())
    qa, qb, qp = quote(a.text), quote(b.text), quote(pronoun_text)
    first = f"**{n_a} of {n} heads** put more attention on {qa} than on {qb}"
    first += f", {n_b} more on {qb}" + (f" and {n - n_a - n_b} the same on both." if n - n_a - n_b else ".")
    looking = n - int(elsewhere.sum())
    looking_a = int(((share > 0.5) & ~elsewhere).sum())
    if looking == 0:
        second = (f"But in every head the two words together get less than {percent(ELSEWHERE)} of the "
                  f"attention of {qp}: every head looks elsewhere, so none of these preferences means much.")
    elif looking == n:
        second = (f"Every head gives the two words together at least {percent(ELSEWHERE)} of the attention of {qp}.")
    else:
        second = (f"In {n - looking} of them the two words together get less than {percent(ELSEWHERE)} of the "
                  f"attention of {qp} (blank in the second grid: that head looks elsewhere). Of the {looking} heads "
                  f"that do look at the two words, {looking_a} prefer {qa}.")
    w_a, w_b = float(weight_a[best]), float(weight_b[best])
    third = (f"{layer_head_name(best[0], best[1], rows.shape[0], capital=True)} gives {qa} the most weight of all "
             f"{n} heads: {percent(w_a)} of the attention of {qp} ({qb} gets {percent(w_b)}); it is the head "
             "drawn in “One head in detail” below.")
    row = rows[best]
    top = int(np.argmax(row))
    if w_a >= 0.5:
        fourth = "That is most of this head's attention."
    elif top in a.pieces:
        fourth = f"{qa} is its largest single target, yet it gets less than half of the attention."
    else:
        fourth = (f"That is less than half: this head's largest share, {percent(float(row[top]))}, goes to "
                  f"{quote(tokens[top])}.")
    return Verdict(weight_a, weight_b, share, elsewhere, best, n_a, n_b, (first, second, third, fourth))


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


def chosen_record(board: Scoreboard) -> Record | None:
    if board.chosen is None or board.held_out_right is None:
        return None
    low, high = guessing_range(board.n_pairs)
    held = board.held_out_right[board.chosen]
    return Record(board.chosen, board.n_selection, board.n_passing, int(held.sum()), held.size,
                  board.held_out_subject, board.held_out_nearest, int(board.head_pairs[board.chosen]), board.n_pairs,
                  float(board.to_candidates[board.chosen]), low, high,
                  board.head_pairs.size)


LOOKS_AT_NOUNS = 0.5   # the two candidate nouns get at least this share of the pronoun's attention on average


def record_short(record: Record) -> str:
    """The chosen head's record on the sentences it was not chosen on, every count beside the rule or guess it is
    read against."""
    return (f"Chosen in advance on {record.n_selection} other sentences, it was checked on "
            f"{record.n_held + 2 * record.n_pairs} it was not chosen on. " + _checked(record))


def _checked(record: Record) -> str:
    return (f"Where grammar or an easy cue decides (“she” for the only woman, “returned it” for the thing found), it "
            f"gives the right noun more attention in **{record.held_right} of {record.n_held}** (always the first "
            f"noun: {record.subject}; always the nearest noun: {record.nearest}). On {record.n_pairs} Winograd-style "
            "pairs (two sentences that differ in a word, which flips what the pronoun means), where only the meaning "
            f"decides, it gets **{record.pairs_right} of {record.n_pairs}** pairs fully "
            f"right (a head that guesses: about {record.n_pairs / 4:.0f}, and {record.guess_low} to "
            f"{record.guess_high} nine times in ten; a fixed rule: none).")


def record_text(record: Record) -> str:
    """record_short with how the head was chosen and how much a pronoun looks at its nouns in it."""
    return (f"{layer_head_name(*record.head, capital=True)} was chosen by one rule on {record.n_selection} "
            f"sentences: {record.n_passing} of {record.n_heads} heads give the right noun more of the pronoun's "
            "attention than the other noun in every one, and it does so by the widest margin. It was then checked on "
            f"{record.n_held + 2 * record.n_pairs} sentences it was not chosen on. " + _checked(record)
            + " On all of them, a pronoun gives its two candidate "
            f"nouns together {percent(record.to_candidates)} of its attention on average.")


def record_headline(record: Record) -> str:
    """What the numbers of record_text say, in one sentence (the pronoun page's verdict)."""
    cues, meaning = record.follows_cues, record.pairs_against_guessing == "above"
    looks = "looks from a pronoun to an earlier noun and " if record.to_candidates >= LOOKS_AT_NOUNS else ""
    if cues and meaning:
        return (f"the head chosen for pronouns {looks}picks the noun a pronoun means, on easy cues and where only "
                "the meaning decides")
    if cues:
        return (f"the head chosen for pronouns {looks}follows easy cues, but where only the meaning decides it does "
                + ("no better than" if record.pairs_against_guessing == "within" else "worse than") + " guessing")
    if meaning:
        return ("the head chosen for pronouns does better than guessing where only the meaning decides, but no "
                "better than a fixed rule where easy cues decide")
    return "the head chosen for pronouns does not pick the noun a pronoun means better than a fixed rule or guessing"


def contrast_summary(share, contrast_share, first_is_a: bool, elsewhere=None, chosen=None) -> dict:
    """Heads right on the first sentence, on the contrast, and on both (they change their mind the right way).
    elsewhere [L, H]: the heads blank in the first sentence's preference grid (the two words get too little of the
    pronoun's attention for a preference to mean much); the sentence says how many of the flipping heads they are.
    chosen: the head chosen in advance for pronouns, whose result is said apart."""
    share, contrast_share = np.asarray(share), np.asarray(contrast_share)
    right_first = share > 0.5 if first_is_a else share < 0.5
    right_second = contrast_share < 0.5 if first_is_a else contrast_share > 0.5
    both = right_first & right_second
    flipped = [layer_head_tag(layer, head) for layer, head in zip(*np.nonzero(both))]
    sentence = (f"**{int(right_first.sum())}** heads are right on the first sentence, **{int(right_second.sum())}** "
                f"on the contrast, and **{len(flipped)}** flip the right way in both"
                + (f": {', '.join(flipped[:12])}{'…' if len(flipped) > 12 else ''} ("
                   f"{flipped[0]} = {layer_head_name(*np.argwhere(both)[0], share.shape[0])}). " if flipped else ". ")
                + _blank_flips(both, elsewhere))
    if chosen is not None:
        outcome = ("flips the right way" if both[chosen] else "is right on the first sentence only" if
                   right_first[chosen] else "is right on the contrast only" if right_second[chosen] else
                   "is wrong on both")
        sentence += f"The head chosen in advance for pronouns, {layer_head_tag(*chosen)}, {outcome}. "
    sentence += ("A count of heads is no test: all heads read the same vectors, so they are not independent "
                 "guesses, and among many some flip by luck. The test set below scores one head chosen in advance.")
    return {"right_first": right_first, "right_second": right_second, "flipped": flipped, "sentence": sentence}


def _blank_flips(both, elsewhere) -> str:
    """How many of the heads that flip the right way are blank in the preference grid, named apart."""
    if elsewhere is None or not both.any():
        return ""
    blank = both & np.asarray(elsewhere, dtype=bool)
    n_flipped, n_blank = int(both.sum()), int(blank.sum())
    if not n_blank:
        return (f"{'It looks' if n_flipped == 1 else f'All {n_flipped} look'} at the two words (none is blank in "
                "the preference grid above). ")
    names = ", ".join(layer_head_tag(layer, head) for layer, head in zip(*np.nonzero(blank)))
    if n_blank == n_flipped:
        return (f"{'It is' if n_flipped == 1 else f'All {n_flipped} are'} blank in the preference grid above "
                f"({names}): the two words get less than "
                f"{percent(ELSEWHERE)} of the pronoun's attention there, so these flips mean little. ")
    looking = n_flipped - n_blank
    return (f"Of these {n_flipped}, {looking} {'looks' if looking == 1 else 'look'} at the two words; the other "
            f"{n_blank} ({names}) {'is' if n_blank == 1 else 'are'} blank in the preference grid above: the two "
            f"words get less than {percent(ELSEWHERE)} of the "
            "pronoun's attention there, so their flips mean little. ")


def testset_conclusion(board: Scoreboard) -> str:
    """The test set's reading: the head chosen in advance, and why the best head of the table proves nothing."""
    record = chosen_record(board)
    return ((record_text(record) + " " if record else "")
            + f"The best heads in the table were picked on these same {board.n_pairs} pairs, out of "
            f"{board.head_pairs.size}: their scores flatter them, and say nothing of new sentences.")


def page_verdict(found: Verdict, a_text: str, b_text: str, pronoun_text: str, board: Scoreboard,
                 quote=lambda t: f"“{t}”", known_as: str = "") -> str:
    """The pronoun page's one verdict: the head chosen in advance, on the sentences it was not chosen on, and what it
    does on this sentence. No verdict over many heads (they are not independent guesses). known_as: how the
    page's reader knows the head (a preset's name), said beside its layer and head."""
    record = chosen_record(board)
    if record is None:
        return ""
    qa, qb, qp = quote(a_text), quote(b_text), quote(pronoun_text)
    here = (f"On this sentence it gives {qa} {percent(float(found.weight_a[record.head]))} and {qb} "
            f"{percent(float(found.weight_b[record.head]))} of the attention of {qp}.")
    name = layer_head_name(*record.head) + (f": {known_as}" if known_as else "")
    return f"**Verdict: {record_headline(record)}.** That head is {name}. " + record_short(record) + " " + here


def rollout_reading(shares: dict[str, float], quote=lambda t: f"“{t}”", small: float = 0.05,
                    close: float = 0.02) -> str:
    """What rollout's last-layer shares say: a clear lead, about the same, or almost nothing from any candidate."""
    ranked = sorted(shares.items(), key=lambda item: -item[1])
    (top, first), second = ranked[0], ranked[1][1] if len(ranked) > 1 else 0.0
    if first < small:
        return (f"almost nothing from any of them (each under {percent(small)}), so rollout shows no link "
                "to either.")
    if first - second < close:
        return "about the same from each, so rollout does not pick one."
    return f"{quote(top)} leads by {100 * (first - second):.0f} percentage points."


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
