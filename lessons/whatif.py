"""The what-if lab's variants of the four steps, and the numbers that measure their effect (numpy only)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention import core


def naive_softmax(scores):  # [n_q, n_k] -> [n_q, n_k], without the max-subtraction trick
    with np.errstate(over="ignore", invalid="ignore"):
        exp = np.exp(scores)
        return exp / exp.sum(axis=-1, keepdims=True)


# The variants, by identity (the page names them in its language): each changes one thing in the four steps.
VARIANTS = ("normal", "no_scaling", "temperature", "causal", "huge", "uniform", "other", "no_softmax")
HUGE = 1e3  # the "huge" variant multiplies every query, so every score, by this


def variants(q, k, v, temperature: float = 2.0, huge: float = HUGE, other_qkv=None):  # -> dict name -> AttentionSteps
    """The normal computation and each single change to it, in VARIANTS' order ("other" only with other_qkv)."""
    n = q.shape[0]
    normal = core.run_steps(q, k, v)
    out = {
        "normal": normal,
        "no_scaling": core.run_steps(q, k, v, scale=False),
        "temperature": core.run_steps(q, k, v, temperature=temperature),
        "causal": core.run_steps(q, k, v, mask=core.causal_mask(n)),
        "huge": core.run_steps(q * huge, k, v),
    }
    uniform = np.full((n, n), 1.0 / n)
    out["uniform"] = core.AttentionSteps(q=normal.q, k=normal.k, v=normal.v, raw=normal.raw,
                                         scaled=normal.scaled, weights=uniform, output=core.weighted_sum(uniform, v))
    if other_qkv is not None:
        out["other"] = core.run_steps(*other_qkv)
    out["no_softmax"] = no_softmax(normal)
    return out


@dataclass(frozen=True)
class Effect:
    """What one variant does to every row: nan where a number does not exist."""

    entropy: float     # mean row entropy in bits (nan: the weights are not shares)
    max_weight: float  # mean of each row's largest weight
    distance: float    # mean length of (output − normal output) per token (nan: other lengths)


def effect(steps: core.AttentionSteps, normal: core.AttentionSteps) -> Effect:
    """Mean row entropy (bits), mean of each row's largest weight, and how far the output moved."""
    moved = np.linalg.norm(steps.output - normal.output, axis=1).mean() if steps.output.shape == normal.output.shape \
        else float("nan")
    # Entropy is a property of shares: a row with a negative weight, or one that does not add up to 1, has none.
    shares = np.all(steps.weights >= 0) and np.allclose(steps.weights.sum(axis=1), 1.0, atol=1e-6)
    return Effect(entropy=float(core.row_entropy(steps.weights).mean()) if shares else float("nan"),
                  max_weight=float(steps.weights.max(axis=1).mean()), distance=float(moved))


# --- no softmax: the scaled scores used as weights as they are ------------------------------------------------

def no_softmax(normal: core.AttentionSteps) -> core.AttentionSteps:
    """Step 3 left out: the scaled scores are the weights, and the output is their (unnormalised) mix of V."""
    return core.AttentionSteps(q=normal.q, k=normal.k, v=normal.v, raw=normal.raw, scaled=normal.scaled,
                               weights=normal.scaled, output=normal.scaled @ normal.v)


@dataclass(frozen=True)
class NoSoftmaxReport:
    """What breaks when the scaled scores are used as weights, measured on one sentence."""

    negative: int                  # weights below 0, over the whole matrix
    total: int                     # weights in the matrix
    negative_in_row: int           # in the selected row
    smallest: float                # the matrix's smallest weight
    row_sums: np.ndarray           # [n_q] each row's sum (softmax: 1)
    output_norms: np.ndarray       # [n_q] length of each output row without softmax
    softmax_norms: np.ndarray      # [n_q] the same with softmax
    longest_value: float           # the longest value vector: a softmax output is never longer


def no_softmax_report(normal: core.AttentionSteps, selected: int) -> NoSoftmaxReport:
    weights = normal.scaled
    return NoSoftmaxReport(
        negative=int((weights < 0).sum()), total=int(weights.size),
        negative_in_row=int((weights[selected] < 0).sum()), smallest=float(weights.min()),
        row_sums=weights.sum(axis=1),
        output_norms=np.linalg.norm(weights @ normal.v, axis=1),
        softmax_norms=np.linalg.norm(normal.output, axis=1),
        longest_value=float(np.linalg.norm(normal.v, axis=1).max()))


def output_growth(runs: list[core.AttentionSteps]) -> tuple[np.ndarray, np.ndarray]:
    """Mean output length per token with and without softmax, one entry per run (the sentence, then longer
    versions of it): (softmax [len(runs)], no softmax [len(runs)])."""
    with_softmax = np.array([np.linalg.norm(run.output, axis=1).mean() for run in runs])
    without = np.array([np.linalg.norm(run.scaled @ run.v, axis=1).mean() for run in runs])
    return with_softmax, without


@dataclass(frozen=True)
class HardPick:
    """Finite differences on one row: each score nudged up and down by `nudge`, how far the weights move."""

    nudge: float
    softmax_rate: float   # the largest |change of a weight| / nudge over every nudge, softmax
    hard_rate: float      # the same for the hard pick (a one-hot on the largest score)
    hard_moved: int       # nudges that changed the hard pick at all
    nudges: int
    gap: float            # largest score minus the second largest: how far a score must move to flip the pick


def one_hot_pick(scores):  # [n_k] -> [n_k]: 1 on the largest score, 0 elsewhere
    picked = np.zeros_like(scores, dtype=np.float64)
    picked[int(np.argmax(scores))] = 1.0
    return picked


