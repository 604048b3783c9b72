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
    bar = None if shared.is_ready(key) else st.progress(0.0, text="Running the model on every sentence…")

    def progress(share: float) -> None:
        if bar is not None:
            bar.progress(min(1.0, share), text=f"Running the model on every sentence… {share:.0%}")

    try:
        result = shared.meaning_measurement(model, word, group_a, group_b, progress)
    except (me.WordSetError, ModelLoadError) as error:
        if bar is not None:
            bar.empty()
        st.info(md(str(error)))
        st.stop()
    if bar is not None:
        bar.empty()
    return result


def input_notes(result: me.Measurement, names: tuple[str, str]) -> None:
    """Sentences left out (named), a word met twice, a word in several pieces: said, never silent."""
    for gone in result.missing:
        why = ("appears only after the part of the text the model reads (256 tokens)" if gone.cut else
               f"has no {quote(result.word)} (exactly this word: {quote(result.word + 's')} would be another word to "
               "the model)")
        name = names[gone.group]
        st.warning(f"{md(name[:1].upper() + name[1:])}, sentence {gone.number}, "
                   f"{quote(shorten(gone.sentence, 70))}, {why}. It is left out of every number below.")
    if result.repeated:
        st.caption("The word appears more than once in " + ", ".join(quote(shorten(s, 50)) for s in result.repeated)
                   + ": its first appearance is measured.")
    if result.split:
        st.caption(f"The tokenizer cuts {quote(result.word)} into {len(result.pieces)} pieces ("
                   + " + ".join(quote(p) for p in result.pieces) + "): the word's vector is the **mean** of its "
                   "pieces' vectors.")


def definitions(result: me.Measurement, names: tuple[str, str], teaching: bool) -> None:
    word = quote(result.word)
    body = (
        f"- **The word's vector after a layer**: the model's own hidden state of the token {word} at the output of "
        "that layer (layers 1 to 6, as the sidebar counts them). A word cut into several pieces: the mean of its "
        "pieces.\n"
        "- **The embedding**: the word's vector before any attention, the embedding layer's output. It is the "
        "word's own entry plus an entry for its **position** (where it stands in the sentence), so the same word at "
        "another place already has a slightly different vector.\n"
        f"- **Same-meaning mean** and **different-meaning mean**: the mean cosine similarity of the vectors of {word} "
        "over pairs of sentences with the same meaning, and over pairs with different meanings (1: the same "
        "direction). **Separation** = the first − the second: above 0, the word is more alike within a meaning "
        "than across.\n"
        "- **Nearest-neighbour accuracy**: leave each sentence out, find the most similar of the others (cosine), "
        "and count how often it has the same meaning (when several are equally similar, each counts for its "
        "share). **Chance** is what a random other sentence would score.\n"
        "- **The control, self-only attention**: in every layer every head gives each token weight 1 on itself "
        "and 0 elsewhere; everything else in the model stays the same. No token takes anything from another, so "
        "the word's vector depends only on the word and its position: the control shows what those alone give.\n"
        "- **Mean-ablating a head**: its output at every token is replaced by its average over every token of "
        "these sentences, so it passes on nothing about any one token; the other heads keep working."
    )
    if teaching:
        with st.expander("How each number is defined"):
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
    st.header("Layer by layer")
    st.markdown(me.embedding_story(result, fact, quote))
    same, different = result.means()
    left, right = figure_pair(teaching, 7)
    with left:
        means = meaning_figures.means_chart(same, different, _title("Mean cosine within and across the meanings",
                                                                    result.word), teaching)
        figures.show(means, _filename("means", result.word), teaching, key="meaning-means")
    with right:
        fig = meaning_figures.separation_chart(result.separation, result.separation_knocked_out,
                                               _title("Separation, and the self-only control", result.word),
                                               teaching)
        figures.show(fig, _filename("separation", result.word), teaching, key="meaning-separation")
    st.markdown(me.separation_story(result, fact, quote))
    st.markdown(me.control_story(result, fact, quote))
    return means, fig


# How a cell's colour changes when its cosine moves so (the matrix's scale: low cosines dark, high ones yellow).
COLOUR_CHANGE = {"falls": "darker", "rises": "brighter", "holds": "about the same colour"}


