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

from .names import head_name, layer_name
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


class WordSetError(ValueError):
    """The word or the groups cannot be measured as typed; the message says what to type instead."""


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


def stage(L: int) -> str:
    """Hidden state L (0 = the embedding) named as people count the layers: L = 2 is "after layer 2"."""
    return "in the embedding" if L == 0 else f"after {layer_name(L - 1)}"


# --- input --------------------------------------------------------------------------------------------

def split_lines(text: str) -> list[str]:
    """A group box's sentences: one a line, blank lines and surrounding spaces dropped."""
    return [line.strip() for line in str(text or "").splitlines() if line.strip()]


def word_pieces(model, word: str) -> list[str]:
    """The word as the tokenizer cuts it (no [CLS]/[SEP]); a WordSetError unless it is one word."""
    word = str(word or "").strip()
    if not word:
        raise WordSetError("Type the word whose meanings you want to compare (for example “bank”).")
    if len(word) > MAX_WORD_CHARS:
        raise WordSetError(f"A word has at most {MAX_WORD_CHARS} characters here: type one word, for example "
                           "“bank”.")
    if any(c.isspace() for c in word):
        raise WordSetError("Type one word only (no spaces), for example “bank”.")
    tokens = model.tokenize(word)
    pieces = [t for t in tokens if t not in model.special_tokens]
    if not pieces:
        raise WordSetError("The tokenizer keeps nothing of this word: type a word made of letters.")
    words = words_of(tokens, [None if t in model.special_tokens else 0 for t in tokens])
    joined = words[0].text
    if any(p != joined and not p.startswith("##") for p in pieces[1:]):
        raise WordSetError("The tokenizer reads this as several words (a hyphen or an apostrophe splits it): "
                           "type one word, for example “bank”.")
    return pieces


def check_groups(group_a: list[str], group_b: list[str]) -> None:
    for name, group in (("meaning A", group_a), ("meaning B", group_b)):
        if len(group) < MIN_SENTENCES:
            raise WordSetError(f"The group {name} has {len(group)} sentence{'s' if len(group) != 1 else ''}: "
                               f"type at least {MIN_SENTENCES}, one per line.")
        if len(group) > MAX_SENTENCES:
            raise WordSetError(f"The group {name} has {len(group)} sentences: at most {MAX_SENTENCES} are "
                               "measured. Remove some lines.")
    if sorted(group_a) == sorted(group_b):
        raise WordSetError("The two groups hold the same sentences, so they show one meaning only: put the "
                           "sentences of the word's other meaning in the second group.")


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
    for name, group in (("meaning A", 0), ("meaning B", 1)):
        left = sum(1 for g, _, _ in kept if g == group)
        if left < MIN_SENTENCES:
            gone = [m for m in missing if m.group == group]
            raise WordSetError(
                f"Only {left} sentence{'s' if left != 1 else ''} of the group {name} hold{'s' if left == 1 else ''} "
                f"the word, and at least {MIN_SENTENCES} are needed. Without it: "
                + "; ".join(f"sentence {m.number}" for m in gone) + ".")
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

VERB = {"rises": "rises", "falls": "falls", "holds": "stays about the same"}


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
    return Facts(splits=len(split_separations),
                 splits_as_large=int((split_separations >= result.separation[last] - TIE).sum()),
                 embedding_low=float(embedding.min()), embedding_high=float(embedding.max()),
                 same_place_pairs=int(at_same_place.sum()),
                 identical_only_at_same_place=bool(np.array_equal(identical, at_same_place)),
                 same=Trend(float(same[0]), float(same[last])), different=Trend(float(different[0]),
                                                                               float(different[last])),
                 separation=Trend(float(result.separation[0]), float(result.separation[last])),
                 control=Trend(float(control[0]), float(control[last])), control_high=float(control[1:].max()))


@dataclass(frozen=True)
class HeadSpread:
    """The drop each head's mean-ablation causes at one layer, for several word sets (the built-in ones)."""
    layer: int                       # the layer whose heads were mean-ablated (the app's numbers, 0-5)
    words: tuple[str, ...]
    drops: np.ndarray                # [n_words, n_heads]

    @property
    def mean(self) -> np.ndarray:
        return self.drops.mean(axis=0)


