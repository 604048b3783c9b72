"""The multi-head page's first view: the layer whose heads differ most on the sentence, measured, and kept as the
reader's choice until the sentence changes."""

from __future__ import annotations

import numpy as np
import streamlit as st

from lessons.heads import layer_spread
from ui.settings import DEFAULT_LAYER
from ui.text import layer_name
from ui.widgets.pickers import kept_key, measured_default

LAYER_KEY = "mh_layer"
ALIKE_GAP = 0.05  # layers whose mean head distances differ by less than this are "about as varied"


def drawn_rows(settings, analysis) -> list[int]:
    """The rows the page's figures draw: the words, or every token with "Show [CLS] and [SEP]"."""
    return [j for j in range(len(analysis.tokens)) if settings.show_special or not analysis.is_special[j]]


def choose_layer(settings, model, analysis) -> tuple[int, np.ndarray]:
    """The Layer box, opening on the layer whose heads differ most on this sentence (lessons/heads.layer_spread
    over the drawn rows), or on the sidebar's layer where the reader (or a link) chose one other than the default:
    a layer picked on one page is the layer the next page shows. A choice made here stays for the same sentence and
    sidebar layer; a new sentence, or another layer in the sidebar, opens the page anew."""
    spread = layer_spread(analysis.attentions, drawn_rows(settings, analysis))
    chosen_elsewhere = settings.layer != DEFAULT_LAYER
    measured_default(LAYER_KEY, (settings.sentence, settings.layer),
                     settings.layer if chosen_elsewhere else int(np.argmax(spread)))
    layer = st.selectbox("Layer", range(model.n_layers), key=LAYER_KEY,
                         format_func=lambda index: layer_name(index, model.n_layers, capital=True),
                         help="Every layer of the model has its own 12 heads. The page opens on the layer whose "
                              "heads differ most on your sentence, or on the layer you chose in the sidebar.")
    st.session_state[kept_key(LAYER_KEY)] = ((settings.sentence, settings.layer), layer)
    return layer, spread




def why_this_layer(layer: int, spread: np.ndarray, n_layers: int) -> str:
    """One sentence from the measurement: why the page shows this layer, and how it compares with the others."""
    widest, narrowest = int(np.argmax(spread)), int(np.argmin(spread))
    measure = "(total-variation distance: 0 = the same, 1 = no overlap)"
    if spread[widest] - spread[narrowest] < ALIKE_GAP:
        return (f"**Which layer:** on your sentence every layer's heads differ about as much: two heads' rows differ "
                f"by {spread[narrowest]:.2f} to {spread[widest]:.2f} on average {measure}.")
    if layer == widest:
        return (f"**Why {layer_name(layer, n_layers)} first:** on your sentence its heads differ most of all "
                f"{n_layers} layers: two heads' rows differ by **{spread[layer]:.2f}** on average {measure}, "
                f"against {spread[narrowest]:.2f} in {layer_name(narrowest, n_layers)}, where the heads are most "
                "alike.")
    return (f"**Which layer:** on your sentence two heads' rows of {layer_name(layer, n_layers)} differ by "
            f"**{spread[layer]:.2f}** on average {measure}; the heads differ most in "
            f"{layer_name(widest, n_layers)} ({spread[widest]:.2f}).")
