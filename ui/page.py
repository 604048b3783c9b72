"""Layout pieces every step page repeats: a matrix beside its plain-language explanation, and downloads."""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import streamlit as st

from . import figures
from .parity import parity_badge
from .labels import unique_labels
from .settings import EXAMPLES, MAX_SENTENCE_CHARS, Example, choose_sentence, clean_sentence, settings
from .sidebar import draw_token_list, shown_tokens, token_chosen
from .text import layer_head_name, md, no_bidi, people_number
from .view import View, current_view, view_again


def explained_matrix(view: View, text: str, formula: str | tuple[str, ...], fig, step_name: str) -> None:
    """Explanation and formula on the left, the figure on the right (stacked in teaching mode)."""
    teaching = view.settings.teaching
    filename = figures.figure_filename(step_name, view.settings.sentence, view.code)
    if teaching:
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
    return st.expander(f"More detail: {what}")


# A half-width figure on a 1280 px slide holds about this many upright 18 px token labels side by side.
SLIDE_HALF_WIDTH_LABELS = 20


def figure_pair(teaching: bool, n_labels: int):
    """Two places for two figures: side by side, or stacked on a slide once a half-width figure could not keep
    every token's label (teaching mode never thins labels)."""
    if teaching and n_labels > SLIDE_HALF_WIDTH_LABELS:
        return st.container(), st.container()
    return tuple(st.columns(2))


def matrix_csv(matrix, row_tokens, col_tokens=None) -> bytes:
    """CSV with token labels; cells are written as numbers, labels quoted so spreadsheets keep them text."""
    matrix = np.asarray(matrix)
    cols = list(col_tokens) if col_tokens is not None else [f"dim{j}" for j in range(matrix.shape[1])]
    def cell(text):
        text = no_bidi(text).replace('"', '""')
        if text[:1] in ("=", "+", "-", "@"):  # never let a spreadsheet run a token as a formula
            text = "'" + text
        return f'"{text}"'
    lines = [",".join([cell("query \\ key")] + [cell(c) for c in cols])]
    for token, row in zip(row_tokens, matrix):
        lines.append(",".join([cell(token)] + [repr(float(v)) for v in row]))
    return ("\n".join(lines) + "\n").encode("utf-8")


def intermediates_npz(view: View) -> bytes:
    """Every intermediate of the computation the page shows: in learned mode the whole sentence, [CLS] and [SEP]
    included, exactly as the model runs it (hiding them on the page does not change the numbers)."""
    s = view.base
    x = view.x if view.is_toy else view.analysis.hidden_states[view.settings.layer]
    buffer = io.BytesIO()
    np.savez_compressed(buffer, tokens=np.array(view.base_labels), x=x, q=s.q, k=s.k, v=s.v, raw=s.raw,
                        scaled=s.scaled, weights=s.weights, output=s.output)
    return buffer.getvalue()


def downloads(view: View, step_name: str, matrix, col_tokens=None) -> None:
    """Two download buttons whose files are made only when clicked: building both on every rerun cost ~20 ms
    at 256 tokens, for files most visitors never ask for. A click downloads without rerunning the page."""
    base = figures.figure_filename(step_name, view.settings.sentence, view.code)
    # The buttons' functions live as long as the tab (and two minutes after it closes): they hold a copy of the
    # one matrix and the settings, never the view, whose model pass is up to 25 MB.
    matrix, tokens, settings, model = np.array(matrix), list(view.labels), view.settings, view.model
    col_tokens = None if col_tokens is None else list(col_tokens)
    left, right = st.columns(2)
    left.download_button("⬇️ This matrix as CSV", lambda: matrix_csv(matrix, tokens, col_tokens),
                         file_name=f"{base}.csv", mime="text/csv", key=f"csv-{step_name}", on_click="ignore")
    right.download_button("⬇️ All intermediates (.npz)", lambda: intermediates_npz(view_again(settings, model)),
                          file_name=figures.figure_filename("attention", view.settings.sentence, view.code) + ".npz",
                          mime="application/octet-stream", key=f"npz-{step_name}", on_click="ignore")


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


