"""What every step page repeats: a matrix beside its plain-language explanation, the "More detail" fold, two
figures side by side, the page frame that follows the selected token, and the note on [CLS] and [SEP]."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ui import figures
from ui.content import words
from ui.text import quote
from ui.settings import (
    settings,
)
from ui.view import View, current_view
from ui.sections.markers import markers_link
from ui.widgets.parity import parity_badge
from ui.widgets.pickers import WHOLE_PAGE_RERUN, token_picker
from ui.widgets.sidebar import draw_token_list
from ui.widgets.tour import sentence_box


def explained_matrix(view: View, text: str, formula: str | tuple[str, ...], fig, step_name: str,
                     slide_line: str | None = None) -> None:
    """Explanation and formula on the left, the figure on the right (stacked in teaching mode, where one plain
    line, slide_line, says what the picture shows: a formula alone tells a class nothing)."""
    teaching = view.settings.teaching
    filename = figures.figure_filename(step_name, view.settings.sentence, view.code)
    if teaching:
        if slide_line:
            st.markdown(slide_line)
        st.latex(formula if isinstance(formula, str) else formula[0])  # a slide keeps one line of formula
        figures.show(fig, filename, teaching, key=f"fig-{step_name}")
        return
    left, right = st.columns([1.15, 2])
    with left:
        st.markdown(text)
        for line in (formula,) if isinstance(formula, str) else formula:  # one short line each: the column is narrow
            st.latex(line)
    with right:
        figures.show(fig, filename, teaching, key=f"fig-{step_name}")


def more_detail(what: str):
    """A clearly labelled, closed section for a step page's technical extras: the main line above it answers the
    step's question in plain words (issue 41: within two screens at 1440×900 above the "why" questions)."""
    return st.expander(words("step_page.more_detail", what=what))


# A half-width figure on a 1280 px slide holds about this many upright 18 px token labels side by side.
SLIDE_HALF_WIDTH_LABELS = 20


def figure_pair(teaching: bool, n_labels: int):
    """Two places for two figures: side by side, or stacked on a slide once a half-width figure could not keep
    every token's label (teaching mode never thins labels)."""
    if teaching and n_labels > SLIDE_HALF_WIDTH_LABELS:
        return st.container(), st.container()
    return tuple(st.columns(2))


def step_page(title: str, follow_the_selected_token: Callable[[View], None]) -> None:
    """A step page: its title and sentence box, then everything that follows the selected token (the parity
    badge, the chips and the page's own part) as one fragment: a chip click reruns only that fragment, which
    redraws the sidebar's token list too, so every label naming the token changes together (app.py leaves the
    list to the page: TOKEN_FRAGMENT_PAGES)."""
    st.title(title)
    sentence_box(settings().sentence)
    _token_part(follow_the_selected_token)


@st.fragment
def _token_part(follow_the_selected_token: Callable[[View], None]) -> None:
    if st.session_state.pop(WHOLE_PAGE_RERUN, False):  # a slide's layer/head: the sidebar shows them too
        st.rerun()
    view = current_view()
    draw_token_list()
    parity_badge(view)
    token_picker(view)
    follow_the_selected_token(view)


def specials_note(view: View, folded: bool = True, scores_too: bool = False) -> None:
    """What [CLS] and [SEP] are, said where the weights first show them (learned mode only).

    folded: the page's weights carry the hidden tokens as one column; False for a page of scores only (step 1).
    scores_too: the page draws score matrices as well (step 2). Scores keep each marker's own column (View.score_keys):
    only weights add up."""
    if view.is_toy:
        return
    # Explained once, with a picture, on the start page (ui/sections/markers.py): here a few words and a link.
    parts = [words("step_page.markers", link=markers_link())]
    if view.hidden.size:
        if scores_too or not folded:
            parts.append(words("step_page.markers_scores", count=len(view.marker_labels), column=view.hidden_label,
                               columns=words("readouts.marker_and").join(quote(m) for m in view.marker_labels),
                               bars=folded))
        else:
            parts.append(words("step_page.markers_weights", column=view.hidden_label))
        if not view.settings.teaching:
            parts.append(words("step_page.markers_apart", rows=scores_too or not folded))
    st.caption(" ".join(parts))
