"""What the Training lab's runs show: one number over the seeds (Spread), the comparison's verdict (scaled
against unscaled, each at its own best learning rate, judged on new sentences), and the rows whose softmax Jacobian
the lab draws. The head, its forward and backward pass and the training loop are in lessons/training.py."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lessons.training import HELDOUT_SENTENCES, SATURATED, TrainingRun, softmax


# --- the comparison: scaled against unscaled over several seeds, judged on new sentences ---------------

@dataclass(frozen=True)
class Spread:
    """One number over the seeds: its mean and range (lowest to highest seed)."""

    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, values) -> "Spread":
        values = np.asarray(list(values), dtype=np.float64)
        return cls(float(values.mean()), float(values.min()), float(values.max()))

    def overlaps(self, other: "Spread") -> bool:
        return self.low <= other.high and other.low <= self.high


def _mean_finite(values) -> float:
    values = [v for v in values if np.isfinite(v)]
    return float(np.mean(values)) if values else float("nan")


def loss_words(x: float) -> str:
    """A loss as the Training lab prints it everywhere, its sentences and its table alike: two significant digits
    below 0.1 (0.00035, 0.014), three decimals above (0.164)."""
    if not np.isfinite(x):
        return "infinite (training broke down)"
    return small_words(x) if x < 0.1 else f"{x:.3f}"


_loss_words = loss_words


def _range_words(spread: Spread) -> str:
    if not np.isfinite(spread.high):
        return f"mean {_loss_words(spread.mean)}"
    return f"**{_loss_words(spread.mean)}** (seeds {_loss_words(spread.low)} to {_loss_words(spread.high)})"


def _share_words(x: float) -> str:
    return f"{x:.0%}" if x >= 0.01 or x == 0 else f"{x:.1%}"


def small_words(x: float) -> str:
    """A small positive number a student can read, never in scientific notation: 0.00042, 0.031."""
    if not np.isfinite(x):
        return "infinite"
    if x < 1e-7:
        return "less than 0.0000001"
    return f"{x:.{max(0, 1 - math.floor(math.log10(x)))}f}" if x < 1 else f"{x:.2f}"


# The verdict rule (stated on the page too). ratio = the unscaled head's mean held-out loss ÷ the scaled head's
# (above 1: scaling helps). A verdict needs an effect size and a spread: the ranges overlapping alone once called a
# 50× difference "changes little" because one lucky seed reached the other side's range.
CLEAR_RATIO = 2.0    # "helps"/"hurts": the means differ by this factor or more AND the seeds' ranges do not overlap
NEAR_RATIO = 1.25    # "changes little": the means are within this factor of each other, whatever the spread
# Everything else is "unclear" (ratio beyond NEAR_RATIO but the ranges overlap) or "slight" (beyond the spread, but
# less than CLEAR_RATIO). An unclear verdict at LAB_SEEDS trains EXTRA_SEEDS too and is made again on all of them.
# Both losses below this share of the loss of looking evenly: both heads learned the task, whatever their ratio
# (said beside the verdict, not instead of it).
LEARNED_LOSS_SHARE = 0.01
OUTCOMES = ("helps", "hurts", "slight", "unclear", "little")
# Below this share of rows saturated at the start, saturation cannot be what makes the unscaled head worse.
FEW_SATURATED = 0.2


def verdict_outcome(scaled: Spread, unscaled: Spread) -> str:
    """One of OUTCOMES, from the ratio of the means and whether the seeds' ranges overlap (see CLEAR_RATIO)."""
    ratio = loss_ratio(scaled, unscaled)
    if 1 / NEAR_RATIO < ratio < NEAR_RATIO:
        return "little"
    if scaled.overlaps(unscaled):
        return "unclear"
    if ratio >= CLEAR_RATIO:
        return "helps"
    return "hurts" if ratio <= 1 / CLEAR_RATIO else "slight"


