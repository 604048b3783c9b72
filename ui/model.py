"""The model and a sentence's pass as a page asks for them: a spinner on first load, a message and a stop on failure."""

from __future__ import annotations

import streamlit as st

from attention.model import AttentionModel, ModelLoadError, SentenceAnalysis, SentenceError
from serving import models
from serving.models import analyze, forget_failed_loads

from ui.settings import MAX_SENTENCE_CHARS, Settings, typed_chars
from ui.text import md, quote


def get_model(name: str | None = None) -> AttentionModel:
    """serving/models.py's get_model, with a spinner while a model loads for the first time."""
    return models.get_model(name, loading=_loading_spinner)


def _loading_spinner(shown: str):
    return st.spinner(f"Loading the model ({md(shown)}) — the first time takes a few seconds…")


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
        st.error(f"**The model could not be loaded.** {md(str(error))}")
        if st.button("Try loading the model again", key="retry_model_load"):
            forget_failed_loads()
            st.rerun()
        st.stop()


def load_analysis(s: Settings) -> tuple[AttentionModel, SentenceAnalysis]:
    """The model and the sentence's model pass, or a clear message and a stop."""
    model = model_or_stop(s)
    if not s.sentence.strip():
        st.info("Type a sentence in the sidebar to begin (for example: I am good.).")
        st.stop()
    try:
        analysis = analyze(s.sentence, s.model_name or None)
    except SentenceError as error:
        st.info(md(str(error)))
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
    if typed and typed > limit:
        said = (f"Your text had {typed:,} characters; a box takes at most {limit:,}, so it was cut after {end} "
                f"(the other {typed - limit:,} characters were left out).")
    else:
        said = (f"A box takes at most {limit:,} characters and this one is full: your text ends at {end}, and "
                "anything after that was left out.")
    st.warning(f"{md(box)}: {said[0].lower()}{said[1:]}" if box else said)
    return True


def warn_if_truncated(analysis: SentenceAnalysis, model: AttentionModel, say_where: bool, cut: bool = False) -> None:
    """A notice when the model read only the start of the text (and, if asked, the words it stopped at).
    cut: the box already cut the text (warn_if_cut said so): the tokens counted are those of what it kept."""
    if analysis.truncated:
        where = f", up to {quote('…' + analysis.sentence[-40:].lstrip())}" if say_where else ""
        counted = f"The {MAX_SENTENCE_CHARS:,} characters kept are" if cut else "Your text is"
        st.warning(f"{counted} {analysis.n_tokens_before_truncation} tokens long; the model reads at most "
                   f"{model.max_length}, so only the first {analysis.n_tokens} tokens (with [CLS] and [SEP]) "
                   f"are used{where}.")
