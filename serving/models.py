"""The model registry of this process: each model loaded once and shared by every session, a failed load
remembered a minute, the sentence passes a page asks for, and the PyTorch reference for the on-demand check.

Models are kept with st.cache_resource: one object per process for every session, and Streamlit's own "clear
cache" empties it with the others. That decorator is all of Streamlit used here; nothing here draws: a page
passes `loading`, the context a first load runs in (ui/model.py's spinner).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager

import numpy as np
import streamlit as st

from attention.model import (DEFAULT_MODEL, AttentionModel, ModelLoadError, SentenceAnalysis,
                             allowed_model_choice, pytorch_allowed, resolve_model_name)

from .memory import release_free_memory
from .sentences import SENTENCE_CACHE, _core_attentions_of, analysis_of

_LOGGER = logging.getLogger(__name__)


def _give_back(model: AttentionModel) -> None:
    """The cache let a model go: its memory goes back to the system even while an open tab still holds the model
    (AttentionModel.release). Six switches between two visitor folders, each model held as a tab's download
    button holds it: 267 → 823 MB without this, 267 → 269 MB with it (tests/test_models_given_back.py)."""
    model.release()
    release_free_memory()


@st.cache_resource(show_spinner=False, max_entries=2, on_release=_give_back)
def _load_model(name: str) -> AttentionModel:
    # The server's own model may need PyTorch (its operator chose it); a visitor's choice only where the operator
    # allows PyTorch: one bad folder name would otherwise add ~350 MB to the server for good.
    return AttentionModel(name, allow_torch=name == resolve_model_name(None) or pytorch_allowed())


# A failed load is remembered for this long, so every page and rerun says so at once instead of retrying. Only
# when it failed is remembered, never the message: that names what a visitor typed, and the next visitor to ask
# for the same folder (under another spelling, "a/../b" or " b") must read their own words, not the first one's.
FAILED_LOAD_MEMORY_SECONDS = 60.0
_failed_loads: dict[str, float] = {}
_failed_loads_lock = threading.Lock()
_loaded_models: set[str] = set()


def _model_to_load(name: str | None) -> str:
    """A visitor's Model field is checked against the allowed folder; empty means the server's model."""
    return allowed_model_choice(name) if (name or "").strip() else resolve_model_name(None)


class ModelRefused(ModelLoadError):
    """A model that did not load, as a visitor is told: `typed` is the name they typed ("" for the server's own
    model); ui/model.py says it in the page's language. The English message is for logs and scripts."""

    def __init__(self, typed: str):
        super().__init__(load_failure_message(typed))
        self.typed = typed[:60]


def load_failure_message(typed: str) -> str:
    """What a visitor is told when a model does not load, in English (the page says it from ModelRefused.typed):
    the name they typed and a fixed sentence, never the server's paths or a library's error (those go to the
    server's log)."""
    if typed:
        return (f"The model “{typed[:60]}” is not one this app can read on this server. Choose another folder "
                "name, or leave the Model field empty to use the bundled all-MiniLM-L6-v2.")
    return ("The server's model did not load. Whoever runs this server can find the reason in its log (and can "
            "unset ATTENTION_MODEL to use the bundled all-MiniLM-L6-v2).")


def get_model(name: str | None = None,
              loading: Callable[[str], AbstractContextManager] | None = None) -> AttentionModel:
    """The model, loaded once per process and shared by every session; a failure is remembered a minute.
    A first load runs inside loading(the model's name as the visitor knows it), if given."""
    typed = (name or "").strip()
    name = _model_to_load(name)  # its refusals name only what the visitor typed
    with _failed_loads_lock:
        failed = _failed_loads.get(name)
    if failed is not None and time.monotonic() - failed < FAILED_LOAD_MEMORY_SECONDS:
        raise ModelRefused(typed)
    try:
        if name in _loaded_models:  # no spinner: each one is two more elements for the browser, every run
            return _load_model(name)
        shown = typed or ("all-MiniLM-L6-v2" if name == DEFAULT_MODEL else "")  # "": the server's model (ui words)
        with (loading or _no_notice)(shown):
            model = _load_model(name)
        _loaded_models.add(name)
        return model
    except ModelLoadError as error:
        _LOGGER.warning("could not load the model %s: %s", name, error)  # the details, for the operator only
        with _failed_loads_lock:
            _failed_loads[name] = time.monotonic()
        raise ModelRefused(typed) from None


def _no_notice(shown: str) -> AbstractContextManager:
    return contextlib.nullcontext()


def forget_failed_loads() -> None:
    """The retry button: the next page run tries every failed model again."""
    with _failed_loads_lock:
        _failed_loads.clear()


def _analyze(sentence: str, model_name: str) -> SentenceAnalysis:
    return analysis_of(_load_model(model_name), sentence)


def analyze(sentence: str, model_name: str | None = None) -> SentenceAnalysis:
    """One model pass per sentence, shared by every page, projection and session (bounded in bytes)."""
    model = get_model(model_name)
    return _analyze(sentence, model.name)


def _core_attentions(sentence: str, model_name: str) -> np.ndarray:
    return _core_attentions_of(_load_model(model_name), sentence)


_analyze.clear = _core_attentions.clear = SENTENCE_CACHE.clear


def core_attentions(sentence: str, model_name: str | None = None) -> np.ndarray:
    """All layers × heads recomputed by our core for one sentence, cached like the model pass."""
    model = get_model(model_name)
    return _core_attentions(sentence, model.name)


@st.cache_resource(show_spinner=False, max_entries=1)
def _reference_model(name: str) -> AttentionModel:
    # The only place the app imports torch, and only when a user presses the check button.
    return AttentionModel(name, backend="torch")


def reference_model(name: str | None) -> AttentionModel:
    """The original model in PyTorch, for the check a visitor asks for: the same allow-list as the page's model."""
    return _reference_model(_model_to_load(name))
