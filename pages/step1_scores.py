import numpy as np
import streamlit as st

from ui import figures
from ui.page import downloads, explained_matrix, step_page
from ui.text import quote

view = step_page("Step 1 · Compare every query with every key")
s, tokens, i = view.steps, view.tokens, view.token
teaching = view.settings.teaching

st.markdown(
    "Each token gets three vectors: a **query** (what it is looking for), a **key** (what it offers to "
    "others) and a **value** (what it will pass on). They are made from the token's embedding "
    f"— here by *{view.label}*. Each has **d_k = {s.d_k}** numbers."
)
with st.expander("See the Q, K and V matrices (one row per token, one column per number)"):
    tabs = st.tabs(["Q (queries)", "K (keys)", "V (values)"])
    for tab, name, matrix in zip(tabs, "QKV", (s.q, s.k, s.v)):
        with tab:
            figures.show(figures.matrix_heatmap(matrix, tokens, None,
                                                figures.figure_title(f"{name} matrix", view.settings.sentence,
                                                                     view.label),
                                                kind="vectors", highlight_row=i, teaching=teaching,
                                                x_title="dimension", y_title="token"),
                         figures.figure_filename(f"step1_{name}", view.settings.sentence, view.code), teaching,
                         key=f"fig-{name}")

explained_matrix(
    view,
    "The **dot product** multiplies a query and a key number by number and adds it all up. It is large "
    "when the two vectors point the same way. Row = the token that is looking (its query), column = the "
    "token looked at (its key). Red = high score, blue = negative.",
    (r"\text{scores} = Q\,K^{\top}", r"\text{score}_{ij} = q_i \cdot k_j = \sum_{d=1}^{d_k} q_{i,d}\,k_{j,d}"),
    figures.matrix_heatmap(s.raw, tokens, tokens,
                           figures.figure_title("Step 1 · raw scores Q·Kᵀ", view.settings.sentence, view.label),
                           kind="signed", highlight_row=i, teaching=teaching),
    "step1_scores",
)

st.subheader(f"The row of {quote(view.token_label)}")
row = s.raw[i]
best = int(np.argmax(row))
st.markdown(
    f"The query of {quote(view.token_label)} matches the key of {quote(tokens[best])} best (score "
    f"{row[best]:.2f}); its lowest score is {row.min():.2f}. These raw numbers can be any size — the "
    "next steps turn them into weights."
)
st.dataframe({"key token": tokens, "q·k score": np.round(row, 4)}, hide_index=True)
downloads(view, "step1_scores", s.raw, tokens)
from ui import whys; whys.show_step1(view)
st.page_link("pages/step2_scaling.py", label="Next: step 2, scaling by √d_k →")
