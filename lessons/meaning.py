"""What attention achieves: a word's vector takes its meaning from its sentence, measured layer by layer.

A word (say "bank") and two groups of sentences, one per meaning (river / money). The word's vector in a sentence
after layer L is the model's hidden state of the word's token after layer L; L = 0 is the embedding: the embedding
layer's output, the word's own entry plus an entry for its position, before any attention (so the same word at
another place is another vector). A word split into several pieces is the mean of its pieces. From these vectors:

- same(L), different(L): the mean cosine similarity over pairs of sentences with the same meaning, and over pairs
  with different meanings; separation(L) = same(L) - different(L);
- nearest-neighbour accuracy(L): leave each sentence out, find the most similar of the others (cosine), count how
  often it has the same meaning; chance is what a random other sentence would score;
- the control, self-only attention: in every layer each token's attention weights become 1 on itself and 0
  elsewhere, everything else unchanged. A token's state then depends only on its word and its position, so the
  control's numbers are what word and position alone give;
- one head at a time: at the first layer where separation grows, each head's output is replaced at every token by
  its mean over every token of the measured sentences (mean-ablation), only that layer run again, and the drop in
  separation after it measured.

Pure numpy: the model passes come from attention/model.py, the words and pictures from ui/.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .meaning_map import MeaningMap, fit_map
from .pronoun import words_of

MIN_SENTENCES, MAX_SENTENCES = 2, 8   # per meaning
MAX_WORD_CHARS = 40                   # the word box's limit (ui/widgets/links.py LINK_TEXTS)
# The meanings separate when some layer's separation is at least SEPARATES above the embeddings'; the layer where
# separation first grows is the first whose separation is GROWTH above the embeddings' (cosine units).
SEPARATES = 0.02
GROWTH = 0.01
TIE = 1e-5  # cosine similarities closer than this count as a tie (float32 rounding is ~1e-7)
STEADY = 0.005  # a mean cosine that moves less than this from the embedding to the last layer "stays about the same"
MOST_HEADS_SHOWN = 3


@dataclass(frozen=True)
class WordSet:
    word: str
    name_a: str
    name_b: str
    meaning_a: tuple[str, ...]
    meaning_b: tuple[str, ...]


BUILT_IN: dict[str, WordSet] = {s.word: s for s in (
    WordSet("bank", "river", "money",
            ("I sat on the bank of the river and watched the water.",
             "The boat drifted toward the muddy bank of the stream.",
             "Reeds grew thick along the river bank.",
             "We had a picnic on the grassy bank by the lake.",
             "The flood washed away part of the bank near the bridge."),
            ("I opened an account at the bank downtown.",
             "The bank approved her loan on Monday.",
             "He deposited his salary at the bank.",
             "The bank raised its interest rates again.",
             "She works as a teller at the local bank.")),
    WordSet("bat", "animal", "sport",
            ("A bat flew out of the cave at dusk.",
             "The bat hung upside down from the branch.",
             "We saw a bat catching insects near the lamp.",
             "The little bat uses echoes to find its way in the dark.",
             "A bat sleeps during the day in the old barn."),
            ("He swung the bat and hit the ball over the fence.",
             "She bought a new cricket bat for the match.",
             "The player gripped the bat tightly and waited for the pitch.",
             "He dropped the bat and ran to first base.",
             "My wooden bat cracked during practice.")),
    WordSet("spring", "season", "water",
            ("The flowers bloom every spring in our garden.",
             "In spring the days grow longer and warmer.",
             "We plan to travel in the spring next year.",
             "The birds come back north each spring.",
             "Spring is my favourite time of the year."),
            ("We drank cold water from a mountain spring.",
             "The village gets its water from a natural spring.",
             "A hot spring bubbled up between the rocks.",
             "The stream starts at a spring high in the hills.",
             "They filled their bottles at the spring near the trail.")),
)}
DEFAULT_WORD = "bank"


# What can be wrong with a word set as typed (WordSetError.kind); ui/sections/meaning_stories.py says each.
NO_WORD, WORD_TOO_LONG, WORD_HAS_SPACES, WORD_EMPTY_PIECES, SEVERAL_WORDS = (
    "no_word", "word_too_long", "word_has_spaces", "word_empty_pieces", "several_words")
TOO_FEW, TOO_MANY, SAME_GROUPS, TOO_FEW_WITH_WORD = "too_few", "too_many", "same_groups", "too_few_with_word"


class WordSetError(ValueError):
    """The word or the groups cannot be measured as typed: `kind` says what is wrong, `values` the numbers a
    message needs (group: 0 = meaning A, 1 = meaning B; count; limit; missing: the 1-based numbers of the group's
    sentences without the word). The page says it in words."""

    def __init__(self, kind: str, values: dict | None = None):
        super().__init__(kind, dict(values or {}))
        self.kind, self.values = kind, dict(values or {})


@dataclass(frozen=True)
class Missing:
    group: int        # 0 = meaning A, 1 = meaning B
    number: int       # 1-based, within its group
    sentence: str
    cut: bool         # the word is there, but after the part of the text the model reads


@dataclass
class Measurement:
    word: str
    sentences: list[str]              # the sentences measured: meaning A's, then meaning B's
    meaning: np.ndarray               # [m] 0 or 1
    numbers: list[int]                # each sentence's 1-based number within its group
    missing: list[Missing]            # sentences without the word: flagged, not measured
    repeated: list[str]               # sentences holding the word twice or more (the first is measured)
    split: bool                       # the word is several word pieces (its vector: their mean)
    pieces: list[str]                 # the word's pieces, as the tokenizer cuts it
    similarity: np.ndarray            # [n_layers + 1, m, m] cosine similarity of the word's vectors
    similarity_knocked_out: np.ndarray  # the same with self-only attention (the control)
    separation: np.ndarray            # [n_layers + 1]
    separation_knocked_out: np.ndarray
    accuracy: np.ndarray              # [n_layers + 1] nearest-neighbour accuracy
    accuracy_knocked_out: np.ndarray
    chance: float
    growth_layer: int | None          # first L >= 1 with separation(L) - separation(0) >= GROWTH, if they separate
    head_costs: np.ndarray | None = None   # [n_heads]: separation(growth_layer) - the same, that head mean-ablated
    head_separation: np.ndarray | None = None
    first_token: list[int] = field(default_factory=list)  # each sentence's first piece of the word
    word_map: MeaningMap | None = None  # the vectors on a 2-D map, one frame per layer (lessons/meaning_map.py)

    @property
    def n_a(self) -> int:
        return int((self.meaning == 0).sum())

    @property
    def n_b(self) -> int:
        return int((self.meaning == 1).sum())

    @property
    def layers(self) -> list[int]:
        return list(range(len(self.separation)))

    def means(self) -> tuple[np.ndarray, np.ndarray]:
        """same(L) and different(L): the mean cosine over same-meaning pairs and over different-meaning pairs."""
        pairs = [pair_means(s, self.meaning) for s in self.similarity]
        return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

    def costliest_heads(self) -> list[int]:
        """The heads whose mean-ablation lowers separation most, largest first (only those that lower it)."""
        if self.head_costs is None:
            return []
        order = np.argsort(-self.head_costs, kind="stable")
        return [int(h) for h in order[:MOST_HEADS_SHOWN] if self.head_costs[h] > 0]


# --- definitions ------------------------------------------------------------------------------------

def cosine_matrix(vectors: np.ndarray) -> np.ndarray:  # [m, d] -> [m, m]
    vectors = np.asarray(vectors, dtype=np.float64)
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-12)
    return unit @ unit.T


def pair_means(similarity: np.ndarray, meaning: np.ndarray) -> tuple[float, float]:
    """The mean cosine over pairs of sentences with the same meaning, and over pairs with different meanings."""
    meaning = np.asarray(meaning)
    same = meaning[:, None] == meaning[None, :]
    pairs = np.triu(np.ones_like(same), k=1)
    return float(similarity[same & pairs].mean()), float(similarity[~same & pairs].mean())


def separation(similarity: np.ndarray, meaning: np.ndarray) -> float:
    """Mean cosine over pairs with the same meaning minus the mean over pairs with different meanings."""
    same, different = pair_means(similarity, meaning)
    return same - different


def every_split(similarity: np.ndarray, meaning: np.ndarray) -> np.ndarray:  # [m, m], [m] -> [n_splits]
    """The separation of every way to split the same sentences into two groups of the real groups' sizes: the
    control for "the meanings come apart" (a split by anything, or by nothing, can separate a little too).
    At most 8 + 8 sentences: C(16, 8) = 12,870 splits, computed at once."""
    from itertools import combinations

    m, n_a = len(meaning), int((np.asarray(meaning) == 0).sum())
    groups = np.array([np.isin(np.arange(m), chosen) for chosen in combinations(range(m), n_a)])  # [n_splits, m]
    same = groups[:, :, None] == groups[:, None, :]                                                 # [n_splits, m, m]
    pairs = np.triu(np.ones((m, m), dtype=bool), k=1)
    same_pairs, different_pairs = same & pairs, ~same & pairs
    return ((similarity * same_pairs).sum((1, 2)) / same_pairs.sum((1, 2))
            - (similarity * different_pairs).sum((1, 2)) / np.maximum(different_pairs.sum((1, 2)), 1))


def nearest_neighbour_accuracy(similarity: np.ndarray, meaning: np.ndarray) -> float:
    """Each sentence's most similar other sentence has its meaning: the share of sentences where it does. Others
    tied for most similar (within TIE, as the same word at the same place before attention is) share the count:
    each sentence scores the share of its tied nearest neighbours that have its meaning."""
    others = np.array(similarity, dtype=np.float64)
    np.fill_diagonal(others, -np.inf)
    nearest = others >= others.max(axis=1, keepdims=True) - TIE
    meaning = np.asarray(meaning)
    agree = meaning[None, :] == meaning[:, None]
    return float(np.mean((nearest & agree).sum(axis=1) / nearest.sum(axis=1)))


def chance_accuracy(n_a: int, n_b: int) -> float:
    """The accuracy of picking a random other sentence as the neighbour."""
    m = n_a + n_b
    return (n_a * (n_a - 1) + n_b * (n_b - 1)) / (m * (m - 1))


def separates(separations: np.ndarray) -> bool:
    return bool(np.max(separations[1:]) - separations[0] >= SEPARATES)


def first_growth(separations: np.ndarray) -> int | None:
    """The first hidden state (1..n_layers) whose separation is GROWTH above the embeddings', when the meanings
    separate at all; None when they do not."""
    if not separates(separations):
        return None
    return next(L for L in range(1, len(separations)) if separations[L] - separations[0] >= GROWTH)


# --- input --------------------------------------------------------------------------------------------

def split_lines(text: str) -> list[str]:
    """A group box's sentences: one a line, blank lines and surrounding spaces dropped."""
    return [line.strip() for line in str(text or "").splitlines() if line.strip()]


