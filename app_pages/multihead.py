import numpy as np
import streamlit as st

from attention import core
from lessons.explain import MARKER_COLUMN
from lessons.heads import LARGEST_TARGET_SHARE, describe_heads, head_distances
from ui import figures
from ui.content import words
from ui.figures.head_flip import where_it_goes
from ui.sections.head_flip import drawn_weights, show_head_flip
from ui.labels import numbered_note, unique_labels
from ui.model import load_analysis
from ui.sections.multihead import choose_layer, markers_note, where_heads_go, why_this_layer
from ui.settings import settings
from ui.text import head_tag, layer_name, layer_tag, pct, people_number, plain_small, shorten
from ui.widgets.tour import slide_top, step_nav

slide_top("app_pages/multihead.py")  # teaching mode: sentence, examples, Previous / Next
st.title(words("multihead.title"))  # before the model loads: a page whose model fails still says what it is
s = settings()
model, analysis = load_analysis(s)
teaching = s.teaching
layer, spread = choose_layer(s, model, analysis)
st.markdown(why_this_layer(layer, spread, model.n_layers))
tokens = analysis.tokens
st.markdown(words("multihead.intro", n_heads=model.n_heads, d_model=model.d_model, d_head=model.d_head,
                  special=s.show_special))
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
layer_said = layer_name(layer, model.n_layers)
layer_title = layer_name(layer, model.n_layers, capital=True)
if not teaching:
    if ok:
        st.success(words("multihead.parity_same", layer=layer_said, n=model.n_heads, gap=plain_small(weights_gap)))
    else:
        st.warning(words("multihead.parity_differs", layer=layer_said, n=model.n_heads, gap=plain_small(weights_gap)))
    with st.expander(words("multihead.compared_label")):
        st.markdown(words("multihead.compared", layer=layer_said, n=model.n_heads, weights_gap=f"{weights_gap:.1e}",
                          block_gap=f"{block_gap:.1e}"))

labels = describe_heads(weights, tokens, analysis.is_special)
titles = [words("multihead.head_title", head=head_tag(h), goes=where_it_goes(name, share))
          for h, (name, share) in enumerate(labels)]
# Drawn as the step pages draw weights: hidden [CLS]/[SEP] as one column. The selected token is a drawn row.
drawn, row_labels, key_labels = drawn_weights(s, analysis, weights)
selected = min(s.token, len(row_labels) - 1)
figures.show(figures.small_multiples(list(drawn), row_labels, titles,
                                     words("multihead.heads_figure", layer=layer_title, n=model.n_heads,
                                           sentence=shorten(s.sentence, 40)),
                                     teaching=teaching, selected=selected, key_tokens=key_labels),
             figures.figure_filename("multihead_heads", s.sentence, layer_tag(layer)), teaching)
if numbered := numbered_note(tokens):  # what a "the²" on the axes means
    st.caption(numbered)
if key_labels and key_labels[-1] == MARKER_COLUMN:  # the titles measure the whole row, markers apart
    st.caption(words("multihead.marker_column", column=MARKER_COLUMN))

show_head_flip(s, model, analysis, selected)

st.header(words("multihead.where_header"))
st.markdown(words("multihead.where", threshold=pct(LARGEST_TARGET_SHARE), items=where_heads_go(labels),
                  markers=markers_note(heads, labels, analysis.is_special)))

st.header(words("multihead.alike_header"))
distances = head_distances(weights)
off = distances + np.eye(len(distances)) * 9
a, b = np.unravel_index(np.argmin(off), off.shape)
far_a, far_b = np.unravel_index(np.argmax(distances), distances.shape)
left, right = st.columns([1.3, 1])
with left:
    figures.show(figures.similarity_map(distances, [head_tag(h) for h in range(len(heads))],
                                        words("multihead.alike_figure", layer=layer_title), teaching=teaching),
                 figures.figure_filename("multihead_similarity", s.sentence, layer_tag(layer)), teaching)
with right:
    st.markdown(words("multihead.alike", a=people_number(a), b=people_number(b), near=f"{distances[a, b]:.2f}",
                      far_a=people_number(far_a), far_b=people_number(far_b), far=f"{distances[far_a, far_b]:.2f}"))

st.header(words("multihead.outputs_header", n=model.n_heads))
st.markdown(words("multihead.outputs", d_head=model.d_head, d_model=model.d_model))
tabs = st.tabs([words("multihead.tab_concat"), words("multihead.tab_projected"), words("multihead.tab_block")])
matrices = (("concat", concat, words("multihead.matrix_concat")),
            ("after W_O", projected, words("multihead.matrix_projected")),
            ("block output", block, words("multihead.matrix_block")))
for tab, (name, matrix, said) in zip(tabs, matrices):
    with tab:
        by_head = name == "concat"  # only the concatenation's columns belong to one head each
        figures.show(figures.matrix_heatmap(matrix, unique_labels(tokens), None,
                                            words("multihead.matrix_figure", layer=layer_title, matrix=said),
                                            kind="vectors", teaching=teaching, y_title=words("multihead.axis_token"),
                                            x_title=(words("multihead.axis_dimension_blocks") if by_head
                                                     else words("multihead.axis_dimension")),
                                            column_groups=model.d_head if by_head else None),
                     figures.figure_filename(f"multihead_{name}", s.sentence, layer_tag(layer)), teaching,
                     key=f"mh-{name}")
step_nav("app_pages/multihead.py")