def head_spread(results: list[Measurement], layer: int) -> HeadSpread | None:
    """The drops of the word sets whose heads were mean-ablated at this layer; None when fewer than two were."""
    kept = [r for r in results if r.head_costs is not None and r.growth_layer - 1 == layer]
    if len(kept) < 2:
        return None
    return HeadSpread(layer, tuple(r.word for r in kept), np.stack([r.head_costs for r in kept]))


# --- the page's words, from the facts -----------------------------------------------------------------

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


def embedding_story(result: Measurement, fact: Facts, quote: Callable[[str], str]) -> str:
    """Why the word's vectors differ before any attention: the position the embedding adds."""
    word = quote(result.word)
    if not fact.embeddings_differ:
        return (f"In the embedding, before any attention, {word} has the same vector in every sentence here "
                f"(cosine {cosine(fact.embedding_low)}): it stands at the same place in all of them.")
    said = (f"In the embedding, before any attention, the vectors of {word} already differ a little from sentence "
            f"to sentence (cosine between {cosine(fact.embedding_low)} and {cosine(fact.embedding_high)}), because "
            "the embedding adds where the word stands")
    if fact.identical_only_at_same_place and fact.same_place_pairs:
        said += (f": the cosine is 1.000 for exactly the {fact.same_place_pairs} pair"
                 f"{'s' if fact.same_place_pairs != 1 else ''} of sentences where it stands at the same place")
    return said + "."


def separation_story(result: Measurement, fact: Facts, quote: Callable[[str], str]) -> str:
    """What the two charts show, every number a drawn y value; a branch for each direction and for meanings that do
    not separate."""
    word, seps, last = quote(result.word), result.separation, len(result.separation) - 1
    same, different = fact.same, fact.different
    said = (f"From the embedding to {stage(last)}, the mean cosine of {word} over pairs with the same meaning "
            f"{VERB[same.direction]} ({cosine(same.start)} → {cosine(same.end)}); over pairs with different meanings "
            f"it {VERB[different.direction]} ({cosine(different.start)} → {cosine(different.end)}). ")
    if result.growth_layer is None:
        return (said + f"The separation, their difference, goes from {signed(seps[0])} to between "
                f"{signed(seps[1:].min())} and {signed(seps[1:].max())}, never {SEPARATES:.2f} above where it "
                "started. **These sentences do not show the two meanings coming apart.** That says nothing about "
                "the model in general, only about these sentences: perhaps both groups use the word in one "
                "meaning, or the sentences around the word say too little. Try sentences where the words next to "
                "it point clearly to one meaning.")
    if same.direction == "falls" and fact.different_changes_less:
        said += ("Pairs with different meanings fall faster, so the word does not grow more alike within a "
                 "meaning: it grows less alike everywhere, and most across meanings. ")
    elif same.direction == "rises" and fact.different_changes_less:
        said += "So the word grows more alike within a meaning, and less so across meanings. "
    elif fact.different_changes_less:
        said += "So the word stays about as alike within a meaning, and grows less alike across meanings. "
    top = int(np.argmax(seps[1:])) + 1
    said += f"**The two meanings come apart: the separation grows from {signed(seps[0])} to {signed(seps[last])}.**"
    if top != last:
        said += f" It is largest {stage(top)}: {signed(seps[top])}."
    m, as_large = len(result.sentences), fact.splits_as_large
    own = 2 if 2 * result.n_a == m else 1  # with equal groups the meanings' split is counted twice (A/B and B/A)
    said += (f" The control for the split itself: of the {fact.splits:,} ways to choose {result.n_a} of these {m} "
             "sentences as one group (the rest the other), "
             + ("only the meanings' own split separates them as much after the last layer: no other grouping "
                "of these sentences does." if as_large <= own else
                f"{as_large:,} ({as_large / fact.splits:.0%}) separate them as much after the last layer"
                + (": the meanings' split is among the few that do." if as_large / fact.splits <= 0.05 else
                   ": that is not rare, so these sentences show little beyond what any grouping gives.")))
    return said


