"""The start page's part that follows the selected token, as one fragment: a chip click reruns only this part."""

from __future__ import annotations

import streamlit as st

from lessons.heads import PATTERNS, describe_heads, next_word_rows, word_position
from serving.models import analyze

from ui import figures, readouts
from ui.widgets.pickers import WHOLE_PAGE_RERUN, token_picker
from ui.content import words
from ui.sections.markers import explain_markers
from ui.sections.step_page import more_detail
from ui.widgets.parity import parity_badge
from ui.widgets.sidebar import draw_token_list
from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER, EXAMPLES, PRONOUN_HEAD
from ui.text import layer_head_name, md, pct, quote
from ui.view import View, current_view
from ui.sections.walkthrough_section import ANCHOR as WALKTHROUGH_ANCHOR, show_walkthrough

# Each head pattern's words (lessons/heads.py PATTERNS), and each built-in example's lesson (by its sentence, data
# the model reads): start.toml's pattern_… and shows_… texts.
PATTERN_KEYS = {"itself": "itself", "previous token": "previous", "next token": "next", "[CLS]": "cls",
                "[SEP]": "sep", "punctuation": "punctuation"}
SHOWS_KEYS = {EXAMPLES[0].sentence: "next_word", EXAMPLES[1].sentence: "it_animal", EXAMPLES[2].sentence: "river_bank",
              EXAMPLES[3].sentence: "who"}


def example_on_screen(view: View):
    """The example whose sentence and head are on screen, while its words are drawn; None otherwise."""
    example = next((e for e in EXAMPLES if e.sentence == view.settings.sentence and not view.is_toy
                    and (e.layer, e.head) == (view.settings.layer, view.settings.head)), None)
    if example is None or example.focus not in view.labels or example.target not in view.labels:
        return None
    return example


def example_claim(view: View) -> None:
    """While an example's sentence and head are on screen: what it shows, with the live shares it is about (what
    the numbers say beyond this one row waits behind "More detail": head_details)."""
    example = None if weights_hidden(view) else example_on_screen(view)  # predict first: the class guesses these
    if example is None:
        return
    labels = view.labels
    row = view.weights[labels.index(example.focus)]
    control = example.control in labels
    n_layers, n_heads = view.analysis.attentions.shape[:2]
    st.markdown(words(
        "start.example_claim", shows=words(f"start.shows_{SHOWS_KEYS[example.sentence]}"),
        head=layer_head_name(example.layer, example.head, capital=True),
        pronoun_head=(example.layer, example.head) == PRONOUN_HEAD, n_heads=n_layers * n_heads,
        focus=quote(example.focus), share=pct(row[labels.index(example.target)]), target=quote(example.target),
        control=quote(example.control) if control else "",
        control_share=pct(row[labels.index(example.control)]) if control else ""))


def head_details(view: View) -> list[str]:
    """What qualifies the example's claim and the head's average, for "More detail" under the picture: for the
    next-word example every row's exceptions, for the pronoun examples the partner sentence, and what the average
    is over."""
    if weights_hidden(view) or view.is_toy:
        return []
    example = example_on_screen(view)
    summary = head_summary(view) if example else ""  # without an example it stands above the picture
    details = [summary] if summary else []
    if example and (example.layer, example.head) == (DEFAULT_LAYER, DEFAULT_HEAD):  # the next-word head's exceptions
        details.append(next_word_reading(view))
    if example and example.partner:
        details.append(partner_reading(example, view))
    (pattern, _), = describe_heads(view.full.weights[None], view.analysis.tokens, view.analysis.is_special)
    if pattern in PATTERNS and view.hidden.size:
        details.append(words("start.average_over_all", token_count=readouts.token_count(view))
                       + readouts.next_token_note(view, pattern))
    return details


def next_word_reading(view: View) -> str:
    rows = next_word_rows(view.weights, view.shown)
    labels, keys = view.labels, view.key_labels
    others = [(r, n, top) for r, n, top in rows if top != n]
    count = len(rows) - len(others)
    branch = "all" if not others else "most" if count > len(rows) / 2 else "few"
    text = words("start.next_word_rows", branch=branch, count=count, total=len(rows))
    for r, n, top in others:
        text += " " + words("start.next_word_exception", token=quote(labels[r]), top=quote(keys[top]),
                            top_share=pct(view.weights[r, top]), next=quote(keys[n]),
                            next_share=pct(view.weights[r, n]))
    return text