def word_pieces(model, word: str) -> list[str]:
    """The word as the tokenizer cuts it (no [CLS]/[SEP]); a WordSetError unless it is one word."""
    word = str(word or "").strip()
    if not word:
        raise WordSetError(NO_WORD)
    if len(word) > MAX_WORD_CHARS:
        raise WordSetError(WORD_TOO_LONG, {"limit": MAX_WORD_CHARS})
    if any(c.isspace() for c in word):
        raise WordSetError(WORD_HAS_SPACES)
    tokens = model.tokenize(word)
    pieces = [t for t in tokens if t not in model.special_tokens]
    if not pieces:
        raise WordSetError(WORD_EMPTY_PIECES)
    words = words_of(tokens, [None if t in model.special_tokens else 0 for t in tokens])
    joined = words[0].text
    if any(p != joined and not p.startswith("##") for p in pieces[1:]):
        raise WordSetError(SEVERAL_WORDS)  # a hyphen or an apostrophe splits it
    return pieces


def check_groups(group_a: list[str], group_b: list[str]) -> None:
    for index, group in enumerate((group_a, group_b)):
        if len(group) < MIN_SENTENCES:
            raise WordSetError(TOO_FEW, {"group": index, "count": len(group), "limit": MIN_SENTENCES})
        if len(group) > MAX_SENTENCES:
            raise WordSetError(TOO_MANY, {"group": index, "count": len(group), "limit": MAX_SENTENCES})
    if sorted(group_a) == sorted(group_b):
        raise WordSetError(SAME_GROUPS)


