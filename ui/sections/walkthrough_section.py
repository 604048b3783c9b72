"""“Play the four steps” on the start page: the walk-through figure of the view on screen, its text alternative
and, off slides, the offline HTML file for class."""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

from ui.content import current_language, words
from ui.figures.alt_text import figure_text_label
from ui.figures.animation import offline_html
from ui.figures.layout import figure_title
from ui.figures.show import download_config, figure_filename
from ui.sections.walkthrough import walkthrough_figure, walkthrough_of
from ui.sections.walkthrough_text import captions, frames_text_html

if TYPE_CHECKING:
    from ui.view import View

ANCHOR = "play-the-four-steps"  # the start page links here from its first screen


def build(view: View, language: str | None = None) -> tuple[go.Figure, list[str], str]:
    """The walk-through figure of a view, its captions (plain text) and its file name, in `language` (the page's:
    bound by a download made after the page's run)."""
    language = language or current_language()
    walk = walkthrough_of(view)
    columns = view.key_labels
    key_names = view.base_labels
    title = figure_title(words("walkthrough.figure_title", language=language, token=view.token_label),
                         view.settings.sentence, view.label)
    fig = walkthrough_figure(walk, columns, key_names, view.token, title, view.settings.teaching, language)
    filename = figure_filename("walkthrough", view.settings.sentence, f"{view.code}-t{view.token}")
    return fig, captions(walk, columns, key_names, view.token, language), filename


def animation_html(view: View, language: str | None = None) -> bytes:
    """The animation as one HTML file that a teacher opens by double-click, offline."""
    fig, _, filename = build(view, language)
    return offline_html(fig, filename, words("walkthrough.file_title", language=language, token=view.token_label,
                                             sentence=view.settings.sentence[:80]), language=language)


SHOWN = "walkthrough_shown"  # session state: the student asked for the animation (it then follows every token)


def show_walkthrough(view: View) -> None:
    """The animated walk-through with its text alternative and the downloads for class (closed on a slide).

    The figure is drawn once the student asks for it: its 14 frames are the start page's heaviest drawing, and
    drawn on every chip click they made the click wait (bench/run.py). Asked for once, it follows the selected
    token for the rest of the visit."""
    import streamlit as st

    from ui.text import quote

    teaching = view.settings.teaching
    st.header(words("walkthrough.heading_section", token=quote(view.token_label)), anchor=ANCHOR)
    if st.session_state.get(SHOWN):
        fig, lines, filename = build(view)
        if not teaching:
            st.markdown(words("walkthrough.how_to_play"))
        st.plotly_chart(fig, config=download_config(filename, teaching), key="fig-walkthrough")
        with st.expander(figure_text_label()):  # the figure's text alternative, as under every other figure
            st.html(frames_text_html(view.token_label, lines, [frame.step for frame in walkthrough_of(view).frames]))
    else:
        filename = figure_filename("walkthrough", view.settings.sentence, f"{view.code}-t{view.token}")
        st.markdown(words("walkthrough.teaser", token=quote(view.token_label)))
        st.button(words("walkthrough.show_button", token=quote(view.token_label)), key="walkthrough-show",
                  type="primary", on_click=_show)
    settings = view.settings  # the buttons' functions keep the settings (the model is found by its name), never the view
    # On a slide the downloads wait in a closed box (a slide shows no buttons); their files are slide-sized there.
    with st.expander(words("walkthrough.downloads_box")) if teaching else st.container():
        with st.container(key="class_downloads"):
            walkthrough_downloads(settings, filename)


def _show() -> None:
    """on_click of "Show the animation": from now on the animation follows the selected token."""
    import streamlit as st

    st.session_state[SHOWN] = True


def walkthrough_downloads(settings, filename: str) -> None:
    """The animation's offline file (at slide size from teaching mode, or on request) and the worksheet."""
    import dataclasses

    import streamlit as st

    from ui.view import view_again
    from ui.sections.worksheet import worksheet_html

    teaching = settings.teaching
    language = current_language()  # the files are made after the page's run, when the page's language is unknown
    st.download_button(words("walkthrough.download_html", teaching=teaching),
                       lambda: animation_html(view_again(settings), language), file_name=f"{filename}.html",
                       mime="text/html", key="walkthrough-html", on_click="ignore")
    if not teaching:
        slide = dataclasses.replace(settings, teaching=True)
        # The how-to for slides, on the slide-size button's "?" rather than in the page's first read.
        st.download_button(words("walkthrough.download_slide"),
                           lambda: animation_html(view_again(slide), language), file_name=f"{filename}_slide.html",
                           mime="text/html", key="walkthrough-html-slide", on_click="ignore",
                           help=words("walkthrough.slide_help"))
    st.download_button(words("walkthrough.download_worksheet"),
                       lambda: worksheet_html(view_again(settings), language),
                       file_name=filename.replace("walkthrough_", "worksheet_", 1) + ".html",
                       mime="text/html", key="worksheet-html", on_click="ignore")
