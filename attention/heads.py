"""Describing what heads do, from their attention matrices alone (numpy only)."""

from __future__ import annotations

import numpy as np

PATTERNS = ("itself", "previous token", "next token", "[CLS]", "[SEP]", "punctuation")
# Each pattern in a sentence a student reads: "… of each token's attention to <words>".
PATTERN_WORDS = {"itself": "the token itself", "previous token": "the token just before it",
                 "next token": "the token just after it", "[CLS]": "[CLS], the marker before the sentence",
                 "[SEP]": "[SEP], the marker after the sentence", "punctuation": "punctuation"}


def pattern_scores(weights, tokens, is_special):  # [n_heads, n, n] -> dict name -> [n_heads]
    """The average share of each row that goes to a recognisable target."""
    weights = np.asarray(weights)
    n = weights.shape[-1]
    tokens = list(tokens)
    rows = np.arange(n)
    scores = {
        "itself": weights[:, rows, rows].mean(-1),
        "previous token": weights[:, rows[1:], rows[1:] - 1].mean(-1) if n > 1 else np.zeros(len(weights)),
        "next token": weights[:, rows[:-1], rows[:-1] + 1].mean(-1) if n > 1 else np.zeros(len(weights)),
        "[CLS]": weights[..., [i for i, t in enumerate(tokens) if t == "[CLS]"]].sum(-1).mean(-1),
        "[SEP]": weights[..., [i for i, t in enumerate(tokens) if t == "[SEP]"]].sum(-1).mean(-1),
        "punctuation": weights[..., [i for i, t in enumerate(tokens)
                                     if not is_special[i] and t and all(not c.isalnum() for c in t)]].sum(-1).mean(-1),
    }
    return scores


def describe_heads(weights, tokens, is_special, threshold=0.4):  # -> list of (pattern or "broad", share)
    """Each head's strongest pattern if it takes at least `threshold` of the attention, else 'spread out'."""
    scores = pattern_scores(weights, tokens, is_special)
    labels = []
    for h in range(len(weights)):
        name = max(PATTERNS, key=lambda p: scores[p][h])
        share = float(scores[name][h])
        labels.append((name, share) if share >= threshold else ("spread out / mixed", share))
    return labels


def head_distances(weights):  # [n_heads, n, n] -> [n_heads, n_heads]
    """Mean over rows of the total-variation distance between two heads' attention (0 = identical, 1 = disjoint)."""
    w = np.asarray(weights)
    # One head against all at a time: the all-pairs difference at once is [12, 12, n, n], 75 MB at 256 tokens.
    return np.stack([0.5 * np.abs(w[h] - w).sum(-1).mean(-1) for h in range(len(w))])
