"""Compare two sentences: the same layer and head, side by side, following one word they share."""

import numpy as np
import streamlit as st

from attention import core
from lessons import explain
from ui.names import ordinal
from attention.model import SentenceError
from serving import shared as shared_results
from serving.models import analyze
from ui import figures
from ui.content import words
from ui.model import model_or_stop, warn_if_cut
from ui.sections.compare import position_note
from ui.widgets.pickers import layer_head_row
from ui.widgets.tour import slide_top, step_nav
from ui.settings import COMPARE_CHARS, settings
from ui.text import layer_head_name, layer_head_tag, md, pct, quote

s = settings()
teaching = s.teaching
layer, head = s.layer, s.head
slide_top("app_pages/compare.py")  # teaching mode: sentence, examples, Previous / Next
st.title(words("compare.title"))
st.markdown(words("compare.intro", head=layer_head_name(layer, head)))

def meaning_link() -> None:
    st.page_link("app_pages/meaning.py", icon="📏", label=words("compare.meaning_link"))


if not teaching:  # a slide keeps its first screen for the two heatmaps: the link goes under them
    meaning_link()
if s.mode != "learned":
    st.caption(words("compare.learned_only"))
model = model_or_stop(s)
if teaching:  # the slide's own layer and head row: the sidebar is put away
    layer_head_row(model.n_layers, model.n_heads, layer, head)

# A slide keeps both heatmaps on its first screen: the word to follow goes beside the two sentences, not under them.
left, right, *beside = st.columns([5, 5, 3]) if teaching else st.columns(2)
texts = [left.text_input(words("compare.first_label"), shared_results.COMPARE_DEFAULTS[0], key="compare_a",
                         max_chars=COMPARE_CHARS),
         right.text_input(words("compare.second_label"), shared_results.COMPARE_DEFAULTS[1], key="compare_b",
                          max_chars=COMPARE_CHARS)]
for text in texts:
    warn_if_cut(text, COMPARE_CHARS)

runs = []
for text in texts:
    if not text.strip():
        st.info(words("compare.both_boxes"))
        st.stop()
    try:
        analysis = analyze(text, s.model_name or None)
    except SentenceError as error:
        st.info(md(str(error)))
        st.stop()
    x = analysis.hidden_states[layer].astype(np.float64)
    steps = core.run_steps(*core.learned_projection(x, model.head_weights(layer, head)))
    everything = np.arange(analysis.n_tokens)
    shown = everything if s.show_special else np.flatnonzero(~analysis.is_special)
    hidden = np.setdiff1d(everything, shown)
    tokens = [analysis.tokens[j] for j in shown]
    keys = tokens + ([explain.MARKER_COLUMN] if hidden.size else [])
    runs.append({"analysis": analysis, "steps": steps, "shown": shown, "tokens": tokens, "keys": keys,
                 "weights": explain.fold_hidden(steps.weights[shown], shown, hidden)})

shared = [t for t in dict.fromkeys(runs[0]["tokens"]) if t in runs[1]["tokens"]]
if not shared:
    st.info(words("compare.no_shared"))
    st.stop()
# The word list follows the sentences; keep the user's choice while it is still in both.
if st.session_state.get("compare_word") not in shared:
    st.session_state["compare_word"] = "bank" if "bank" in shared else shared[0]
word = (beside[0] if beside else st).selectbox(words("compare.word_label"), shared, key="compare_word")

# Measured, not chosen by hand: the head whose output for the word differs most between the sentences
# (computed before anything is drawn, so the page is sent in one go; once per process for each pair and word).
grid = shared_results.compare_grid(model, tuple(texts), [run["analysis"] for run in runs],
                                   tuple(int(run["shown"][run["tokens"].index(word)]) for run in runs))
best_layer, best_head = np.unravel_index(int(grid.argmin()), grid.shape)

columns = st.columns(2)  # side by side on a slide too: comparing them is the point
outputs = []
for column, text, run in zip(columns, texts, runs):
    position = run["tokens"].index(word)
    row = run["weights"][position]
    order = [j for j in np.argsort(row)[::-1][:4] if row[j] >= 0.01] or [int(row.argmax())]
    outputs.append(run["steps"].output[run["shown"][position]])
    with column:
        figures.show(figures.matrix_heatmap(run["weights"], run["tokens"], run["keys"],
                                            figures.figure_title(words("compare.figure_first") if not outputs[:-1]
                                                                 else words("compare.figure_second"),
                                                                 text, layer_head_name(layer, head, model.n_layers)),
                                            kind="weights", highlight_row=position, teaching=teaching,
                                            last_column=(words("compare.marker_column")
                                                         if len(run["keys"]) > len(run["tokens"]) else None)),
                     figures.figure_filename("compare_weights", text, layer_head_tag(layer, head, sep="")), teaching,
                     key=f"fig-compare-{len(outputs)}")
        st.markdown(words("compare.looks", word=quote(word), targets=", ".join(
            words("compare.looks_at", share=pct(row[j]), itself=j == position, token=quote(run["keys"][j]))
            for j in order)))
position_note(runs, word)  # when both rows peak at the same place beside the word: position, not meaning


def cosine_of(a, b) -> float:
    return round(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-12)), 2) + 0.0  # no “-0.00”


# The control: before any attention the word's two vectors differ by nothing but its position (word, token type
# and LayerNorm are the same), so their cosine is what position alone does to the input.
places = [int(run["shown"][run["tokens"].index(word)]) for run in runs]
before = cosine_of(*(run["analysis"].hidden_states[0][place] for run, place in zip(runs, places)))
# [CLS] is token 0, so a place is also the word's count in the sentence from 1.
st.markdown(words("compare.output", cosine=f"{cosine_of(*outputs):.2f}", word=quote(word), place_a=places[0],
                  place_b=places[1], place_a_text=ordinal(places[0]), place_b_text=ordinal(places[1]),
                  before=f"{before:.2f}", teaching=teaching))
st.markdown(words("compare.most_different", n_heads=grid.size, word=quote(word),
                  head=layer_head_name(best_layer, best_head, model.n_layers),
                  cosine=f"{round(float(grid.min()), 2) + 0.0:.2f}"))
if (best_layer, best_head) != (layer, head):
    st.button(words("compare.show_head", head=layer_head_name(best_layer, best_head, model.n_layers)),
              on_click=st.session_state.update, kwargs=dict(mode="learned", layer=int(best_layer), head=int(best_head)), key="compare_show_head")
if not s.show_special:
    st.caption(words("compare.markers_hidden", marker=explain.MARKER_COLUMN))
if teaching:
    meaning_link()
step_nav("app_pages/compare.py")
