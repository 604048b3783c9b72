"""The meaning page's picture of the output: the word's vectors in every sentence on a 2-D map, one frame per layer,
the self-only control beside them, with how the map was made, what it loses and what it shows, from its numbers."""

from __future__ import annotations

import streamlit as st

from lessons import meaning as me
from lessons import meaning_map as mm

from ui import figures
from ui.figures.matrices import on_a_phone
from ui.figures.meaning import layer_labels
from ui.figures.meaning_map import word_map_frames
from ui.text import md, quote, slug

ANCHOR = "the-word-on-a-map"


def plain_words(result: me.Measurement, names: tuple[str, str]) -> str:
    """The map in 1-3 sentences a non-coder reads first."""
    return (f"Each dot is the word {quote(result.word)} in one sentence: blue circles are {md(names[0])} sentences, "
            f"orange diamonds {md(names[1])} sentences. Dots close together are vectors that point the same way. "
            "Press **▶ Play**: from the embedding to the last layer, watch whether the two kinds of dot move apart. "
            "Filled dots: the model as it is; hollow dots: the same model with attention that looks only at the word "
            "itself.")


def map_table(result: me.Measurement) -> dict:
    """The map's text alternative: for each layer the distance between the groups' centres and the groups' spread,
    the model's and the control's (its frames are not in its traces)."""
    word_map, meaning = result.word_map, result.meaning
    gaps, control = mm.centre_gaps(word_map.points, meaning), mm.centre_gaps(word_map.control, meaning)
    spreads = mm.group_spreads(word_map.points, meaning)
    control_spreads = mm.group_spreads(word_map.control, meaning)
    names = layer_labels(len(gaps))
    rows = [[names[L], f"{gaps[L]:.3f}", f"{spreads[L]:.3f}", f"{control[L]:.3f}", f"{control_spreads[L]:.3f}"]
            for L in range(len(gaps))]
    said = [f"Two maps of the word's vector in each of {len(meaning)} sentences (a point each, one shape per "
            f"meaning), the model's on the left and the control's (self-only attention) on the right, one frame per "
            f"layer (Play or the slider). One PCA fitted on both runs' vectors of every layer keeps "
            f"{word_map.kept:.0%} of their spread ({word_map.model_kept:.0%} of the model's, "
            f"{word_map.control_kept:.0%} of the control's). The table "
            f"gives, for each layer, the distance between the two groups' centres on the map and the mean distance "
            f"of a point from its group's centre: after the last layer {rows[-1][1]} and {rows[-1][2]} for the "
            f"model, {rows[-1][3]} and {rows[-1][4]} for the control."]
    return {"said": said, "header": ["after", "distance between the centres, the model", "spread in a group, the model",
                                     "distance between the centres, control", "spread in a group, control"],
            "rows": rows}


def map_section(result: me.Measurement, fact: me.Facts, names: tuple[str, str], teaching: bool, dimensions: int):
    """The map, its plain words, how it was made (with the shares it keeps) and what it shows."""
    word_map = result.word_map
    if word_map is None:  # only a Measurement built by hand lacks one: measure() always makes it
        return None
    st.header("The word's vectors as a picture", anchor=ANCHOR)
    st.markdown(plain_words(result, names))
    title = f"The word's vector in each sentence, layer by layer · “{' '.join(str(result.word).split())}”"
    fig = word_map_frames(word_map.points, word_map.control, result.meaning, result.sentences, names,
                          word_map.axis_shares, title, teaching, stacked=not teaching and on_a_phone(),
                          table=map_table(result))
    figures.show(fig, f"meaning_map_{slug(result.word)}", teaching, key="meaning-map")
    if teaching:
        st.caption(f"A flat map of vectors of {dimensions} numbers: its two axes keep {word_map.kept:.0%} of their "
                   "spread, the rest is not shown.")
        with st.expander("How the map is made, and what it loses"):
            st.markdown(mm.how_made(word_map, dimensions) + "\n\n" + mm.overlap_note(word_map, len(result.meaning)))
    else:
        st.caption(mm.how_made(word_map, dimensions))
    st.markdown(mm.map_story(word_map, result.meaning, result.growth_layer is not None, fact.control_separates,
                             short=teaching))
    return fig
