"""The small computations the step pages show beside the matrices (numpy only).

Hiding [CLS]/[SEP] must not change the model's numbers: fold_hidden keeps every row exactly as the model
computed it over the whole sentence and adds the hidden tokens' share as one extra column, MARKER_COLUMN. Every
page that hides them draws that one column for weights (their sum). Scores do not add up: the score matrices of steps 1
and 2 draw each hidden key as its own column (ui/view.py score_keys); combined_hidden is the one score that stands for
them together, which only the walk-through draws, saying so.
"""

from __future__ import annotations

import functools

import numpy as np

from attention import core

# The one column that stands for the hidden [CLS] and [SEP] on every page, figure and offline file.
MARKER_COLUMN = "[CLS]+[SEP]"


def fold_hidden(matrix, shown, hidden):  # [n_q, n], [n_s], [n_h] -> [n_q, n_s + (1 if n_h else 0)]
    """The shown columns as they are, plus one column that adds up the hidden ones (nothing renormalised)."""
    matrix = np.asarray(matrix)
    shown, hidden = np.asarray(shown, dtype=int), np.asarray(hidden, dtype=int)
    columns = [matrix[..., shown]]
    if hidden.size:
        columns.append(matrix[..., hidden].sum(axis=-1, keepdims=True))
    return np.concatenate(columns, axis=-1)


def combined_hidden(matrix, shown, hidden, scale: float = 1.0):
    # [n_q, n], [n_s], [n_h] -> [n_q, n_s + (1 if n_h else 0)]
    """Scores with the hidden keys as ONE key (the walk-through's folded column): the shown columns as they are, plus
    the score one key would need to get the hidden keys' weight together, scale · ln(Σ e^(score / scale)).

    Scores do not add up; e-values do. e to this column is the hidden keys' e-values added, so softmax of a drawn
    row gives the drawn weights (MARKER_COLUMN holding their sum) exactly. scale: √d_k for raw scores (so
    dividing the column by √d_k gives the scaled scores' column, as step 2 divides every score), 1 for scaled.
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    shown, hidden = np.asarray(shown, dtype=int), np.asarray(hidden, dtype=int)
    columns = [matrix[..., shown]]
    if hidden.size:
        columns.append(scale * np.logaddexp.reduce(matrix[..., hidden] / scale, axis=-1, keepdims=True))
    return np.concatenate(columns, axis=-1)


def scaling_contrast_row(raw, d_k: int, rows, selected: int, enough: float = 0.25):
    # [n, n] raw scores, candidate row indices, the selected row -> (row to show, [n] entropy change in bits)
    """The row on which dividing by √d_k shows: the selected one if its entropy (bits) changes by `enough`, else
    the candidate row whose entropy changes most, if that one changes by `enough` (a one-hot row looks the same
    with and without scaling); when no row does, the selected one."""
    raw = np.asarray(raw, dtype=np.float64)
    change = np.abs(core.row_entropy(core.softmax(core.scale_scores(raw, d_k))) - core.row_entropy(core.softmax(raw)))
    rows = np.asarray(rows, dtype=int)
    if change[selected] >= enough or not rows.size:
        return selected, change
    best = int(rows[np.argmax(change[rows])])
    return (best if change[best] >= enough else selected), change


def token_output_by_head(x, layer_weights, n_heads: int, position: int):  # [n, d_model] -> [n_heads, d_head]
    """One token's step-4 output from every head of one layer at once: the numbers of running the four steps
    head by head, without computing the other tokens' rows."""
    q = core.split_heads(core.project(x[position:position + 1], layer_weights["w_q"], layer_weights["b_q"]), n_heads)
    k = core.split_heads(core.project(x, layer_weights["w_k"], layer_weights["b_k"]), n_heads)
    v = core.split_heads(core.project(x, layer_weights["w_v"], layer_weights["b_v"]), n_heads)
    weights = core.softmax(core.scale_scores(q @ k.transpose(0, 2, 1), q.shape[-1]))  # [n_heads, 1, n]
    return (weights @ v)[:, 0]


