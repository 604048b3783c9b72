"""The four steps happening to one token, frame by frame: the numbers of the animated walk-through (numpy only).

One query row meets every key (step 1), the row is divided by √d_k (step 2), softmax makes it weights (step 3)
and the weights mix the values (step 4). Every number is computed here from q, K and V exactly as the core does,
so the walk-through shows the same numbers as the step pages.

Columns: a page may show a key as its own column or fold several keys into one (learned mode hides [CLS] and
[SEP] as one column, lessons/explain.py MARKER_COLUMN). E-values, weights and weighted values add up, so a folded
column has their sums: the model's whole-sentence row, nothing renormalised. Scores do not add up: a folded column's
score is the one whose e-value is its keys' e-values added (explain.combined_hidden); the step pages draw the
markers' scores apart, and fold them from step 3 on, where weights add up.

Softmax is shown one way, as step 3's table shows it: e to the power of (score − the row's largest), so the largest
becomes 1 and the e-values' sum is the one step 3 prints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention import core

# Step 1 goes key by key while the row is short; a longer row shows this many keys one at a time, then the rest
# at once (a 40-token sentence would otherwise take 40 frames before step 2).
KEYS_ONE_BY_ONE = 10
KEYS_SHOWN_FIRST = 5
# Step 4 adds the largest shares one at a time (at most this many, each at least SHARE_SHOWN_ALONE, the largest
# always), then the rest together.
SHARES_ONE_BY_ONE = 4
SHARE_SHOWN_ALONE = 0.01


@dataclass(frozen=True)
class Frame:
    """What one frame of the walk-through draws; NaN = no bar (not computed yet)."""

    step: int                       # 1–4
    kind: str                       # "key", "rest", "row", "scaled", "exp", "weights", "share", "others", "output"
    bars: np.ndarray                # [n_columns] the row as it stands in this frame
    before: np.ndarray              # [n_columns] the row one step earlier, drawn faint (NaN: none)
    vector: np.ndarray              # [d] the top panel: q×k number by number (step 1) or w·v (step 4)
    total: np.ndarray               # [d] the output added up so far (step 4), NaN otherwise
    columns: tuple[int, ...] = ()   # the columns this frame is about (the key met, the shares added)


@dataclass(frozen=True)
class Walkthrough:
    """The selected token's row through the four steps, over the whole sentence (`keys`) and per column."""

    query: int                      # the selected token's position among the keys
    d_k: int
    scale: float                    # √d_k
    products: np.ndarray            # [n_keys, d_k] q × k_j number by number
    raw: np.ndarray                 # [n_keys] the sums: q·k_j
    scaled: np.ndarray              # [n_keys] raw / √d_k
    shift: float                    # the row's largest scaled score, subtracted before e^ (as step 3 does)
    exps: np.ndarray                # [n_keys] e^(scaled - shift)
    exp_total: float
    weights: np.ndarray             # [n_keys] exps / exp_total: the attention weights, summing to 1
    contributions: np.ndarray       # [n_keys, d_v] weight × value
    output: np.ndarray              # [d_v] the token's output: the contributions added up
    groups: tuple[tuple[int, ...], ...]  # the keys of each shown column
    frames: tuple[Frame, ...]

    def per_column(self, values) -> np.ndarray:  # [n_keys] -> [n_columns], summed over a folded column
        values = np.asarray(values, dtype=np.float64)
        return np.array([values[list(group)].sum() for group in self.groups])

    def score_per_column(self, values, scale: float = 1.0) -> np.ndarray:  # [n_keys] -> [n_columns]
        """Scores per column, a folded column's keys as one key (explain.combined_hidden; scale √d_k for raw)."""
        values = np.asarray(values, dtype=np.float64)
        return np.array([values[group[0]] if len(group) == 1 else
                         scale * np.logaddexp.reduce(values[list(group)] / scale) for group in self.groups])

    @property
    def column_weights(self) -> np.ndarray:
        return self.per_column(self.weights)

    @property
    def column_exps(self) -> np.ndarray:
        return self.per_column(self.exps)

    @property
    def column_contributions(self) -> np.ndarray:  # [n_columns, d_v]
        return np.stack([self.contributions[list(group)].sum(axis=0) for group in self.groups])


