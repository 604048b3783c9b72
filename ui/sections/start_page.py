"""The start page's part that follows the selected token, as one fragment: a chip click reruns only this part."""

from __future__ import annotations

import streamlit as st

from lessons.heads import PATTERN_WORDS, describe_heads, next_word_rows, word_position
from serving.models import analyze

from ui import figures, readouts
from ui.widgets.pickers import WHOLE_PAGE_RERUN, token_picker
from ui.sections.markers import explain_markers
from ui.sections.step_page import more_detail
from ui.widgets.parity import parity_badge
from ui.widgets.sidebar import draw_token_list
from ui.settings import DEFAULT_HEAD, DEFAULT_LAYER, EXAMPLES, PRONOUN_HEAD
from ui.text import layer_head_name, pct, quote
from ui.view import View, current_view
from ui.sections.walkthrough_section import show_walkthrough


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
    against = (f", and {pct(row[labels.index(example.control)])} to {quote(example.control)}"
               if example.control in labels else "")
    name = layer_head_name(example.layer, example.head, capital=True)
    how = ("chosen for pronouns on other sentences, not on this one" if (example.layer, example.head) ==
           PRONOUN_HEAD else "chosen for it by measuring all 72 heads")
    text = (f"**What this example shows:** {example.shows}. {name} ({how}): {quote(example.focus)} sends "
            f"**{pct(row[labels.index(example.target)])}** of its attention to {quote(example.target)}{against}.")
    st.markdown(text)


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
    if pattern in PATTERN_WORDS and view.hidden.size:
        details.append(f"The head's average is over all {readouts.token_count(view)} the model sees: the rows of the "
                       "hidden [CLS] and [SEP] count too, so the drawn rows alone can average more or less."
                       + readouts.next_token_note(view, pattern))
    return details


def next_word_reading(view: View) -> str:
    rows = next_word_rows(view.weights, view.shown)
    labels, keys = view.labels, view.key_labels
    others = [(r, n, top) for r, n, top in rows if top != n]
    count = len(rows) - len(others)
    if not others:
        text = f"Each word followed by another word looks most at the word after it ({count} of {len(rows)})."
    elif count > len(rows) / 2:
        text = (f"Most words look most at the word after them, but not every one: {count} of the {len(rows)} words "
                "followed by another word do.")
    else:
        text = f"Only {count} of the {len(rows)} words followed by another word look most at the word after them."
    for r, n, top in others:
        text += (f" {quote(labels[r])} gives more to {quote(keys[top])} ({pct(view.weights[r, top])}) than to the "
                 f"word after it, {quote(keys[n])} ({pct(view.weights[r, n])}).")
    return text


def partner_reading(example, view: View) -> str:
    """The same head on the partner sentence, where the focus means the control: does its attention follow?"""
    partner = analyze(example.partner, view.settings.model_name or None)
    row = partner.attentions[example.layer, example.head, word_position(partner.tokens, example.focus)]
    target, control = (float(row[word_position(partner.tokens, w)]) for w in (example.target, example.control))
    shares = f"it sends {pct(target)} to {quote(example.target)} and {pct(control)} to {quote(example.control)}"
    follows = (f"it still looks more at {quote(example.target)}, so where it looks does not follow the meaning here"
               if target > control else f"it now looks more at {quote(example.control)}, as the meaning does")
    return (f"In the partner sentence, {quote(example.partner)}, where {quote(example.focus)} means the "
            f"{example.control}, {shares}: {follows}. The pronoun page shows how this head does on sentences it "
            "was not chosen on.")


def what_the_head_does(view: View) -> None:
    """Above the part that follows the token (none of it names the selected token, so a chip click leaves it):
    the example's lesson while an example is on screen, and what the head does over every row of the sentence;
    what qualifies them waits behind "More detail" under the picture (head_details)."""
    example_claim(view)
    if weights_hidden(view):
        st.markdown(figures.HIDDEN_TEXT)
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
    if pattern not in PATTERN_WORDS:
        return ""
    return (f"**What this head does** ({view.label}): on average over every row it sends {pct(share)} of a token's "
            f"attention to {PATTERN_WORDS[pattern]}. Follow the dark cells in the matrix.")


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
    focus = ("… where? Guess before the reveal" if hidden  # predict first: its shares wait for the reveal
             else readouts.shares(weights[i], keys, i, limit=4))  # the largest; "0.0% on …" would teach nothing
    st.markdown(f"**Where each word looks** ({view.label}). The selected token, {quote(view.token_label)}, puts "
                f"{focus}." + ("" if view.settings.teaching else " Click another token below.")
                + f" ▶ [Play the four steps for {quote(view.token_label)}](#play-the-four-steps).")
    token_picker(view)
    left, right = st.columns([3, 2]) if not view.settings.teaching else (st.container(), st.container())
    with left:
        figures.show(
            figures.matrix_heatmap(weights, tokens, keys,
                                   figures.figure_title("Attention weights", view.settings.sentence, view.label),
                                   kind="weights", highlight_row=i, teaching=view.settings.teaching,
                                   last_column=view.last_column("weights")),
            weights_filename(view), view.settings.teaching, key="fig-home-weights")
    with right:
        figures.show(
            figures.token_lines(weights, tokens, keys,
                                figures.figure_title("The same, as lines", view.settings.sentence, view.short_label),
                                selected=i, teaching=view.settings.teaching),
            figures.figure_filename("home_lines", view.settings.sentence, view.code), view.settings.teaching,
            key="fig-home-lines", revealed_with=weights_filename(view))
    st.caption("Each row is a token looking (its query), each column a token it looks at (its key). Darker = more "
               "attention; every row adds up to 100%. Right: thicker line = more attention.")
    lines = [] if hidden else readouts.every_token_lines(view)
    intro = (f"**Every token, one line each** ({readouts.token_count(view)}): where it looks most, and the weights "
             "its output mixes the value vectors with (step 4: each value times its weight, added up).")
    details = head_details(view)
    if details:
        with more_detail("this head over every row of your sentence"):
            st.markdown("\n\n".join(details))
    explain_markers(view, weights_filename(view))
    if lines:
        with more_detail(f"every token, one line each ({len(lines)} lines)"):
            st.markdown(intro + "\n\n" + "\n".join(f"- {line}" for line in lines))
    parity_badge(view)

    show_walkthrough(view)
