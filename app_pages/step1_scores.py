import numpy as np
import streamlit as st

from lessons import explain
from ui import figures, readouts, tables
from ui.sections import whys
from ui.sections.step_page import explained_matrix, more_detail, specials_note, step_page
from ui.widgets.downloads import step_downloads
from ui.widgets.tour import slide_top, step_nav
from ui.text import quote


def follow_the_selected_token(view):
    """Everything under the title follows the selected token: a chip click reruns only this part, as a
    fragment (ui/page.py step_page)."""
    s, tokens, i = view.steps, view.labels, view.token
    teaching = view.settings.teaching
    n, d_model = view.x.shape

    st.markdown(
        "Each token gets three vectors: a **query** (what it is looking for), a **key** (what it offers to "
        f"others) and a **value** (what it will pass on). They are made from X, {view.input_explained} "
        f"— here by *{view.label}*. Each has **d_k = {s.d_k}** numbers."
    )
    st.page_link("app_pages/by_hand.py", icon="✋", label="Try it by hand first: four words, two numbers each →")
    with more_detail("the queries and keys themselves (Q and K), and the matrices that make them"):
        if view.is_toy:
            st.latex(rf"\underbrace{{X}}_{{{n}\times{d_model}}} = \underbrace{{Q}}_{{{n}\times{s.d_k}}}"
                     if view.settings.mode == "identity" else
                     rf"\underbrace{{X}}_{{{n}\times{d_model}}}\cdot\underbrace{{W_Q}}_{{{d_model}\times{s.d_k}}}"
                     rf" = \underbrace{{Q}}_{{{n}\times{s.d_k}}}")
        else:
            st.latex(rf"\underbrace{{X}}_{{{n}\times{d_model}}}\cdot\underbrace{{W_Q}}_{{{d_model}\times{s.d_k}}}"
                     rf" + b_Q = \underbrace{{Q}}_{{{n}\times{s.d_k}}}\qquad"
                     rf"\underbrace{{X}}_{{{n}\times{d_model}}}\cdot\underbrace{{W_K}}_{{{d_model}\times{s.d_k}}}"
                     rf" + b_K = \underbrace{{K}}_{{{n}\times{s.d_k}}}")
        if not teaching:  # said of the projection the page runs: only the learned one was learned in training
            made_by = {"learned": f"times a {d_model} × {s.d_k} matrix the model learned in training (plus a bias)",
                       "random": f"times a {d_model} × {s.d_k} matrix of random numbers (seed {view.settings.seed}: not "
                                 "learned; the same seed draws the same numbers)",
                       "identity": "taken as they are (no matrix: the textbook toy)"}[view.settings.mode]
            st.caption(f"{n} tokens" + (f" drawn ({readouts.token_count(view)}: [CLS] and [SEP] get their queries and "
                                         "keys the same way, not drawn)" if view.hidden.size else "")
                       + f", each a vector of {d_model} numbers, {made_by}, gives {n} queries of {s.d_k} numbers "
                       "(the same for keys).")

        columns = st.columns(2)
        for column, name, matrix in zip(columns, "QK", (s.q, s.k)):
            with column:
                figures.show(figures.matrix_heatmap(matrix, tokens, None,
                                                    figures.figure_title(f"{name} ({'queries' if name == 'Q' else 'keys'})",
                                                                         view.settings.sentence, view.short_label),
                                                    kind="vectors", highlight_row=i, teaching=teaching,
                                                    x_title="number (dimension)", y_title="token",
                                                    bound=float(np.abs(np.concatenate([s.q, s.k])).max())),
                             figures.figure_filename(f"step1_{name}", view.settings.sentence, view.code), teaching,
                             key=f"fig-{name}")

    with more_detail(f"one query meets every key, number by number: {quote(view.token_label)}"):
        # Every key the model compares with, [CLS] and [SEP] included in learned mode (step 3 counts them too).
        me, key_labels = view.base_index, view.base_key_labels
        products, scores = explain.query_meets_keys(view.base.q[me], view.base.k)
        st.markdown(
            f"The query of {quote(view.token_label)} is multiplied with each key **number by number** (left, one row "
            f"per key: red = both numbers have the same sign, blue = opposite signs). Adding up a row gives one "
            f"score (right). The biggest sum is with {readouts.best_score(scores, key_labels, me, view.hidden)}.")
        figures.show(figures.query_meets_keys(products, scores, key_labels, view.token_label,
                                              figures.figure_title(f"q({view.token_label}) × each key",
                                                                   view.settings.sentence, view.short_label),
                                              teaching=teaching),
                     figures.figure_filename("step1_query_keys", view.settings.sentence, f"{view.code}-t{i}"), teaching,
                     key="fig-query-keys")

    explained_matrix(
        view,
        "Doing this for every query gives the whole score matrix. The **dot product** is large when the two "
        "vectors point the same way. Row = the token that is looking (its query), column = the token looked at "
        "(its key). Red = high score, blue = negative.",
        (r"\text{scores} = Q\,K^{\top}", r"\text{score}_{ij} = q_i \cdot k_j = \sum_{d=1}^{d_k} q_{i,d}\,k_{j,d}"),
        figures.matrix_heatmap(view.drawn_scores(), tokens, view.score_keys,
                               figures.figure_title("Step 1 · raw scores Q·Kᵀ", view.settings.sentence, view.label),
                               kind="signed", highlight_row=i, teaching=teaching,
                               last_column=view.last_column("scores")),
        "step1_scores",
    )

    specials_note(view, folded=False)
    row = view.base.raw[me]
    lowest = int(np.argmin(row))
    st.markdown(
        f"The row of {quote(view.token_label)} is the one just built: its best match is "
        f"{readouts.best_score(row, key_labels, me)}, its lowest score **{row[lowest]:.2f}** "
        f"({readouts.plain_key(key_labels, lowest, me)}). These raw numbers can be any size — the next steps turn them "
        "into weights."
    )
    if not teaching:
        with st.expander(f"The scores of {quote(view.token_label)} as a table, and the values V"):
            tables.dataframe({"key token": key_labels, "q·k score": np.round(row, 4)}, hide_index=True)
            figures.show(figures.matrix_heatmap(s.v, tokens, None,
                                                figures.figure_title("V (values, used in step 4)",
                                                                     view.settings.sentence, view.short_label),
                                                kind="vectors", highlight_row=i, teaching=teaching,
                                                x_title="number (dimension)", y_title="token"),
                         figures.figure_filename("step1_V", view.settings.sentence, view.code), teaching, key="fig-V")
    step_downloads(view, "step1_scores", view.drawn_scores(), view.score_keys)
    whys.show_step1(view)
    step_nav("app_pages/step1_scores.py")


slide_top("app_pages/step1_scores.py")  # teaching mode: sentence, examples, Previous / Next (above the title)
step_page("Step 1 · Compare every query with every key", follow_the_selected_token)
