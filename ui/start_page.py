"""The start page's part that follows the selected token, as one fragment: a chip click reruns only this part."""

from __future__ import annotations

import streamlit as st

from lessons.heads import PATTERN_WORDS, describe_heads

from . import figures, readouts
from .page import WHOLE_PAGE_RERUN, example_lesson, specials_note, token_picker
from .parity import parity_badge
from .sidebar import draw_token_list
from .text import pct, quote
from .view import View, current_view
from .walkthrough_section import show_walkthrough


def what_the_head_does(view: View) -> None:
    """Above the part that follows the token (none of it names the selected token, so a chip click leaves it):
    the example's lesson while an example is on screen, and what the head does over every row of the sentence."""
    example_lesson(view)
    if not view.is_toy:  # what the head does on this sentence, measured over every row the model computes
        (pattern, share), = describe_heads(view.full.weights[None], view.analysis.tokens, view.analysis.is_special)
        if pattern in PATTERN_WORDS:
            st.markdown(f"**What this head does** ({view.label}): on your sentence it sends, on average, "
                        f"{pct(share)} of each token's attention to {PATTERN_WORDS[pattern]}"
                        + (f" (over all {readouts.token_count(view)} the model sees)"
                           if view.hidden.size else "") + " — follow the dark cells row by row in the matrix below."
                        + readouts.next_token_note(view, pattern))


@st.fragment
def follow_the_selected_token():
    """Everything here that follows the selected token, the sidebar's token list included: a chip click reruns
    only this fragment (app.py leaves the list to it), and every label naming the token is redrawn together."""
    if st.session_state.pop(WHOLE_PAGE_RERUN, False):  # a slide's layer/head: the sidebar shows them too
        st.rerun()
    view = current_view()
    draw_token_list()
    tokens, keys, i = view.labels, view.key_labels, view.token
    weights = view.weights  # learned mode: the model's own rows; hidden [CLS]/[SEP] folded into one column
    focus = readouts.shares(weights[i], keys, i, limit=4)  # the largest shares; "0.0% on …" would teach nothing
    st.markdown(f"**Where each word looks** ({view.label}). The selected token, {quote(view.token_label)}, puts "
                f"{focus}." + ("" if view.settings.teaching else " Click another token below."))
    st.markdown(f"▶ [Play the four steps for {quote(view.token_label)}](#play-the-four-steps): its row of scores "
                "becoming weights and its output, frame by frame, with the live numbers.")
    token_picker(view)
    left, right = st.columns([3, 2]) if not view.settings.teaching else (st.container(), st.container())
    with left:
        figures.show(
            figures.matrix_heatmap(weights, tokens, keys,
                                   figures.figure_title("Attention weights", view.settings.sentence, view.label),
                                   kind="weights", highlight_row=i, teaching=view.settings.teaching,
                                   last_column=view.last_column("weights")),
            figures.figure_filename("home_weights", view.settings.sentence, view.code), view.settings.teaching,
            key="fig-home-weights")
    with right:
        figures.show(
            figures.token_lines(weights, tokens, keys,
                                figures.figure_title("The same, as lines", view.settings.sentence, view.short_label),
                                selected=i, teaching=view.settings.teaching),
            figures.figure_filename("home_lines", view.settings.sentence, view.code), view.settings.teaching,
            key="fig-home-lines")
    st.caption("Each row is one token looking (its query); each column a token it looks at (its key). Darker = more "
               "attention; every row adds up to 100%. On the right, thicker lines = more attention.")
    lines = readouts.every_token_lines(view)
    intro = (f"**Every token, one line each** ({readouts.token_count(view)}): where it looks most, and what its "
             "output is made of (step 4: each token's value vector times its share, added up).")
    every = st.container() if len(lines) <= 12 else st.expander(f"Every token, one line each ({len(lines)} lines)")
    every.markdown(intro + "\n\n" + "\n".join(f"- {line}" for line in lines))
    specials_note(view)
    parity_badge(view)

    show_walkthrough(view)
