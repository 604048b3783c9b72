import numpy as np
import streamlit as st

from attention import core
from lessons.explain import MARKER_COLUMN, length_shares
from lessons.heads import LARGEST_TARGET_SHARE, describe_heads, head_distances
from ui import figures
from ui.figures.head_flip import TARGET_WORDS, where_it_goes
from ui.sections.head_flip import drawn_weights, show_head_flip
from ui.labels import unique_labels
from ui.model import load_analysis
from ui.sections.multihead import choose_layer, why_this_layer
from ui.settings import settings
from ui.text import head_tag, layer_name, layer_tag, md, pct, people_number, plain_small, shorten
from ui.widgets.tour import slide_top, step_nav


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
    short = by_length < weight / 2
    # weight × length is an upper bound on a key's part of the output's length (vectors can cancel), not a share
    verdict = ("their values are shorter than the others', so that attention counts for less than its weight" if short
               else "here their values are not much shorter than the others', so that attention does count")
    return (f" The {len(parked)} {'heads' if len(parked) > 1 else 'head'} whose largest target is [CLS] or [SEP] give "
            f"the two markers {pct(weight)} of the weight on average; counted as weight × the value's length, "
            f"{'only ' if short else ''}{pct(by_length)}: {verdict}.")


slide_top("app_pages/multihead.py")  # teaching mode: sentence, examples, Previous / Next
st.title("Multi-head attention: 12 heads side by side")
s = settings()
model, analysis = load_analysis(s)
teaching = s.teaching
layer, spread = choose_layer(s, model, analysis)
st.markdown(why_this_layer(layer, spread, model.n_layers))
tokens = analysis.tokens
st.markdown(
    "One attention head gives each token one row of weights: one way of sharing its attention among the "
    f"words. A transformer runs **{model.n_heads} heads side by side**, each with its own W_Q, W_K, W_V of size "
    f"{model.d_model}×{model.d_head}, so a token can weigh the words in {model.n_heads} ways at once (how alike "
    f"those ways are on your sentence is measured below). Each head does the four steps on its own, the "
    f"{model.n_heads} outputs of {model.d_head} numbers are glued together into one vector of {model.d_model}, and a learned matrix W_O "
    "mixes them. This page computes on the full sequence, [CLS] and [SEP] included, exactly as the model does"
    + ("." if s.show_special else "; its pictures draw the two as one column, as the step pages do.")
)
st.latex(r"\text{head}_h = \operatorname{softmax}\!\left(\frac{XW_Q^{h}(XW_K^{h})^{\top}}{\sqrt{d_k}}\right)XW_V^{h}"
         r"\qquad \text{MultiHead}(X) = [\text{head}_1;\dots;\text{head}_{12}]\,W_O")

w = model.layer_weights(layer)
x = analysis.hidden_states[layer].astype(np.float64)
heads, concat = core.multi_head(x, w["w_q"], w["b_q"], w["w_k"], w["b_k"], w["w_v"], w["b_v"], model.n_heads)
weights = np.stack([h.weights for h in heads])
projected = core.project(concat, w["w_o"], w["b_o"])
block = core.layer_norm(projected + x, w["ln_gamma"], w["ln_beta"], w["ln_eps"])
weights_gap = float(np.abs(weights - analysis.attentions[layer]).max())
block_gap = float(np.abs(block - analysis.attention_outputs[layer]).max())
ok = weights_gap <= 1e-5
if not teaching:
    (st.success if ok else st.warning)(
        f"{'✓' if ok else '⚠️'} The same numbers as the model ({layer_name(layer, model.n_layers)}): the 12 heads' weights differ from "
        f"the model's own by {plain_small(weights_gap)}." if ok else
        f"⚠️ The 12 heads' weights differ from the model's own ({layer_name(layer, model.n_layers)}) by {plain_small(weights_gap)}.")
    with st.expander("What exactly is compared?"):
        st.markdown(
            f"This page recomputes {layer_name(layer, model.n_layers)} from the vectors that enter it: the 12 heads' four steps, the "
            f"concatenation, W_O, the residual and LayerNorm. The heads' weights differ from the attention the "
            f"model reports by at most {weights_gap:.1e}; the whole attention block's output (heads → concat → "
            f"W_O → + residual → LayerNorm) differs from the model's by at most {block_gap:.1e}.")

