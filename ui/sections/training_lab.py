"""The Training lab's sections: its progress bar, and each measurement's picture and words (numbers: attention/)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from lessons import training, training_lab, training_rates

from lessons import training_verdicts
from serving import shared

from ui import figures, tables
from ui.text import pct

SNAPSHOT_STEPS = training.LAB_SNAPSHOTS
COMPARE_D_K, COMPARE_STEPS, COMPARE_SENTENCES = training.COMPARE_D_K, training.COMPARE_STEPS, training.COMPARE_SENTENCES
RATES_TRIED, SWEEP_SEEDS = training_rates.SWEEP_RATES, training_rates.SWEEP_SEEDS


def with_progress(model, label, runs):
    """Train (or fetch, once per process for everyone) several runs under one progress bar while any trains."""
    results, slot, bar = [], st.empty(), None
    for index, run in enumerate(runs):
        if shared.is_ready(shared.training_key(model, **run)):
            results.append(shared.training_run(model, **run))
            continue

        def progress(step, total, index=index):
            nonlocal bar
            done = (index + step / total) / len(runs)
            text = f"{label} ({index + 1} of {len(runs)})" if len(runs) > 1 else label
            bar = bar or slot.progress(0.0, text=text)
            bar.progress(done, text=text)

        with st.spinner(label):  # seen only while waiting for a run the warm-up or another visitor is training
            results.append(shared.training_run(model, progress=progress, **run))
    slot.empty()
    return results


def loss_range(runs):
    """The table's loss, printed as the verdict sentences print it (training_verdicts.loss_words)."""
    spread = training_verdicts.Spread.of(r.heldout_loss for r in runs)
    words = training_verdicts.loss_words
    return f"{words(spread.mean)} ({words(spread.low)}–{words(spread.high)})"


def share_versus_loss(scaled_runs, unscaled_runs) -> str:
    """Why two heads with the same right-word share can have very different losses: said with the table's numbers
    where two rows print the same share, else in general."""
    text = ("The **right word's share** and the **loss** measure different things: the share is where the attention "
            "goes, rounded to whole percent; the loss also counts the last few percent that go to wrong words and "
            "how close the output comes to its target, so it can differ many times over while the share barely "
            "moves.")
    for k in COMPARE_D_K:
        share_a, share_b = (np.mean([r.final_on_target for r in runs[k]]) for runs in (scaled_runs, unscaled_runs))
        loss_a, loss_b = (np.mean([r.heldout_loss for r in runs[k]]) for runs in (scaled_runs, unscaled_runs))
        if pct(share_a) == pct(share_b) and max(loss_a, loss_b) > 2 * min(loss_a, loss_b):
            return (text + f" At d_k = {k} both heads put {pct(share_a)} on the right word, yet their losses are "
                    f"{training_verdicts.loss_words(loss_a)} (scaled) and {training_verdicts.loss_words(loss_b)} (not scaled): the "
                    "percentage cannot show that difference.")
    return text


def loss_section(run, setting: str, task: str, d_k: int, scaled: bool, teaching: bool) -> None:
    """1 · The loss goes down: the main run's loss per step beside the even-attention baseline."""
    st.header("1 · The loss goes down")
    if run.diverged:
        st.warning(f"The loss became infinite at step {len(run.losses) - 1}: the steps were too big for this "
                   "setting, and training broke down.")
    loss_fig = figures.line_chart(np.arange(len(run.losses)),
                                  {"loss (each step's new sentences)": np.array(run.losses),
                                   "looking at every allowed word evenly": np.full(len(run.losses), run.baseline_loss)},
                                  f"Training loss · {setting}", "training step", "loss", teaching=teaching)
    figures.show(loss_fig, figures.figure_filename("training_loss", task, f"dk{d_k}-{'s' if scaled else 'u'}"),
                 teaching)
    share = run.final_loss / run.losses[0]
    st.markdown(
        f"The loss starts at **{run.losses[0]:.3f}** and ends at **{run.final_loss:.4f}** after {run.steps} steps "
        f"({'less than 1%' if share < 0.01 else pct(share)} of where it started). A head that looked at every "
        f"allowed word evenly would score {training_verdicts.loss_words(run.baseline_loss)} on this run's sentences (section 3 "
        "measures it again on its own runs' sentences, so its number differs a little). "
        f"On {training.HELDOUT_SENTENCES} sentences it never "
        f"saw, its loss is **{training_verdicts.small_words(run.heldout_loss)}**, it puts **{pct(run.final_on_target)}** of its "
        f"attention on the right word on average, and the right word gets the largest weight in "
        f"**{pct(run.final_accuracy)}** of the rows. (W_Q and W_K step at {run.lr:g}, this setting's own rate; W_V "
        f"at {run.lr_v:g}: see section 3.)"
    )


