import numpy as np
import streamlit as st

from attention import core
from ui import figures
from ui.page import downloads, explained_matrix, step_page
from ui.text import pct, quote

view = step_page("Step 2 · Scale the scores by √d_k")
s, tokens, i = view.steps, view.tokens, view.token
teaching = view.settings.teaching

explained_matrix(
    view,
    f"Every score from step 1 is divided by **√d_k = √{s.d_k} = {np.sqrt(s.d_k):.2f}**. Nothing else "
    "changes: the order of the scores in a row stays the same, only their spread shrinks.",
    r"\text{scaled}_{ij} = \frac{q_i \cdot k_j}{\sqrt{d_k}}",
    figures.matrix_heatmap(s.scaled, tokens, tokens,
                           figures.figure_title("Step 2 · scaled scores Q·Kᵀ/√d_k", view.settings.sentence,
                                                view.label),
                           kind="signed", highlight_row=i, teaching=teaching),
    "step2_scaled",
)

st.header("Why divide by √d_k?")
st.markdown(
    "A dot product adds up d_k products. If the numbers in q and k are random with spread 1, the sum's "
    "spread grows like √d_k: with long vectors the scores get huge. Softmax (step 3) turns huge gaps into "
    "*all-or-nothing* weights, and then the model can barely learn (its gradients become tiny). Dividing by "
    "√d_k brings the spread back to about 1, whatever d_k is. Measured live on random vectors:"
)
rng = np.random.default_rng(0)
dims = [2, 8, 32, 128, 512, 1024]
raw_spread, scaled_spread = [], []
for d in dims:
    q, k = rng.standard_normal((2, 2000, d))
    dots = np.einsum("nd,nd->n", q, k)
    raw_spread.append(dots.std())
    scaled_spread.append((dots / np.sqrt(d)).std())
left, right = st.columns(2)
with left:
    figures.show(figures.line_chart(dims, {"q·k": np.array(raw_spread), "q·k / √d_k": np.array(scaled_spread)},
                                    "Spread (standard deviation) of 2,000 random dot products",
                                    "d_k (vector length)", "spread", teaching=teaching, log_x=True),
                 figures.figure_filename("step2_spread", "random vectors", f"dk{dims[0]}-{dims[-1]}"), teaching)
    st.markdown(f"At d_k = {dims[-1]} the raw spread is **{raw_spread[-1]:.1f}** "
                f"(√{dims[-1]} ≈ {np.sqrt(dims[-1]):.1f}); scaled, it is **{scaled_spread[-1]:.2f}**.")

unscaled = core.softmax(s.raw[i])
scaled = s.weights[i]
with right:
    figures.show(figures.compare_bars({"softmax without scaling": unscaled, "softmax with scaling": scaled},
                                      tokens, f"Row of “{view.token_label}”: softmax with and without √d_k",
                                      teaching=teaching),
                 figures.figure_filename("step2_saturation", view.settings.sentence, view.code), teaching)
    top_unscaled, top_scaled = int(unscaled.argmax()), int(scaled.argmax())
    st.markdown(
        f"On your sentence: the raw scores of {quote(view.token_label)} spread over "
        f"{s.raw[i].std():.2f} (standard deviation), the scaled ones over {s.scaled[i].std():.2f}. Without "
        f"scaling, softmax puts **{pct(unscaled[top_unscaled])}** on {quote(tokens[top_unscaled])}; with "
        f"scaling, the largest weight is **{pct(scaled[top_scaled])}** on {quote(tokens[top_scaled])}. "
        f"The row's entropy (how spread out it is; 0 bits = one token takes everything) goes from "
        f"{core.row_entropy(unscaled[None])[0]:.2f} to {core.row_entropy(scaled[None])[0]:.2f} bits."
    )
downloads(view, "step2_scaled", s.scaled, tokens)
from ui import whys; whys.show_step2(view)
st.page_link("pages/training.py", label="Try it: train a head with and without √d_k (Training lab)")
st.page_link("pages/step3_softmax.py", label="Next: step 3, softmax →")
