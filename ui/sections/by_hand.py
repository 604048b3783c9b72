"""The sections of "Attention by hand": the words in plain language, the drawing, what to try, and the hand-over
to the real model on the same words."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention import core
from attention.model import SentenceError
from lessons import by_hand, explain
from ui.names import layer_head_name
from serving.models import analyze

from ui import figures
from ui.content import words
from ui.widgets.by_hand_component import attention_by_hand
from ui.model import model_or_stop
from ui.settings import Settings, choose_sentence
from ui.text import md, pct, quote

STEP_ONE = "app_pages/step1_scores.py"
GOTO_KEY = "_goto_from_by_hand"


def model_key_size(s: Settings) -> int:
    """d_k of the sidebar's head in the real model: how many numbers its queries and keys have."""
    return int(model_or_stop(s).head_weights(s.layer, s.head).w_q.shape[1])


def introduction(teaching: bool, d_k: int) -> None:
    st.markdown(words("by_hand.introduction", n_words=len(by_hand.WORDS), d_k=d_k,
                      query_word=quote(by_hand.QUERY_WORD)))
    if not teaching:
        st.caption(words("by_hand.axes_caption", first=quote(words("by_hand.key_axis_1")),
                         second=quote(words("by_hand.key_axis_2"))))


def drawing(teaching: bool) -> None:
    attention_by_hand(teaching, "attention_by_hand")


def how_it_works(teaching: bool) -> None:
    """The four steps in words, each with the numbers of the first example (the drawing starts there)."""
    preset = by_hand.PRESETS[0]
    n = by_hand.attend(preset.query)
    q, k = preset.query, by_hand.KEYS[0]
    best = int(np.argmax(n.weights))
    st.subheader(words("by_hand.steps_heading"))
    steps = [  # a slide says each step's first sentence only (short)
        words("by_hand.step_score", short=teaching, word=quote(by_hand.WORDS[0]), q1=f"{q[0]:g}", k1=f"{k[0]:g}",
              q2=f"{q[1]:g}", k2=f"{k[1]:g}", score=f"{n.scores[0]:.2f}"),
        words("by_hand.step_scale", short=teaching, d_k=by_hand.D_K, sqrt_dk=f"{by_hand.SQRT_D_K:.2f}"),
        words("by_hand.step_softmax", short=teaching, word=quote(by_hand.WORDS[best]), share=pct(n.weights[best])),
        words("by_hand.step_output", short=teaching, x=f"{n.output[0]:.2f}", y=f"{n.output[1]:.2f}"),
    ]
    st.markdown("\n".join(f"{i}. {text}" for i, text in enumerate(steps, 1)))
    if not teaching:
        with st.expander(words("by_hand.examples_box")):
            for preset in by_hand.PRESETS:
                n = by_hand.attend(preset.query)
                st.markdown(words("by_hand.example_line", name=words(f"by_hand.preset_{preset.key}"),
                                  asks=words(f"by_hand.asks_{preset.key}"), story=_preset_story(n)))


def _preset_story(n: by_hand.Numbers) -> str:
    """What the example's weights do, said from its numbers (the same three shapes the drawing says live)."""
    tokens = by_hand.WORDS
    order = np.argsort(n.weights)[::-1]
    a, b = int(order[0]), int(order[1])
    return words("by_hand.preset_story", shape=by_hand.shape_of(n.weights), first=quote(tokens[a]),
                 second=quote(tokens[b]), share=pct(n.weights[a]), negative=bool(n.scores.max() < 0))


def open_step_one(sentence: str, token: int) -> None:
    """on_click: the sentence in the sidebar with the query's word selected, the model's own weights, then step 1."""
    st.session_state["mode"] = "learned"
    choose_sentence(sentence, token, show_special=False)
    st.session_state[GOTO_KEY] = True


def hand_over(s: Settings, teaching: bool) -> None:
    """The same sentence through the real model: one head's scores and weights for the same query word."""
    sentence, layer, head = by_hand.SENTENCE, s.layer, s.head
    model = model_or_stop(s)
    st.header(words("by_hand.model_heading", d_k=model_key_size(s)))
    try:
        analysis = analyze(sentence, s.model_name or None)
    except SentenceError as error:
        st.info(md(str(error)))
        return
    x = analysis.hidden_states[layer].astype(np.float64)
    steps = core.run_steps(*core.learned_projection(x, model.head_weights(layer, head)))
    shown = np.flatnonzero(~analysis.is_special)
    hidden = np.flatnonzero(analysis.is_special)
    query = int(next(i for i in shown if analysis.tokens[i] == by_hand.QUERY_WORD))
    tokens = [analysis.tokens[i] for i in shown]
    labels = tokens + [explain.MARKER_COLUMN]
    row = explain.fold_hidden(steps.weights[query], shown, hidden)
    d_k = steps.q.shape[1]
    head_name = layer_head_name(layer, head, model.n_layers)
    st.markdown(words("by_hand.model_intro", sentence=quote(sentence), head=head_name, d_k=d_k,
                      first_layer=layer == 0, sqrt_dk=f"{np.sqrt(d_k):.2f}"))
    best = int(np.argmax(row))
    top_word = labels[best]
    marker = best == len(labels) - 1
    st.markdown(words("by_hand.model_verdict", query_word=quote(by_hand.QUERY_WORD), share=pct(row[best]),
                      markers=marker, top=quote(top_word)))
    title = words("by_hand.model_title", query_word=by_hand.QUERY_WORD)
    fig = figures.row_bars(row, labels, figures.figure_title(title, sentence, head_name), teaching=teaching,
                           highlight=int(np.flatnonzero(shown == query)[0]))
    figures.show(fig, figures.figure_filename("by_hand_model", sentence, f"L{layer}H{head}"), teaching,
                 key="by-hand-model")
    st.button(words("by_hand.open_step_one", sentence=quote(sentence)), type="primary", key="by_hand_open_step1",
              on_click=open_step_one, args=(sentence, int(np.flatnonzero(shown == query)[0])))
    if st.session_state.pop(GOTO_KEY, None):
        # An empty dict: the sidebar's bound widgets write the new sentence into the address themselves.
        st.switch_page(STEP_ONE, query_params={})
