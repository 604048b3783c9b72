"""Results that do not depend on the session, computed once per process and shared by every visitor.

The pronoun page's built-in test set (16 model passes) and the Training lab's default runs (seven trainings)
are the same for everyone. They are kept here, read-only, and a background warm-up computes them right after
the first visitor's model load, at low priority, so nobody waits for them on a first visit.
"""

from __future__ import annotations

import logging
import os
import threading

from attention import pronoun, training
from attention.model import AttentionModel

from .memory import ByteBudgetCache

_LOGGER = logging.getLogger(__name__)

# A few MB in all (a training run keeps its small weight matrices and snapshots); bounded all the same.
SHARED_RESULTS = ByteBudgetCache(32 * 2**20, max_computing=1, max_entries=48)
BUILTIN_PRONOUN_SCORINGS = {"count": 0}   # how often the built-in pronoun test set was scored (tests read it)


def builtin_pronoun_scoreboard(model: AttentionModel) -> pronoun.Scoreboard:
    """The pronoun page's built-in test set, scored once per process.

    It reads the model's own attention, not the bounded cache of visitors' sentences (16 passes would push
    every user's sentences out of it).
    """
    def score():
        BUILTIN_PRONOUN_SCORINGS["count"] += 1

        def attentions_of(text):
            analysis = model.analyze(text)
            return analysis.attentions, analysis.tokens, analysis.word_ids

        return pronoun.score_heads(pronoun.PAIRS, attentions_of)

    return SHARED_RESULTS.get_or_compute(("pronoun test set", model.name), score)


def training_key(model: AttentionModel, **run) -> tuple:
    return ("training", model.name, *sorted(run.items()))


def training_run(model: AttentionModel, progress=None, **run) -> training.TrainingRun:
    """One Training lab run (task, d_k, scaled, seed, steps, n_sentences, snapshots), trained once per process.
    progress(step, total) is called only when this call is the one that trains."""
    def train():
        return training.train(run["task"], model.embedding_tables(), model.vocabulary_ids(training.VOCABULARY),
                              d_k=run["d_k"], scaled=run["scaled"], steps=run["steps"], seed=run["seed"],
                              n_sentences=run["n_sentences"], snapshot_steps=run["snapshots"], progress=progress)

    return SHARED_RESULTS.get_or_compute(training_key(model, **run), train)


def lab_runs(task: str = training.LAB_DEFAULT_TASK, d_k: int = training.LAB_DEFAULT_D_K, scaled: bool = True,
             seed: int = 0) -> tuple[dict, list[dict]]:
    """The Training lab's main run and its six comparison runs for one setting of the page's widgets."""
    main = dict(task=task, d_k=d_k, scaled=scaled, seed=seed, steps=training.LAB_STEPS, n_sentences=32,
                snapshots=training.LAB_SNAPSHOTS)
    compare = [dict(task=task, d_k=k, scaled=sc, seed=seed, steps=training.COMPARE_STEPS,
                    n_sentences=training.COMPARE_SENTENCES, snapshots=()) for k in training.COMPARE_D_K
               for sc in (True, False)]
    return main, compare


_warmup_started = threading.Event()


def start_warmup(model: AttentionModel) -> None:
    """Once per process, in the background at the lowest CPU priority: the built-in pronoun test set and the
    Training lab's default runs. A visitor who asks for one of them first simply computes it (and the
    warm-up then finds it done); one who asks while the warm-up computes it waits for that result."""
    if _warmup_started.is_set() or os.environ.get("ATTENTION_WARMUP", "1") == "0":
        return
    _warmup_started.set()

    def warm():
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)  # Linux: this thread only
        except (AttributeError, OSError):
            pass
        try:
            builtin_pronoun_scoreboard(model)
            if model.embedding_tables() is not None:
                main, compare = lab_runs()
                for run in [main, *compare]:
                    training_run(model, **run)
        except Exception:  # a warm-up must never take the server down; the page will say what failed
            _LOGGER.exception("warm-up failed")

    threading.Thread(target=warm, name="warm-up", daemon=True).start()
