"""The settings every page reads (Settings: the sidebar's values) and the callbacks that change them."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from .legacy_pages import leave_legacy_pages_mode

DEFAULT_SENTENCE = "I am good."
# Layer 1, head 8: chosen by measuring all 72 heads on the default sentence with lessons/heads.py
# teaching_heads (tests/test_default_view.py checks it again). It is the clearest nameable pattern among the heads
# whose selected row ("i") is soft: each word looks mostly at the word after it (59% on average; "i": 72% on
# "am", 22% on [CLS] + [SEP], 5% on itself), and dividing by √d_k moves the row's entropy from 0.02 to 1.11 bits.
# The old default, layer 0 head 2, copies the previous token: every row one-hot, so softmax and scaling showed
# nothing (issue 29). It stays one click away as a preset (HEAD_PRESETS).
DEFAULT_LAYER = 1
DEFAULT_HEAD = 8
HEAD_PRESETS = {
    "a head that looks at the next word": (DEFAULT_LAYER, DEFAULT_HEAD),
    "a head that looks at the previous word": (0, 2),
}
MODES = {
    "learned": "the model's own W_Q, W_K, W_V for one layer and head",
    "random": "seeded random matrices of width d_k",
    "identity": "the textbook toy: Q = K = V = embeddings",
}
D_K_CHOICES = [2, 4, 8, 16, 32, 64, 128, 384]
# The model reads at most 256 tokens, about 1,200 characters of English; a box takes 3,000 (the part beyond what
# the model reads stays in the box, and the page says how much was read).
MAX_SENTENCE_CHARS = 3_000


@dataclass(frozen=True)
class Settings:
    sentence: str
    mode: str
    d_k: int
    seed: int
    layer: int
    head: int
    show_special: bool
    token: int            # position among the shown tokens
    teaching: bool
    model_name: str


def clean_sentence(text: str) -> str:
    return (text or "")[:MAX_SENTENCE_CHARS]


def choose_sentence(sentence: str, token: int = 0, show_special: bool | None = None) -> None:
    """For a callback that puts a new sentence in the sidebar and picks a token of it (an example sentence,
    "open this head"): the token is recorded as chosen for that sentence, so it is not reset as a new one."""
    state = st.session_state
    state["sentence"] = sentence
    if show_special is not None:
        state["special"] = show_special
    state["token"] = state["_token_kept"] = token  # _token_kept: the sidebar's own copy (ui/sidebar.py)
    state["_token_for"] = (sentence, bool(state.get("special", False)))


# Callbacks and format functions handed to Streamlit live here, not in a page: Streamlit keeps them with the
# session (two minutes after its tab closes), and a function defined in a page script holds the page's whole
# namespace, its model passes and figures included (5 visitors' long texts on the pronoun page kept ~250 MB).
def keep_widget_value(store: str, widget_key: str) -> None:
    """Copy a widget's value into a dict of the session (a page's answers outlive its widgets)."""
    st.session_state.setdefault(store, {})[widget_key] = st.session_state[widget_key]


def open_head_in_steps(sentence: str, layer: int, head: int, token: int, goto: str) -> None:
    """Show one learned head for a sentence in the step pages, its token selected and [CLS]/[SEP] shown."""
    st.session_state["mode"] = "learned"
    st.session_state["layer"] = layer
    st.session_state["head"] = head
    choose_sentence(sentence, token, show_special=True)
    st.session_state["_goto"] = goto


def settings() -> Settings:
    leave_legacy_pages_mode()
    return st.session_state.get("_settings") or Settings(DEFAULT_SENTENCE, "learned", 32, 0, DEFAULT_LAYER,
                                                         DEFAULT_HEAD, False, 0, False, "")


def typed_texts() -> list[str]:
    """Every text this session's page run may read: the sidebar's sentence and the pronoun page's own boxes (from
    the link on a first visit)."""
    state = st.session_state
    texts = [state.get("sentence"), state.get("pron_sentence"), st.query_params.get("pron_sentence")]
    texts += [value for key, value in state.items() if str(key).startswith("pron_contrast_")]
    return [text for text in texts if isinstance(text, str)]
