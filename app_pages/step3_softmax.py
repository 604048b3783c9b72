import numpy as np
import streamlit as st

from lessons import explain
from ui import figures, readouts, tables
from ui.sections import whys
from ui.sections.step_page import explained_matrix, more_detail, specials_note, step_page
from ui.widgets.downloads import step_downloads
from ui.widgets.tour import slide_top, step_nav
from ui.content import words
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
    rounded = bool(figures.values_fit(len(tokens), len(keys), teaching) and abs(printed[worst] - 1) > 0.005)

    explained_matrix(
        view,
        words("step3.weights_text", rounded=rounded, printed_sum=f"{printed[worst]:.2f}",
              row_token=quote(tokens[worst])),
        (r"w_{ij} = \operatorname{softmax}_j\!\left(\frac{q_i\cdot k_j}{\sqrt{d_k}}\right)",
         r"\operatorname{softmax}_j(s) = \frac{e^{s_j}}{\sum_{m} e^{s_m}}"),
        figures.matrix_heatmap(weights, tokens, keys,
                               figures.figure_title(words("step3.weights_title"), view.settings.sentence,
                                                    view.label),
                               kind="weights", highlight_row=i, teaching=teaching,
                               last_column=view.last_column("weights")),
        "step3_weights",
        slide_line=words("step3.slide_line"),
    )
    specials_note(view)

    matrix_file = figures.figure_filename("step3_weights", view.settings.sentence, view.code)
    st.header(words("step3.reading_header", token=quote(view.token_label)))
    st.markdown(figures.hidden_text() if figures.answers_hidden(matrix_file, teaching) else
                words("step3.reading", token=quote(view.token_label),
                      shares=readouts.shares(weights[i], keys, i, limit=8)))

    st.header(words("step3.arithmetic_header"))
    arithmetic = explain.softmax_arithmetic(view.base.scaled[view.base_index])
    base_labels = view.base_labels
    hidden_rows = set(view.hidden.tolist()) if not view.is_toy else set()
    table_labels = view.base_key_labels
    left, right = st.columns([3, 2]) if not teaching else (st.container(), st.container())
    table_file = figures.figure_filename("step3_softmax_row", view.settings.sentence, f"{view.code}-t{i}")
    with left:
        columns = [words("step3.column_score"), words("step3.column_shifted"), words("step3.column_exp"),
                   words("step3.column_weight")]  # the columns of explain.softmax_arithmetic
        figures.show(figures.softmax_table(arithmetic, table_labels, columns,
                                           words("step3.table_title", token=view.token_label), teaching=teaching,
                                           highlight=view.base_index),
                     table_file, teaching, key="fig-softmax-table")
    with right:
        top = int(arithmetic[:, 0].argmax())
        if figures.answers_hidden(table_file, teaching):  # predict first: the arithmetic waits for the reveal
            st.markdown(figures.hidden_text())
        else:
            st.markdown(words("step3.arithmetic_text", top=f"{arithmetic[top, 0]:.2f}", top_key=quote(base_labels[top]),
                              total=f"{arithmetic[:, 2].sum():.3f}"))
        if hidden_rows and not figures.answers_hidden(table_file, teaching):
            share = arithmetic[sorted(hidden_rows), 3].sum()
            st.markdown(words("step3.markers_share", every=readouts.token_count(view), share=pct(share),
                              column=view.hidden_label))

    with more_detail(words("step3.detail_lines", token=quote(view.token_label))):
        st.markdown(words("step3.lines_text"))
        figures.show(figures.token_lines(weights, tokens, keys,
                                         figures.figure_title(words("step3.lines_title"), view.settings.sentence,
                                                              view.label),
                                         selected=i, teaching=teaching),
                     figures.figure_filename("step3_lines", view.settings.sentence, f"{view.code}-t{i}"), teaching,
                     key="fig-lines", revealed_with=matrix_file)

    if not teaching:
        sums = weights.sum(axis=1)
        with st.expander(words("step3.sums_box")):
            tables.dataframe({words("step3.column_query"): tokens,
                              words("step3.column_sum"): [f"{v:.6f}" for v in sums]}, hide_index=True)
            st.caption(words("step3.sums_caption", deviation=f"{np.abs(sums - 1).max():.1e}"))
    step_downloads(view, "step3_weights", weights, keys)
    if not figures.answers_hidden(matrix_file, teaching):  # the "why" answers quote this matrix's shares
        whys.show_step3(view)
    st.page_link("app_pages/training.py", label=words("step3.training_link"))
    step_nav("app_pages/step3_softmax.py")


slide_top("app_pages/step3_softmax.py")  # teaching mode: sentence, examples, Previous / Next (above the title)
step_page(words("step3.title"), follow_the_selected_token)
