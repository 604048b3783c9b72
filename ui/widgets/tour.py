"""The tour through the pages: Previous / Next, the page's own sentence box, and the example sentences."""

from __future__ import annotations

import streamlit as st

from ui.labels import unique_labels
from ui.settings import (
    EXAMPLES,
    MAX_SENTENCE_CHARS,
    Example,
    choose_sentence,
    clean_sentence,
)
from ui.text import layer_head_name
from ui.widgets.sidebar import shown_tokens

TOUR = [
    ("pages/home.py", "Start"),
    ("pages/by_hand.py", "0 · Attention by hand"),
    ("pages/step1_scores.py", "Step 1 · scores"),
    ("pages/step2_scaling.py", "Step 2 · scaling"),
    ("pages/step3_softmax.py", "Step 3 · softmax"),
    ("pages/step4_output.py", "Step 4 · output"),
    ("pages/compare.py", "Compare two sentences"),
    ("pages/pronoun.py", "Going further: does “it” look at “dog”?"),
]


def step_nav(current: str) -> None:
    """Previous / Next at the foot of a page of the tour."""
    paths = [path for path, _ in TOUR]
    i = paths.index(current)  # the last page of the tour (the first of "Going further") draws no step_nav
    left, _, right = st.columns([1, 1, 1])
    if i > 0:
        left.page_link(TOUR[i - 1][0], label=f"← Previous: {TOUR[i - 1][1]}")
    if i + 1 < len(TOUR):
        right.page_link(TOUR[i + 1][0], label=f"Next: {TOUR[i + 1][1]} →")
    if current != "pages/home.py":  # the animated walk-through (ui/sections/walkthrough.py) is on the start page
        st.page_link("pages/home.py", label="▶ Play the four steps for the selected token (on the start page)")


def _type_sentence() -> None:
    """on_change: the page's sentence box sets the sidebar's sentence (one state, two places to type it)."""
    st.session_state["sentence"] = clean_sentence(st.session_state.get("sentence_inline", ""))


def sentence_box(sentence: str) -> None:
    """The sentence box on the page itself, shown on narrow screens only (page_style.BASE_CSS): on a phone the
    sidebar hides behind the "»" button, which students do not find."""
    st.session_state["sentence_inline"] = sentence  # follows the sidebar: set before the widget exists
    with st.container(key="sentence_inline_box"):
        st.text_area("Your sentence", key="sentence_inline", on_change=_type_sentence, height=68,
                     max_chars=MAX_SENTENCE_CHARS,  # the sidebar's limit: one limit for every sentence box
                     help="The same sentence as in the sidebar: change it here or there.")


def _use_example(example: Example) -> None:
    """on_click of an example: its sentence, its head (learned mode) and its token, as one new input; what the
    user chooses afterwards for the same sentence is kept (nothing resets it until the sentence changes)."""
    labels = unique_labels(shown_tokens(example.sentence, bool(st.session_state.get("special", False))))
    st.session_state["mode"] = "learned"
    st.session_state["layer"] = example.layer
    st.session_state["head"] = example.head
    choose_sentence(example.sentence, labels.index(example.focus) if example.focus in labels else 0)


def example_sentences() -> None:
    """One click puts an example sentence in the sidebar (what the user typed before is replaced), with the head
    measured for its lesson and the word the lesson is about selected."""
    columns = st.columns([0.9] + [1.1] * len(EXAMPLES))
    columns[0].markdown("**Try an example:**")
    for column, example in zip(columns[1:], EXAMPLES):
        column.button(example.name, key=f"example-{example.name}",
                      help=f"{example.sentence} It shows {example.shows} ({layer_head_name(example.layer, example.head)}).", on_click=_use_example, args=(example,), use_container_width=True)