def control_story(result: Measurement, fact: Facts, quote: Callable[[str], str]) -> str:
    """The control: self-only attention gives what the word and its position alone give."""
    word, control = quote(result.word), fact.control
    said = (f"The control, self-only attention, keeps the word and its position and takes nothing from the other "
            f"words: its separation goes from {signed(control.start)} to {signed(control.end)} (at most "
            f"{signed(fact.control_high)}). ")
    if fact.control_separates:
        said += (f"Word and position alone already separate the meanings a little here: {word} tends to stand at "
                 "different places in the two groups. ")
    else:
        said += "Word and position alone do not separate the meanings. "
    gap = fact.separation.end - control.end
    if result.growth_layer is None:
        return said + f"The model ends {signed(gap)} from the control."
    return said + (f"With attention the model ends {signed(gap)} above the control: that difference is what taking "
                   "in the other words adds, since nothing else differs between the two runs.")


def accuracy_story(result: Measurement) -> str:
    acc, out, last = result.accuracy, result.accuracy_knocked_out, len(result.accuracy) - 1
    said = (f"Nearest neighbour: {stage(0)}, the most similar other sentence has the same meaning for "
            f"{share(acc[0])} of the {len(result.sentences)} sentences; {stage(last)} for {share(acc[last])}"
            f" (best {share(acc.max())}, {stage(int(np.argmax(acc)))}). With self-only attention: "
            f"{share(out[last])} {stage(last)}. Chance, a random other sentence: {share(result.chance)}.")
    if max(acc[0], out.max()) > result.chance + 0.05:
        said += (" In the embedding and with self-only attention, the word's vector depends only on where it stands "
                 "(the same place, the same vector), so a score above chance there comes from positions alone.")
    if acc[last] <= result.chance:
        said += " **The model does no better than chance here** after its last layer."
    return said


def heads_story(result: Measurement, spread: HeadSpread | None, quote: Callable[[str], str]) -> str | None:
    """What mean-ablating one head of the layer where separation first grows does (None when the meanings do not
    separate), with the drops' spread over the built-in words measured at that layer."""
    if result.head_costs is None:
        return None
    grown = result.growth_layer
    before, after = result.separation[grown - 1], result.separation[grown]
    added = after - before   # what this layer adds to the separation entering it
    name = "that layer"  # named in full in the sentence before
    said = f"Separation first grows {stage(grown)}: that layer takes it from {signed(before)} to {signed(after)}. "
    costly = result.costliest_heads()
    if not costly:
        return said + f"Mean-ablating any one head of {name} lowers it by nothing."
    drops = result.head_costs
    said += ("Mean-ablated alone, " + "; ".join(f"{head_name(h)} lowers it by {plain(drops[h])} (to "
                                               f"{signed(result.head_separation[h])})" for h in costly) + ". ")
    largest, head = drops[costly[0]], costly[0]
    without = added - largest
    if without <= 0 < added:
        said += f"Without {head_name(head)}, {name} adds no separation at all. "
    elif 0 < without < 0.5 * added:
        said += f"Without {head_name(head)}, {name} adds {plain(without)} instead of {plain(added)}: less than half. "
    elif without > 0:
        said += (f"Without any one head, {name} still adds at least {plain(without)} of its {plain(added)}: no one "
                 "head is needed for most of it. ")
    said += (f"Each drop is measured with the other heads working, so the drops are not shares of the whole "
             f"(together {plain(drops.sum())}).")
    if spread is not None:
        low, high = spread.drops[:, head].min(), spread.drops[:, head].max()
        words = ", ".join(quote(w) for w in spread.words)
        said += (f" Over the built-in words ({words}), measured the same way at this layer, {head_name(head)}'s drop "
                 f"ranges from {plain(low)} to {plain(high)} (mean {plain(spread.mean[head])}). ")
        leaders = {int(np.argmax(row)) for row in spread.drops}
        said += ("The same head lowers it most for every one of them." if leaders == {head} else
                 "Which head lowers it most changes from word to word.")
    return said
