"""The Training lab's sections: its progress bar, and each measurement's picture and words (numbers: lessons/;
words: content/<lang>/training.toml, the verdicts' ui/sections/training_words.py)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from lessons import training, training_lab, training_rates, training_verdicts
from serving import shared
from ui import figures, tables
from ui.content import words
from ui.sections.training_words import closing_words, loss_words, ratio_words, small_words, verdict_words
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
            text = (words("training.progress_of", label=label, index=index + 1, total=len(runs))
                    if len(runs) > 1 else label)
            bar = bar or slot.progress(0.0, text=text)
            bar.progress(done, text=text)

        with st.spinner(label):  # seen only while waiting for a run the warm-up or another visitor is training
            results.append(shared.training_run(model, progress=progress, **run))
    slot.empty()
    return results


def loss_range(runs):
    """The table's loss, printed as the verdict sentences print it (training_words.loss_words)."""
    spread = training_verdicts.Spread.of(r.heldout_loss for r in runs)
    return f"{loss_words(spread.mean)} ({loss_words(spread.low)}–{loss_words(spread.high)})"


def share_versus_loss(scaled_runs, unscaled_runs) -> str:
    """Why two heads with the same right-word share can have very different losses: said with the table's numbers
    where two rows print the same share, else in general."""
    text = words("training.share_versus_loss")
    for k in COMPARE_D_K:
        share_a, share_b = (np.mean([r.final_on_target for r in runs[k]]) for runs in (scaled_runs, unscaled_runs))
        loss_a, loss_b = (np.mean([r.heldout_loss for r in runs[k]]) for runs in (scaled_runs, unscaled_runs))
        if pct(share_a) == pct(share_b) and max(loss_a, loss_b) > 2 * min(loss_a, loss_b):
            return text + " " + words("training.share_versus_loss_example", d_k=k, share=pct(share_a),
                                      loss_scaled=loss_words(loss_a), loss_unscaled=loss_words(loss_b))
    return text


def loss_section(run, setting: str, task: str, d_k: int, scaled: bool, teaching: bool) -> None:
    """1 · The loss goes down: the main run's loss per step beside the even-attention baseline."""
    st.header(words("training.loss_header"))
    if run.diverged:
        st.warning(words("training.diverged", step=len(run.losses) - 1))
    loss_fig = figures.line_chart(np.arange(len(run.losses)),
                                  {words("training.loss_series"): np.array(run.losses),
                                   words("training.even_series"): np.full(len(run.losses), run.baseline_loss)},
                                  words("training.loss_title", setting=setting), words("training.axis_step"),
                                  words("training.axis_loss"), teaching=teaching)
    figures.show(loss_fig, figures.figure_filename("training_loss", task, f"dk{d_k}-{'s' if scaled else 'u'}"),
                 teaching)
    share = run.final_loss / run.losses[0]
    st.markdown(words("training.loss_text", start=f"{run.losses[0]:.3f}", end=f"{run.final_loss:.4f}",
                      steps=run.steps, under_one_percent=bool(share < 0.01), share=pct(share),
                      baseline=loss_words(run.baseline_loss), heldout=training.HELDOUT_SENTENCES,
                      heldout_loss=small_words(run.heldout_loss), on_target=pct(run.final_on_target),
                      accuracy=pct(run.final_accuracy), rate=f"{run.lr:g}", rate_v=f"{run.lr_v:g}"))


def pattern_section(run, tokens: list[str], shown, setting: str, task: str, d_k: int, teaching: bool) -> None:
    """2 · The attention pattern appears: one sentence's attention at each snapshot, and the right answer."""
    st.header(words("training.pattern_header"))
    answer = training_lab.answer_pattern(shown, len(tokens))
    panels = [run.snapshots[step] for step in SNAPSHOT_STEPS if step in run.snapshots]
    titles = [(words("training.panel_before") if step == 0 else words("training.panel_after", steps=step))
              for step in SNAPSHOT_STEPS if step in run.snapshots]
    figures.show(figures.small_multiples(panels + [answer], tokens, titles + [words("training.panel_answer")],
                                         words("training.pattern_title", setting=setting),
                                         columns=len(panels) + 1, teaching=teaching),
                 figures.figure_filename("training_patterns", task, f"dk{d_k}"), teaching)
    right_first = training_lab.right_word_share(panels[0], shown)
    right_last = training_lab.right_word_share(panels[-1], shown)
    st.markdown(words("training.pattern_text", before=pct(right_first), after=pct(right_last),
                      unscored=not shown.scored[0].all()))


