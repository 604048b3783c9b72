import numpy as np
import streamlit as st

from ui import figures
from ui.page import downloads, explained_matrix, step_page
from ui.text import pct, quote

view = step_page("Step 4 · The output is a weighted mix of the values")
s, tokens, i = view.steps, view.tokens, view.token
teaching = view.settings.teaching

explained_matrix(
    view,
    "Each token's output is the sum of every token's **value** vector, each multiplied by the attention "
    "weight from step 3. A token that got 90% of the attention contributes 90% of its value. Each output "
    f"row is a new, **context-aware** vector of {s.output.shape[1]} numbers for that token.",
    (r"\text{output} = \operatorname{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V",
     r"o_i = \sum_j w_{ij}\, v_j"),
    figures.matrix_heatmap(s.output, tokens, None,
                           figures.figure_title("Step 4 · output = weights·V", view.settings.sentence,
                                                view.label),
                           kind="vectors", highlight_row=i, teaching=teaching, x_title="dimension",
                           y_title="token"),
    "step4_output",
)

st.subheader(f"How the output of {quote(view.token_label)} is built")
row = s.weights[i]
contributions = row[:, None] * s.v
stacked = np.vstack([contributions, s.output[i][None]])
labels = [f"{w * 100:.0f}% × v({t})" for w, t in zip(row, tokens)] + [f"= output of {view.token_label}"]
order = np.argsort(row)[::-1]
st.markdown(
    "Each row below is one token's value vector times its weight; adding the rows gives the last row, "
    f"the output of {quote(view.token_label)}. The biggest shares: "
    + ", ".join(f"{pct(row[j])} from {quote(tokens[j])}" for j in order[:5]) + "."
)
figures.show(figures.matrix_heatmap(stacked, labels, None,
                                    figures.figure_title(f"Output of “{view.token_label}” as a weighted sum",
                                                         view.settings.sentence, view.label),
                                    kind="vectors", teaching=teaching, x_title="dimension",
                                    y_title="weighted value", highlight_row=len(labels) - 1),
             figures.figure_filename("step4_sum", view.settings.sentence, f"{view.code}-t{i}"), teaching)
check = np.abs(contributions.sum(axis=0) - s.output[i]).max()
cosine = s.v @ s.output[i] / (np.linalg.norm(s.v, axis=1) * np.linalg.norm(s.output[i]) + 1e-12)
closest = int(np.argmax(cosine))
st.markdown(
    f"Check: the rows add up to the output to within {check:.1e}. The output of {quote(view.token_label)} "
    f"points most like the value of {quote(tokens[closest])} (cosine similarity {cosine[closest]:.2f}); "
    f"its own value scores {cosine[i]:.2f}. In a transformer this output goes on (through the output "
    "projection and a feed-forward network) to the next layer, which repeats the whole process."
)
downloads(view, "step4_output", s.output)
from ui import whys; whys.show_step4(view)
st.page_link("pages/pronoun.py", label="Next: does “it” attend to “dog”? →")
