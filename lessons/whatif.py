"""The what-if lab's variants of the four steps, and the numbers that measure their effect (numpy only)."""

from __future__ import annotations

import numpy as np

from attention import core


def naive_softmax(scores):  # [n_q, n_k] -> [n_q, n_k], without the max-subtraction trick
    with np.errstate(over="ignore", invalid="ignore"):
        exp = np.exp(scores)
        return exp / exp.sum(axis=-1, keepdims=True)


def variants(q, k, v, temperature: float = 2.0, huge: float = 1e3, other_qkv=None):  # -> dict name -> AttentionSteps
    """The normal computation and each single change to it."""
    n = q.shape[0]
    normal = core.run_steps(q, k, v)
    out = {
        "normal": normal,
        "no √d_k scaling": core.run_steps(q, k, v, scale=False),
        f"temperature × {temperature:g}": core.run_steps(q, k, v, temperature=temperature),
        "causal (decoder) mask": core.run_steps(q, k, v, mask=core.causal_mask(n)),
        f"scores × {huge:g}": core.run_steps(q * huge, k, v),
    }
    uniform = np.full((n, n), 1.0 / n)
    out["uniform weights"] = core.AttentionSteps(q=normal.q, k=normal.k, v=normal.v, raw=normal.raw,
                                                 scaled=normal.scaled, weights=uniform,
                                                 output=core.weighted_sum(uniform, v))
    if other_qkv is not None:
        out["other projection"] = core.run_steps(*other_qkv)
    return out


def effect(steps: core.AttentionSteps, normal: core.AttentionSteps) -> dict[str, float]:
    """Mean row entropy (bits), mean of each row's largest weight, and how far the output moved."""
    moved = np.linalg.norm(steps.output - normal.output, axis=1).mean() if steps.output.shape == normal.output.shape \
        else float("nan")
    return {
        "mean entropy (bits)": float(core.row_entropy(steps.weights).mean()),
        "mean max weight": float(steps.weights.max(axis=1).mean()),
        "output distance from normal": float(moved),
    }