def walk_through(q_row, k, v, query: int, groups=None) -> Walkthrough:
    # [d_k], [n_keys, d_k], [n_keys, d_v], int, columns of key indices -> Walkthrough
    """The four steps for one query row, with every intermediate and the frames of the animation.

    query: the token's own position among the keys. groups: the keys of each drawn column (default: one column
    per key); keys in no group still count in the softmax (they are hidden, not removed) but are not drawn.
    """
    q_row = np.asarray(q_row, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    n_keys, d_k = k.shape
    groups = tuple(tuple(int(j) for j in group) for group in (groups or [[j] for j in range(n_keys)]))
    products = q_row[None, :] * k
    raw = products.sum(axis=1)
    scale = float(np.sqrt(d_k))
    scaled = core.scale_scores(raw, d_k)
    shift = float(scaled.max())
    exps = np.exp(scaled - shift)
    exp_total = float(exps.sum())
    weights = exps / exp_total
    contributions = weights[:, None] * v
    output = contributions.sum(axis=0)
    walk = Walkthrough(query=query, d_k=d_k, scale=scale, products=products, raw=raw, scaled=scaled, shift=shift,
                       exps=exps, exp_total=exp_total, weights=weights, contributions=contributions, output=output,
                       groups=groups, frames=())
    object.__setattr__(walk, "frames", tuple(_frames(walk, v.shape[1])))
    return walk


def _frames(walk: Walkthrough, d_v: int) -> list[Frame]:
    n_columns = len(walk.groups)
    none_row = np.full(n_columns, np.nan)
    no_vector = np.full(walk.d_k, np.nan)
    no_output = np.full(d_v, np.nan)
    raw = walk.score_per_column(walk.raw, walk.scale)
    scaled = walk.score_per_column(walk.scaled)
    single = [c for c, group in enumerate(walk.groups) if len(group) == 1]
    frames = []
    # Step 1: key by key, the row of raw scores growing.
    one_by_one = single if len(single) <= KEYS_ONE_BY_ONE else single[:KEYS_SHOWN_FIRST]
    grown = none_row.copy()
    for c in one_by_one:
        grown = grown.copy()
        grown[c] = raw[c]
        frames.append(Frame(1, "key", grown, none_row, walk.products[walk.groups[c][0]], no_output, (c,)))
    rest = [c for c in single if c not in one_by_one]
    if rest:
        frames.append(Frame(1, "rest", raw, none_row, no_vector, no_output, tuple(rest)))
    frames.append(Frame(1, "row", raw, none_row, no_vector, no_output, ()))
    # Step 2: the same row divided by √d_k, the raw row drawn faint behind it.
    frames.append(Frame(2, "scaled", scaled, raw, no_vector, no_output, ()))
    # Step 3: e to each score minus the largest (a folded column: its keys' e-values added up), then divided by
    # their sum.
    exps, weights = walk.column_exps, walk.column_weights
    frames.append(Frame(3, "exp", exps, none_row, no_vector, no_output, ()))
    frames.append(Frame(3, "weights", weights, none_row, no_vector, no_output, ()))
    # Step 4: each value times its weight, the largest shares first, added into the output.
    contributions = walk.column_contributions
    order = [int(c) for c in np.argsort(-weights, kind="stable")]
    first = [c for c in order[:SHARES_ONE_BY_ONE] if weights[c] >= SHARE_SHOWN_ALONE] or order[:1]
    total = np.zeros(d_v)
    for c in first:
        total = total + contributions[c]
        frames.append(Frame(4, "share", weights, none_row, contributions[c], total, (c,)))
    others = order[len(first):]
    if others:
        frames.append(Frame(4, "others", weights, none_row, contributions[others].sum(axis=0),
                            total + contributions[others].sum(axis=0), tuple(others)))
    frames.append(Frame(4, "output", weights, none_row, no_vector, walk.output, ()))
    return frames