def pattern_section(run, words: list[str], shown, setting: str, task: str, d_k: int, teaching: bool) -> None:
    """2 · The attention pattern appears: one sentence's attention at each snapshot, and the right answer."""
    st.header("2 · The attention pattern appears")
    answer = training_lab.answer_pattern(shown, len(words))
    panels = [run.snapshots[step] for step in SNAPSHOT_STEPS if step in run.snapshots]
    titles = [("before training" if step == 0 else f"after {step} steps") for step in SNAPSHOT_STEPS
              if step in run.snapshots]
    figures.show(figures.small_multiples(panels + [answer], words, titles + ["the right answer"],
                                         f"One sentence's attention while the head learns · {setting}",
                                         columns=len(panels) + 1, teaching=teaching),
                 figures.figure_filename("training_patterns", task, f"dk{d_k}"), teaching)
    right_first = training_lab.right_word_share(panels[0], shown)
    right_last = training_lab.right_word_share(panels[-1], shown)
    st.markdown(
        f"Rows are the words looking, columns the words looked at (darker = more attention). In this sentence the "
        f"right word gets **{pct(right_first)}** of the attention on average before training and "
        f"**{pct(right_last)}** after. Nobody wrote this pattern in: the gradient found it."
        + (" Rows without a right answer (blank in the last panel) are not scored." if not shown.scored[0].all()
           else "")
    )