def loss_ratio(scaled: Spread, unscaled: Spread) -> float:
    """The unscaled head's mean loss ÷ the scaled head's: 20 = scaling gives a 20× lower loss."""
    if not np.isfinite(unscaled.mean):
        return float("inf")
    return unscaled.mean / scaled.mean if scaled.mean > 0 else float("inf")


def ratio_words(ratio: float) -> str:
    """A ratio as the lab prints it: 1.17×, 3.4×, 18×, 340×."""
    if not np.isfinite(ratio):
        return "infinitely"
    return f"{ratio:.2f}×" if ratio < 2 else f"{ratio:.1f}×" if ratio < 10 else f"{ratio:.0f}×"


@dataclass(frozen=True)
class Verdict:
    d_k: int
    outcome: str          # one of OUTCOMES
    scaled: Spread        # held-out loss over the seeds
    unscaled: Spread
    ratio: float          # unscaled mean ÷ scaled mean
    seeds: int
    saturated: float      # share of the unscaled head's rows saturated at the start, mean over its seeds
    sentence: str         # Markdown, built from the numbers above


def scaling_verdict(d_k: int, scaled_runs, unscaled_runs, unscaled_best_of_sweep: float | None = None,
                    rates_tried: int | None = None) -> Verdict:
    """The verdict for one d_k, from the runs of every seed, each setting at its own W_Q/W_K rate: the mechanism
    first (how many rows start saturated, how much gradient a saturated row passes), then the held-out losses
    with their ratio and ranges, and the outcome by the rule above (verdict_outcome). unscaled_best_of_sweep:
    the unscaled setting's best mean loss over all rates_tried rates of the sweep (training_rates.SWEEP_LOSSES),
    for "at any rate we tried"."""
    scaled, unscaled = (Spread.of(r.heldout_loss for r in runs) for runs in (scaled_runs, unscaled_runs))
    baseline = _mean_finite(r.baseline_loss for r in [*scaled_runs, *unscaled_runs])
    outcome, ratio = verdict_outcome(scaled, unscaled), loss_ratio(scaled, unscaled)
    saturated = _mean_finite(r.start_saturated for r in unscaled_runs)
    saturated_scaled = _mean_finite(r.start_saturated for r in scaled_runs)
    through_saturated = _mean_finite(r.start_row_grad_saturated for r in unscaled_runs)
    through_other = _mean_finite(r.start_row_grad_other for r in unscaled_runs)
    seeds = min(len(scaled_runs), len(unscaled_runs))
    parts = [f"**d_k = {d_k}:** without ÷√d_k, {_share_words(saturated)} of the rows start saturated "
             f"(with it: {_share_words(saturated_scaled)})"]
    if np.isfinite(through_saturated) and np.isfinite(through_other) and through_other > 0:
        parts[0] += (f"; a saturated row passes back a gradient of {small_words(through_saturated)}, "
                     f"{_share_words(through_saturated / through_other)} of what the other rows pass "
                     f"({small_words(through_other)})")
    parts[0] += "."
    parts.append(f"On {HELDOUT_SENTENCES} new sentences, each at its own rate, over {seeds} seeds, the scaled "
                 f"head's loss is {_range_words(scaled)}, the unscaled head's {_range_words(unscaled)}: "
                 + (f"the unscaled loss is **{ratio_words(ratio)}** the scaled one" if ratio >= 1 else
                    f"the scaled loss is **{ratio_words(1 / ratio)}** the unscaled one") + ".")
    few = " (few rows saturate)" if saturated < FEW_SATURATED else ""
    if outcome == "little":
        parts.append(f"Within {NEAR_RATIO:g}× of each other: scaling changes little here{few}.")
    elif outcome == "unclear":
        worse, best_of_worse, better, worst_of_better = (("unscaled", unscaled.low, "scaled", scaled.high)
                                                         if ratio >= 1 else
                                                         ("scaled", scaled.low, "unscaled", unscaled.high))
        parts.append(f"**Unclear:** the means differ, but the ranges overlap: the best {worse} seed "
                     f"({_loss_words(best_of_worse)}) ended below the worst {better} one "
                     f"({_loss_words(worst_of_better)}).")
    elif outcome == "slight":
        first, second = ("scaled", "unscaled") if ratio > 1 else ("unscaled", "scaled")
        parts.append(f"Every {first} seed ends below every {second} one, but by less than "
                     f"{CLEAR_RATIO:g}× on average: a small effect.")
    elif outcome == "helps":
        parts.append("Scaling **helps**: every scaled seed ends below every unscaled one.")
        if unscaled_best_of_sweep is not None and np.isfinite(baseline):
            tried = f"any of the {rates_tried} rates we tried" if rates_tried else "any rate we tried"
            if unscaled_best_of_sweep > 0.5 * baseline:
                parts.append(f"Without scaling the head does not learn at {tried} (the best left a loss of "
                             f"{_loss_words(unscaled_best_of_sweep)} on the sweep's own seeds; looking at every "
                             f"word evenly scores {_loss_words(baseline)} on these runs' sentences, the mean over "
                             f"their {len(scaled_runs) + len(unscaled_runs)} runs).")
            elif unscaled_best_of_sweep > 3 * scaled.mean:
                parts.append(f"No rate rescues the unscaled head: the best of {tried.removeprefix('any of ')} "
                             f"left a loss of {_loss_words(unscaled_best_of_sweep)} (on the sweep's own seeds).")
    else:
        parts.append("Here every unscaled seed ends below every scaled one: scaling does **not** help at this d_k.")
    if max(scaled.mean, unscaled.mean) < LEARNED_LOSS_SHARE * baseline:
        parts.append(f"Both heads learn the task all the same: both losses are under {LEARNED_LOSS_SHARE:.0%} of "
                     f"the loss of looking at every word evenly ({_loss_words(baseline)}).")
    return Verdict(d_k, outcome, scaled, unscaled, ratio, seeds, saturated, " ".join(parts))


