"""“Play the four steps” on the start page: the walk-through figure of the view on screen, its text alternative
and, off slides, the offline HTML file for class."""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

from .figures.alt_text import FIGURE_TEXT_LABEL
from .figures.animation import offline_html
from .figures.layout import figure_title
from .figures.show import download_config, figure_filename
from .walkthrough import walkthrough_figure, walkthrough_of
from .walkthrough_text import captions, frames_text_html

if TYPE_CHECKING:
    from .view import View

ANCHOR = "play-the-four-steps"  # the start page links here from its first screen


def build(view: View) -> tuple[go.Figure, list[str], str]:
    """The walk-through figure of a view, its captions (plain text) and its file name."""
    walk = walkthrough_of(view)
    columns = view.key_labels
    key_names = view.base_labels
    title = figure_title(f"Play the four steps for “{view.token_label}”", view.settings.sentence, view.label)
    fig = walkthrough_figure(walk, columns, key_names, view.token, title, view.settings.teaching)
    filename = figure_filename("walkthrough", view.settings.sentence, f"{view.code}-t{view.token}")
    return fig, captions(walk, columns, key_names, view.token), filename


def animation_html(view: View) -> bytes:
    """The animation as one HTML file that a teacher opens by double-click, offline."""
    fig, _, filename = build(view)
    return offline_html(fig, filename,
                        f"Self-attention, four steps: {view.token_label} in “{view.settings.sentence[:80]}”")


def show_walkthrough(view: View) -> None:
    """The animated walk-through with its text alternative and, off slides, the download for class."""
    import streamlit as st

    from .view import view_again
    from .text import quote

    teaching = view.settings.teaching
    fig, lines, filename = build(view)
    st.header(f"▶ Play the four steps for {quote(view.token_label)}", anchor=ANCHOR)
    if not teaching:
        st.markdown("Press **▶ Play** to watch the four steps happen to the selected token with its live numbers, "
                    "or drag the slider to go frame by frame. Pick another token above to follow its row.")
    st.plotly_chart(fig, config=download_config(filename, teaching), key="fig-walkthrough")
    with st.expander(FIGURE_TEXT_LABEL):  # the figure's text alternative, as under every other figure
        st.html(frames_text_html(view.token_label, lines, [frame.step for frame in walkthrough_of(view).frames]))
    if teaching:
        return
    settings, model = view.settings, view.model  # the button's function keeps these, never the view
    st.download_button("⬇️ The animation as one HTML file (opens offline, for class)",
                       lambda: animation_html(view_again(settings, model)), file_name=f"{filename}.html",
                       mime="text/html", key="walkthrough-html", on_click="ignore")
    st.caption("For slides: stop on a frame (slider) and press the camera (PNG, 3×) or SVG button at the figure's "
               "top right; the file is that frame. The HTML file also saves every frame at once, as PNG or SVG.")

