import numpy as np
import streamlit as st

from ui import figures
from ui.page import downloads, explained_matrix, step_page
from ui.text import pct, quote

view = step_page("Step 3 · Softmax turns scores into attention weights")
s, tokens, i = view.steps, view.tokens, view.token
teaching = view.settings.teaching

explained_matrix(
    view,
    "Scaled scores can be any number, positive or negative. **Softmax** works row by row: it raises e to "
    "each score (so every value becomes positive, and bigger scores grow much faster) and divides by the "
    "row's total. Each weight is then between 0 and 1 and **every row adds up to 1** — a share of attention "
    "that the row's token gives to each token.",
    (r"w_{ij} = \operatorname{softmax}_j\!\left(\frac{q_i\cdot k_j}{\sqrt{d_k}}\right)",
     r"\operatorname{softmax}_j(s) = \frac{e^{s_j}}{\sum_{m} e^{s_m}}"),
    figures.matrix_heatmap(s.weights, tokens, tokens,
                           figures.figure_title("Step 3 · attention weights", view.settings.sentence,
                                                view.label),
                           kind="weights", highlight_row=i, teaching=teaching),
    "step3_weights",
)

row = s.weights[i]
order = np.argsort(row)[::-1]
parts = [f"**{pct(row[j])}** on {'itself' if j == i else quote(tokens[j])}" for j in order]
st.subheader(f"Reading the row of {quote(view.token_label)}")
st.markdown(f"{quote(view.token_label)} focuses " + ", ".join(parts[:8]) +
            (f", and {pct(row[order[8:]].sum())} on the other {len(order) - 8} tokens" if len(order) > 8 else "")
            + ".")
left, right = st.columns([2, 1])
with left:
    figures.show(figures.row_bars(row, tokens, f"Where “{view.token_label}” looks (weights, sum = 1)",
                                  teaching=teaching, highlight=i),
                 figures.figure_filename("step3_row", view.settings.sentence, f"{view.code}-t{i}"), teaching)
with right:
    sums = s.weights.sum(axis=1)
    st.markdown("**Every row sums to 1** (computed):")
    st.dataframe({"query token": tokens, "row sum": [f"{v:.6f}" for v in sums]}, hide_index=True)
    st.caption(f"Largest deviation from 1: {np.abs(sums - 1).max():.1e} (floating-point rounding).")
downloads(view, "step3_weights", s.weights, tokens)
from ui import whys; whys.show_step3(view)
st.page_link("pages/training.py", label="Try it: train a head with and without √d_k (Training lab)")
st.page_link("pages/step4_output.py", label="Next: step 4, the output →")