def hard_pick(scaled_row, nudge: float = 1e-3) -> HardPick:
    """Measure on the live row what a gradient sees: softmax answers every nudge, the hard pick none."""
    scores = np.asarray(scaled_row, dtype=np.float64)
    soft, hard = core.softmax(scores[None])[0], one_hot_pick(scores)
    soft_rate = hard_rate = 0.0
    moved = 0
    for j in range(scores.size):
        for sign in (1.0, -1.0):
            nudged = scores.copy()
            nudged[j] += sign * nudge
            soft_rate = max(soft_rate, float(np.abs(core.softmax(nudged[None])[0] - soft).max()) / nudge)
            change = float(np.abs(one_hot_pick(nudged) - hard).max())
            hard_rate = max(hard_rate, change / nudge)
            moved += change > 0
    ordered = np.sort(scores)[::-1]
    return HardPick(nudge, soft_rate, hard_rate, moved, 2 * scores.size,
                    float(ordered[0] - ordered[1]) if scores.size > 1 else float("inf"))


# --- word order: attention alone does not see it ------------------------------------------------------------

def word_shuffle(word_ids, is_special, seed: int = 0) -> np.ndarray | None:
    """A reordering of the tokens that shuffles whole words (a word's pieces stay together, in order) and keeps
    [CLS]/[SEP] where they are: `perm` with shuffled tokens = tokens[perm]. None when there is one word only."""
    positions = [j for j in range(len(word_ids)) if not is_special[j]]
    words: list[list[int]] = []
    for j in positions:
        if words and word_ids[j] is not None and word_ids[words[-1][-1]] == word_ids[j]:
            words[-1].append(j)
        else:
            words.append([j])
    if len(words) < 2:
        return None
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(words))
    for _ in range(20):  # a shuffle that leaves every word in place teaches nothing
        if np.any(order != np.arange(len(words))):
            break
        order = rng.permutation(len(words))
    else:
        order = np.arange(len(words))[::-1]
    moved = [j for w in order for j in words[w]]
    perm = np.arange(len(word_ids))
    perm[positions] = moved
    return perm


def first_layer_weights(tables, ids, head_weights, eps: float, positions: bool = True):  # -> [n, n]
    """One head of the model's first layer on the embeddings of `ids`: word + token type (+ position) embeddings,
    LayerNorm, the head's learned W_Q/W_K, scaled, softmax. With positions this is the model's own layer 0."""
    ids = np.asarray(ids)
    x = (tables["embeddings.word_embeddings.weight"][ids] + tables["embeddings.token_type_embeddings.weight"][0])
    if positions:
        x = x + tables["embeddings.position_embeddings.weight"][:len(ids)]
    x = core.layer_norm(x.astype(np.float64), tables["embeddings.LayerNorm.weight"],
                        tables["embeddings.LayerNorm.bias"], eps)
    q, k, _ = core.learned_projection(x, head_weights)
    return core.softmax(core.scale_scores(q @ k.T, q.shape[1]))


@dataclass(frozen=True)
class WordOrder:
    """The first layer's weights of one head, on the sentence and on its words shuffled, without and with the
    model's position embeddings. Each shuffled matrix is put back in the sentence's order (row and column of the
    same token), so "the same numbers, moved" reads as: the put-back matrix equals the original."""

    perm: np.ndarray             # shuffled tokens = tokens[perm]
    plain: np.ndarray            # [n, n] no positions, the sentence's order
    plain_shuffled: np.ndarray   # [n, n] no positions, the shuffled sentence (its own order)
    placed: np.ndarray           # [n, n] no positions, the shuffled weights put back in the sentence's order
    model: np.ndarray            # [n, n] with positions, the sentence's order (the model's own layer 0)
    model_placed: np.ndarray     # [n, n] with positions, the shuffled weights put back in the sentence's order

    @property
    def gap_without(self) -> float:
        return float(np.abs(self.placed - self.plain).max())

    @property
    def moved_with(self) -> np.ndarray:  # [n] share of each row's attention that lands elsewhere (0..1)
        return 0.5 * np.abs(self.model_placed - self.model).sum(axis=1)


def word_order(tables, ids, word_ids, is_special, head_weights, eps: float, seed: int = 0) -> WordOrder | None:
    perm = word_shuffle(word_ids, is_special, seed)
    if perm is None:
        return None
    ids = np.asarray(ids)
    back = np.argsort(perm)  # where each original token sits in the shuffled sentence
    plain = first_layer_weights(tables, ids, head_weights, eps, positions=False)
    plain_shuffled = first_layer_weights(tables, ids[perm], head_weights, eps, positions=False)
    model = first_layer_weights(tables, ids, head_weights, eps)
    model_shuffled = first_layer_weights(tables, ids[perm], head_weights, eps)
    return WordOrder(perm, plain, plain_shuffled, plain_shuffled[np.ix_(back, back)], model,
                     model_shuffled[np.ix_(back, back)])


def order_sensitivity_by_head(tables, ids, perm, heads, eps: float) -> np.ndarray:  # -> [n_heads]
    """For each of layer 0's heads (`heads`: HeadWeights), the mean share of a row's attention that moves to other
    tokens when the words are shuffled, with the model's position embeddings (0 = order does not count)."""
    ids, back = np.asarray(ids), np.argsort(perm)
    moved = []
    for head in heads:
        before = first_layer_weights(tables, ids, head, eps)
        after = first_layer_weights(tables, ids[perm], head, eps)[np.ix_(back, back)]
        moved.append(0.5 * np.abs(after - before).sum(axis=1).mean())
    return np.array(moved)
