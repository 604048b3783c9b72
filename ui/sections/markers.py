"""[CLS] and [SEP], explained once, on the start page, with a picture: a row of weights must give out 100%, and a
head parks what the sentence's words do not take on the two markers. Every other page refers here (markers_link)."""

from __future__ import annotations

from urllib.parse import urlencode

import numpy as np
import streamlit as st

from ui import figures
from ui.content import words
from ui.text import pct, quote
from ui.view import View
from ui.widgets.links import view_link_params

ANCHOR = "why-cls-and-sep"
HOME_URL = "./"  # the start page is the app's default page (app.py): its address is the app's own
# Below this share the head found its row's 100% in the words: "parks" would overstate it.
SMALL_SHARE = 0.10
MOST = 0.5


def markers_share(view: View) -> float:
    """What the selected token's row gives [CLS] and [SEP] together at the head on screen (the model's own row)."""
    row = view.base.weights[view.base_index]
    return float(row[np.asarray(view.analysis.is_special, dtype=bool)].sum())


def markers_link(label: str | None = None) -> str:
    """A Markdown link to the start page's explanation, on the same sentence and head."""
    label = label or words("markers.link_label")
    params = view_link_params()
    return f"[{label}]({HOME_URL}{'?' + urlencode(params) if params else ''}#{ANCHOR})"


def marker_sentence(view: View, hidden: bool) -> str:
    """The one paragraph: the rule (100%), where the rest goes, and this row's measured share, branched."""
    share = 0.0 if hidden else markers_share(view)  # hidden: the sentence states no number
    return words("markers.sentence", hidden=hidden, branch=marker_branch(view, share), token=quote(view.token_label),
                 share=pct(share), rest=pct(1 - share), folded=bool(view.hidden.size), column=view.hidden_label)


def marker_branch(view: View, share: float) -> str:
    """Which story the row's share of the markers calls for: the token is a marker, most, some or little."""
    if view.analysis.is_special[view.base_index]:
        return "marker"
    return "most" if share >= MOST else "some" if share >= SMALL_SHARE else "little"


def explain_markers(view: View, revealed_with: str) -> None:
    """The heading a link can open, the selected token's whole row as bars beside the paragraph."""
    if view.is_toy:  # the toys have no markers
        return
    teaching = view.settings.teaching
    hidden = figures.answers_hidden(revealed_with, teaching)
    st.subheader(words("markers.heading"), anchor=ANCHOR)
    left, right = (st.container(), st.container()) if teaching else st.columns([2, 3])
    left.markdown(marker_sentence(view, hidden))
    with right:
        title = figures.figure_title(words("markers.bars_title", token=view.token_label), view.settings.sentence,
                                     view.label)
        figures.show(figures.marker_bars(view.base.weights[view.base_index], view.base_labels,
                                         view.analysis.is_special, title, teaching),
                     figures.figure_filename("home_markers", view.settings.sentence, f"{view.code}-t{view.token}"),
                     teaching, key="fig-home-markers", revealed_with=revealed_with)
