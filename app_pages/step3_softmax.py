import numpy as np
import streamlit as st

from lessons import explain
from ui import figures, readouts, tables
from ui.sections import whys
from ui.sections.step_page import explained_matrix, more_detail, specials_note, step_page
from ui.widgets.downloads import step_downloads
from ui.widgets.tour import slide_top, step_nav
from ui.text import pct, quote


def follow_the_selected_token(view):
    """Everything under the title follows the selected token: a chip click reruns only this part, as a
    fragment (ui/page.py step_page)."""
    tokens, keys, i = view.labels, view.key_labels, view.token
    teaching = view.settings.teaching
    weights = view.weights  # the model's own rows in learned mode; hidden tokens folded into one column
    # The cells print two decimals: a row of them can read 0.99 or 1.01, which the sentence must not leave unsaid.
    printed = np.round(weights, 2).sum(axis=1)
    worst = int(np.argmax(np.abs(printed - 1)))
    rounding = (f" The cells are rounded to two decimals, so a row's printed numbers can add up to "
                f"{printed[worst]:.2f} (the row of {quote(tokens[worst])}); the weights themselves add up to 1."
                if figures.values_fit(len(tokens), len(keys), teaching) and abs(printed[worst] - 1) > 0.005 else "")

    explained_matrix(
        view,
        "Scaled scores can be any number, positive or negative. **Softmax** works row by row: it raises e to "
        "each score (so every value becomes positive, and bigger scores grow much faster) and divides by the "
        "row's total. Each weight is then between 0 and 1 and **every row adds up to 1** — a share of attention "
        "that the row's token gives to each token." + rounding,
        (r"w_{ij} = \operatorname{softmax}_j\!\left(\frac{q_i\cdot k_j}{\sqrt{d_k}}\right)",
         r"\operatorname{softmax}_j(s) = \frac{e^{s_j}}{\sum_{m} e^{s_m}}"),
        figures.matrix_heatmap(weights, tokens, keys,
                               figures.figure_title("Step 3 · attention weights", view.settings.sentence,
                                                    view.label),
                               kind="weights", highlight_row=i, teaching=teaching,
                               last_column=view.last_column("weights")),
        "step3_weights",
        slide_line="Softmax turns each row of scores into **weights between 0 and 1 that add up to 1**: the darker "
                   "the cell, the more that row's token looks at that column's token.",
    )
    specials_note(view)

    matrix_file = figures.figure_filename("step3_weights", view.settings.sentence, view.code)
    st.header(f"Reading the row of {quote(view.token_label)}")
    st.markdown(figures.HIDDEN_TEXT if figures.answers_hidden(matrix_file, teaching) else
                f"{quote(view.token_label)} focuses {readouts.shares(weights[i], keys, i, limit=8)}.")

    st.header("The softmax of this row, step by step")
    arithmetic = explain.softmax_arithmetic(view.base.scaled[view.base_index])
    base_labels = view.base_labels
    hidden_rows = set(view.hidden.tolist()) if not view.is_toy else set()
    table_labels = view.base_key_labels
    left, right = st.columns([3, 2]) if not teaching else (st.container(), st.container())
    table_file = figures.figure_filename("step3_softmax_row", view.settings.sentence, f"{view.code}-t{i}")
    with left:
        figures.show(figures.softmax_table(arithmetic, table_labels, explain.SOFTMAX_COLUMNS,
                                           f"Softmax of the row of “{view.token_label}”", teaching=teaching,
                                           highlight=view.base_index),
                     table_file, teaching, key="fig-softmax-table")
    with right:
        top = int(arithmetic[:, 0].argmax())
        if figures.answers_hidden(table_file, teaching):  # predict first: the arithmetic waits for the reveal
            st.markdown(figures.HIDDEN_TEXT)
        else:
            st.markdown(
                f"Read it from left to right. The largest score in the row is **{arithmetic[top, 0]:.2f}** (key "
                f"{quote(base_labels[top])}); subtracting it from every score changes no weight, and keeps e to the "
                f"power small. e to that power makes every number positive: the largest becomes 1. The e-values "
                f"add up to **{arithmetic[:, 2].sum():.3f}**; dividing by that sum gives the weights, which add up to 1.")
        if hidden_rows and not figures.answers_hidden(table_file, teaching):
            share = arithmetic[sorted(hidden_rows), 3].sum()
            st.markdown(f"The sum runs over all {readouts.token_count(view)} the model sees: [CLS] and [SEP] take "
                        f"**{pct(share)}** of this row, the “{view.hidden_label}” column above.")

    with more_detail(f"the same weights drawn as lines: where {quote(view.token_label)} looks"):
        st.markdown("Each line joins a token on the left (looking) to a token on the right (looked at); thicker = more "
                    "attention. The selected token's lines are orange; the other tokens' strongest lines are faint blue.")
        figures.show(figures.token_lines(weights, tokens, keys,
                                         figures.figure_title("Step 3 · attention as lines", view.settings.sentence,
                                                              view.label),
                                         selected=i, teaching=teaching),
                     figures.figure_filename("step3_lines", view.settings.sentence, f"{view.code}-t{i}"), teaching,
                     key="fig-lines", revealed_with=matrix_file)

    if not teaching:
        sums = weights.sum(axis=1)
        with st.expander("Every row sums to 1 (computed)"):
            tables.dataframe({"query token": tokens, "row sum": [f"{v:.6f}" for v in sums]}, hide_index=True)
            st.caption(f"Largest deviation from 1: {np.abs(sums - 1).max():.1e} (floating-point rounding).")
    step_downloads(view, "step3_weights", weights, keys)
    if not figures.answers_hidden(matrix_file, teaching):  # the "why" answers quote this matrix's shares
        whys.show_step3(view)
    st.page_link("app_pages/training.py", label="Try it: train a head with and without √d_k (Training lab)")
    step_nav("app_pages/step3_softmax.py")


slide_top("app_pages/step3_softmax.py")  # teaching mode: sentence, examples, Previous / Next (above the title)
step_page("Step 3 · Softmax turns scores into attention weights", follow_the_selected_token)
