"""Speed of the training lab, beside its targets: 300 training steps of one head at d_model 384 (the main run),
and a task the warm-up did not train: its main run and its 21 comparison runs (3 d_k × scaled/unscaled × 3 seeds,
and 3 disguised runs), and the 10 more runs of a d_k whose verdict is unclear on those seeds (copy: d_k 8), what a
visitor waits for under the progress bar.

    python bench/training.py

bench/run.py calls bench_training(); run alone, this file prints both lines.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_SECONDS = 2.0
TASK_TARGET_SECONDS = 5.0  # issue 30: any task but the warmed default, with a progress bar


def bench_training(line=None, d_k: int = 32, steps: int = 300, repeat: int = 3) -> float:
    """Best of `repeat` trainings (the page's main run: 32 sentences of 8 tokens a step); returns seconds."""
    from lessons import training
    from attention.model import AttentionModel

    model = AttentionModel()
    tables = model.embedding_tables()
    vocab_ids = model.vocabulary_ids(training.VOCABULARY)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        training.train("previous", tables, vocab_ids, d_k=d_k, steps=steps)
        best = min(best, time.perf_counter() - start)
    name = f"training lab: {steps} steps, d_model 384, d_k {d_k}"
    if line is not None:
        line(name, f"{best:.2f}", f"≤ {TARGET_SECONDS:g} s", "s", best <= TARGET_SECONDS)
    else:
        verdict = "ok" if best <= TARGET_SECONDS else "MISSED"
        print(f"{name:<58} {best:>10.2f} s    target ≤ {TARGET_SECONDS:g} s ({best / TARGET_SECONDS:.2f}× the "
              f"budget)  {verdict}")
    return best


def bench_task(line=None, task: str = "copy", repeat: int = 2) -> float:
    """Best of `repeat`: every run the Training lab trains for a new task (its page's default widgets)."""
    from lessons import training
    from attention.model import AttentionModel
    from serving import shared

    model = AttentionModel()
    tables = model.embedding_tables()
    vocab_ids = model.vocabulary_ids(training.VOCABULARY)
    from lessons import training_lab, training_verdicts

    main, compare = shared.lab_runs(task)

    def train(runs):
        return [training.train(run["task"], tables, vocab_ids, d_k=run["d_k"], scaled=run["scaled"],
                               steps=run["steps"], seed=run["seed"], n_sentences=run["n_sentences"],
                               snapshot_steps=run["snapshots"], lr=run["lr"], qk_shrink=run["qk_shrink"])
                for run in runs]

    best, extra = float("inf"), []
    for _ in range(repeat):
        start = time.perf_counter()
        done = train([main, *compare])[1:]
        # as the page does: more seeds at a d_k whose verdict is unclear on the first ones
        scaled_runs, unscaled_runs, _ = training_lab.comparison_groups(done, training.COMPARE_D_K)
        unclear = [k for k in training.COMPARE_D_K
                   if training_verdicts.scaling_verdict(k, scaled_runs[k], unscaled_runs[k]).outcome == "unclear"]
        extra = training_lab.extra_seed_runs(compare, unclear)
        train(extra)
        best = min(best, time.perf_counter() - start)
    name = f"training lab: a new task ({task}), {1 + len(compare) + len(extra)} runs"
    if line is not None:
        line(name, f"{best:.2f}", f"≤ {TASK_TARGET_SECONDS:g} s", "s", best <= TASK_TARGET_SECONDS)
    else:
        verdict = "ok" if best <= TASK_TARGET_SECONDS else "MISSED"
        print(f"{name:<58} {best:>10.2f} s    target ≤ {TASK_TARGET_SECONDS:g} s ({best / TASK_TARGET_SECONDS:.2f}× "
              f"the budget)  {verdict}")
    return best


if __name__ == "__main__":
    bench_training()
    bench_task()
