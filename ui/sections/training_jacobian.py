"""The Training lab's section 4: the softmax Jacobian of a soft and a saturated row of the model's own attention
(split from training_lab.py, which holds the lab's other sections)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from lessons import training, training_verdicts
from ui import figures
from ui.content import words
from ui.sections.training_words import small_words
from ui.text import head_name, head_tag, layer_name, pct, quote
from ui.view import current_view, steps_for

BOUND = 0.25  # the largest a softmax Jacobian entry can be (two weights of 50%): one colour scale for both


def jacobian_section(teaching: bool) -> None:
    """4 · Why a saturated row passes almost no gradient: the Jacobians of a soft and a saturated row."""
    st.header(words("training_jacobian.header"))
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
    st.markdown(words("training_jacobian.intro", layer=layer_name(layer, view.model.n_layers), bound=BOUND))
    st.latex(r"\frac{\partial w_i}{\partial s_j} = w_i\,(\delta_{ij} - w_j)")

    def row_words(index, row_head, scaled, row_weights, table):
        top = int(row_weights.argmax())
        return words("training_jacobian.row", selected=index == i, token=quote(tokens[index]),
                     head=head_name(row_head), scaled=scaled, largest=pct(row_weights[top]),
                     top_token=quote(tokens[top]), entry=small_words(np.abs(table).max()))

    st.markdown(words(
        "training_jacobian.rows", soft_row=row_words(soft_i, soft_head, True, soft_row, jacobian),
        soft=bool(soft_row.max() <= training_verdicts.SOFT), other_head=soft_head != head,
        chosen_head=head_name(head, capital=True), soft_limit=pct(training_verdicts.SOFT),
        soft_head=head_name(soft_head), saturated_row=row_words(sat_i, head, sat_scaled, sat_row, jacobian_saturated),
        saturated=bool(sat_row.max() > training.SATURATED),
        same_rows=(soft_i, soft_head, sat_i, sat_scaled) == (i, head, i, False)))
    columns = st.columns(2) if not teaching else (st.container(), st.container())
    for column, matrix, index, row_head, scaled_row, kind in (
            (columns[0], jacobian, soft_i, soft_head, True, "soft"),
            (columns[1], jacobian_saturated, sat_i, head, sat_scaled, "saturated")):
        name = figures.figure_filename(f"training_jacobian_{kind}", view.settings.sentence,
                                       f"{view.code}-t{index}-{head_tag(row_head)}")
        title = words("training_jacobian.title", kind=kind, token=tokens[index], head=head_name(row_head),
                      scaled=scaled_row)
        with column:
            figures.show(figures.matrix_heatmap(matrix, tokens, tokens, title, kind="signed", teaching=teaching,
                                                x_title=words("training_jacobian.axis_x"),
                                                y_title=words("training_jacobian.axis_y"), bound=BOUND),
                         name, teaching, key=f"fig-{kind}")