def _find(word_text: str, analysis) -> list[tuple[int, ...]]:
    """Every occurrence of the word in the model's tokens: each as its pieces' positions."""
    return [w.pieces for w in words_of(analysis.tokens, analysis.word_ids) if w.text.lower() == word_text]


# --- the measurement ----------------------------------------------------------------------------------

def measure(model, word: str, group_a: list[str], group_b: list[str],
            progress: Callable[[float], None] | None = None) -> Measurement:
    """Every number the page shows, for one word and its two groups (each already split into sentences).

    A sentence without the word is listed in missing and left out; fewer than MIN_SENTENCES left in a group is a
    WordSetError that names them."""
    pieces = word_pieces(model, word)
    word_text = "".join(p.removeprefix("##") for p in pieces).lower()
    check_groups(group_a, group_b)
    report = progress or (lambda share: None)
    all_sentences = [(0, i + 1, s) for i, s in enumerate(group_a)] + [(1, i + 1, s) for i, s in enumerate(group_b)]
    total_steps = len(all_sentences) * (2 + model.n_heads / 6)  # the per-head runs: one layer of twelve, ~1/6 each
    done = 0.0
    kept, missing, repeated, vectors, knocked, hidden, where = [], [], [], [], [], [], []
    all_heads = np.ones((model.n_layers, model.n_heads), dtype=bool)
    for group, number, sentence in all_sentences:
        analysis = model.analyze(sentence)
        found = _find(word_text, analysis)
        done += 1
        report(done / total_steps)
        if not found:
            cut = analysis.truncated and word_text in sentence.lower()
            missing.append(Missing(group, number, sentence, cut))
            continue
        if len(found) > 1:
            repeated.append(sentence)
        positions = list(found[0])
        states_out = model.knocked_out_states(sentence, all_heads)
        kept.append((group, number, sentence))
        vectors.append(analysis.hidden_states[:, positions].mean(axis=1))      # [L + 1, d]
        knocked.append(states_out[:, positions].mean(axis=1))
        hidden.append(analysis.hidden_states)   # not the analysis: its attentions are 19 MB at 256 tokens
        where.append(positions)
        done += 1
        report(done / total_steps)
    for group in (0, 1):
        left = sum(1 for g, _, _ in kept if g == group)
        if left < MIN_SENTENCES:
            raise WordSetError(TOO_FEW_WITH_WORD, {"group": group, "count": left, "limit": MIN_SENTENCES,
                                                   "missing": [m.number for m in missing if m.group == group]})
    meaning = np.array([g for g, _, _ in kept])
    vectors, knocked = np.stack(vectors, axis=1), np.stack(knocked, axis=1)   # [L + 1, m, d]
    similarity = np.stack([cosine_matrix(v) for v in vectors])
    similarity_out = np.stack([cosine_matrix(v) for v in knocked])
    seps = np.array([separation(s, meaning) for s in similarity])
    result = Measurement(
        word=word.strip(), sentences=[s for _, _, s in kept], meaning=meaning, numbers=[n for _, n, _ in kept],
        missing=missing, repeated=repeated, split=len(pieces) > 1, pieces=pieces,
        similarity=similarity, similarity_knocked_out=similarity_out,
        separation=seps, separation_knocked_out=np.array([separation(s, meaning) for s in similarity_out]),
        accuracy=np.array([nearest_neighbour_accuracy(s, meaning) for s in similarity]),
        accuracy_knocked_out=np.array([nearest_neighbour_accuracy(s, meaning) for s in similarity_out]),
        chance=chance_accuracy(int((meaning == 0).sum()), int((meaning == 1).sum())),
        growth_layer=first_growth(seps), first_token=[p[0] for p in where],
        word_map=fit_map(vectors, knocked))
    if result.growth_layer is not None:
        result.head_separation = head_ablations(model, result, hidden, where, report, done, total_steps)
        result.head_costs = seps[result.growth_layer] - result.head_separation
    report(1.0)
    return result


