"""The model card: what the bundled model is, what it was trained for, its limits, and what attention shows."""

from __future__ import annotations

import streamlit as st

from attention.model import DEFAULT_MODEL, AttentionModel

from ui.content import words
from ui.text import md


def card_text(model: AttentionModel) -> str:
    """The bundled model's card, its sizes read from the loaded model, and what attention shows."""
    shows = words("attention_shows")
    if model.name != DEFAULT_MODEL:  # the card's words are the bundled model's: only the part true of any model
        return words("about_model.other_model", name=md(model.name), n_layers=model.n_layers,
                     n_heads=model.n_heads) + "\n\n" + shows
    return words("model_card", d_model=model.d_model, n_layers=model.n_layers, n_heads=model.n_heads,
                 max_tokens=model.max_length) + "\n" + shows


def model_card(model: AttentionModel | None) -> None:
    """A closed box under the page's first paragraph: one click away, never in the first read."""
    if model is None:
        return
    with st.expander(words("about_model.box_label")):
        st.markdown(card_text(model))
