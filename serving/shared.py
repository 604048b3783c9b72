"""Results that do not depend on the session, computed once per process and shared by every visitor.

The pronoun page's built-in test set (16 model passes) and the Training lab's default runs (22 trainings)
are the same for everyone. They are kept here, read-only, and a background warm-up computes them right after
the first visitor's model load, in a worker process at low priority, so nobody waits for them on a first visit.
They come out the same on every start, so they are also kept on disk (serving/diskcache.py): after a restart the
worker reads them instead of computing them.
The worker also runs the model on the pages' built-in sentences, which go into the per-sentence cache, and
measures the meaning page's built-in word sets (MEANING_RESULTS).
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from lessons import explain, meaning, pronoun, training
from attention.model import AttentionModel

from . import diskcache
from .memory import ByteBudgetCache
from .sentences import store_sentence_pass, stored_core_attentions

_LOGGER = logging.getLogger(__name__)
_ROOT = Path(__file__).resolve().parents[1]

# The pages' built-in sentences (the pronoun page's example and its contrast sentence, the compare page's two):
# every first visitor of those pages reads them, so their model passes are warmed once per process too (into
# the shared per-sentence cache, serving/sentences.py).
PRONOUN_DEFAULT = "A dog ate the food because it was hungry."
COMPARE_DEFAULTS = ("I sat on the river bank and watched the water.", "I opened an account at the bank downtown.")
BUILTIN_SENTENCES = (PRONOUN_DEFAULT, pronoun.contrast_partner(PRONOUN_DEFAULT), *COMPARE_DEFAULTS)

# A few MB in all (a training run keeps its small weight matrices and snapshots); bounded all the same.
# 22 runs per Training lab task (most of them a few kB: the comparison keeps no weights).
SHARED_RESULTS = ByteBudgetCache(32 * 2**20, max_computing=1, max_entries=160)
# The meaning page's measurements (a few kB each): apart from SHARED_RESULTS, whose one computation at a time would
# make a class typing its own sets wait for each other and for the trainings.
MEANING_RESULTS = ByteBudgetCache(8 * 2**20, max_computing=2, max_entries=200)
BUILTIN_PRONOUN_SCORINGS = {"count": 0}   # how often the built-in pronoun test set was scored (tests read it)


def pronoun_key(model: AttentionModel) -> tuple:
    return ("pronoun test set", model.name)


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

    key = pronoun_key(model)
    return SHARED_RESULTS.get_or_compute(key, lambda: diskcache.stored("pronoun", key, model, score))


def meaning_key(model: AttentionModel, word: str, group_a, group_b) -> tuple:
    return ("meaning", model.name, word.strip(), tuple(group_a), tuple(group_b))


def meaning_measurement(model: AttentionModel, word: str, group_a: list[str], group_b: list[str],
                        progress=None) -> meaning.Measurement:
    """The meaning page's numbers for one word and its two groups, measured once per process (the built-in sets
    by the warm-up); progress(share) is called only when this call is the one that measures. A WordSetError
    is raised, never kept. The built-in sets are also kept on disk (serving/diskcache.py), like the Training lab's
    runs: measuring them took the warm-up 0.7 CPU-seconds after every start, while the first visitor's page drew.
    What a visitor typed is kept in this process's memory only, never written to the server's disk."""
    key = meaning_key(model, word, group_a, group_b)

    def measure():
        return meaning.measure(model, word, group_a, group_b, progress)

    if key in {builtin for _, builtin in builtin_meaning_keys(model)}:
        return MEANING_RESULTS.get_or_compute(key, lambda: diskcache.stored("meaning", key, model, measure))
    return MEANING_RESULTS.get_or_compute(key, measure)


def builtin_meaning_keys(model: AttentionModel):
    for word_set in meaning.BUILT_IN.values():
        yield word_set, meaning_key(model, word_set.word, word_set.meaning_a, word_set.meaning_b)


# The compare page's 72-head ranking of one word in two sentences (72 numbers): computed once per process for
# every visitor of the same pair, not on every visit (90 projections, the page's largest piece of work).
COMPARE_GRIDS = ByteBudgetCache(2**20, max_entries=512)


def compare_grid(model: AttentionModel, texts: tuple[str, str], analyses, positions: tuple[int, int]):
    """lessons.explain.head_output_similarity for a word at `positions` in two sentences' model passes."""
    def grid():
        inputs = [[analysis.hidden_states[layer].astype("float64") for layer in range(model.n_layers)]
                  for analysis in analyses]
        return explain.head_output_similarity(*inputs, [model.layer_weights(la) for la in range(model.n_layers)],
                                              model.n_heads, *positions)

    return COMPARE_GRIDS.get_or_compute(("compare grid", model.name, *texts, *positions), grid)


def training_key(model: AttentionModel, **run) -> tuple:
    return ("training", model.name, *sorted(run.items()))


def is_ready(key: tuple) -> bool:
    """Already computed: a page then shows no spinner (each one is two more elements for the browser)."""
    return key in (MEANING_RESULTS if key[0] == "meaning" else SHARED_RESULTS)


