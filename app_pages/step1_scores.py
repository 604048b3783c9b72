import numpy as np
import streamlit as st

from lessons import explain
from ui import figures, readouts, tables
from ui.sections import whys
from ui.sections.step_page import explained_matrix, more_detail, specials_note, step_page
from ui.widgets.downloads import step_downloads
from ui.widgets.tour import slide_top, step_nav
from ui.content import words
from ui.text import quote


def follow_the_selected_token(view):
    """Everything under the title follows the selected token: a chip click reruns only this part, as a
    fragment (ui/page.py step_page)."""
    s, tokens, i = view.steps, view.labels, view.token
    teaching = view.settings.teaching
    n, d_model = view.x.shape

    st.markdown(words("step1.intro", made_from=view.input_explained, label=view.label, d_k=s.d_k))
    st.page_link("app_pages/by_hand.py", icon="✋", label=words("step1.by_hand_link"))
    with more_detail(words("step1.detail_qk")):
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
            st.caption(words("step1.qk_caption", n=n, drawn=readouts.token_count(view) if view.hidden.size else "",
                             d_model=d_model, d_k=s.d_k, mode=view.settings.mode, seed=view.settings.seed))

        columns = st.columns(2)
        axes = {"x_title": words("step1.axis_dimension"), "y_title": words("step1.axis_token")}
        for column, name, matrix, title in zip(columns, "QK", (s.q, s.k), (words("step1.q_title"),
                                                                           words("step1.k_title"))):
            with column:
                figures.show(figures.matrix_heatmap(matrix, tokens, None,
                                                    figures.figure_title(title, view.settings.sentence,
                                                                         view.short_label),
                                                    kind="vectors", highlight_row=i, teaching=teaching, **axes,
                                                    bound=float(np.abs(np.concatenate([s.q, s.k])).max())),
                             figures.figure_filename(f"step1_{name}", view.settings.sentence, view.code), teaching,
                             key=f"fig-{name}")

    with more_detail(words("step1.detail_meets", token=quote(view.token_label))):
        # Every key the model compares with, [CLS] and [SEP] included in learned mode: the score matrix below draws
        # each of them as a column too (View.score_keys).
        me, key_labels = view.base_index, view.base_labels
        products, scores = explain.query_meets_keys(view.base.q[me], view.base.k)
        st.markdown(words("step1.meets_text", token=quote(view.token_label),
                          best=readouts.best_score(scores, key_labels, me)))
        figures.show(figures.query_meets_keys(products, scores, key_labels, view.token_label,
                                              figures.figure_title(words("step1.meets_title", token=view.token_label),
                                                                   view.settings.sentence, view.short_label),
                                              teaching=teaching),
                     figures.figure_filename("step1_query_keys", view.settings.sentence, f"{view.code}-t{i}"), teaching,
                     key="fig-query-keys")

    explained_matrix(
        view,
        words("step1.scores_text"),
        (r"\text{scores} = Q\,K^{\top}", r"\text{score}_{ij} = q_i \cdot k_j = \sum_{d=1}^{d_k} q_{i,d}\,k_{j,d}"),
        figures.matrix_heatmap(view.drawn_scores(), tokens, view.score_keys,
                               figures.figure_title(words("step1.scores_title"), view.settings.sentence, view.label),
                               kind="signed", highlight_row=i, teaching=teaching),
        "step1_scores",
    )

    specials_note(view, folded=False)
    # The row as the matrix draws it: every number it names is in a column the picture has.
    row, columns = view.drawn_scores()[i], view.score_keys
    lowest = int(np.argmin(row))
    st.markdown(words("step1.row_text", token=quote(view.token_label), best=readouts.best_score(row, columns, i),
                      lowest=f"{row[lowest]:.2f}", lowest_key=readouts.plain_key(columns, lowest, i)))
    if not teaching:
        with st.expander(words("step1.table_box", token=quote(view.token_label))):
            tables.dataframe({words("step1.column_key"): columns, words("step1.column_score"): np.round(row, 4)},
                             hide_index=True)
            figures.show(figures.matrix_heatmap(s.v, tokens, None,
                                                figures.figure_title(words("step1.v_title"),
                                                                     view.settings.sentence, view.short_label),
                                                kind="vectors", highlight_row=i, teaching=teaching, **axes),
                         figures.figure_filename("step1_V", view.settings.sentence, view.code), teaching, key="fig-V")
    step_downloads(view, "step1_scores", view.drawn_scores(), view.score_keys)
    whys.show_step1(view)
    step_nav("app_pages/step1_scores.py")


slide_top("app_pages/step1_scores.py")  # teaching mode: sentence, examples, Previous / Next (above the title)
step_page(words("step1.title"), follow_the_selected_token)
