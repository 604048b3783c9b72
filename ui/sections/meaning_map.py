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
from ui.content import words
from ui.text import layer_name, md, quote, slug

ANCHOR = "the-word-on-a-map"


def plain_words(result: me.Measurement, names: tuple[str, str]) -> str:
    """The map in 1-3 sentences a non-coder reads first."""
    return words("meaning_map.plain_words", word=quote(result.word), name_a=md(names[0]), name_b=md(names[1]))


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
    said = [words("meaning_map.table_said", m=len(meaning), kept=f"{word_map.kept:.0%}",
                  model_kept=f"{word_map.model_kept:.0%}", control_kept=f"{word_map.control_kept:.0%}",
                  gap=rows[-1][1], spread=rows[-1][2], control_gap=rows[-1][3], control_spread=rows[-1][4])]
    header = [words("meaning_map.table_after"), words("meaning_map.table_gap"), words("meaning_map.table_spread"),
              words("meaning_map.table_control_gap"), words("meaning_map.table_control_spread")]
    return {"said": said, "header": header, "rows": rows}


def how_made(word_map: mm.MeaningMap, dimensions: int) -> str:
    """How the map was made and what it drops, with the shares measured on this map."""
    return words("meaning_map.how_made", dimensions=dimensions, kept=f"{word_map.kept:.0%}",
                 axis_1=f"{word_map.axis_shares[0]:.0%}", axis_2=f"{word_map.axis_shares[1]:.0%}",
                 model_kept=f"{word_map.model_kept:.0%}", control_kept=f"{word_map.control_kept:.0%}",
                 others=dimensions - mm.AXES)


def overlap_note(fact: mm.MapFacts) -> str:
    """Why fewer dots than sentences may show: the same word at the same place is the same vector before attention
    (and in the control at every layer). Empty when every sentence has its own dot."""
    if not fact.dots_overlap:
        return ""
    control_dots = fact.control_last_dots if fact.control_last_dots < fact.sentences else 0
    return words("meaning_map.overlap_note", m=fact.sentences, dots=fact.first_dots, control_dots=control_dots,
                 last_layer=layer_name(fact.last - 1))


def map_story(word_map: mm.MeaningMap, fact: mm.MapFacts, short: bool = False) -> str:
    """What the map shows, from the distances between the groups' centres on it; a branch for each way the map and
    the page's full measurement can agree or not. short (teaching mode): without the note on dots that lie on top
    of each other."""
    last, top = fact.last, fact.top
    said = words("meaning_map.distances", start=f"{fact.gaps[0]:.2f}", end=f"{fact.gaps[last]:.2f}",
                 last_layer=layer_name(last - 1), top_layer=layer_name(top - 1) if top not in (0, last) else "",
                 top=f"{fact.gaps[top]:.2f}", control_start=f"{fact.control_gaps[0]:.2f}",
                 control_end=f"{fact.control_gaps[last]:.2f}")
    note = "" if short else overlap_note(fact)
    verdict = words("meaning_map.story", on_map=fact.on_map, separates=fact.separates,
                    control_on_map=fact.control_on_map, control_separates=fact.control_separates,
                    kept=f"{word_map.kept:.0%}")
    return " ".join(part for part in (said, note, verdict) if part)


def map_section(result: me.Measurement, fact: me.Facts, names: tuple[str, str], teaching: bool, dimensions: int):
    """The map, its plain words, how it was made (with the shares it keeps) and what it shows."""
    word_map = result.word_map
    if word_map is None:  # only a Measurement built by hand lacks one: measure() always makes it
        return None
    st.header(words("meaning_map.header"), anchor=ANCHOR)
    st.markdown(plain_words(result, names))
    title = f"{words('meaning_map.title')} · “{' '.join(str(result.word).split())}”"
    fig = word_map_frames(word_map.points, word_map.control, result.meaning, result.sentences, names,
                          word_map.axis_shares, title, teaching, stacked=not teaching and on_a_phone(),
                          table=map_table(result))
    figures.show(fig, f"meaning_map_{slug(result.word)}", teaching, key="meaning-map")
    facts = mm.map_facts(word_map, result.meaning, result.growth_layer is not None, fact.control_separates)
    if teaching:
        st.caption(words("meaning_map.caption_short", dimensions=dimensions, kept=f"{word_map.kept:.0%}"))
        with st.expander(words("meaning_map.how_made_label")):
            st.markdown(how_made(word_map, dimensions) + "\n\n" + overlap_note(facts))
    else:
        st.caption(how_made(word_map, dimensions))
    st.markdown(map_story(word_map, facts, short=teaching))
    return fig
