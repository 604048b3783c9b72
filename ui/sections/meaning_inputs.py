"""The meaning page's boxes: the word and its two groups (in the link), each saying when it cut, and a full group's
last sentence, where the box stopped taking text, left out and named."""

from __future__ import annotations

import streamlit as st

from lessons import meaning as me

from ui.widgets.links import LINK_TEXTS, cut_link_text
from ui.content import words
from ui.model import warn_if_cut
from ui.sections.meaning_stories import default_names
from ui.text import quote, shorten

WORD_KEY, A_KEY, B_KEY = "word", "meaning_a", "meaning_b"   # the widgets' keys and the link's names


def fill_with(word: str) -> None:
    """on_click: a built-in word set into the three boxes."""
    word_set = me.BUILT_IN[word]
    st.session_state[WORD_KEY] = word_set.word
    st.session_state[A_KEY] = "\n".join(word_set.meaning_a)
    st.session_state[B_KEY] = "\n".join(word_set.meaning_b)


def word_set_inputs(teaching: bool) -> tuple[str, list[str], list[str], tuple[str, str]]:
    """The word and its two groups as typed (from the link on a first visit, else the bank set), and the names
    of the two meanings (a built-in set's, else meaning.toml's default names)."""
    # A bound box writes its value into the link once it differs from what the page first showed, the default
    # set's: a box missing from a link therefore holds the default set's value.
    default = me.BUILT_IN[me.DEFAULT_WORD]
    typed = {key: cut_link_text(key) for key in (WORD_KEY, A_KEY, B_KEY)}
    for key, value in ((WORD_KEY, default.word), (A_KEY, "\n".join(default.meaning_a)),
                       (B_KEY, "\n".join(default.meaning_b))):
        if key not in st.session_state and key not in st.query_params:
            st.session_state[key] = value
    cols = st.columns(len(me.BUILT_IN) + 1)
    cols[0].markdown(words("meaning.built_in_sets"))
    for col, (word, word_set) in zip(cols[1:], me.BUILT_IN.items()):
        col.button(f"{word} ({word_set.name_a} / {word_set.name_b})", key=f"meaning_set_{word}", on_click=fill_with,
                   args=(word,), use_container_width=True)
    word_label = words("meaning.word_label")
    word = st.text_input(word_label, key=WORD_KEY, bind="query-params", max_chars=LINK_TEXTS[WORD_KEY],
                         help=words("meaning.word_help"))
    left, right = st.columns(2)
    height = 200 if teaching else 180
    label_a, label_b = (words("meaning.group_label", group=group, low=me.MIN_SENTENCES, high=me.MAX_SENTENCES)
                        for group in (0, 1))
    group_a = left.text_area(label_a, key=A_KEY, bind="query-params", max_chars=LINK_TEXTS[A_KEY], height=height)
    group_b = right.text_area(label_b, key=B_KEY, bind="query-params", max_chars=LINK_TEXTS[B_KEY], height=height)
    for key, text, box in ((WORD_KEY, word, word_label), (A_KEY, group_a, words("meaning.group_box", group=0)),
                           (B_KEY, group_b, words("meaning.group_box", group=1))):
        warn_if_cut(text, LINK_TEXTS[key], typed[key], box=box)
    a = without_cut_sentence(me.split_lines(group_a), group_a, LINK_TEXTS[A_KEY], 0)
    b = without_cut_sentence(me.split_lines(group_b), group_b, LINK_TEXTS[B_KEY], 1)
    built_in = me.BUILT_IN.get(word.strip())
    names = ((built_in.name_a, built_in.name_b) if built_in and tuple(a) == built_in.meaning_a
             and tuple(b) == built_in.meaning_b else default_names())
    return word, a, b, names


def without_cut_sentence(lines: list[str], text: str, limit: int, group: int) -> list[str]:
    """A full box's last line is where the box stopped taking text, most likely in the middle of a sentence: a
    piece of a sentence would be measured as if the visitor had written it, so it is left out, and named."""
    if len(text) < limit or text.endswith("\n") or not lines:
        return lines
    st.warning(words("meaning.cut_sentence", group=group, number=len(lines), sentence=quote(shorten(lines[-1], 70))))
    return lines[:-1]
