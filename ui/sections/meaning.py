"""The meaning page's sections: the word and its two groups (in the link), the measurement with its progress, and
each picture with the words built from its numbers."""

from __future__ import annotations

import io

import streamlit as st

from attention.model import ModelLoadError
from lessons import meaning as me
from lessons.questions import meaning_questions
from serving import shared

from ui import figures
from ui.content import current_language, words
from ui.sections import meaning_stories as stories
from ui.figures import meaning as meaning_figures
from ui.figures.animation import offline_html
from ui.sections.meaning_inputs import word_set_inputs  # noqa: F401  (app_pages/meaning.py's boxes, in a module of their own)
from ui.sections.step_page import figure_pair
from ui.settings import open_head_in_steps
from ui.text import layer_head_name, layer_name, layer_tag, md, quote, shorten, slug

PAGE = "app_pages/meaning.py"
STEP_PAGE = "app_pages/step3_softmax.py"


def measured(model, word: str, group_a: list[str], group_b: list[str]) -> me.Measurement:
    """The numbers (shared by every visitor; the built-in sets come from the warm-up), with a progress bar while
    they are computed, or a message and a stop."""
    key = shared.meaning_key(model, word, group_a, group_b)
    language = current_language()
    bar = None if shared.is_ready(key) else st.progress(0.0, text=words("meaning.progress", share=""))

    def progress(share: float) -> None:
        if bar is not None:  # the language bound: the measurement may call back from another thread
            bar.progress(min(1.0, share), text=words("meaning.progress", share=f"{share:.0%}", language=language))

    try:
        result = shared.meaning_measurement(model, word, group_a, group_b, progress)
    except (me.WordSetError, ModelLoadError) as error:
        if bar is not None:
            bar.empty()
        st.info(stories.word_set_error(error) if isinstance(error, me.WordSetError) else md(str(error)))
        st.stop()
    if bar is not None:
        bar.empty()
    return result


def input_notes(result: me.Measurement, names: tuple[str, str]) -> None:
    """Sentences left out (named), a word met twice, a word in several pieces: said, never silent."""
    for gone in result.missing:
        name = names[gone.group]
        st.warning(words("meaning.left_out", name=md(name[:1].upper() + name[1:]), number=gone.number,
                         sentence=quote(shorten(gone.sentence, 70)), cut=gone.cut, word=quote(result.word),
                         plural=quote(result.word + "s")))
    if result.repeated:
        st.caption(words("meaning.repeated", sentences=", ".join(quote(shorten(s, 50)) for s in result.repeated)))
    if result.split:
        st.caption(words("meaning.split_word", word=quote(result.word), count=len(result.pieces),
                         pieces=" + ".join(quote(p) for p in result.pieces)))


def definitions(result: me.Measurement, n_layers: int, teaching: bool) -> None:
    body = words("meaning.definitions", word=quote(result.word), n_layers=n_layers)
    if teaching:
        with st.expander(words("meaning.definitions_label")):
            st.markdown(body)
    else:
        st.markdown(body)
    st.latex(r"\text{separation}(\ell) = \overline{\cos}_{\text{same}}(\ell)"
             r" - \overline{\cos}_{\text{different}}(\ell)")


def _title(text: str, word: str) -> str:
    return f"{text} · “{' '.join(str(word).split())}”"


def _filename(kind: str, word: str) -> str:
    return f"meaning_{slug(kind, 24)}_{slug(word)}"


def sentence_labels(result: me.Measurement, names: tuple[str, str]) -> list[str]:
    """Unique short labels for the matrix's axes: the meaning's name and the sentence's number."""
    return [f"{names[g]} {n}" for g, n in zip(result.meaning, result.numbers)]


def separation_section(result: me.Measurement, fact: me.Facts, teaching: bool):
    st.header(words("meaning.header_layers"))
    st.markdown(stories.embedding_story(result, fact))
    same, different = result.means()
    left, right = figure_pair(teaching, 7)
    with left:
        means = meaning_figures.means_chart(same, different, _title(words("meaning.title_means"), result.word), teaching)
        figures.show(means, _filename("means", result.word), teaching, key="meaning-means")
    with right:
        fig = meaning_figures.separation_chart(result.separation, result.separation_knocked_out,
                                               _title(words("meaning.title_separation"), result.word),
                                               teaching)
        figures.show(fig, _filename("separation", result.word), teaching, key="meaning-separation")
    st.markdown(stories.separation_story(result, fact))
    st.markdown(stories.control_story(result, fact))
    return means, fig


def matrix_section(result: me.Measurement, fact: me.Facts, names: tuple[str, str], teaching: bool):
    st.header(words("meaning.header_sentences"))
    if not teaching:
        st.markdown(stories.matrix_story(result, fact, names))
    labels = sentence_labels(result, names)
    fig = meaning_figures.similarity_frames(result.similarity, labels,
                                            _title(words("meaning.title_similarity"), result.word),
                                            teaching, split=result.n_a,
                                            short_labels=[f"{'AB'[g]}{n}" for g, n in zip(result.meaning,
                                                                                         result.numbers)])
    figures.show(fig, _filename("similarity", result.word), teaching, key="meaning-similarity")
    with st.expander(words("meaning.which_sentence_label")):
        st.markdown("\n".join(words("meaning.which_sentence", label=md(label), short=f"{'AB'[g]}{n}",
                                     sentence=md(sentence))
                              for label, g, n, sentence in zip(labels, result.meaning, result.numbers,
                                                               result.sentences)))
    if not teaching:
        heading, language = words("meaning.header_sentences"), current_language()
        st.download_button(words("meaning.download_animation"),
                           lambda: offline_html(fig, _filename("similarity", result.word), heading, language),
                           file_name=_filename("similarity", result.word) + ".html", mime="text/html",
                           key="meaning-html", on_click="ignore")
    return fig


