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
    settings,
)
from ui.content import words
from ui.text import layer_head_name, md
from ui.widgets.sidebar import shown_tokens

# Every page of the menu (app.py), in the order people read them: the tour's Previous / Next. The start page has
# no Previous; the glossary's Next goes back to the start (tests/test_teaching_everywhere.py holds it to app.py).
TOUR = [(f"app_pages/{name}.py", name) for name in (
    "home", "by_hand", "step1_scores", "step2_scaling", "step3_softmax", "step4_output", "compare", "pronoun",
    "meaning", "multihead", "whatif", "training", "quiz", "glossary")]  # (page, its name's text: tour.name_…)
STEP_PAGES = ("app_pages/step1_scores.py", "app_pages/step2_scaling.py", "app_pages/step3_softmax.py", "app_pages/step4_output.py")
# Pages that do not read the shared sentence: what the slide's first row says in place of its sentence box
# (tour.own_input_…).
OWN_INPUT = {f"app_pages/{name}.py": name for name in ("by_hand", "compare", "pronoun", "meaning", "training",
                                                        "glossary")}


def _page_name(name: str) -> str:
    return words(f"tour.name_{name}")


def _neighbours(current: str) -> tuple[tuple[str, str] | None, tuple[str, str]]:
    """The pages before and after this one; after the last comes the start again."""
    i = [path for path, _ in TOUR].index(current)
    after = TOUR[i + 1] if i + 1 < len(TOUR) else (TOUR[0][0], None)  # None: back to the start
    return (TOUR[i - 1] if i > 0 else None), after


def _previous_next(current: str, back, forward, width: str = "content") -> None:
    before, after = _neighbours(current)
    # No help= tooltip: with one, Streamlit 1.67 draws each link twice (a second, hidden copy for its tooltip).
    if before:
        back.page_link(before[0], label=words("tour.previous", page=_page_name(before[1])), width=width)
    forward_name = _page_name(after[1]) if after[1] else words("tour.back_to_start")
    forward.page_link(after[0], label=words("tour.next", page=forward_name), width=width)


def step_nav(current: str) -> None:
    """Previous / Next at the foot of every page."""
    left, _, right = st.columns([1, 1, 1])
    _previous_next(current, left, right)
    if current in STEP_PAGES:  # the animated walk-through (ui/sections/walkthrough.py) is on the start page
        st.page_link("app_pages/home.py", label=words("tour.play_steps"))


def slide_top(current: str) -> None:
    """Teaching mode's first row, on every page: the sentence box (or what the page reads instead), the examples
    and Previous / Next, so a teacher runs the lesson with the sidebar put away. One row, above the title, so the
    page's picture keeps the screen (issue 55). Off a slide it draws nothing."""
    s = settings()
    if not s.teaching:
        return
    with st.container(key="slide_top"):
        if current in OWN_INPUT:  # one line of text where the box would be: the row stays one line high
            note, back, forward = st.columns([6.2, 2.9, 2.9], vertical_alignment="center")
            note.markdown(words(f"tour.own_input_{OWN_INPUT[current]}"))
        else:
            box, examples, back, forward = st.columns([5, 1.2, 2.9, 2.9], vertical_alignment="bottom")
            with box:
                _sentence_widget(s.sentence)
            with examples.popover(words("tour.examples_button"), width="stretch"):  # no help=: it draws the button twice (1.67)
                _example_buttons()
        _previous_next(current, back, forward, width="stretch")  # a bar of two equal buttons


def _type_sentence() -> None:
    """on_change: the page's sentence box sets the sidebar's sentence (one state, two places to type it)."""
    st.session_state["sentence"] = clean_sentence(st.session_state.get("sentence_inline", ""))


def sentence_box(sentence: str) -> None:
    """The sentence box on the page itself, shown on narrow screens only (page_style.BASE_CSS): on a phone the
    sidebar hides behind the "»" button, which students do not find. On a slide the first row has it (slide_top)."""
    if not settings().teaching:
        _sentence_widget(sentence)


def _sentence_widget(sentence: str) -> None:
    st.session_state["sentence_inline"] = sentence  # follows the sidebar: set before the widget exists
    with st.container(key="sentence_inline_box"):
        st.text_area(words("tour.sentence_label"), key="sentence_inline", on_change=_type_sentence, height=68,
                     max_chars=MAX_SENTENCE_CHARS,  # the sidebar's limit: one limit for every sentence box
                     help=words("tour.sentence_help"))


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
    measured for its lesson and the word the lesson is about selected. On a slide they are in the first row."""
    if settings().teaching:
        return
    columns = st.columns([0.9] + [1.1] * len(EXAMPLES))
    columns[0].markdown(words("tour.examples_lead"))
    for column, example in zip(columns[1:], EXAMPLES):
        with column:
            _example_button(example)


def _example_buttons() -> None:
    for example in EXAMPLES:
        _example_button(example)


def _example_button(example: Example) -> None:
    st.button(example.name, key=f"example-{example.key}", on_click=_use_example, args=(example,),
              help=words("tour.example_help", sentence=md(example.sentence), shows=example.shows,
                         head_name=layer_head_name(example.layer, example.head)),
              use_container_width=True)