def comparison_section(model, task: str, compare_runs: list[dict], teaching: bool) -> None:
    """3 · Why divide by √d_k: scaled and unscaled heads, each at its own best rate, on several seeds."""
    st.header("3 · Why divide by √d_k? A fair test")
    seeds = training.LAB_SEEDS
    st.markdown(
        "To see what √d_k does, train the same head with and without it at three sizes d_k = "
        f"{', '.join(map(str, COMPARE_D_K))} ({COMPARE_STEPS} steps of {COMPARE_SENTENCES} sentences each). A test is "
        "only fair when each side gets its own best conditions. Without √d_k the scores are √d_k times larger, so "
        "one shared step size would be a much bigger step for the unscaled head. So, in every run: plain gradient "
        f"descent, W_V steps at {training.VALUE_RATE:g}, and W_Q and W_K step at **the rate that suits that setting "
        f"best**, found once by trying {len(RATES_TRIED)} rates ({RATES_TRIED[0]:g} to {RATES_TRIED[-1]:g}) on other "
        "seeds than the ones shown here. (We tune plain gradient descent rather than switch to an optimiser that "
        "adapts its own steps, such as Adam: it is the simplest learner, and the one for which the disguise at "
        f"the end of this section is exact.) Every setting trains from **{len(seeds)} seeds** (different starting "
        f"weights and sentences; {len(seeds) + len(training.EXTRA_SEEDS)} where the verdict is unclear) and is "
        f"judged on **{training.HELDOUT_SENTENCES} new sentences**."
    )
    st.markdown(
        "**The textbook's start.** √d_k is meant for q and k whose numbers have spread 1: then q·k has variance "
        "d_k. So W_Q and W_K start with exactly that spread (the table shows the measured variance of q·k beside "
        f"d_k). A softmax row is **saturated** when one weight is above {pct(training.SATURATED)}: the row is then "
        "almost flat to small changes of its scores, so it passes almost no gradient back."
    )
    if st.toggle(f"Run the comparison ({len(compare_runs)} trainings, more where a verdict is unclear; a few seconds "
                 "the first time)", value=True,
                 key="train_compare"):
        compare = with_progress(model, "Training heads to compare…", compare_runs)
        verdicts = comparison_verdicts(compare, task)
        unclear = [k for k, v in verdicts.items() if v.outcome == "unclear"]
        if unclear:  # borderline: more seeds for those d_k only, and every verdict made again on all of them
            compare += with_progress(model, "More seeds where the verdict is unclear…",
                                     training_lab.extra_seed_runs(compare_runs, unclear))
            verdicts = comparison_verdicts(compare, task)
        scaled_runs, unscaled_runs, disguised = training_lab.comparison_groups(compare, COMPARE_D_K)
        band = training_lab.loss_band

        scaled_name, unscaled_name = "÷√d_k (mean, band: lowest to highest seed)", "not scaled (mean and band)"
        disguised_name = f"not scaled, W_Q, W_K started d_k^¼ smaller, rate ÷ √d_k (seed {seeds[0]})"
        figures.show(figures.band_panels(
            np.arange(COMPARE_STEPS + 1),
            {f"d_k = {k}": {scaled_name: band(scaled_runs[k]), unscaled_name: band(unscaled_runs[k]),
                            disguised_name: (np.array(disguised[k].losses), None, None)} for k in COMPARE_D_K},
            f"Training loss with and without ÷√d_k, {seed_counts(scaled_runs)} seeds · task: {task}",
            "training step", "loss (log scale)", teaching=teaching),
            figures.figure_filename("training_scaling", task, "dk8-64-512"), teaching)
        kinds = [(k, "÷ √d_k", scaled_runs[k]) for k in COMPARE_D_K] + [(k, "not scaled", unscaled_runs[k])
                                                                         for k in COMPARE_D_K]
        kinds.sort(key=lambda item: item[0])
        tables.dataframe({
            "d_k": [k for k, _, _ in kinds],
            "scores": [name for _, name, _ in kinds],
            "W_Q, W_K rate": [f"{runs[0].lr:g}" for _, _, runs in kinds],
            "q·k variance at start": [f"{np.mean([r.start_qk_variance for r in runs]):.0f}"
                                         for _, _, runs in kinds],
            "rows saturated at start": [pct(np.mean([r.start_saturated for r in runs])) for _, _, runs in kinds],
            "seeds": [len(runs) for _, _, runs in kinds],
            f"loss on {training.HELDOUT_SENTENCES} new sentences: mean (seeds' range)":
                [loss_range(runs) for _, _, runs in kinds],
            "unscaled ÷ scaled": [training_verdicts.ratio_words(verdicts[k].ratio) for k, _, _ in kinds],
            "right word's share": [pct(np.mean([r.final_on_target for r in runs])) for _, _, runs in kinds],
        }, hide_index=True)
        st.markdown(share_versus_loss(scaled_runs, unscaled_runs))
        st.markdown(RULE_WORDS)
        for k in COMPARE_D_K:
            st.markdown(verdicts[k].sentence)
        differences = training_lab.disguise_differences(scaled_runs, disguised, seeds[0])
        st.markdown(
            "**The same training in disguise.** The dotted line is an unscaled head whose W_Q and W_K start d_k^¼ "
            "times smaller and step at the scaled rate ÷ √d_k. It lands on the scaled curve of the same seed "
            "(the largest difference between the two losses, step by step: "
            + ", ".join(f"{'less than 0.01%' if differences[k] < 1e-4 else pct(differences[k])} at d_k = {k}"
                        for k in COMPARE_D_K)
            + "; the page trains in 32-bit numbers, whose rounding differs between the two, and a test holds them "
            "equal to 9 digits in 64-bit). Why: shrinking W_Q and W_K by d_k^¼ each shrinks every q·k by √d_k, exactly what ÷√d_k "
            "does, and with plain gradient descent the smaller step keeps them shrunk at every step. So ÷√d_k is a "
            "change of units, not a new ability: what it buys is a start outside softmax's flat region at every d_k, "
            "without shrinking the starting weights and the rate anew for each d_k."
        )
        st.markdown(training_lab.closing_words(verdicts)[1])


