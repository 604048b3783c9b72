"""The Training lab's numbers as it prints them everywhere (its sentences and its table alike), and its verdicts
and closing paragraph said from the facts of lessons/training_verdicts.py (texts: content/<lang>/training_verdicts.toml)."""

from __future__ import annotations

import math

import numpy as np

from lessons import training, training_lab, training_verdicts
from lessons.training_verdicts import CLEAR_RATIO, FEW_SATURATED, LEARNED_LOSS_SHARE, NEAR_RATIO
from ui.content import words

TINY = 1e-7  # below this a number is "less than 0.0000001": a student reads no scientific notation


def small_words(x: float) -> str:
    """A small positive number a student can read, never in scientific notation: 0.00042, 0.031."""
    if not np.isfinite(x):
        return words("training_verdicts.number_infinite")
    if x < TINY:
        return words("training_verdicts.number_tiny", limit=f"{TINY:.7f}")
    return f"{x:.{max(0, 1 - math.floor(math.log10(x)))}f}" if x < 1 else f"{x:.2f}"


def loss_words(x: float) -> str:
    """A loss: two significant digits below 0.1 (0.00035, 0.014), three decimals above (0.164)."""
    if not np.isfinite(x):
        return words("training_verdicts.loss_infinite")
    return small_words(x) if x < 0.1 else f"{x:.3f}"


def ratio_words(ratio: float) -> str:
    """A ratio as the lab prints it: 1.17×, 3.4×, 18×, 340×."""
    if not np.isfinite(ratio):
        return words("training_verdicts.ratio_infinite")
    return f"{ratio:.2f}×" if ratio < 2 else f"{ratio:.1f}×" if ratio < 10 else f"{ratio:.0f}×"


def share_words(x: float) -> str:
    """A share in whole percent, with one decimal below 1% (0.4%) so a small share does not read as none."""
    return f"{x:.0%}" if x >= 0.01 or x == 0 else f"{x:.1%}"


def range_words(spread: training_verdicts.Spread) -> str:
    if not np.isfinite(spread.high):
        return words("training_verdicts.loss_mean", mean=loss_words(spread.mean))
    return words("training_verdicts.loss_range", mean=loss_words(spread.mean), low=loss_words(spread.low),
                 high=loss_words(spread.high))


def verdict_words(v: training_verdicts.Verdict) -> str:
    """One d_k's verdict: the mechanism, the losses with their ratio and ranges, the outcome's sentence."""
    gradient = v.shows_gradient
    parts = [words("training_verdicts.verdict_mechanism", d_k=v.d_k, saturated=share_words(v.saturated),
                   saturated_scaled=share_words(v.saturated_scaled), gradient=gradient,
                   through_saturated=small_words(v.through_saturated) if gradient else "",
                   through_share=share_words(v.through_saturated / v.through_other) if gradient else "",
                   through_other=small_words(v.through_other) if gradient else ""),
             words("training_verdicts.verdict_losses", heldout=training.HELDOUT_SENTENCES, seeds=v.seeds,
                   scaled=range_words(v.scaled), unscaled=range_words(v.unscaled), unscaled_worse=v.unscaled_worse,
                   ratio=ratio_words(v.ratio if v.unscaled_worse else 1 / v.ratio))]
    if v.outcome == "little":
        parts.append(words("training_verdicts.verdict_little", near=f"{NEAR_RATIO:g}",
                           few_saturated=bool(v.saturated < FEW_SATURATED)))
    elif v.outcome == "unclear":
        best_of_worse, worst_of_better = v.overlap
        parts.append(words("training_verdicts.verdict_unclear", unscaled_worse=v.unscaled_worse,
                           best_of_worse=loss_words(best_of_worse), worst_of_better=loss_words(worst_of_better)))
    elif v.outcome == "slight":
        parts.append(words("training_verdicts.verdict_slight", unscaled_worse=v.ratio > 1, clear=f"{CLEAR_RATIO:g}"))
    elif v.outcome == "helps":
        parts.append(words("training_verdicts.verdict_helps"))
        if v.sweep_note == "never_learns":
            parts.append(words("training_verdicts.verdict_never_learns", rates_tried=v.rates_tried or 0,
                               best=loss_words(v.unscaled_best_of_sweep), baseline=loss_words(v.baseline),
                               runs=v.runs))
        elif v.sweep_note == "no_rescue":
            parts.append(words("training_verdicts.verdict_no_rescue", rates_tried=v.rates_tried or 0,
                               best=loss_words(v.unscaled_best_of_sweep)))
    else:
        parts.append(words("training_verdicts.verdict_hurts"))
    if v.learned_anyway:
        parts.append(words("training_verdicts.verdict_learned_anyway", share=f"{LEARNED_LOSS_SHARE:.0%}",
                           baseline=loss_words(v.baseline)))
    return " ".join(parts)


def closing_words(verdicts: dict) -> str:
    """The comparison's last paragraph: where step 2's reason fits, where scaling helps without it, the others."""
    fits, unexplained, others = training_lab.closing_facts(verdicts)
    parts = [words("training_verdicts.closing_reason")]
    if fits:
        parts.append(words("training_verdicts.closing_fits", places=[
            words("training_verdicts.closing_fit_place", d_k=k, saturated=f"{verdicts[k].saturated:.0%}",
                  ratio=ratio_words(verdicts[k].ratio)) for k in fits]))
    parts += [words("training_verdicts.closing_unexplained", d_k=k, ratio=ratio_words(verdicts[k].ratio),
                    saturated=f"{verdicts[k].saturated:.0%}") for k in unexplained]
    if not fits and not unexplained:
        parts.append(words("training_verdicts.closing_none_helps"))
    if others:
        parts.append(words("training_verdicts.closing_others", places=[
            words("training_verdicts.closing_other_place", d_k=k, outcome=outcome) for k, outcome in others.items()]))
    return " ".join(parts)