# --- added for issue 15: the tour's order, [CLS]/[SEP] in plain words, example sentences ---------------

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
    if current != "pages/home.py":  # the animated walk-through (ui/walkthrough.py) is on the start page
        st.page_link("pages/home.py", label="▶ Play the four steps for the selected token (on the start page)")


def specials_note(view: View, folded: bool = True, scores_too: bool = False) -> None:
    """What [CLS] and [SEP] are, said where the weights first show them (learned mode only).

    folded: the page's weights carry the hidden tokens as one column; False for pages that simply leave
    them out (the scores of steps 1 and 2)."""
    if view.is_toy:
        return
    text = ("**[CLS]** and **[SEP]** are two marker tokens the model adds at the start and the end of every "
            "sentence. Many heads put much of their attention on them; their values are often short, so it counts "
            "for less in the output (measured on the multi-head page).")
    if view.hidden.size and not folded:
        text += (f" They are hidden from the matrices, not from the computation: the last column, "
                 f"“{view.score_keys[-1]}”, shows the larger of their scores in each row, and step 3 shows the "
                 "share of attention they take. Tick “Show [CLS] and [SEP]” in the sidebar to see each of them.")
    elif view.hidden.size:
        text += (f" They are hidden from the picture but not from the numbers: the column "
                 f"“{view.hidden_label}” adds up what goes to them, so every row still sums to 1. Tick "
                 "“Show [CLS] and [SEP]” in the sidebar to see them apart.")
        if scores_too:  # step 2: score matrices (largest hidden score) and a row of weights (their sum) on one page
            text += (f" In the score matrices the last column, “{view.score_keys[-1]}”, shows the larger of their "
                     "scores instead: scores do not add up.")
    st.caption(text)


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


def step_downloads(view: View, step_name: str, matrix, col_tokens=None) -> None:
    """The downloads, but not on slides (teaching mode)."""
    if not view.settings.teaching:
        downloads(view, step_name, matrix, col_tokens)


TOKEN_PICKER_LIMIT = 40  # more tokens than this do not fit as one row of chips; the sidebar's list still works


def _pick_token() -> None:
    """on_change: the chips set the sidebar's selected token (one state, two places to change it)."""
    token_chosen("token_chips")


def _pick_layer_head() -> None:
    """on_change: the slide's compact layer and head controls set the sidebar's (one state, two places)."""
    for compact, key in (("layer_compact", "layer"), ("head_compact", "head")):
        if st.session_state.get(compact) is not None:
            st.session_state[key] = st.session_state[compact]
    # Inside the start page's fragment this reruns only the fragment: the sidebar's layer and head must be
    # redrawn too, so the fragment asks for the whole page (ui/start_page.py).
    st.session_state[WHOLE_PAGE_RERUN] = True


WHOLE_PAGE_RERUN = "_whole_page_rerun"


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
    left.segmented_control("Layer", list(range(n_layers)), key="layer_compact",
                           format_func=people_number, on_change=_pick_layer_head)
    right.segmented_control("Head", list(range(n_heads)), key="head_compact",
                            format_func=people_number, on_change=_pick_layer_head)


def token_picker(view: View) -> None:
    """The sentence's tokens as chips right under the title: click a word to explain its row (on a slide too)."""
    layer_head_control(view)
    if len(view.tokens) > TOKEN_PICKER_LIMIT:
        return
    # Follow the sidebar (and a new sentence) on every run: set before the widget exists.
    st.session_state["token_chips"] = view.token
    # Unique ("the", "the²"): st.pills matches options by their label. The widget keeps its format_func for the
    # tab's life: the labels, not the view.
    labels = list(view.labels)
    st.pills("Click a token to follow its row", list(range(len(labels))), key="token_chips",
             format_func=lambda j: md(labels[j]), on_change=_pick_token)  # pills render Markdown
