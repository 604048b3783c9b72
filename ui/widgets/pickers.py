"""The controls a page puts on the slide itself: the token chips and the compact layer/head row; and a widget
whose first value is measured on the sentence (kept_key, measured_default)."""

from __future__ import annotations

import streamlit as st

from ui.content import words
from ui.labels import changed_note, numbered_note
from ui.text import md, people_number
from ui.view import View
from ui.widgets.sidebar import token_chosen

TOKEN_PICKER_LIMIT = 40  # more tokens than this do not fit as one row of chips; the sidebar's list still works


WHOLE_PAGE_RERUN = "_whole_page_rerun"


def _pick_token() -> None:
    """on_change: the chips set the sidebar's selected token (one state, two places to change it)."""
    token_chosen("token_chips")


def _pick_layer_head() -> None:
    """on_change: the slide's compact layer and head controls set the sidebar's (one state, two places)."""
    for compact, key in (("layer_compact", "layer"), ("head_compact", "head")):
        if st.session_state.get(compact) is not None:
            st.session_state[key] = st.session_state[compact]
    # Inside the start page's fragment this reruns only the fragment: the sidebar's layer and head must be
    # redrawn too, so the fragment asks for the whole page (ui/sections/start_page.py).
    st.session_state[WHOLE_PAGE_RERUN] = True


def layer_head_control(view: View) -> None:
    """Teaching mode: the layer and head as one compact row on the slide itself, so a lecture changes them
    without opening the sidebar (learned mode only: the toy modes have no layers)."""
    if not view.settings.teaching or view.is_toy:
        return
    layer_head_row(view.model.n_layers, view.model.n_heads, view.settings.layer, view.settings.head)


def layer_head_row(n_layers: int, n_heads: int, layer: int, head: int) -> None:
    """The compact layer and head row (also the compare page's, which always runs a learned head)."""
    st.session_state["layer_compact"] = layer
    st.session_state["head_compact"] = head
    left, right = st.columns([6, 12])
    # Values count from 0 as the code does; the buttons read 1 to 6 and 1 to 12, as people count.
    left.segmented_control(words("pickers.layer_label"), list(range(n_layers)), key="layer_compact",
                           format_func=people_number, on_change=_pick_layer_head)
    right.segmented_control(words("pickers.head_label"), list(range(n_heads)), key="head_compact",
                            format_func=people_number, on_change=_pick_layer_head)


def token_picker(view: View) -> None:
    """The sentence's tokens as chips right under the title: click a word to explain its row (on a slide too)."""
    layer_head_control(view)
    if len(view.tokens) > TOKEN_PICKER_LIMIT:
        changed_caption(view)
        numbered_caption(view)  # no chips: the axes below are where "the²" first shows
        return
    # Follow the sidebar (and a new sentence) on every run: set before the widget exists.
    st.session_state["token_chips"] = view.token
    # Unique ("the", "the²"): st.pills matches options by their label. The widget keeps its format_func for the
    # tab's life: the labels, not the view.
    labels = list(view.labels)
    st.pills(words("pickers.chips_label"), list(range(len(labels))), key="token_chips",
             format_func=lambda j: md(labels[j]), on_change=_pick_token)  # pills render Markdown
    changed_caption(view)
    numbered_caption(view)


def changed_caption(view: View) -> None:
    """Under the chips: where the model's tokens differ from the words typed ("I" read as "i", "didn't" as three
    tokens), measured on the whole sentence the model read; nothing when they do not."""
    note = changed_note(view.analysis.sentence, view.analysis.tokens, view.model.special_tokens)
    if note:
        st.caption(note)


def numbered_caption(view: View) -> None:
    """Under the chips, where a label like "the²" first shows: what its raised number means (only when one is)."""
    note = numbered_note(view.tokens, view.labels)
    if note:
        st.caption(note)


def kept_key(key: str) -> str:
    return f"_{key}_kept"


def measured_default(key: str, sentence, measured: int) -> None:
    """Before a widget (key) whose first value is measured on the sentence: a new sentence (or whatever the
    measurement is keyed on) sets the measured value; the reader's choice for the same one stays, also after another
    page (which drops the widget's value). The page stores (sentence, value) under kept_key(key) after the widget."""
    kept_sentence, kept_value = st.session_state.get(kept_key(key), (None, None))
    chosen = measured if kept_sentence != sentence else st.session_state.get(key, kept_value)
    st.session_state[key] = chosen  # set before the widget exists: the box follows the measurement
