"""Speed of the training lab: 300 training steps of one head at d_model 384, beside its target.

    python bench/training.py

bench/run.py calls bench_training(); run alone, this file prints the same line.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_SECONDS = 2.0


def bench_training(line=None, d_k: int = 32, steps: int = 300, repeat: int = 3) -> float:
    """Best of `repeat` trainings (the page's main run: 32 sentences of 8 tokens a step); returns seconds."""
    from attention import training
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


if __name__ == "__main__":
    bench_training()