labels = describe_heads(weights, tokens, analysis.is_special)
titles = [f"{head_tag(h)}: {where_it_goes(name, share)}" for h, (name, share) in enumerate(labels)]
# Drawn as the step pages draw weights: hidden [CLS]/[SEP] as one column. The selected token is a drawn row.
drawn, row_labels, key_labels = drawn_weights(s, analysis, weights)
selected = min(s.token, len(row_labels) - 1)
figures.show(figures.small_multiples(list(drawn), row_labels, titles,
                                     f"{layer_name(layer, model.n_layers, capital=True)}: attention weights of all 12 heads · “{shorten(s.sentence, 40)}”",
                                     teaching=teaching, selected=selected, key_tokens=key_labels),
             figures.figure_filename("multihead_heads", s.sentence, layer_tag(layer)), teaching)
if key_labels and key_labels[-1] == MARKER_COLUMN:  # the titles measure the whole row, markers apart
    st.caption(f"The last column, “{MARKER_COLUMN}”, holds both markers: a title's “to [CLS]” or “to [SEP]” is in it, "
               "and so is “the token before” of the first word (the token before it is [CLS]).")

show_head_flip(s, model, analysis, selected)

st.header("Where each head's attention goes on this sentence")
counts: dict[str, list[int]] = {}
for h, (name, _) in enumerate(labels):
    counts.setdefault(name, []).append(h)
st.markdown(
    "Read from the numbers above: for each head, the target (itself, the token before or after, [CLS], [SEP] or "
    "punctuation) that gets the largest average share of a row, when that share is at least "
    f"{pct(LARGEST_TARGET_SHARE)} (otherwise “spread out”). " +
    "; ".join(f"**{md(TARGET_WORDS.get(name, 'spread out'))}**: {'heads' if len(hs) > 1 else 'head'} "
              f"{', '.join(map(people_number, hs))}" for name, hs in counts.items()) + ". "
    "This describes one sentence, not a job the head always does: on another sentence the same head can look "
    "elsewhere." + markers_note(heads, labels, analysis.is_special)
)

st.header("Which heads attend alike?")
distances = head_distances(weights)
off = distances + np.eye(len(distances)) * 9
a, b = np.unravel_index(np.argmin(off), off.shape)
far_a, far_b = np.unravel_index(np.argmax(distances), distances.shape)
left, right = st.columns([1.3, 1])
with left:
    figures.show(figures.similarity_map(distances, [head_tag(h) for h in range(len(heads))],
                                        f"{layer_name(layer, model.n_layers, capital=True)}: distance between heads' attention", teaching=teaching),
                 figures.figure_filename("multihead_similarity", s.sentence, layer_tag(layer)), teaching)
with right:
    st.markdown(
        "Each cell is the average, over the tokens, of how much two heads' attention rows differ "
        "(total-variation distance: 0 = the same, 1 = no overlap). Bright (yellow) squares mark *families* of heads "
        f"that look at the same places. The most alike here: **heads {people_number(a)} and {people_number(b)}** "
        f"({distances[a, b]:.2f}); the most different: **heads {people_number(far_a)} and {people_number(far_b)}** "
        f"({distances[far_a, far_b]:.2f})."
    )

st.header("From 12 head outputs to one vector per token")
st.markdown(
    f"Each head's output has {model.d_head} numbers per token; side by side they make the "
    f"{model.d_model}-number concatenation (the columns below come in blocks of {model.d_head}, one per head). "
    "W_O then mixes the heads, the input is added back (the residual connection) and LayerNorm rescales."
)
tabs = st.tabs(["Concatenated head outputs", "After W_O", "Block output (model's next step gets this)"])
for tab, matrix, name in zip(tabs, (concat, projected, block), ("concat", "after W_O", "block output")):
    with tab:
        by_head = name == "concat"  # only the concatenation's columns belong to one head each
        figures.show(figures.matrix_heatmap(matrix, unique_labels(tokens), None, f"{layer_name(layer, model.n_layers, capital=True)} · {name}",
                                            kind="vectors",
                                            teaching=teaching, y_title="token",
                                            x_title="dimension, in blocks of one head" if by_head else "dimension",
                                            column_groups=model.d_head if by_head else None),
                     figures.figure_filename(f"multihead_{name}", s.sentence, layer_tag(layer)), teaching,
                     key=f"mh-{name}")
step_nav("app_pages/multihead.py")
