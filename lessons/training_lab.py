"""The Training lab's measurements on trained runs: the right answer's pattern, the right word's share, and the
comparison's runs grouped by setting with their loss bands (the training itself is lessons/training.py)."""

from __future__ import annotations

import numpy as np

from .training import EXTRA_SEEDS, LAB_SEEDS
from .training_verdicts import FEW_SATURATED, max_curve_difference


def answer_pattern(batch, n_words: int) -> np.ndarray:  # -> [n_words, n_words]
    """The right answer of the batch's first sentence as an attention pattern: 1 on each scored row's right word,
    blank (NaN) on the rows without one."""
    answer = np.zeros((n_words, n_words))
    answer[np.arange(n_words), batch.target[0]] = batch.scored[0]
    answer[~batch.scored[0]] = np.nan
    return answer


def right_word_share(weights: np.ndarray, batch) -> float:  # [n, n] -> share
    """The mean weight the scored rows of the batch's first sentence put on their right word."""
    return np.take_along_axis(weights, batch.target[0][:, None], axis=1)[batch.scored[0], 0].mean()


def comparison_groups(runs: list, d_ks) -> tuple[dict, dict, dict]:
    """The comparison's runs by d_k: the scaled ones, the unscaled ones, and the unscaled run in disguise
    (W_Q, W_K started smaller: qk_shrink != 1)."""
    scaled_runs = {k: [r for r in runs if r.d_k == k and r.scaled] for k in d_ks}
    unscaled_runs = {k: [r for r in runs if r.d_k == k and not r.scaled and r.qk_shrink == 1] for k in d_ks}
    disguised = {k: next(r for r in runs if r.d_k == k and r.qk_shrink != 1) for k in d_ks}
    return scaled_runs, unscaled_runs, disguised


def loss_band(runs: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # -> 3 x [steps + 1]
    """The runs' loss curves: their mean, and the lowest and highest seed at every step."""
    curves = np.array([r.losses for r in runs], dtype=np.float64)
    return curves.mean(axis=0), curves.min(axis=0), curves.max(axis=0)


def disguise_differences(scaled_runs: dict, disguised: dict, seed: int) -> dict:
    """Per d_k, the largest difference between the scaled run of `seed` and the unscaled run in disguise."""
    return {k: max_curve_difference(next(r for r in scaled_runs[k] if r.seed == seed), disguised[k])
            for k in disguised}


def extra_seed_runs(compare_runs: list[dict], d_ks) -> list[dict]:
    """The runs a borderline verdict adds: every EXTRA_SEEDS seed of the scaled and the unscaled head at each of
    d_ks, with the same settings as the comparison's first seed (compare_runs: serving.shared.lab_runs's)."""
    return [dict(run, seed=seed) for run in compare_runs
            if run["d_k"] in d_ks and run["qk_shrink"] == 1 and run["seed"] == LAB_SEEDS[0] for seed in EXTRA_SEEDS]


def closing_facts(verdicts: dict) -> tuple[tuple[int, ...], tuple[int, ...], dict[int, str]]:
    """What the comparison's last paragraph says, from its verdicts ({d_k: training_verdicts.Verdict}): (the d_k
    at which step 2's reason fits, the d_k where scaling helps but few rows start saturated, {d_k: outcome} of the
    others). Step 2's reason is that unscaled rows saturate and then pass back almost no gradient; it fits a d_k
    only where scaling helped by the verdict rule AND many unscaled rows start saturated."""
    helps = [k for k, v in verdicts.items() if v.outcome == "helps"]
    fits = tuple(k for k in helps if verdicts[k].saturated >= FEW_SATURATED)
    unexplained = tuple(k for k in helps if k not in fits)
    others = {k: v.outcome for k, v in verdicts.items() if v.outcome != "helps"}
    return fits, unexplained, others
