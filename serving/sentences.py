"""The per-sentence cache every session shares, bounded in bytes: a sentence's model pass and its core attentions.

No Streamlit here (the warm-up's worker process imports it through serving/shared.py): the byte budget is
serving/memory.py's ByteBudgetCache, not a Streamlit cache, which would count entries and copy per session.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from attention.model import AttentionModel, SentenceAnalysis

from .memory import ByteBudgetCache


# Every per-sentence result of every session together: a hosted demo has ~700 MB, the server itself uses
# ~300, and an idle server should stay under 450.
SENTENCE_CACHE_BUDGET_BYTES = 100 * 2**20
SENTENCE_CACHE = ByteBudgetCache(SENTENCE_CACHE_BUDGET_BYTES, empties_when_server_idle=True)


def analysis_of(model: AttentionModel, sentence: str) -> SentenceAnalysis:
    # Only the part the model reads is passed on and kept (a 3,000-character text's first ~1,200 characters):
    # two long texts that start alike share one entry. Shared read-only by every session (no per-session copy).
    read, n_tokens = model.read_part(sentence)
    analysis = SENTENCE_CACHE.get_or_compute(("analysis", read, model.name), lambda: model.analyze(read))
    if n_tokens > analysis.n_tokens:  # the same arrays, with the whole text's length for the page's notice
        analysis = dataclasses.replace(analysis, truncated=True, n_tokens_before_truncation=n_tokens)
    return analysis


def _core_attentions_of(model: AttentionModel, sentence: str) -> np.ndarray:
    analysis = analysis_of(model, sentence)  # first, outside: a computation may not wait on the cache
    return SENTENCE_CACHE.get_or_compute(("core attentions", analysis.sentence, model.name),
                                         lambda: stored_core_attentions(model, analysis))


def stored_core_attentions(model: AttentionModel, analysis) -> np.ndarray:
    """All layers × heads recomputed by the core, as the shared sentence cache keeps them (SENTENCE_CACHE): float32,
    72 matrices per sentence, 19 MB at 256 tokens instead of 38."""
    return model.core_attentions(analysis).astype(np.float32)


def store_sentence_pass(model: AttentionModel, sentence: str, analysis: SentenceAnalysis,
                        core_attentions: np.ndarray) -> None:
    """A built-in sentence's model pass and core attentions from the warm-up (serving/shared.py, computed in its
    worker), kept as if a visitor had asked."""
    SENTENCE_CACHE.get_or_compute(("analysis", sentence, model.name), lambda: analysis)
    SENTENCE_CACHE.get_or_compute(("core attentions", sentence, model.name), lambda: core_attentions)

