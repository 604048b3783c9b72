"""The model and a sentence's pass as a page asks for them: a spinner on first load, a message and a stop on failure."""

from __future__ import annotations

import streamlit as st

from attention.model import (MAX_MODEL_NAME_CHARS, MODELS_DIR_ENV_VAR, AttentionModel, ModelChoiceRefused,
                             ModelLoadError, SentenceAnalysis, SentenceError)
from serving import models
from serving.models import analyze, forget_failed_loads

from ui.content import words
from ui.settings import MAX_SENTENCE_CHARS, Settings, typed_chars
from ui.text import md, quote


def get_model(name: str | None = None) -> AttentionModel:
    """serving/models.py's get_model, with a spinner while a model loads for the first time."""
    return models.get_model(name, loading=_loading_spinner)


def _loading_spinner(shown: str):
    return st.spinner(words("model.loading", name=md(shown) if shown else words("model.server_model")))


def preload_model() -> AttentionModel | None:
    """Warm the shared model; a failure is left for the page to explain."""
    try:
        return get_model(st.session_state.get("model") or None)
    except ModelLoadError:
        return None


def model_or_stop(s: Settings) -> AttentionModel:
    """The model, or a message that says what failed and how to fix it, and a stop."""
    try:
        return get_model(s.model_name or None)
    except ModelLoadError as error:
        st.error(words("model.load_failed", error=load_error_text(error)))
        if st.button(words("model.retry_button"), key="retry_model_load"):
            forget_failed_loads()
            st.rerun()
        st.stop()


def load_error_text(error: ModelLoadError) -> str:
    """Why the model did not load, in the page's language (serving/models.py ModelRefused), else its message."""
    if isinstance(error, ModelChoiceRefused):  # before any loading: why the field's value is not accepted
        if error.kind == "switched_off":
            return words("model.choice_switched_off", env_var=MODELS_DIR_ENV_VAR)
        if error.kind == "bad_name":
            return words("model.choice_bad_name", limit=MAX_MODEL_NAME_CHARS)
        return words("model.choice_outside", name=md(error.typed))
    if isinstance(error, models.ModelRefused):
        return (words("model.refused_typed", name=md(error.typed)) if error.typed else
                words("model.refused_server"))
    return md(str(error))


def sentence_error_text(sentence: str) -> str:
    """What to type instead, when the model cannot read a sentence (attention/model.py SentenceError): an empty
    one, or one the tokenizer leaves no word of."""
    return words("model.sentence_empty") if not (sentence or "").strip() else words("model.sentence_no_tokens")


def load_analysis(s: Settings) -> tuple[AttentionModel, SentenceAnalysis]:
    """The model and the sentence's model pass, or a clear message and a stop."""
    model = model_or_stop(s)
    if not s.sentence.strip():
        st.info(words("model.empty_sentence"))
        st.stop()
    try:
        analysis = analyze(s.sentence, s.model_name or None)
    except SentenceError:
        st.info(sentence_error_text(s.sentence))
        st.stop()
    cut = warn_if_cut(s.sentence, MAX_SENTENCE_CHARS, typed_chars(s.sentence))
    warn_if_truncated(analysis, model, say_where=True, cut=cut)
    return model, analysis


def warn_if_cut(text: str, limit: int, typed: int | None = None, box: str | None = None) -> bool:
    """A notice when a box is full: the text ends where the box stopped taking it (a link or a message sent past
    the box is cut there, which nobody would see otherwise). typed: the length before the cut, if known; box: the
    box's label, where a page has several."""
    if len(text) < limit:
        return False
    end = quote("…" + text[-40:].lstrip())
    box = md(box) if box else ""
    if typed and typed > limit:
        st.warning(words("model.cut_typed", box=box, typed=f"{typed:,}", limit=f"{limit:,}", end=end,
                         left_out=f"{typed - limit:,}"))
    else:
        st.warning(words("model.cut_full", box=box, limit=f"{limit:,}", end=end))
    return True


def warn_if_truncated(analysis: SentenceAnalysis, model: AttentionModel, say_where: bool, cut: bool = False) -> None:
    """A notice when the model read only the start of the text (and, if asked, the words it stopped at).
    cut: the box already cut the text (warn_if_cut said so): the tokens counted are those of what it kept."""
    if analysis.truncated:
        where = quote("…" + analysis.sentence[-40:].lstrip()) if say_where else ""
        st.warning(words("model.truncated", cut=cut, kept=f"{MAX_SENTENCE_CHARS:,}", where=where,
                         n_before=analysis.n_tokens_before_truncation, max_length=model.max_length,
                         n_tokens=analysis.n_tokens))