def head_output_similarity(xs_a, xs_b, layer_weights, n_heads: int, position_a: int, position_b: int):
    # per layer [n_a, d_model], [n_b, d_model], weights -> [n_layers, n_heads]
    """One word in two sentences: the cosine similarity of its output from every head of every layer
    (1 = the head passes on the same direction in both sentences)."""
    grid = []
    for x_a, x_b, weights in zip(xs_a, xs_b, layer_weights):
        a = token_output_by_head(x_a, weights, n_heads, position_a)
        b = token_output_by_head(x_b, weights, n_heads, position_b)
        grid.append((a * b).sum(axis=-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1) + 1e-12))
    return np.array(grid)


def weighted_values(weights_row, v):  # [n_k], [n_k, d_v] -> [n_k, d_v]
    """Step 4 for one token, one row per key: weight × value. The rows add up to the token's output."""
    return np.asarray(weights_row)[:, None] * np.asarray(v)


def length_shares(weights_row, v):  # [n_k], [n_k, d_v] -> [n_k], adds up to 1
    """Each key's part of one output counted by length: its weight times the length of its value, over the sum
    of those (the "norm" view of Kobayashi et al. 2020, "Attention is not only a weight"). A weight alone is not
    a share of the output: a key whose value is short adds little to it, however much weight it gets."""
    lengths = np.asarray(weights_row) * np.linalg.norm(np.asarray(v), axis=-1)
    return lengths / max(float(lengths.sum()), 1e-12)


def query_meets_keys(q_row, k):  # [d_k], [n_k, d_k] -> products [n_k, d_k], scores [n_k]
    """Step 1 for one token: its query times every key, number by number; each row's sum is a score."""
    products = np.asarray(q_row)[None, :] * np.asarray(k)
    return products, products.sum(axis=1)


def softmax_arithmetic(scaled_row):  # [n_k] -> [n_k, 4], float
    """Step 3 for one row, column by column: s, s - max(s), e^(s - max), e^(s - max) / sum = the weight.

    Subtracting the largest score first changes no weight (it cancels in the division) and keeps e^x
    from overflowing; the last column is the row of the attention weights.
    """
    scaled_row = np.asarray(scaled_row, dtype=np.float64)
    shifted = scaled_row - scaled_row.max()
    exps = np.exp(shifted)
    return np.stack([scaled_row, shifted, exps, exps / exps.sum()], axis=1)


def self_share(weights_row, position: int) -> tuple[float, float]:  # [n_k] -> (own weight, 1 - own weight)
    """How much of a token's output is its own value, and how much comes from the other tokens."""
    own = float(weights_row[position])
    return own, 1.0 - own


def reference_gap(reference_model, sentence: str, layer: int, head: int, weights) -> float:  # [n, n] -> float
    """Max |weights - an independent model's own attention| for one layer and head of one sentence.

    reference_model is an AttentionModel on backend="torch" (sentence-transformers/PyTorch), so the
    comparison does not pass through any code of ours that computed `weights`.
    """
    attentions = reference_model.analyze(sentence).attentions[layer, head]
    return float(np.abs(np.asarray(weights, dtype=np.float64) - attentions).max())


SPREAD_SAMPLES = 2000  # random dot products measured at each length (step 2 says how many)


@functools.lru_cache(maxsize=1)  # the same for every visitor: computed once per process (it allocates ~32 MB)
def dot_product_spread(dims=(2, 8, 32, 128, 512, 1024), samples=SPREAD_SAMPLES, seed=0):  # -> raw, scaled [len(dims)]
    """The spread (standard deviation) of `samples` dot products of random unit-spread vectors of each length,
    before and after dividing by √d_k: the raw spread grows like √d_k, the scaled one stays about 1."""
    rng = np.random.default_rng(seed)
    raw, scaled = [], []
    for d in dims:
        q, k = rng.standard_normal((2, samples, d))
        dots = np.einsum("nd,nd->n", q, k)
        raw.append(dots.std())
        scaled.append((dots / np.sqrt(d)).std())
    raw, scaled = np.array(raw), np.array(scaled)
    raw.flags.writeable = scaled.flags.writeable = False  # shared by every session
    return raw, scaled