RULE_WORDS = (
    f"**How the verdicts are made.** The effect is the ratio of the mean losses (unscaled ÷ scaled); the spread is "
    f"each side's range, lowest to highest seed. Scaling **helps** when the ratio is "
    f"{training_verdicts.CLEAR_RATIO:g}× or more and every scaled seed ends below every unscaled one; it "
    f"**changes little** when the means are within {training_verdicts.NEAR_RATIO:g}× of each other; "
    f"a larger ratio whose ranges overlap is **unclear**, and then {len(training.EXTRA_SEEDS)} more seeds are "
    "trained and the verdict is made again on all of them. (The same the other way round is a verdict against "
    f"scaling; ranges apart but a ratio under {training_verdicts.CLEAR_RATIO:g}× is a small effect.)")


def seed_counts(runs_by_d_k: dict) -> str:
    """'3', or '3 or 8' when a borderline d_k trained more seeds."""
    return " or ".join(str(n) for n in sorted({len(runs) for runs in runs_by_d_k.values()}))


def comparison_verdicts(runs: list, task: str) -> dict:
    """{d_k: training_verdicts.Verdict} from the comparison's runs, every seed trained so far."""
    scaled_runs, unscaled_runs, _ = training_lab.comparison_groups(runs, COMPARE_D_K)
    return {k: training_verdicts.scaling_verdict(k, scaled_runs[k], unscaled_runs[k],
                                        training_rates.SWEEP_BEST_LOSSES.get((task, k, False)), len(RATES_TRIED))
            for k in COMPARE_D_K}


def how_computed(run, seed: int) -> None:
    """The expander that says how every number of the lab is computed."""
    seeds = training.LAB_SEEDS
    with st.expander("How this is computed"):
        st.markdown(
            "Forward: Q = X W_Q, K = X W_K, V = X W_V; scores = Q Kᵀ / √d_k; weights = softmax(scores); output = "
            "weights V. Loss: the mean squared difference between each scored word's output and the summary of its "
            "right word. Backward, by hand, one step at a time in reverse (lessons/training.py): weighted sum → "
            "softmax (through its Jacobian) → scaling → dot products → projections. Tests hold these gradients equal "
            "to finite differences and to PyTorch's autograd. **Optimiser**: plain gradient descent, no momentum. "
            f"**Rates**: W_V {training.VALUE_RATE:g} in every run; W_Q and W_K per setting (task, d_k, scaled or "
            f"not), the rate of {', '.join(f'{r:g}' for r in RATES_TRIED)} with the lowest loss on "
            f"{training.HELDOUT_SENTENCES} new sentences on its worst seed of {', '.join(map(str, SWEEP_SEEDS))}, "
            "counting the seeds at twice the rate too (so the pick is not the last rate before training blows up "
            "or stalls), found once by bench/sweep_training.py (here: "
            f"{run.lr:g} for the main run; a d_k the sweep did not try takes the nearest one's). **Start**: W_Q and W_K "
            "drawn so each number of q and k has variance 1, W_V with spread 1/√384. **Seeds**: the main run "
            f"{seed}; the comparison {', '.join(map(str, seeds))} (seed {seeds[0]} for the disguised run), and "
            f"{', '.join(map(str, training.EXTRA_SEEDS))} too at a d_k whose verdict is unclear on those. "
            f"**Sentences**: the main run {training.LAB_STEPS} steps of 32 new sentences, the comparison "
            f"{COMPARE_STEPS} steps of {COMPARE_SENTENCES}; every run is judged on {training.HELDOUT_SENTENCES} "
            "sentences it never saw. A row is saturated when its largest weight is above "
            f"{pct(training.SATURATED)}; the gradient a row passes back is the size (square root of the sum of "
            "squares) of the gradient reaching its scores, averaged over rows at the start. **Verdicts**: the ratio of "
            "the mean losses beside each side's range, by the rule stated above the verdicts. Why not Adam: it "
            "divides each step by the gradient's own size, which removes the √d_k-larger gradient of the unscaled "
            "head but not its √d_k-larger effect on the scores, so it too would need a rate per setting; and its "
            "disguised run would step at the rate ÷ d_k^¼ (not ÷ √d_k), exact only with Adam's small ε enlarged by "
            "d_k^¼ too."
        )
