"""Scaled dot-product attention, one small numpy function per step.

Read top to bottom, this file is the whole mechanism the app explains:

    Q, K, V = project(X)                      # how each token asks, offers and carries
    raw     = Q @ K.T                          # step 1: how well each query matches each key
    scaled  = raw / sqrt(d_k)                  # step 2: keep the spread independent of d_k
    weights = softmax(scaled + mask)           # step 3: each row becomes a distribution (sums to 1)
    output  = weights @ V                      # step 4: each token becomes a weighted mix of values

No Streamlit, plotly or torch here: the pages and the tests both call these functions, so what a page
shows is exactly what the tests check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# A large negative number, not -inf: -inf - (-inf) is NaN inside softmax's max-subtraction.
MASKED = -1e9


class AttentionInputError(ValueError):
    """Input the core cannot turn into attention (NaN/inf, wrong shapes, a row with nothing to attend to)."""


def _check_finite(name: str, array: np.ndarray) -> None:
    # A sum is NaN/inf whenever an element is; only then pay for the exact element-wise check
    # (a sum can also overflow on huge but finite values, which the exact check lets through).
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(array)):
            return
    if not np.all(np.isfinite(array)):
        raise AttentionInputError(
            f"{name} contains NaN or infinite values; attention needs finite numbers."
        )


def _as_float(array) -> np.ndarray:
    array = np.asarray(array)
    if array.dtype.kind != "f":
        array = array.astype(np.float64)
    return array


# --- projections: Q, K, V from the token embeddings X ------------------------------------------------

def identity_projection(x):  # [n, d_model] -> q, k, v each [n, d_model]
    """The textbook toy: Q = K = V = X, so a token's query is its own embedding."""
    x = _as_float(x)
    _check_finite("embeddings", x)
    return x, x, x


def random_weights(d_model: int, d_k: int, seed: int):  # -> w_q, w_k, w_v each [d_model, d_k]
    """Three seeded Gaussian matrices, scaled by 1/sqrt(d_model) so Q, K, V keep the embeddings' scale."""
    if d_k < 1:
        raise AttentionInputError("d_k must be at least 1.")
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(d_model)
    return tuple(rng.standard_normal((d_model, d_k)) * scale for _ in range(3))


def project(x, w, b=None):  # [n, d_model], [d_model, d_k], [d_k] -> [n, d_k]
    """One linear projection x @ w + b (what a transformer's nn.Linear does, with w already transposed)."""
    x, w = _as_float(x), _as_float(w)
    _check_finite("embeddings", x)
    if x.ndim != 2 or w.ndim != 2 or x.shape[1] != w.shape[0]:
        raise AttentionInputError(
            f"cannot project embeddings of shape {x.shape} with a weight matrix of shape {w.shape}."
        )
    out = x @ w.astype(x.dtype, copy=False)
    if b is not None:
        out += np.asarray(b, dtype=x.dtype)  # in place: the product is a fresh array nobody else holds
    return out


def random_projection(x, d_k: int, seed: int):  # [n, d_model] -> q, k, v each [n, d_k]
    w_q, w_k, w_v = random_weights(np.shape(x)[1], d_k, seed)
    return project(x, w_q), project(x, w_k), project(x, w_v)


def learned_projection(x, weights):  # [n, d_model], HeadWeights -> q, k, v each [n, d_head]
    """The model's own W_Q, W_K, W_V (and biases) for one layer and head."""
    return (project(x, weights.w_q, weights.b_q),
            project(x, weights.w_k, weights.b_k),
            project(x, weights.w_v, weights.b_v))


@dataclass(frozen=True)
class HeadWeights:
    """One head's slice of a layer's learned projections, in x @ w + b orientation."""

    w_q: np.ndarray  # [d_model, d_head]
    b_q: np.ndarray  # [d_head]
    w_k: np.ndarray
    b_k: np.ndarray
    w_v: np.ndarray
    b_v: np.ndarray


# --- masks -------------------------------------------------------------------------------------------

def causal_mask(n: int):  # -> [n, n]
    """A decoder's mask: token i may only look at tokens 0..i (0 = allowed, MASKED = forbidden)."""
    return np.triu(np.full((n, n), MASKED), k=1)


def padding_mask(keep):  # [n_k] bools -> [1, n_k]
    """Forbid attending to padding positions (keep[j] False)."""
    keep = np.asarray(keep, dtype=bool)
    return np.where(keep, 0.0, MASKED)[None, :]


# --- the four steps ----------------------------------------------------------------------------------

def raw_scores(q, k):  # [n_q, d_k], [n_k, d_k] -> [n_q, n_k]
    """Step 1: the dot product of every query with every key."""
    q, k = _as_float(q), _as_float(k)
    _check_finite("Q", q)
    _check_finite("K", k)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise AttentionInputError(f"Q {q.shape} and K {k.shape} must be 2-D with the same width d_k.")
    return q @ k.T


def scale_scores(scores, d_k: int):  # [n_q, n_k] -> [n_q, n_k]
    """Step 2: divide by sqrt(d_k) so the scores' spread does not grow with the vector length."""
    return scores / math.sqrt(d_k)  # a Python float keeps float32 scores float32