def partner_reading(example, view: View) -> str:
    """The same head on the partner sentence, where the focus means the control: does its attention follow?"""
    partner = analyze(example.partner, view.settings.model_name or None)
    row = partner.attentions[example.layer, example.head, word_position(partner.tokens, example.focus)]
    target, control = (float(row[word_position(partner.tokens, w)]) for w in (example.target, example.control))
    return words("start.partner_reading", partner=quote(example.partner), focus=quote(example.focus),
                 control_word=md(example.control), target_share=pct(target), target=quote(example.target),
                 control_share=pct(control), control=quote(example.control), still_target=target > control)


def what_the_head_does(view: View) -> None:
    """Above the part that follows the token (none of it names the selected token, so a chip click leaves it):
    the example's lesson while an example is on screen, and what the head does over every row of the sentence;
    what qualifies them waits behind "More detail" under the picture (head_details)."""
    example_claim(view)
    if weights_hidden(view):
        st.markdown(figures.hidden_text())
    elif example_on_screen(view) is None:  # with an example on screen its claim says it; this waits in More detail
        summary = head_summary(view)
        if summary:
            st.markdown(summary)


def head_summary(view: View) -> str:
    """What the head does on this sentence, measured over every row the model computes ("" for the toys and for a
    head with no pattern named)."""
    if view.is_toy:
        return ""
    (pattern, share), = describe_heads(view.full.weights[None], view.analysis.tokens, view.analysis.is_special)
    if pattern not in PATTERNS:
        return ""
    return words("start.head_summary", head=view.label, share=pct(share),
                 pattern=words(f"start.pattern_{PATTERN_KEYS[pattern]}"))


def weights_filename(view: View) -> str:
    return figures.figure_filename("home_weights", view.settings.sentence, view.code)


def weights_hidden(view: View) -> bool:
    """Predict first, before the reveal: the sentences that state the matrix's numbers wait for it too."""
    return figures.answers_hidden(weights_filename(view), view.settings.teaching)


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
    hidden = weights_hidden(view)
    focus = (words("start.focus_hidden") if hidden  # predict first: its shares wait for the reveal
             else readouts.shares(weights[i], keys, i, limit=4))  # the largest; "0.0% on …" would teach nothing
    column = quote(view.hidden_label)  # the folded markers, named here before the section below explains them
    if view.hidden.size and column in focus:
        focus = focus.replace(column, f"{column} {words('start.markers_aside')}", 1)
    st.markdown(words("start.where_each_word_looks", head=view.label, token=quote(view.token_label), focus=focus,
                      teaching=view.settings.teaching, anchor=WALKTHROUGH_ANCHOR))
    token_picker(view)
    left, right = st.columns([3, 2]) if not view.settings.teaching else (st.container(), st.container())
    with left:
        figures.show(
            figures.matrix_heatmap(weights, tokens, keys,
                                   figures.figure_title(words("start.weights_title"), view.settings.sentence,
                                                        view.label),
                                   kind="weights", highlight_row=i, teaching=view.settings.teaching,
                                   last_column=view.last_column("weights")),
            weights_filename(view), view.settings.teaching, key="fig-home-weights")
    with right:
        figures.show(
            figures.token_lines(weights, tokens, keys,
                                figures.figure_title(words("start.lines_title"), view.settings.sentence,
                                                     view.short_label),
                                selected=i, teaching=view.settings.teaching),
            figures.figure_filename("home_lines", view.settings.sentence, view.code), view.settings.teaching,
            key="fig-home-lines", revealed_with=weights_filename(view))
    st.caption(words("start.figure_caption"))
    lines = [] if hidden else readouts.every_token_lines(view)
    intro = words("start.every_token_intro", token_count=readouts.token_count(view))
    details = head_details(view)
    if details:
        with more_detail(words("start.detail_head")):
            st.markdown("\n\n".join(details))
    explain_markers(view, weights_filename(view))
    if lines:
        with more_detail(words("start.detail_every_token", count=len(lines))):
            st.markdown(intro + "\n\n" + "\n".join(f"- {line}" for line in lines))
    parity_badge(view)

    show_walkthrough(view)