def matrix_story(result: me.Measurement, fact: me.Facts, names: tuple[str, str]) -> str:
    """What the animated matrix shows under its one colour scale, from the same numbers as the means chart."""
    low, high = meaning_figures.similarity_range(result.similarity)
    same, different = fact.same, fact.different
    said = (f"Each cell is the cosine similarity of the vectors of {quote(result.word)} in two sentences. The first "
            f"{result.n_a} rows and columns are {md(names[0])}, the last {result.n_b} {md(names[1])}. One colour "
            f"scale serves every layer, from {me.cosine(low)} (dark purple) to {me.cosine(high)} (yellow), so a "
            "colour means the same cosine in every frame. Press **▶ Play** or drag the slider: from the embedding "
            f"to the last layer the cells within a meaning turn {COLOUR_CHANGE[same.direction]} (mean "
            f"{me.cosine(same.start)} → {me.cosine(same.end)}) and the cells across the meanings turn "
            f"{COLOUR_CHANGE[different.direction]} ({me.cosine(different.start)} → {me.cosine(different.end)})")
    if same.direction == different.direction == "falls" and fact.different_changes_less:
        said += ", the ones across more"
    return said + "."


def matrix_section(result: me.Measurement, fact: me.Facts, names: tuple[str, str], teaching: bool):
    st.header("Sentence by sentence")
    if not teaching:
        st.markdown(matrix_story(result, fact, names))
    labels = sentence_labels(result, names)
    fig = meaning_figures.similarity_frames(result.similarity, labels,
                                            _title("How alike the word is in each pair of sentences", result.word),
                                            teaching, split=result.n_a,
                                            short_labels=[f"{'AB'[g]}{n}" for g, n in zip(result.meaning,
                                                                                         result.numbers)])
    figures.show(fig, _filename("similarity", result.word), teaching, key="meaning-similarity")
    with st.expander("Which sentence is which"):
        st.markdown("\n".join(f"- **{md(label)}** ({'AB'[g]}{n} on a phone): {md(sentence)}" for label, g, n, sentence
                              in zip(labels, result.meaning, result.numbers, result.sentences)))
    if not teaching:
        st.download_button("⬇️ The animation as one HTML file (opens offline, for class)",
                           lambda: offline_html(fig, _filename("similarity", result.word), "Sentence by sentence"),
                           file_name=_filename("similarity", result.word) + ".html", mime="text/html",
                           key="meaning-html", on_click="ignore")
    return fig


def accuracy_section(result: me.Measurement, teaching: bool):
    st.header("Does the nearest sentence share the meaning?")
    fig = meaning_figures.accuracy_chart(result.accuracy, result.accuracy_knocked_out, result.chance,
                                         _title("Nearest-neighbour accuracy by layer", result.word), teaching)
    figures.show(fig, _filename("accuracy", result.word), teaching, key="meaning-accuracy")
    st.markdown(me.accuracy_story(result))
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
    st.header("One head at a time")
    if result.head_costs is None:
        st.markdown("The meanings do not come apart here, so there is no separation for a head to carry.")
        return None
    layer = result.growth_layer - 1
    built_in = [r for r in built_in_results(model) if r.head_costs is not None and r.growth_layer == layer + 1]
    spread = me.head_spread(built_in, layer)
    if not teaching:
        st.markdown(f"Each bar: **mean-ablate** one head of {layer_name(layer)} (replace its output at every token by its "
                    "average over every token of the word's sentences), run that layer again from the same input, "
                    "and measure how much lower the separation after it is than with every head working. Beside "
                    f"{quote(result.word)}, the built-in words measured the same way at this layer.")
    others = [r for r in built_in if (r.word, r.sentences) != (result.word, result.sentences)]
    drops = {result.word if len(others) < len(built_in) else f"{result.word} (these sentences)": result.head_costs}
    drops.update({r.word: r.head_costs for r in others})
    fig = meaning_figures.head_drop_bars(drops, layer, _title(f"Drop in separation when one head of {layer_name(layer)} "
                                                              "is mean-ablated", result.word), teaching)
    figures.show(fig, _filename(f"heads_{layer_tag(layer)}", result.word), teaching, key="meaning-heads")
    st.markdown(me.heads_story(result, spread, quote))
    sentence, token = result.sentences[0], result.first_token[0]
    for head in result.costliest_heads():
        st.button(f"Open {layer_head_name(layer, head)} in the step pages, on {quote(shorten(sentence, 40))} →",
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
    st.download_button("⬇️ These numbers as CSV", lambda: numbers_csv(rows, similarity),
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
    return meaning_questions(result, (word_set.name_a, word_set.name_b), quote)