def softmax(scores, mask=None):  # [n_q, n_k], [n_q or 1, n_k] -> [n_q, n_k]
    """Step 3: row-wise softmax, stable for huge scores because each row's max is subtracted first.

    A mask is added before the softmax (0 keeps a position, a large negative number removes it).
    """
    scores = _as_float(scores)
    _check_finite("scores", scores)
    if mask is not None:
        mask = np.asarray(mask, dtype=scores.dtype)
        fully_masked = np.all(np.broadcast_to(mask, scores.shape) <= MASKED / 2, axis=-1)
        if np.any(fully_masked):
            rows = np.flatnonzero(fully_masked).tolist()
            raise AttentionInputError(
                f"row(s) {rows} are fully masked: that token has nothing it is allowed to attend to."
            )
        scores = scores + mask
    # In place after the one copy: at n=512 every extra temporary costs more than the arithmetic.
    weights = scores - scores.max(axis=-1, keepdims=True)
    np.exp(weights, out=weights)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights


def weighted_sum(weights, v):  # [n_q, n_k], [n_k, d_v] -> [n_q, d_v]
    """Step 4: each output row is the weights' mix of the value vectors."""
    v = _as_float(v)
    _check_finite("V", v)
    return weights @ v


def attention(q, k, v, mask=0.0):  # [n_q, d_k], [n_k, d_k], [n_k, d_v] -> [n_q, d_v]
    return softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


@dataclass(frozen=True)
class AttentionSteps:
    """Every intermediate of one attention run, so a page never recomputes a step."""

    q: np.ndarray        # [n_q, d_k]
    k: np.ndarray        # [n_k, d_k]
    v: np.ndarray        # [n_k, d_v]
    raw: np.ndarray      # [n_q, n_k]  step 1
    scaled: np.ndarray   # [n_q, n_k]  step 2
    weights: np.ndarray  # [n_q, n_k]  step 3, rows sum to 1
    output: np.ndarray   # [n_q, d_v]  step 4

    @property
    def d_k(self) -> int:
        return self.q.shape[1]


def run_steps(q, k, v, mask=None, scale=True, temperature=1.0):  # -> AttentionSteps
    """The four steps in order, keeping every intermediate.

    scale=False and temperature are the what-if lab's knobs: the scores are divided by
    sqrt(d_k) (if scale) and by temperature before the softmax.
    """
    if temperature <= 0 or not np.isfinite(temperature):
        raise AttentionInputError("temperature must be a positive number.")
    raw = raw_scores(q, k)
    scaled = scale_scores(raw, q.shape[1]) if scale else raw
    if temperature != 1.0:
        scaled = scaled / temperature
    weights = softmax(scaled, mask)
    output = weighted_sum(weights, v)
    return AttentionSteps(q=_as_float(q), k=_as_float(k), v=_as_float(v), raw=raw, scaled=scaled,
                          weights=weights, output=output)


# --- multi-head helpers ------------------------------------------------------------------------------

def split_heads(x, n_heads: int):  # [n, d_model] -> [n_heads, n, d_head]
    n, d_model = x.shape
    if d_model % n_heads:
        raise AttentionInputError(f"d_model {d_model} is not divisible by {n_heads} heads.")
    return x.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(x):  # [n_heads, n, d_head] -> [n, n_heads * d_head]
    n_heads, n, d_head = x.shape
    return x.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head(x, w_q, b_q, w_k, b_k, w_v, b_v, n_heads: int):  # [n, d_model] -> list of AttentionSteps, [n, d_model]
    """Every head of one layer: project once, split into heads, attend per head, concatenate."""
    qs = split_heads(project(x, w_q, b_q), n_heads)
    ks = split_heads(project(x, w_k, b_k), n_heads)
    vs = split_heads(project(x, w_v, b_v), n_heads)
    heads = [run_steps(q, k, v) for q, k, v in zip(qs, ks, vs)]
    concat = merge_heads(np.stack([h.output for h in heads]))
    return heads, concat


def layer_norm(x, gamma, beta, eps=1e-12):  # [n, d], [d], [d] -> [n, d]
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


# --- measurements the pages report -------------------------------------------------------------------

def row_entropy(weights):  # [n_q, n_k] -> [n_q], in bits
    """How spread out each row is: 0 bits = all on one token, log2(n) bits = uniform."""
    p = np.clip(weights, 1e-300, 1.0)
    return -(weights * np.log2(p)).sum(axis=-1)


def attention_rollout(attentions):  # [n_layers, n, n] (head-averaged) -> [n_layers, n, n]
    """Abnar & Zuidema (2020): mix in the residual (0.5 A + 0.5 I), renormalise, multiply up the layers.

    Row i of the result's layer L says how much each input token flows into token i after layer L.
    """
    n = attentions.shape[-1]
    eye = np.eye(n)
    rolled = []
    acc = eye
    for a in attentions:
        a = 0.5 * a + 0.5 * eye
        a = a / a.sum(axis=-1, keepdims=True)
        acc = a @ acc
        rolled.append(acc)
    return np.stack(rolled)
