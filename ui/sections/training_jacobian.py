"""The Training lab's section 4: the softmax Jacobian of a soft and a saturated row of the model's own attention
(split from training_lab.py, which holds the lab's other sections)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from lessons import training

from lessons import training_verdicts

from ui import figures
from ui.text import head_name, head_tag, layer_name, pct, quote
from ui.view import current_view, steps_for


def jacobian_section(teaching: bool) -> None:
    """4 · Why a saturated row passes almost no gradient: the Jacobians of a soft and a saturated row."""
    st.header("4 · Why a saturated row passes almost no gradient")
    view = current_view()
    # The model's own row: every token it sees, [CLS] and [SEP] included (renormalising over the shown words would
    # give a row the model never computes).
    if view.settings.mode == "learned":
        steps = view.base
    else:  # the Jacobian is about the model's own attention: recompute the selected row in learned mode
        _, steps = steps_for(view.model, view.analysis, np.arange(view.analysis.n_tokens), "learned", 32, 0,
                             view.settings.layer, view.settings.head)
    i, tokens = int(view.shown[view.token]), list(view.analysis.tokens)
    layer, head = view.settings.layer, view.settings.head
    (soft_i, soft_head, _, soft_row), (sat_i, _, sat_scaled, sat_row) = training_verdicts.jacobian_examples(
        steps.weights, steps.raw, i, view.analysis.attentions[layer], head)
    jacobian, jacobian_saturated = training.softmax_jacobian(soft_row), training.softmax_jacobian(sat_row)
    st.markdown(
        f"Two rows of the model's attention from step 3 ({layer_name(layer, view.model.n_layers)}, your sentence). A row's **Jacobian** is a "
        "table: entry (i, j) says how much weight i moves when score j is nudged up a little. The gradient reaching "
        "the scores is this table times the gradient reaching the weights, so when every entry is near zero, almost "
        "nothing gets through. Both tables use one colour scale, ±0.25 (the most an entry can be, for two weights "
        "of 50%), with 0 white."
    )
    st.latex(r"\frac{\partial w_i}{\partial s_j} = w_i\,(\delta_{ij} - w_j)")


    def row_words(index, row_head, scaled, row_weights, table):
        top = int(row_weights.argmax())
        whose = "your selected word " if index == i else ""
        how = ("as the model computes it" if scaled else
               "with ÷√d_k removed from the trained head (a temperature change)")
        return (f"the row of {whose}{quote(tokens[index])} in {head_name(row_head)}, {how}: its largest weight is "
                f"**{pct(row_weights[top])}** (on {quote(tokens[top])}) and its largest Jacobian entry "
                f"**{training_verdicts.small_words(np.abs(table).max())}**")


    is_saturated = sat_row.max() > training.SATURATED
    other_head = (f" {head_name(head, capital=True)}, the one chosen in the sidebar, has no soft row in your sentence (every row puts over "
                  f"{pct(training_verdicts.SOFT)} on one word), so this row comes from {head_name(soft_head)} of the same layer."
                  if soft_head != head else "")
    st.markdown(
        f"**Left, a soft row:** {row_words(soft_i, soft_head, True, soft_row, jacobian)}"
        + (": colour, so gradient gets through." if soft_row.max() <= training_verdicts.SOFT else
           " (the softest row in this layer for your word).")
        + other_head + " **Right, a saturated row:** "
        f"{row_words(sat_i, head, sat_scaled, sat_row, jacobian_saturated)}"
        + (": nearly white, so almost no gradient gets through." if is_saturated
           else ". (No row of this head saturates here, even without scaling: this is the closest.)")
        + " A row's largest Jacobian entry is its largest w × (1 − w), the number step 2 calls the “fastest rate” "
        + ("of the selected token's row with and without scaling: these are the same two rows, so step 2 prints "
           "the same two numbers." if (soft_i, soft_head, sat_i, sat_scaled) == (i, head, i, False) else
           "of the selected token's row: these are other rows, so step 2 prints other numbers.")
    )
    columns = st.columns(2) if not teaching else (st.container(), st.container())
    for column, matrix, index, row_head, scaled_row, kind in (
            (columns[0], jacobian, soft_i, soft_head, True, "soft"),
            (columns[1], jacobian_saturated, sat_i, head, sat_scaled, "saturated")):
        name = figures.figure_filename(f"training_jacobian_{kind}", view.settings.sentence,
                                       f"{view.code}-t{index}-{head_tag(row_head)}")
        title = (f"Softmax Jacobian · {kind} row of “{tokens[index]}”, {head_name(row_head)}"
                 + ("" if scaled_row else " without ÷√d_k"))
        with column:
            figures.show(figures.matrix_heatmap(matrix, tokens, tokens, title, kind="signed", teaching=teaching,
                                                x_title="score nudged (j)", y_title="weight that moves (i)",
                                                bound=0.25), name, teaching, key=f"fig-{kind}")
