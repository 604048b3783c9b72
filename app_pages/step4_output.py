import numpy as np
import streamlit as st

from lessons import explain
from ui import figures, readouts
from ui.sections import whys
from ui.sections.history import before_self_attention
from ui.sections.step_page import explained_matrix, more_detail, specials_note, step_page
from ui.widgets.downloads import step_downloads
from ui.widgets.tour import slide_top, step_nav
from ui.content import words
from ui.text import pct, quote


def follow_the_selected_token(view):
    """Everything under the title follows the selected token: a chip click reruns only this part, as a
    fragment (ui/page.py step_page)."""
    tokens, i = view.labels, view.token
    teaching = view.settings.teaching
    output = view.output  # learned mode: the model's output rows, made from all tokens' values

    explained_matrix(
        view,
        words("step4.output_text", numbers=output.shape[1]),
        (r"\text{output} = \operatorname{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V",
         r"o_i = \sum_j w_{ij}\, v_j"),
        figures.matrix_heatmap(output, tokens, None,
                               figures.figure_title(words("step4.output_title"), view.settings.sentence,
                                                    view.label),
                               kind="vectors", highlight_row=i, teaching=teaching,
                               x_title=words("step4.axis_dimension"), y_title=words("step4.axis_token")),
        "step4_output",
        slide_line=words("step4.slide_line", numbers=output.shape[1]),
    )

    st.header(words("step4.built_header", token=quote(view.token_label)))
    keys = view.key_labels
    contributions = explain.weighted_values(view.base.weights[view.base_index], view.base.v)  # [n_all, d_v]
    if not view.is_toy:
        contributions = view.fold(contributions.T).T  # hidden tokens' rows added into one
    row = view.weights[i]
    stacked = np.vstack([contributions, output[i][None]])
    # Rounded as the sentences round them (pct): "0.1% × v(.)" beside "0.1% from the one other key", not "0%".
    labels = [words("step4.sum_row", weight=pct(w), key=t) for w, t in zip(row, keys)] + [
        words("step4.sum_total", token=view.token_label)]
    others, own = whys.other_words_share(view)
    words_by_length, _ = whys.other_words_share(view, by_length=True)
    markers = max(0.0, 1.0 - others - own)
    with more_detail(words("step4.detail_sum", token=quote(view.token_label))):
        st.markdown(words("step4.sum_text", token=quote(view.token_label),
                          shares=readouts.shares(row, keys, i, verb="from")))
        figures.show(figures.matrix_heatmap(stacked, labels, None,
                                            figures.figure_title(words("step4.sum_title", token=view.token_label),
                                                                 view.settings.sentence, view.label),
                                            kind="vectors", teaching=teaching, x_title=words("step4.axis_dimension"),
                                            y_title=words("step4.axis_weighted"), highlight_row=len(labels) - 1),
                     figures.figure_filename("step4_sum", view.settings.sentence, f"{view.code}-t{i}"), teaching)
    specials_note(view)

    check = np.abs(contributions.sum(axis=0) - output[i]).max()
    # Every value the output was mixed from, [CLS]/[SEP] included in learned mode (hidden or not).
    v_rows, v_labels, me = view.base.v, view.base_labels, view.base_index
    cosine = v_rows @ output[i] / (np.linalg.norm(v_rows, axis=1) * np.linalg.norm(output[i]) + 1e-12)
    closest = int(np.argmax(cosine))
    likeness = (words("step4.likeness_own", own=f"{cosine[me]:.2f}") if closest == me else
                words("step4.likeness_other", closest_token=quote(v_labels[closest]), closest=f"{cosine[closest]:.2f}",
                      own=f"{cosine[me]:.2f}"))
    st.markdown(words("step4.changed", token=quote(view.token_label), own=pct(own), any_others=others >= 0.005,
                      others=pct(others), parts=readouts.word_parts(view, row, keys), any_markers=markers >= 0.005,
                      markers=pct(markers), by_length=pct(words_by_length)))
    with more_detail(words("step4.detail_likeness", token=quote(view.token_label))):
        st.markdown(likeness)
    st.markdown(words("step4.next_layer"))
    st.page_link("app_pages/meaning.py", icon="📏", label=words("step4.meaning_link"))
    if not teaching:
        st.caption(words("step4.check", difference=f"{check:.1e}") if check >= 1e-5 else words("step4.check_exact"))
    step_downloads(view, "step4_output", output)
    whys.show_step4(view)
    before_self_attention(view)
    step_nav("app_pages/step4_output.py")


slide_top("app_pages/step4_output.py")  # teaching mode: sentence, examples, Previous / Next (above the title)
step_page(words("step4.title"), follow_the_selected_token)