def head_ablations(model, result: Measurement, hidden, where, report, done: float, total_steps: float):
    """separation(growth_layer) with one head of the block that makes that layer mean-ablated, for each head: its
    output at every token replaced by its mean over every token ([CLS] and [SEP] too) of the measured sentences.
    Only that block runs again, from the normal pass's hidden state entering it."""
    block = result.growth_layer - 1
    outputs = [model.head_outputs(states[block], block) for states in hidden]   # each [n_heads, n, d_head]
    means = np.concatenate(outputs, axis=1).mean(axis=1)                      # [n_heads, d_head]
    vectors = np.empty((model.n_heads, len(hidden), model.d_model))
    for index, (states, positions) in enumerate(zip(hidden, where)):
        vectors[:, index] = model.each_head_replaced(states[block], block, means)[:, positions].mean(axis=1)
        done += model.n_heads / 6
        report(done / total_steps)
    return np.array([separation(cosine_matrix(vectors[head]), result.meaning) for head in range(model.n_heads)])


# --- the facts the page states, from the numbers ---------------------------------------------------

RARE_SPLITS = 0.05     # at most this share of every grouping separating as much: the meanings' split is rare
ABOVE_CHANCE = 0.05    # a nearest-neighbour accuracy this far above chance, before attention, comes from positions
# How much of what a layer adds to the separation is left without its costliest head (HeadFacts.remains)
NONE_LEFT, UNDER_HALF, MOST_LEFT = "none_left", "under_half", "most_left"
# The control for the split (Facts.split_verdict): no other grouping separates as much, few do, many do
ONLY_OWN, RARE, COMMON = "only_own", "rare", "common"


