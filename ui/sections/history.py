"""The end of step 4: the attention that came before self-attention (Bahdanau et al., 2014), and what
self-attention changed. A drawing with no numbers on it, and words that say so."""

from __future__ import annotations

import streamlit as st

from ui import figures
from ui.view import View

MAX_WORDS = 6  # a drawing: more words than this only add lines
PHONE_WORDS = 4  # a phone's row holds this many words side by side


def before_self_attention(view: View) -> None:
    s, teaching = view.settings, view.settings.teaching
    words = view.labels if view.is_toy else [view.base_labels[j] for j in view.shown
                                              if not view.analysis.is_special[j]]
    words = words or view.labels
    narrow = figures.on_a_phone()
    most = PHONE_WORDS if narrow else MAX_WORDS
    drawn = words[:most]
    st.header("Before self-attention: attention between two sentences")
    st.markdown(
        "Attention is older than self-attention. In 2014 Bahdanau, Cho and Bengio added it to translation models "
        "built from *recurrent* networks: an encoder reads the source sentence **one word at a time** (in their "
        "model once left to right and once right to left), each time updating one state vector from the previous "
        "state and the next word; a decoder then "
        "writes the translation word by word. Before writing each word, the decoder's state **asks** (it is the "
        "query) and the source words' states **answer** (they are the keys and the values): a softmax over their "
        "scores gives the weights, and the mix of the states helps choose the next word. The scores came from a small "
        "network instead of a dot product, and were not divided by √d_k; the softmax and the weighted mix were the "
        "same as in steps 3 and 4, but between two sentences, and on states built one word after another.")
    st.markdown(
        "**What self-attention changes.** Every word asks every word of **its own** sentence (queries, keys and "
        "values all come from it), and all the words are computed **at once**, not one after the other. So any two "
        "words are one step apart: in a recurrent encoder what the first word says reaches the last only through "
        "every state in between"
        + (f" ({len(words) - 1} steps from the first to the last of your {len(words)} tokens)" if len(words) > 1
           else "")
        + "; here the last word's query meets the first word's key directly. Nothing in it depends on the order, "
        "which is why the model adds position embeddings.")
    note = (f" (the first {most} of your {len(words)} tokens)" if len(words) > most else
            " (your tokens)")
    figures.show(figures.attention_history(drawn, figures.figure_title(
        "Before and with self-attention", s.sentence, "a drawing"), teaching=teaching, narrow=narrow),
        figures.figure_filename("step4_history", s.sentence, "drawing"), teaching, key="step4-history")
    st.caption("A drawing, not a measurement" + note + ": the lines show who may ask whom, not how much. "
               "Left: one decoder state asks every source state; the arrows are the order the encoder reads in. "
               "Right: each word asks every word of the same sentence, all at once. The weights of your sentence are "
               "the matrices of step 3.")
    st.page_link("app_pages/whatif.py", label="What-if lab: does attention see the order of the words?", icon="🔀")
