"""Pronoun resolution as a measurement: which candidate does a head's attention from the pronoun prefer?

Pure numpy over a model's attention probabilities; multi-piece words are handled by summing the
weights of their pieces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.core import attention_rollout

from .names import layer_head_name

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


def versus_chance(count: int, trials: int, p: float) -> str:
    """'better than', 'about equal to' or 'worse than' chance: outside two standard deviations of luck."""
    expected = trials * p
    spread = 2 * np.sqrt(trials * p * (1 - p))
    if count > expected + spread:
        return "better than"
    if count < expected - spread:
        return "worse than"
    return "about equal to"


def best_of_random_heads(n_heads: int, n_pairs: int, p: float = 0.25) -> int:
    """The typical (median) best score among n_heads heads that guess at random: p per pair."""
    from math import comb

    cumulative = 0.0
    for k in range(n_pairs + 1):
        cumulative += comb(n_pairs, k) * p ** k * (1 - p) ** (n_pairs - k)
        if cumulative ** n_heads >= 0.5:
            return k
    return n_pairs


# How a count compares with guessing, in words a student reads, from versus_chance.
AGAINST_GUESSING = {"better than": "more than guessing", "worse than": "fewer than guessing",
                    "about equal to": "about what guessing gives"}


def contrast_summary(share, contrast_share, first_is_a: bool, elsewhere=None) -> dict:
    """Heads right on the first sentence, on the contrast, and on both (they change their mind the right way).
    elsewhere [L, H]: the heads blank in the first sentence's preference grid (the two words get too little of the
    pronoun's attention for a preference to mean much); the sentence says how many of the flipping heads they are."""
    share, contrast_share = np.asarray(share), np.asarray(contrast_share)
    right_first = share > 0.5 if first_is_a else share < 0.5
    right_second = contrast_share < 0.5 if first_is_a else contrast_share > 0.5
    both = right_first & right_second
    flipped = [f"L{layer}H{head}" for layer, head in zip(*np.nonzero(both))]
    n = share.size
    against = versus_chance(len(flipped), n, 0.25)
    sentence = (f"**{int(right_first.sum())}** heads are right on the first sentence, **{int(right_second.sum())}** "
                f"on the contrast, and **{len(flipped)}** flip the right way in both"
                + (f": {', '.join(flipped[:12])}{'…' if len(flipped) > 12 else ''} ("
                   f"{flipped[0]} = {layer_head_name(*np.argwhere(both)[0], share.shape[0])}; heads are counted from 0 "
                   "too). " if flipped else ". ")
                + _blank_flips(both, elsewhere)
                + f"A head that guessed at random would get both right one time in four, about {n / 4:.0f} of "
                f"{n} heads by luck: {len(flipped)} of {n} is **{AGAINST_GUESSING[against]}**.")
    return {"right_first": right_first, "right_second": right_second, "flipped": flipped, "sentence": sentence,
            "against chance": against}


def _blank_flips(both, elsewhere) -> str:
    """How many of the heads that flip the right way are blank in the preference grid, named apart."""
    if elsewhere is None or not both.any():
        return ""
    blank = both & np.asarray(elsewhere, dtype=bool)
    n_flipped, n_blank = int(both.sum()), int(blank.sum())
    if not n_blank:
        return (f"{'It looks' if n_flipped == 1 else f'All {n_flipped} look'} at the two words (none is blank in "
                "the preference grid above). ")
    names = ", ".join(f"L{layer}H{head}" for layer, head in zip(*np.nonzero(blank)))
    if n_blank == n_flipped:
        return (f"{'It is' if n_flipped == 1 else f'All {n_flipped} are'} blank in the preference grid above "
                f"({names}): the two words get less than "
                f"{percent(ELSEWHERE)} of the pronoun's attention there, so these flips mean little. ")
    return (f"Of these {n_flipped}, {n_flipped - n_blank} look at the two words; the other {n_blank} ({names}) are "
            f"blank in the preference grid above: the two words get less than {percent(ELSEWHERE)} of the "
            "pronoun's attention there, so their flips mean little. ")


def testset_standing(board: Scoreboard) -> tuple[int, float, int, str]:
    """(best head's pairs, one guessing head's expected pairs, the luckiest of as many guessing heads' typical
    pairs, "better than" / "the same as" / "worse than" luck): the best of N heads is compared with the best of N
    guessers, so a head that beats one guesser only by the luck of many tries does not count."""
    top = int(board.head_pairs.max())
    typical = best_of_random_heads(board.head_pairs.size, board.n_pairs)
    standing = "better than" if top > typical else "the same as" if top == typical else "worse than"
    return top, board.n_pairs / 4, typical, standing


def testset_conclusion(board: Scoreboard) -> str:
    """The built-in test set's verdict on its best head, in pairs, against guessing heads in pairs."""
    n_heads = board.head_pairs.size
    top, one_guess, typical, standing = testset_standing(board)
    against_one = ("the same as" if round(one_guess) == top else "more than" if top > one_guess else "fewer than")
    if standing == "better than":
        luck = (f"That is more than the luckiest of {n_heads} guessing heads typically gets ({typical} of "
                f"{board.n_pairs}): **better than luck**.")
    else:
        luck = (f"With {n_heads} heads tried, the luckiest of {n_heads} guessing heads typically gets {typical} of "
                f"{board.n_pairs}, so it is **no better than guessing**.")
    return (f"The best head on pairs gets **{top} of {board.n_pairs}** pairs fully right — {against_one} one head that "
            f"guesses ({one_guess:.0f} of {board.n_pairs} on average). " + luck)


def page_verdict(found: Verdict, a_text: str, b_text: str, pronoun_text: str, board: Scoreboard,
                 quote=lambda t: f"“{t}”") -> str:
    """The pronoun page's one verdict, from the heads' preferences on the sentence and the built-in test set, each
    against guessing in its own units (heads; pairs)."""
    qa, qb, qp = quote(a_text), quote(b_text), quote(pronoun_text)
    n = found.share_a.size
    deciding = found.n_prefer_a + found.n_prefer_b
    preference = versus_chance(found.n_prefer_a, deciding, 0.5) if deciding else "about equal to"
    top, one_guess, typical, standing = testset_standing(board)
    against_one = ("the same as" if round(one_guess) == top else "more than" if top > one_guess else "fewer than")
    heads = (f"{found.n_prefer_a} of {n} heads look more at {qa} and {found.n_prefer_b} more at {qb} "
             f"(guessing would give about {deciding / 2:.0f} each"
             + ("" if preference == "about equal to" else f": {AGAINST_GUESSING[preference]} for {qa}") + ")")
    pairs = (f"on the {board.n_pairs} built-in pairs the best head on pairs gets {top} of {board.n_pairs} right — "
             f"{against_one} one head that guesses ({one_guess:.0f} of {board.n_pairs}) — and the luckiest of "
             f"{board.head_pairs.size} guessing heads typically gets {typical}")
    if standing == "better than":
        return (f"**Verdict: some head does better than guessing.** On the built-in pairs the best head gets {top} "
                f"of {board.n_pairs} right, more than the luckiest of {board.head_pairs.size} guessing heads "
                f"typically gets ({typical}); on this sentence {heads}.")
    if preference == "better than":
        return (f"**Verdict: on this sentence more heads look at {qa} than guessing would, but no head resolves "
                f"pronouns better than guessing.** {heads[0].upper() + heads[1:]}; yet {pairs}.")
    return (f"**Verdict: in this model, where {qp} looks does not tell what it means — no better than "
            f"guessing.** On this sentence {heads}; {pairs}.")


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
