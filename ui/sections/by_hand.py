"""The sections of "Attention by hand": the words in plain language, the drawing, what to try, and the hand-over
to the real model on the same words."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention import core
from attention.model import SentenceError
from lessons import by_hand, explain
from lessons.names import layer_head_name
from serving.models import analyze

from ui import figures
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
    st.markdown(
        f"Before the real model, do what it does yourself, with {len(by_hand.WORDS)} words and **two numbers per "
        f"word** instead of the model's {d_k}. Every word has a **key** — what it *offers* to the others — and a **value** "
        f"— what it *passes on* if someone looks at it. One word, {quote(by_hand.QUERY_WORD)}, has a **query** — what it "
        "*asks for*. Drag the red query arrow (or focus it and press the arrow keys) and watch the rest follow.")
    if not teaching:
        st.caption(f"Here the two numbers of a key have names, {quote(by_hand.KEY_AXES[0])} and "
                   f"{quote(by_hand.KEY_AXES[1])}, chosen by hand so you can read them. The real model's numbers have "
                   "no names: it learned them in training.")


def drawing(teaching: bool) -> None:
    attention_by_hand(teaching, "attention_by_hand")


def how_it_works(teaching: bool) -> None:
    """The four steps in words, each with the numbers of the first example (the drawing starts there)."""
    preset = by_hand.PRESETS[0]
    n = by_hand.attend(preset.query)
    q, k = preset.query, by_hand.KEYS[0]
    best = int(np.argmax(n.weights))
    st.subheader("What the drawing does, step by step")
    steps = [
        f"**Score** — how well the query matches a key: multiply their first numbers, multiply their second numbers, "
        f"add (the *dot product*). At the start, for {quote(by_hand.WORDS[0])}: {q[0]:g} × {k[0]:g} + ({q[1]:g}) × "
        f"{k[1]:g} = **{n.scores[0]:.2f}**. Arrows that point the same way give a large score, opposite ways a "
        "negative one.",
        f"**Scale** — every score is divided by the same number, normally √d_k (d_k = {by_hand.D_K} numbers per key, so "
        f"√{by_hand.D_K} ≈ {by_hand.SQRT_D_K:.2f}). Move *Divide every score by*: a small number makes the largest "
        "score win almost everything, a large one spreads the weights out.",
        "**Softmax** — turns the scaled scores into **weights**: all positive, adding up to 100%, the largest score "
        f"getting the most. At the start {quote(by_hand.WORDS[best])} gets {pct(n.weights[best])}.",
        "**Output** — the weights' mix of the values: each value arrow is shrunk to its weight and they are added "
        "head to tail. So the black output arrow moves toward the values with large weights, and stays away from "
        f"those with small ones (at the start it ends at ({n.output[0]:.2f}, {n.output[1]:.2f})).",
    ]
    if teaching:
        steps = [text.split(" — ")[0] + " — " + text.split(" — ")[1].split(". ")[0] + "." for text in steps]
    st.markdown("\n".join(f"{i}. {text}" for i, text in enumerate(steps, 1)))
    if not teaching:
        with st.expander("What each example shows"):
            for preset in by_hand.PRESETS:
                n = by_hand.attend(preset.query)
                st.markdown(f"- **{preset.name}** — the query asks for {preset.asks}. " + _preset_story(n))


def _preset_story(n: by_hand.Numbers) -> str:
    """What the example's weights do, said from its numbers (the same three shapes the drawing says live)."""
    words = by_hand.WORDS
    order = np.argsort(n.weights)[::-1]
    a, b = int(order[0]), int(order[1])
    shape = by_hand.shape_of(n.weights)
    if shape == "even":
        said = "The weights are nearly even, so the output is close to the average of the values."
    elif shape == "tie":
        said = (f"{quote(words[a])} and {quote(words[b])} get the same weight ({pct(n.weights[a])} each), so the "
                "output lies halfway between their values.")
    else:
        said = f"{quote(words[a])} gets the most weight ({pct(n.weights[a])}), and the output lies nearest its value."
    if n.scores.max() < 0:
        said += (f" Every score is below zero, yet the weights still add up to 100%: the least bad match, "
                 f"{quote(words[a])} (its key is the shortest arrow), wins.")
    return said


def open_step_one(sentence: str, token: int) -> None:
    """on_click: the sentence in the sidebar with the query's word selected, the model's own weights, then step 1."""
    st.session_state["mode"] = "learned"
    choose_sentence(sentence, token, show_special=False)
    st.session_state[GOTO_KEY] = True


def hand_over(s: Settings, teaching: bool) -> None:
    """The same sentence through the real model: one head's scores and weights for the same query word."""
    sentence, layer, head = by_hand.SENTENCE, s.layer, s.head
    model = model_or_stop(s)
    st.header(f"Now the model does the same, with {model_key_size(s)} numbers per word")
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
    made_from = ("the word and its place in the sentence" if layer == 0 else
                 "the word as the layers before this one have already mixed it with the other words")
    st.markdown(
        f"The sentence {quote(sentence)} goes through the real model. In **{head_name}** every word gets a query, a "
        f"key and a value of **{d_k} numbers** each — made from {made_from}, with tables the model learned in "
        f"training. Then the same four steps: {d_k} products added up for each score, divided by "
        f"√{d_k} ≈ {np.sqrt(d_k):.2f}, softmax, and the mix of the values.")
    best = int(np.argmax(row))
    top_word = labels[best]
    marker = best == len(labels) - 1
    said = (f"Here the query of {quote(by_hand.QUERY_WORD)} gives its largest weight, {pct(row[best])}, to "
            + (f"the markers {quote(top_word)} the model adds around every sentence (the step pages explain them)."
               if marker else f"{quote(top_word)}."))
    st.markdown(said + " Nobody chose what these numbers mean: another head weighs the same words differently.")
    fig = figures.row_bars(row, labels, figures.figure_title(f"Weights of “{by_hand.QUERY_WORD}”", sentence,
                                                             head_name), teaching=teaching,
                           highlight=int(np.flatnonzero(shown == query)[0]))
    figures.show(fig, figures.figure_filename("by_hand_model", sentence, f"L{layer}H{head}"), teaching,
                 key="by-hand-model")
    st.button(f"Open step 1 on {quote(sentence)} →", type="primary", key="by_hand_open_step1",
              on_click=open_step_one, args=(sentence, int(np.flatnonzero(shown == query)[0])))
    if st.session_state.pop(GOTO_KEY, None):
        # An empty dict: the sidebar's bound widgets write the new sentence into the address themselves.
        st.switch_page(STEP_ONE, query_params={})
