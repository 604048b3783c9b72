import numpy as np
import streamlit as st

from attention import core, explain
from ui import figures, whys
from ui.page import figure_pair, specials_note, step_downloads, step_nav, step_page
from ui.text import pct, quote

view = step_page("Step 2 · Scale the scores by √d_k")
s, tokens, i = view.steps, view.tokens, view.token
teaching = view.settings.teaching

bound = float(np.abs(s.raw).max()) or 1.0  # one colour range for both: the shrinking spread is visible
st.markdown(
    f"Every score from step 1 is divided by **√d_k = √{s.d_k} = {np.sqrt(s.d_k):.2f}**. Nothing else "
    "changes: the order of the scores in a row stays the same, only their spread shrinks. Both pictures "
    f"use the same colours (±{bound:.1f}), so the scaled scores look paler.")
st.latex(r"\text{scaled}_{ij} = \frac{q_i \cdot k_j}{\sqrt{d_k}}")
columns = figure_pair(teaching, len(tokens))
for column, name, matrix, title in ((columns[0], "step2_before", s.raw, "Step 1 · raw scores Q·Kᵀ"),
                                    (columns[1], "step2_scaled", s.scaled, "Step 2 · scaled Q·Kᵀ/√d_k")):
    with column:
        figures.show(figures.matrix_heatmap(matrix, tokens, tokens,
                                            figures.figure_title(title, view.settings.sentence, view.short_label),
                                            kind="signed", highlight_row=i, teaching=teaching, bound=bound),
                     figures.figure_filename(name, view.settings.sentence, view.code), teaching, key=f"fig-{name}")
st.markdown(f"The row of {quote(view.token_label)}: its scores range from {s.raw[i].min():.2f} to "
            f"{s.raw[i].max():.2f} before, from {s.scaled[i].min():.2f} to {s.scaled[i].max():.2f} after.")

st.header("Why divide by √d_k?")
st.markdown(
    "Step 3 will turn each row of scores into shares that add up to 100% (a function called **softmax**). "
    "A dot product adds up d_k products. If the numbers in q and k are random with spread 1, the sum's "
    "spread grows like √d_k: with long vectors the scores get huge. Softmax (step 3) turns huge gaps into "
    "*all-or-nothing* weights, and then the model can barely learn (its gradients become tiny). Dividing by "
    "√d_k brings the spread back to about 1, whatever d_k is. Measured live on random vectors:"
)
dims = [2, 8, 32, 128, 512, 1024]
raw_spread, scaled_spread = explain.dot_product_spread(tuple(dims))
left, right = figure_pair(teaching, len(view.key_labels))
with left:
    figures.show(figures.line_chart(dims, {"q·k": raw_spread, "q·k / √d_k": scaled_spread},
                                    "Spread (standard deviation) of 2,000 random dot products",
                                    "d_k (vector length)", "spread", teaching=teaching, log_x=True),
                 figures.figure_filename("step2_spread", "random vectors", f"dk{dims[0]}-{dims[-1]}"), teaching)
    st.markdown(f"At d_k = {dims[-1]} the raw spread is **{raw_spread[-1]:.1f}** "
                f"(√{dims[-1]} ≈ {np.sqrt(dims[-1]):.1f}); scaled, it is **{scaled_spread[-1]:.2f}**.")

# The model's rows (learned mode: the whole sentence, hidden tokens folded into one column).
unscaled = view.fold(core.softmax(view.base.raw[view.base_index])) if not view.is_toy else core.softmax(s.raw[i])
scaled = view.weights[i]
whole_unscaled, whole_scaled = core.softmax(view.base.raw[view.base_index]), view.base.weights[view.base_index]
keys = view.key_labels
with right:
    figures.show(figures.compare_bars({"softmax without scaling": unscaled, "softmax with scaling": scaled},
                                      keys, f"Row of “{view.token_label}”: softmax with and without √d_k",
                                      teaching=teaching),
                 figures.figure_filename("step2_saturation", view.settings.sentence, view.code), teaching)
    top_unscaled, top_scaled = int(unscaled.argmax()), int(scaled.argmax())
    st.markdown(
        f"On your sentence: the raw scores of {quote(view.token_label)} spread over "
        f"{s.raw[i].std():.2f} (standard deviation), the scaled ones over {s.scaled[i].std():.2f}. Without "
        f"scaling, softmax puts **{pct(unscaled[top_unscaled])}** on {quote(keys[top_unscaled])}; with "
        f"scaling, the largest weight is **{pct(scaled[top_scaled])}** on {quote(keys[top_scaled])}. "
        f"The row's entropy (a measure of how spread out the shares are: 0 bits = one token takes everything, "
        f"more bits = more evenly spread) goes from "
        f"{core.row_entropy(whole_unscaled[None])[0]:.2f} to {core.row_entropy(whole_scaled[None])[0]:.2f} bits"
        + (" (over all the tokens the model sees, [CLS] and [SEP] included)." if not view.is_toy else ".")
    )
specials_note(view, folded=not view.is_toy)
step_downloads(view, "step2_scaled", s.scaled, tokens)
whys.show_step2(view)
st.page_link("pages/training.py", label="Try it: train a head with and without √d_k (Training lab)")
step_nav("pages/step2_scaling.py")
