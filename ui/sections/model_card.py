"""The model card: what the bundled model is, what it was trained for, its limits, and what attention shows."""

from __future__ import annotations

import streamlit as st

from attention.model import DEFAULT_MODEL, AttentionModel

from ui.content import text
from ui.text import md


def card_text(model: AttentionModel) -> str:
    """The bundled model's card, its sizes read from the loaded model, and what attention shows."""
    shows = text("attention_shows")
    if model.name != DEFAULT_MODEL:  # the card's words are the bundled model's: only the part true of any model
        return (f"This server runs another model, {md(model.name)}, with {model.n_layers} layers of "
                f"{model.n_heads} heads; its own card says what it was trained for.\n\n" + shows)
    return text("model_card", d_model=model.d_model, n_layers=model.n_layers, n_heads=model.n_heads,
                max_tokens=model.max_length) + "\n" + shows


def model_card(model: AttentionModel | None) -> None:
    """A closed box under the page's first paragraph: one click away, never in the first read."""
    if model is None:
        return
    with st.expander("About this model: what it is, what it is not, what attention shows"):
        st.markdown(card_text(model))