def accuracy_section(result: me.Measurement, teaching: bool):
    st.header(words("meaning.header_accuracy"))
    fig = meaning_figures.accuracy_chart(result.accuracy, result.accuracy_knocked_out, result.chance,
                                         _title(words("meaning.title_accuracy"), result.word), teaching)
    figures.show(fig, _filename("accuracy", result.word), teaching, key="meaning-accuracy")
    st.markdown(stories.accuracy_story(result))
    return fig


def built_in_results(model) -> list[me.Measurement]:
    """The built-in word sets' measurements (the warm-up's), for the heads' spread over words."""
    results = []
    for word_set in me.BUILT_IN.values():
        try:
            results.append(shared.meaning_measurement(model, word_set.word, list(word_set.meaning_a),
                                                      list(word_set.meaning_b)))
        except (ModelLoadError, me.WordSetError):
            continue
    return results


def heads_section(model, result: me.Measurement, teaching: bool):
    st.header(words("meaning.header_heads"))
    if result.head_costs is None:
        st.markdown(words("meaning.heads_none"))
        return None
    layer = result.growth_layer - 1
    built_in = [r for r in built_in_results(model) if r.head_costs is not None and r.growth_layer == layer + 1]
    spread = me.head_spread(built_in, layer)
    if not teaching:
        st.markdown(words("meaning.heads_intro", layer=layer_name(layer), word=quote(result.word)))
    others = [r for r in built_in if (r.word, r.sentences) != (result.word, result.sentences)]
    own = result.word if len(others) < len(built_in) else words("meaning.these_sentences", word=result.word)
    drops = {own: result.head_costs}
    drops.update({r.word: r.head_costs for r in others})
    fig = meaning_figures.head_drop_bars(drops, layer, _title(words("meaning.title_heads", layer=layer_name(layer)),
                                                              result.word), teaching)
    figures.show(fig, _filename(f"heads_{layer_tag(layer)}", result.word), teaching, key="meaning-heads")
    st.markdown(stories.heads_story(result, spread))
    sentence, token = result.sentences[0], result.first_token[0]
    for head in result.costliest_heads():
        st.button(words("meaning.open_head", head=layer_head_name(layer, head), sentence=quote(shorten(sentence, 40))),
                  on_click=open_head_in_steps, key=f"meaning_open_{head}",
                  args=(sentence, layer, head, token, STEP_PAGE))
    if st.session_state.pop("_goto", None):
        st.switch_page(STEP_PAGE, query_params={})
    return fig


def numbers_csv(result_rows: list[list], similarity_rows: list[list]) -> bytes:
    out = io.StringIO()
    out.write("after,same_meaning_mean,different_meaning_mean,separation,separation_self_only,"
              "nearest_neighbour_accuracy,accuracy_self_only,chance\n")
    for row in result_rows:
        out.write(",".join(str(v) for v in row) + "\n")
    out.write("\nafter,sentence_i,sentence_j,cosine,cosine_self_only\n")
    for row in similarity_rows:
        out.write(",".join(str(v) for v in row) + "\n")
    return out.getvalue().encode("utf-8")


def downloads(result: me.Measurement, names: tuple[str, str]) -> None:
    labels = meaning_figures.layer_labels(len(result.separation))
    same, different = result.means()
    columns = (same, different, result.separation, result.separation_knocked_out, result.accuracy,
               result.accuracy_knocked_out)
    rows = [[labels[L]] + [repr(float(a[L])) for a in columns] + [repr(result.chance)] for L in range(len(labels))]
    sentence_names = [n.replace(" ", "_") for n in sentence_labels(result, names)]
    m = len(sentence_names)
    similarity = [[labels[L], sentence_names[i], sentence_names[j], repr(float(result.similarity[L, i, j])),
                   repr(float(result.similarity_knocked_out[L, i, j]))]
                  for L in range(len(labels)) for i in range(m) for j in range(m)]
    st.download_button(words("meaning.download_numbers"), lambda: numbers_csv(rows, similarity),
                       file_name=_filename("numbers", result.word) + ".csv", mime="text/csv", key="meaning-csv",
                       on_click="ignore")


def meaning_quiz(model) -> list:
    """The quiz's questions on this page's built-in "bank" set (measured once per process, by the warm-up); none for a
    model whose attention this app cannot knock out."""
    word_set = me.BUILT_IN[me.DEFAULT_WORD]
    try:
        result = shared.meaning_measurement(model, word_set.word, list(word_set.meaning_a), list(word_set.meaning_b))
    except (ModelLoadError, me.WordSetError):
        return []
    return meaning_questions(result, (word_set.name_a, word_set.name_b))