@dataclass(frozen=True)
class Trend:
    """A number in the embedding and after the last layer."""
    start: float
    end: float

    @property
    def change(self) -> float:
        return self.end - self.start

    @property
    def direction(self) -> str:
        """"rises", "falls" or "holds" (moves less than STEADY)."""
        return "rises" if self.change >= STEADY else "falls" if self.change <= -STEADY else "holds"


@dataclass(frozen=True)
class Facts:
    """What the page says the model does, each a measurement on this word set."""
    embedding_low: float             # the lowest and highest cosine of the word's embeddings in two sentences
    embedding_high: float
    same_place_pairs: int            # pairs of sentences where the word stands at the same place
    identical_only_at_same_place: bool   # cosine 1 (within TIE) for exactly those pairs
    same: Trend                      # mean cosine of same-meaning pairs
    different: Trend                 # mean cosine of different-meaning pairs
    separation: Trend
    control: Trend                   # the separation with self-only attention
    control_high: float              # its largest after any layer
    splits: int                      # every way to split the sentences into groups of the real sizes
    splits_as_large: int             # how many of them separate as much as the real split, after the last layer
    own_splits: int = 1              # the meanings' own split among them: 2 with equal groups (A/B and B/A)
    separation_top: int = 0          # the hidden state (1..n_layers) where separation is largest
    separation_low: float = 0.0      # its smallest and largest after a layer (1..n_layers)
    separation_high: float = 0.0

    @property
    def embeddings_differ(self) -> bool:
        return self.embedding_low < 1 - TIE

    @property
    def different_changes_less(self) -> bool:
        """Different-meaning pairs grow less alike than same-meaning ones (fall faster, or rise slower)."""
        return self.different.change < self.same.change

    @property
    def control_separates(self) -> bool:
        return self.control_high - self.control.start >= SEPARATES

    @property
    def split_verdict(self) -> str:
        """ONLY_OWN: no other grouping separates as much; RARE: at most RARE_SPLITS of them do; COMMON: more."""
        if self.splits_as_large <= self.own_splits:
            return ONLY_OWN
        return RARE if self.splits_as_large / self.splits <= RARE_SPLITS else COMMON


def facts(result: Measurement) -> Facts:
    same, different = result.means()
    last = len(same) - 1
    m = len(result.sentences)
    pairs = np.triu(np.ones((m, m), dtype=bool), k=1)
    at_same_place = (np.array(result.first_token)[:, None] == np.array(result.first_token)[None, :]) & pairs
    embedding = result.similarity[0][pairs]
    identical = (result.similarity[0] >= 1 - TIE) & pairs
    control = result.separation_knocked_out
    split_separations = every_split(result.similarity[last], result.meaning)
    seps = result.separation
    return Facts(splits=len(split_separations),
                 splits_as_large=int((split_separations >= seps[last] - TIE).sum()),
                 own_splits=2 if 2 * result.n_a == m else 1,
                 embedding_low=float(embedding.min()), embedding_high=float(embedding.max()),
                 same_place_pairs=int(at_same_place.sum()),
                 identical_only_at_same_place=bool(np.array_equal(identical, at_same_place)),
                 same=Trend(float(same[0]), float(same[last])), different=Trend(float(different[0]),
                                                                               float(different[last])),
                 separation=Trend(float(seps[0]), float(seps[last])),
                 control=Trend(float(control[0]), float(control[last])), control_high=float(control[1:].max()),
                 separation_top=int(np.argmax(seps[1:])) + 1, separation_low=float(seps[1:].min()),
                 separation_high=float(seps[1:].max()))


