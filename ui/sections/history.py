"""The end of step 4: the attention that came before self-attention (Bahdanau et al., 2014), and what
self-attention changed. A drawing with no numbers on it, and words that say so."""

from __future__ import annotations

import streamlit as st

from ui import figures
from ui.content import words
from ui.view import View

MAX_WORDS = 6  # a drawing: more words than this only add lines
PHONE_WORDS = 4  # a phone's row holds this many words side by side


def before_self_attention(view: View) -> None:
    s, teaching = view.settings, view.settings.teaching
    words_drawn = view.labels if view.is_toy else [view.base_labels[j] for j in view.shown
                                                    if not view.analysis.is_special[j]]
    words_drawn = words_drawn or view.labels
    narrow = figures.on_a_phone()
    most = PHONE_WORDS if narrow else MAX_WORDS
    drawn = words_drawn[:most]
    st.header(words("history.heading"))
    st.markdown(words("history.before"))
    st.markdown(words("history.changes", n_tokens=len(words_drawn), n_steps=len(words_drawn) - 1))
    figures.show(figures.attention_history(drawn, figures.figure_title(
        words("history.figure_title"), s.sentence, words("history.figure_note")), teaching=teaching, narrow=narrow),
        figures.figure_filename("step4_history", s.sentence, "drawing"), teaching, key="step4-history")
    st.caption(words("history.caption", cut=len(words_drawn) > most, drawn=most, n_tokens=len(words_drawn)))
    st.page_link("app_pages/whatif.py", label=words("history.whatif_link"), icon="🔀")