def training_run(model: AttentionModel, progress=None, **run) -> training.TrainingRun:
    """One Training lab run (task, d_k, scaled, seed, steps, n_sentences, snapshots, lr, qk_shrink), trained once
    per process. progress(step, total) is called only when this call is the one that trains. A comparison run
    (no snapshots) keeps only its numbers, not its weights (1.6 MB at d_k = 512; the page never shows them)."""
    def train():
        done = training.train(run["task"], model.embedding_tables(), model.vocabulary_ids(training.VOCABULARY),
                              d_k=run["d_k"], scaled=run["scaled"], steps=run["steps"], seed=run["seed"],
                              n_sentences=run["n_sentences"], snapshot_steps=run["snapshots"], progress=progress,
                              lr=run["lr"], qk_shrink=run["qk_shrink"])
        if not run["snapshots"]:
            done.params = None
        return done

    key = training_key(model, **run)
    return SHARED_RESULTS.get_or_compute(key, lambda: diskcache.stored("training", key, model, train))


def lab_runs(task: str = training.LAB_DEFAULT_TASK, d_k: int = training.LAB_DEFAULT_D_K, scaled: bool = True,
             seed: int = 0) -> tuple[dict, list[dict]]:
    """The Training lab's main run and its comparison runs for one setting of the page's widgets: at each
    COMPARE_D_K, scaled and unscaled on every LAB_SEEDS seed (each at its own W_Q/W_K rate), then the unscaled run
    that is the scaled one in disguise (training.equivalent_unscaled), on the first seed."""
    main = dict(task=task, d_k=d_k, scaled=scaled, seed=seed, steps=training.LAB_STEPS, n_sentences=32,
                snapshots=training.LAB_SNAPSHOTS, lr=training.qk_rate(task, d_k, scaled), qk_shrink=1.0)
    common = dict(task=task, steps=training.COMPARE_STEPS, n_sentences=training.COMPARE_SENTENCES, snapshots=())
    compare = [dict(common, d_k=k, scaled=sc, seed=one_seed, lr=training.qk_rate(task, k, sc), qk_shrink=1.0)
               for k in training.COMPARE_D_K for sc in (True, False) for one_seed in training.LAB_SEEDS]
    compare += [dict(common, d_k=k, seed=training.LAB_SEEDS[0], **training.equivalent_unscaled(task, k))
                for k in training.COMPARE_D_K]
    return main, compare


_warmup_started = threading.Event()
WORKER_TIMEOUT_SECONDS = 600.0


def warm_items(model: AttentionModel):
    """Everything the warm-up computes, one result at a time, in the order pages need them (run in a worker
    process: python -m serving.warmup): ("shared", key, value) for SHARED_RESULTS, ("sentence", sentence,
    (model pass, core attentions)) for the pages' built-in sentences, ("meaning", key, value) for MEANING_RESULTS
    (the meaning page's built-in word sets)."""
    yield "shared", pronoun_key(model), builtin_pronoun_scoreboard(model)
    for sentence in BUILTIN_SENTENCES:
        analysis = model.analyze(sentence)
        yield "sentence", sentence, (analysis, stored_core_attentions(model, analysis))
    if model.backend == "numpy":  # the meaning page's built-in word sets (its knockouts need the numpy model)
        for word_set, key in builtin_meaning_keys(model):
            yield "meaning", key, meaning_measurement(model, word_set.word, list(word_set.meaning_a),
                                                     list(word_set.meaning_b))
    if model.embedding_tables() is not None:
        main, compare = lab_runs()
        for run in [main, *compare]:
            yield "shared", training_key(model, **run), training_run(model, **run)


def _store(model: AttentionModel, kind: str, key, value) -> None:
    if kind == "shared":
        SHARED_RESULTS.get_or_compute(key, lambda: value)
    elif kind == "meaning":
        MEANING_RESULTS.get_or_compute(key, lambda: value)
    else:
        store_sentence_pass(model, key, *value)


def start_warmup(model: AttentionModel) -> None:
    """Once per process: the built-in pronoun test set, the pages' built-in sentences and the Training lab's
    default runs, computed in a worker process at the lowest CPU priority and shared with every session, each
    as soon as the worker has it (the pronoun page's test set about a second after start, not after the
    trainings too).

    A process, not a thread: a thread of this server would hold Python's lock for seconds while the first
    visitors' pages wait for it, and so did the built-in sentences' model passes when the server ran them (~60 ms:
    the page opened at that moment was 1.2x slower than with a warm-up without them, 6 pairs). A visitor who asks for a result before
    the worker has it computes it (and the worker's copy is then dropped)."""
    if _warmup_started.is_set() or os.environ.get("ATTENTION_WARMUP", "1") == "0":
        return
    _warmup_started.set()

    def warm():
        try:
            with tempfile.TemporaryFile() as worker_log:
                # A session of its own (start_new_session): its own scheduling group, see serving/warmup.py. No
                # preexec_fn: a function run between fork and exec is unsafe in a server with threads.
                # Its standard input is a pipe nobody writes to: its end tells the worker the server is gone.
                worker = subprocess.Popen([sys.executable, "-m", "serving.warmup", model.name, str(os.getpid())],
                                          cwd=_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=worker_log, start_new_session=True)
                deadline = threading.Timer(WORKER_TIMEOUT_SECONDS, worker.kill)
                deadline.start()
                try:
                    with worker.stdout:
                        while True:
                            try:
                                kind, key, value = pickle.load(worker.stdout)
                            except EOFError:
                                break
                            _store(model, kind, key, value)
                    worker.stdin.close()
                    if worker.wait() != 0:
                        worker_log.seek(0)
                        raise RuntimeError(f"warm-up worker exited with {worker.returncode}: "
                                           f"{worker_log.read().decode(errors='replace')[-2000:]}")
                finally:
                    deadline.cancel()
        except Exception:  # a warm-up must never take the server down; a page computes what it needs
            _LOGGER.exception("warm-up failed")

    threading.Thread(target=warm, name="warm-up", daemon=True).start()