@dataclass(frozen=True)
class AccuracyFacts:
    """Nearest-neighbour accuracy in the embedding, after the last layer and at its best, against the control and
    chance."""
    start: float
    end: float
    best: float
    best_at: int                     # the hidden state (0 = the embedding) where it is best (the first such)
    control_end: float
    chance: float
    sentences: int
    positions_above_chance: bool     # the embedding or the control beats chance by ABOVE_CHANCE: positions alone
    at_chance: bool                  # after the last layer, no better than chance


def accuracy_facts(result: Measurement) -> AccuracyFacts:
    acc, out = result.accuracy, result.accuracy_knocked_out
    return AccuracyFacts(start=float(acc[0]), end=float(acc[-1]), best=float(acc.max()), best_at=int(np.argmax(acc)),
                         control_end=float(out[-1]), chance=float(result.chance), sentences=len(result.sentences),
                         positions_above_chance=bool(max(acc[0], out.max()) > result.chance + ABOVE_CHANCE),
                         at_chance=bool(acc[-1] <= result.chance))


@dataclass(frozen=True)
class HeadSpread:
    """The drop each head's mean-ablation causes at one layer, for several word sets (the built-in ones)."""
    layer: int                       # the layer whose heads were mean-ablated (the app's numbers, 0-5)
    words: tuple[str, ...]
    drops: np.ndarray                # [n_words, n_heads]

    @property
    def mean(self) -> np.ndarray:
        return self.drops.mean(axis=0)

    def same_leader(self, head: int) -> bool:
        """The same head lowers separation most for every word set."""
        return {int(np.argmax(row)) for row in self.drops} == {head}


def head_spread(results: list[Measurement], layer: int) -> HeadSpread | None:
    """The drops of the word sets whose heads were mean-ablated at this layer; None when fewer than two were."""
    kept = [r for r in results if r.head_costs is not None and r.growth_layer - 1 == layer]
    if len(kept) < 2:
        return None
    return HeadSpread(layer, tuple(r.word for r in kept), np.stack([r.head_costs for r in kept]))


@dataclass(frozen=True)
class HeadFacts:
    """What mean-ablating one head of the layer where separation first grows does."""
    grown: int                       # that hidden state (1..n_layers); its layer is grown - 1
    before: float                    # separation entering the layer and after it
    after: float
    costly: tuple[int, ...]          # the heads whose ablation lowers it most (costliest_heads), largest first
    largest: float                   # the costliest head's drop (0 when none lowers it)
    total_drop: float                # every head's drop added up (they are not shares of a whole)
    remains: str | None              # NONE_LEFT, UNDER_HALF, MOST_LEFT: what is left without the costliest head

    @property
    def added(self) -> float:
        return self.after - self.before

    @property
    def without(self) -> float:
        """What the layer adds to the separation with its costliest head mean-ablated."""
        return self.added - self.largest


def head_facts(result: Measurement) -> HeadFacts | None:
    """None when the meanings do not separate (no head was mean-ablated)."""
    if result.head_costs is None:
        return None
    grown = result.growth_layer
    before, after = float(result.separation[grown - 1]), float(result.separation[grown])
    costly = tuple(result.costliest_heads())
    largest = float(result.head_costs[costly[0]]) if costly else 0.0
    added, remains = after - before, None
    without = added - largest
    if costly:
        if without <= 0 < added:
            remains = NONE_LEFT
        elif 0 < without < 0.5 * added:
            remains = UNDER_HALF
        elif without > 0:
            remains = MOST_LEFT
    return HeadFacts(grown=grown, before=before, after=after, costly=costly,
                     largest=largest, total_drop=float(result.head_costs.sum()), remains=remains)


# --- numbers as the page prints them (the same strings the tests compare with the figures) ------------

def signed(x: float) -> str:
    """A separation as the page prints it: three decimals, a sign, a true minus."""
    text = f"{x:+.3f}"
    return "0.000" if text in ("+0.000", "-0.000") else text.replace("-", "−")


def cosine(x: float) -> str:
    return f"{x:.3f}".replace("-", "−")


def plain(x: float) -> str:
    """A drop or a gap as the page prints it: three decimals, never "-0.000"."""
    text = f"{x:.3f}"
    return "0.000" if text == "-0.000" else text.replace("-", "−")


def share(x: float) -> str:
    return f"{100 * x:.0f}%"
