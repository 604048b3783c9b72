"""What the Training lab's runs show: one number over the seeds (Spread), the comparison's verdict (scaled
against unscaled, each at its own best learning rate, judged on new sentences), and the rows whose softmax Jacobian
the lab draws. The head, its forward and backward pass and the training loop are in lessons/training.py."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lessons.training import SATURATED, TrainingRun, softmax


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


# What a "helps" verdict adds about the sweep's best unscaled rate (None: nothing to add).
SWEEP_NOTES = ("never_learns", "no_rescue")


@dataclass(frozen=True)
class Verdict:
    """One d_k's comparison as facts; ui/sections/training_words.py says it."""

    d_k: int
    outcome: str               # one of OUTCOMES
    scaled: Spread             # held-out loss over the seeds
    unscaled: Spread
    ratio: float               # unscaled mean ÷ scaled mean
    seeds: int
    saturated: float           # share of the unscaled head's rows saturated at the start, mean over its seeds
    saturated_scaled: float    # the same for the scaled head
    through_saturated: float   # mean gradient size a saturated unscaled row passes back at the start (nan: none)
    through_other: float       # the same for the unscaled head's other rows
    baseline: float            # loss of looking at every allowed word evenly, mean over every run of this d_k
    runs: int                  # how many runs that baseline is the mean over
    unscaled_best_of_sweep: float | None  # the sweep's best mean loss of the unscaled setting (sweep's own seeds)
    rates_tried: int | None    # how many rates the sweep tried
    sweep_note: str | None     # one of SWEEP_NOTES, only on a "helps" verdict
    learned_anyway: bool       # both losses under LEARNED_LOSS_SHARE of the baseline: both heads learned the task

    @property
    def shows_gradient(self) -> bool:
        """Whether the mechanism's gradient sizes were measured (both kinds of row occurred)."""
        return bool(np.isfinite(self.through_saturated) and np.isfinite(self.through_other)
                    and self.through_other > 0)

    @property
    def unscaled_worse(self) -> bool:
        return self.ratio >= 1

    @property
    def overlap(self) -> tuple[float, float]:
        """An unclear verdict's evidence: (the best seed of the worse side, the worst seed of the better side)."""
        return (self.unscaled.low, self.scaled.high) if self.unscaled_worse else (self.scaled.low, self.unscaled.high)


def scaling_verdict(d_k: int, scaled_runs, unscaled_runs, unscaled_best_of_sweep: float | None = None,
                    rates_tried: int | None = None) -> Verdict:
    """The verdict for one d_k, from the runs of every seed, each setting at its own W_Q/W_K rate: the mechanism
    (how many rows start saturated, how much gradient a saturated row passes), the held-out losses with their
    ratio and ranges, and the outcome by the rule above (verdict_outcome). unscaled_best_of_sweep: the unscaled
    setting's best mean loss over all rates_tried rates of the sweep (training_rates.SWEEP_LOSSES), for "at any
    rate we tried"."""
    scaled, unscaled = (Spread.of(r.heldout_loss for r in runs) for runs in (scaled_runs, unscaled_runs))
    baseline = _mean_finite(r.baseline_loss for r in [*scaled_runs, *unscaled_runs])
    outcome, ratio = verdict_outcome(scaled, unscaled), loss_ratio(scaled, unscaled)
    note = None
    if outcome == "helps" and unscaled_best_of_sweep is not None and np.isfinite(baseline):
        if unscaled_best_of_sweep > 0.5 * baseline:
            note = "never_learns"
        elif unscaled_best_of_sweep > 3 * scaled.mean:
            note = "no_rescue"
    return Verdict(d_k, outcome, scaled, unscaled, ratio, min(len(scaled_runs), len(unscaled_runs)),
                   saturated=_mean_finite(r.start_saturated for r in unscaled_runs),
                   saturated_scaled=_mean_finite(r.start_saturated for r in scaled_runs),
                   through_saturated=_mean_finite(r.start_row_grad_saturated for r in unscaled_runs),
                   through_other=_mean_finite(r.start_row_grad_other for r in unscaled_runs),
                   baseline=baseline, runs=len(scaled_runs) + len(unscaled_runs),
                   unscaled_best_of_sweep=unscaled_best_of_sweep, rates_tried=rates_tried, sweep_note=note,
                   learned_anyway=bool(max(scaled.mean, unscaled.mean) < LEARNED_LOSS_SHARE * baseline))


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