def max_curve_difference(run_a: TrainingRun, run_b: TrainingRun) -> float:
    """The largest difference between two runs' losses, step by step, relative to the first run's loss."""
    a, b = np.asarray(run_a.losses, dtype=np.float64), np.asarray(run_b.losses, dtype=np.float64)
    if len(a) != len(b):
        return float("inf")
    return float((np.abs(a - b) / np.maximum(np.abs(a), 1e-30)).max())


SOFT = 0.9  # a row whose largest weight is at most this is soft enough to show a Jacobian with colour in it


def jacobian_examples(weights, raw, i: int, layer_weights=None, head: int = 0):
    """Two rows to show the softmax Jacobian on: (soft, saturated), each (row index, head, scaled, weights).

    weights [n, n]: the model's weights of the chosen head; raw [n, n]: its scores Q Kᵀ before ÷√d_k;
    layer_weights [heads, n, n]: every head of the layer (for a soft row when the chosen head has none).
    soft: row i when it is soft (largest weight ≤ SOFT), else the head's softest row, else (a head with no soft
    row, such as a previous-word head) row i in the layer's head where it is softest.
    saturated: row i when the model's own row is saturated, else row i without ÷√d_k when that is, else the
    head's most saturated row without ÷√d_k (which may still fall short of SATURATED: the page then says so)."""
    weights = np.asarray(weights, dtype=np.float64)
    unscaled = softmax(np.asarray(raw, dtype=np.float64))
    soft_index = i if weights[i].max() <= SOFT else int(weights.max(axis=1).argmin())
    soft = (soft_index, head, True, weights[soft_index])
    if weights[soft_index].max() > SOFT and layer_weights is not None:
        other = np.asarray(layer_weights, dtype=np.float64)[:, i]  # [heads, n]: row i in every head
        softest_head = int(other.max(axis=1).argmin())
        if other[softest_head].max() < weights[soft_index].max():
            soft = (i, softest_head, True, other[softest_head])
    if weights[i].max() > SATURATED:
        saturated = (i, head, True, weights[i])
    else:
        j = i if unscaled[i].max() > SATURATED else int(unscaled.max(axis=1).argmax())
        saturated = (j, head, False, unscaled[j])
    return soft, saturated