def comparison_section(model, task: str, compare_runs: list[dict], teaching: bool) -> None:
    """3 · Why divide by √d_k: scaled and unscaled heads, each at its own best rate, on several seeds."""
    st.header(words("training.compare_header"))
    seeds = training.LAB_SEEDS
    st.markdown(words("training.compare_intro", d_ks=", ".join(map(str, COMPARE_D_K)), steps=COMPARE_STEPS,
                      sentences=COMPARE_SENTENCES, value_rate=f"{training.VALUE_RATE:g}", rates=len(RATES_TRIED),
                      rate_low=f"{RATES_TRIED[0]:g}", rate_high=f"{RATES_TRIED[-1]:g}", seeds=len(seeds),
                      seeds_unclear=len(seeds) + len(training.EXTRA_SEEDS), heldout=training.HELDOUT_SENTENCES))
    st.markdown(words("training.textbook_start", saturated=pct(training.SATURATED)))
    if st.toggle(words("training.compare_toggle", runs=len(compare_runs)), value=True, key="train_compare"):
        compare = with_progress(model, words("training.progress_compare"), compare_runs)
        verdicts = comparison_verdicts(compare, task)
        unclear = [k for k, v in verdicts.items() if v.outcome == "unclear"]
        if unclear:  # borderline: more seeds for those d_k only, and every verdict made again on all of them
            compare += with_progress(model, words("training.progress_more"),
                                     training_lab.extra_seed_runs(compare_runs, unclear))
            verdicts = comparison_verdicts(compare, task)
        scaled_runs, unscaled_runs, disguised = training_lab.comparison_groups(compare, COMPARE_D_K)
        band = training_lab.loss_band

        scaled_name, unscaled_name = words("training.series_scaled"), words("training.series_unscaled")
        disguised_name = words("training.series_disguised", seed=seeds[0])
        counts = sorted({len(runs) for runs in scaled_runs.values()})  # 3, or 3 and 8 when a d_k trained more
        figures.show(figures.band_panels(
            np.arange(COMPARE_STEPS + 1),
            {f"d_k = {k}": {scaled_name: band(scaled_runs[k]), unscaled_name: band(unscaled_runs[k]),
                            disguised_name: (np.array(disguised[k].losses), None, None)} for k in COMPARE_D_K},
            words("training.compare_title", counts=counts, task=words(f"training.task_name_{task}")),
            words("training.axis_step"), words("training.axis_log_loss"), teaching=teaching),
            figures.figure_filename("training_scaling", task, "dk8-64-512"), teaching)
        scaled_cell, unscaled_cell = words("training.cell_scaled"), words("training.cell_unscaled")
        kinds = sorted([(k, scaled_cell, scaled_runs[k]) for k in COMPARE_D_K]
                       + [(k, unscaled_cell, unscaled_runs[k]) for k in COMPARE_D_K], key=lambda item: item[0])
        tables.dataframe({
            "d_k": [k for k, _, _ in kinds],
            words("training.column_scores"): [name for _, name, _ in kinds],
            words("training.column_rate"): [f"{runs[0].lr:g}" for _, _, runs in kinds],
            words("training.column_variance"): [f"{np.mean([r.start_qk_variance for r in runs]):.0f}"
                                                for _, _, runs in kinds],
            words("training.column_saturated"): [pct(np.mean([r.start_saturated for r in runs]))
                                                 for _, _, runs in kinds],
            words("training.column_seeds"): [len(runs) for _, _, runs in kinds],
            words("training.column_loss", heldout=training.HELDOUT_SENTENCES): [loss_range(runs)
                                                                                for _, _, runs in kinds],
            words("training.column_ratio"): [ratio_words(verdicts[k].ratio) for k, _, _ in kinds],
            words("training.column_share"): [pct(np.mean([r.final_on_target for r in runs])) for _, _, runs in kinds],
        }, hide_index=True)
        st.markdown(share_versus_loss(scaled_runs, unscaled_runs))
        st.markdown(words("training.rule", clear=f"{training_verdicts.CLEAR_RATIO:g}",
                          near=f"{training_verdicts.NEAR_RATIO:g}", extra=len(training.EXTRA_SEEDS)))
        for k in COMPARE_D_K:
            st.markdown(verdict_words(verdicts[k]))
        differences = training_lab.disguise_differences(scaled_runs, disguised, seeds[0])
        st.markdown(words("training.disguise", places=[
            words("training.disguise_place", tiny=bool(differences[k] < 1e-4), difference=pct(differences[k]), d_k=k)
            for k in COMPARE_D_K]))
        st.markdown(closing_words(verdicts))


def comparison_verdicts(runs: list, task: str) -> dict:
    """{d_k: training_verdicts.Verdict} from the comparison's runs, every seed trained so far."""
    scaled_runs, unscaled_runs, _ = training_lab.comparison_groups(runs, COMPARE_D_K)
    return {k: training_verdicts.scaling_verdict(k, scaled_runs[k], unscaled_runs[k],
                                                 training_rates.SWEEP_BEST_LOSSES.get((task, k, False)),
                                                 len(RATES_TRIED))
            for k in COMPARE_D_K}


def how_computed(run, seed: int, width: int, batch: int) -> None:
    """The expander that says how every number of the lab is computed (width: numbers per token; batch: the main
    run's sentences per step)."""
    seeds = training.LAB_SEEDS
    with st.expander(words("training.how_label")):
        st.markdown(words(
            "training.how", value_rate=f"{training.VALUE_RATE:g}", rates=", ".join(f"{r:g}" for r in RATES_TRIED),
            heldout=training.HELDOUT_SENTENCES, sweep_seeds=", ".join(map(str, SWEEP_SEEDS)), main_rate=f"{run.lr:g}",
            width=width, seed=seed, seeds=", ".join(map(str, seeds)), first_seed=seeds[0],
            extra_seeds=", ".join(map(str, training.EXTRA_SEEDS)), lab_steps=training.LAB_STEPS, batch=batch,
            compare_steps=COMPARE_STEPS, compare_sentences=COMPARE_SENTENCES, saturated=pct(training.SATURATED)))
