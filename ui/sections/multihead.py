"""The multi-head page's first view (the layer whose heads differ most on the sentence, measured, and kept as the
reader's choice until the sentence changes) and its read-outs of where the heads' attention goes."""

from __future__ import annotations

import numpy as np
import streamlit as st

from lessons.explain import length_shares
from lessons.heads import layer_spread
from ui.content import words
from ui.figures.head_flip import target_words
from ui.settings import DEFAULT_LAYER
from ui.text import layer_name, md, pct, people_number
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
    layer = st.selectbox(words("multihead.layer_label"), range(model.n_layers), key=LAYER_KEY,
                         format_func=lambda index: layer_name(index, model.n_layers, capital=True),
                         help=words("multihead.layer_help", n=model.n_heads))
    st.session_state[kept_key(LAYER_KEY)] = ((settings.sentence, settings.layer), layer)
    return layer, spread




def why_this_layer(layer: int, spread: np.ndarray, n_layers: int) -> str:
    """One sentence from the measurement: why the page shows this layer, and how it compares with the others."""
    widest, narrowest = int(np.argmax(spread)), int(np.argmin(spread))
    measure = words("multihead.measure")
    if spread[widest] - spread[narrowest] < ALIKE_GAP:
        return words("multihead.layer_alike", lowest=f"{spread[narrowest]:.2f}", highest=f"{spread[widest]:.2f}",
                     measure=measure)
    if layer == widest:
        return words("multihead.layer_widest", layer=layer_name(layer, n_layers), n_layers=n_layers,
                     spread=f"{spread[layer]:.2f}", measure=measure, lowest=f"{spread[narrowest]:.2f}",
                     narrowest=layer_name(narrowest, n_layers))
    return words("multihead.layer_other", layer=layer_name(layer, n_layers), spread=f"{spread[layer]:.2f}",
                 measure=measure, widest=layer_name(widest, n_layers), highest=f"{spread[widest]:.2f}")


def markers_note(heads, labels, is_special) -> str:
    """Heads whose largest target is [CLS] or [SEP]: the weight they give the markers against the markers' part
    counted as weight × the value's length (explain.length_shares). A short value adds little, however much
    weight it gets (Kobayashi et al. 2020); measured here, not assumed."""
    parked = [h for h, (name, _) in enumerate(labels) if name in ("[CLS]", "[SEP]")]
    if not parked:
        return ""
    weight = np.mean([heads[h].weights[:, is_special].sum(1).mean() for h in parked])
    by_length = np.mean([np.mean([length_shares(row, heads[h].v)[is_special].sum() for row in heads[h].weights])
                         for h in parked])
    # weight × length is an upper bound on a key's part of the output's length (vectors can cancel), not a share
    return words("multihead.markers_note", count=len(parked), weight=pct(weight), by_length=pct(by_length),
                 short=bool(by_length < weight / 2))


def where_heads_go(labels) -> str:
    """Each target with the heads whose largest target it is, in the order the heads first name it."""
    counts: dict[str, list[int]] = {}
    for h, (name, _) in enumerate(labels):
        counts.setdefault(name, []).append(h)
    return "; ".join(words("multihead.where_item", target=md(target_words(name) or words("head_flip.spread_out_short")),
                           count=len(hs), heads=", ".join(map(people_number, hs))) for name, hs in counts.items())
