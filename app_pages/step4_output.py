import numpy as np
import streamlit as st

from lessons import explain
from ui import figures, readouts
from ui.sections import whys
from ui.sections.history import before_self_attention
from ui.sections.step_page import explained_matrix, more_detail, specials_note, step_page
from ui.widgets.downloads import step_downloads
from ui.widgets.tour import slide_top, step_nav
from ui.text import pct, quote


def follow_the_selected_token(view):
    """Everything under the title follows the selected token: a chip click reruns only this part, as a
    fragment (ui/page.py step_page)."""
    tokens, i = view.labels, view.token
    teaching = view.settings.teaching
    output = view.output  # learned mode: the model's output rows, made from all tokens' values

    explained_matrix(
        view,
        "Each token's output is the sum of every token's **value** vector, each multiplied by the attention "
        "weight from step 3. A token that got 90% of the attention contributes 90% of its value. Each output "
        f"row is a new, **context-aware** vector of {output.shape[1]} numbers for that token.",
        (r"\text{output} = \operatorname{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V",
         r"o_i = \sum_j w_{ij}\, v_j"),
        figures.matrix_heatmap(output, tokens, None,
                               figures.figure_title("Step 4 · output = weights·V", view.settings.sentence,
                                                    view.label),
                               kind="vectors", highlight_row=i, teaching=teaching, x_title="number (dimension)",
                               y_title="token"),
        "step4_output",
        slide_line=f"Each row is the token's **new vector of {output.shape[1]} numbers**: every token's value, mixed "
                   "by the weights of step 3.",
    )

    st.header(f"How the output of {quote(view.token_label)} is built")
    keys = view.key_labels
    contributions = explain.weighted_values(view.base.weights[view.base_index], view.base.v)  # [n_all, d_v]
    if not view.is_toy:
        contributions = view.fold(contributions.T).T  # hidden tokens' rows added into one
    row = view.weights[i]
    stacked = np.vstack([contributions, output[i][None]])
    # Rounded as the sentences round them (pct): "0.1% × v(.)" beside "0.1% from the one other key", not "0%".
    labels = [f"{pct(w)} × v({t})" for w, t in zip(row, keys)] + [f"= output of {view.token_label}"]
    words, own = whys.other_words_share(view)
    words_by_length, _ = whys.other_words_share(view, by_length=True)
    markers = max(0.0, 1.0 - words - own)
    with more_detail(f"the output of {quote(view.token_label)} as a weighted sum, value by value"):
        st.markdown(
            "Each row below is one token's value vector times its weight; adding the rows gives the last row, "
            f"the output of {quote(view.token_label)}. The shares: {readouts.shares(row, keys, i, verb='from')}."
        )
        figures.show(figures.matrix_heatmap(stacked, labels, None,
                                            figures.figure_title(f"Output of “{view.token_label}” as a weighted sum",
                                                                 view.settings.sentence, view.label),
                                            kind="vectors", teaching=teaching, x_title="number (dimension)",
                                            y_title="weighted value", highlight_row=len(labels) - 1),
                     figures.figure_filename("step4_sum", view.settings.sentence, f"{view.code}-t{i}"), teaching)
    specials_note(view)

    check = np.abs(contributions.sum(axis=0) - output[i]).max()
    # Every value the output was mixed from, [CLS]/[SEP] included in learned mode (hidden or not).
    v_rows, v_labels, me = view.base.v, view.base_labels, view.base_index
    cosine = v_rows @ output[i] / (np.linalg.norm(v_rows, axis=1) * np.linalg.norm(output[i]) + 1e-12)
    closest = int(np.argmax(cosine))
    if closest == me:
        likeness = (f"It still points most like its own value (cosine similarity {cosine[me]:.2f}, where 1 = the same "
                    "direction).")
    else:
        likeness = (f"It now points most like the value of {quote(v_labels[closest])} (cosine similarity "
                    f"{cosine[closest]:.2f}, where 1 = the same direction), more than like its own ({cosine[me]:.2f}).")
    from_markers = (f", and [CLS] and [SEP], which are not words of your sentence (after the first layer they hold a mix of them), get {pct(markers)}" if markers >= 0.005
                    else "")
    st.markdown(
        f"**What changed:** the output of {quote(view.token_label)} gives weight {pct(own)} to its own value; "
        + (f"**the other tokens of your sentence get {pct(words)} of the weight** "
           f"({readouts.word_parts(view, row, keys)}){from_markers}. " if words >= 0.005 else
           f"**the other tokens of your sentence get no weight**{from_markers}.")
        + (f"A weight is not yet a share of the output, since a short value adds little: counted as weight × the "
           f"value's length, the other tokens' part is **{pct(words_by_length)}**." if words >= 0.005 else "")
    )
    with more_detail(f"which value the output of {quote(view.token_label)} now resembles (cosine similarity)"):
        st.markdown(likeness)
    st.markdown("In a transformer this output goes on (through the output projection and a feed-forward network) "
                "to the next layer, which repeats the whole process.")
    st.page_link("app_pages/meaning.py", icon="📏",
                 label="What these outputs achieve, as a picture: a word's vectors in many sentences, layer by layer →")
    if not teaching:
        st.caption(f"Check: the rows add up to the output to within {check:.1e}." if check >= 1e-5 else
                   "Check: the rows add up to the output (difference less than 0.00001).")
    step_downloads(view, "step4_output", output)
    whys.show_step4(view)
    before_self_attention(view)
    step_nav("app_pages/step4_output.py")


slide_top("app_pages/step4_output.py")  # teaching mode: sentence, examples, Previous / Next (above the title)
step_page("Step 4 · The output is a weighted mix of the values", follow_the_selected_token)
