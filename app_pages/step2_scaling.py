import numpy as np
import streamlit as st

from attention import core
from lessons import explain
from ui import figures, readouts
from ui.sections import whys
from ui.sections.step_page import figure_pair, more_detail, specials_note, step_page
from ui.widgets.downloads import step_downloads
from ui.widgets.tour import slide_top, step_nav
from ui.text import pct, quote


def follow_the_selected_token(view):
    """Everything under the title follows the selected token: a chip click reruns only this part, as a
    fragment (ui/page.py step_page)."""
    s, tokens, i = view.steps, view.labels, view.token
    teaching = view.settings.teaching

    raw_drawn, scaled_drawn = view.drawn_scores(), view.drawn_scores(scaled=True)  # hidden tokens: their largest
    bound = float(np.abs(raw_drawn).max()) or 1.0  # one colour range for both: the shrinking spread is visible
    st.markdown(
        f"Every score from step 1 is divided by **√d_k = √{s.d_k} = {np.sqrt(s.d_k):.2f}**. Nothing else "
        "changes: the order of the scores in a row stays the same, only their spread shrinks. Both pictures "
        f"use the same colours (±{bound:.1f}), so the scaled scores look paler.")
    st.latex(r"\text{scaled}_{ij} = \frac{q_i \cdot k_j}{\sqrt{d_k}}")
    columns = figure_pair(teaching, len(tokens))
    for column, name, matrix, title in ((columns[0], "step2_before", raw_drawn, "Step 1 · raw scores Q·Kᵀ"),
                                        (columns[1], "step2_scaled", scaled_drawn, "Step 2 · scaled Q·Kᵀ/√d_k")):
        with column:
            figures.show(figures.matrix_heatmap(matrix, tokens, view.score_keys,
                                                figures.figure_title(title, view.settings.sentence, view.short_label),
                                                kind="signed", highlight_row=i, teaching=teaching, bound=bound,
                                                last_column=view.last_column("scores")),
                         figures.figure_filename(name, view.settings.sentence, view.code), teaching, key=f"fig-{name}")
    me = view.base_index
    raw_row, scaled_row = view.base.raw[me], view.base.scaled[me]  # every key, [CLS] and [SEP] included (learned)
    low, high = quote(view.base_labels[int(raw_row.argmin())]), quote(view.base_labels[int(raw_row.argmax())])
    st.markdown(f"The row of {quote(view.token_label)}: its scores range from {raw_row.min():.2f} (on {low}) to "
                f"{raw_row.max():.2f} (on {high}) before, from {scaled_row.min():.2f} to {scaled_row.max():.2f} after"
                + (", over every key, [CLS] and [SEP] included." if view.hidden.size else "."))

    st.header("Why divide by √d_k?")
    # The reason in words on the left, the row's bars on the right: the main line stays within two screens.
    why_text, why_bars = st.columns([2, 3]) if not teaching else (st.container(), st.container())
    spread_box = st.container()  # under both: a line chart needs the page's width for its title
    why_text.markdown(
        "A dot product adds up d_k products. If the numbers in q and k are random with spread 1, the sum's "
        "spread grows like √d_k: long vectors give huge scores, and **softmax** (step 3, which turns a row into "
        "shares of 100%) turns huge gaps into *all-or-nothing* weights, which pass back tiny gradients: the model "
        "barely learns: the textbook's reason. For random vectors, ÷√d_k brings the spread back to about 1 "
        "whatever d_k is (measured below); a trained head's scores can spread more."
    )
    dims = [2, 8, 32, 128, 512, 1024]
    raw_spread, scaled_spread = explain.dot_product_spread(tuple(dims))
    with spread_box, more_detail("the spread of 2,000 random dot products at each d_k, measured"):
        figures.show(figures.line_chart(dims, {"q·k": raw_spread, "q·k / √d_k": scaled_spread},
                                        # short: in a "More detail" box on a phone, a wrapped line holds ≤ 26 characters
                                        "Spread of 2,000 random dot products",
                                        "d_k (vector length)", "spread (standard deviation)", teaching=teaching,
                                        log_x=True),
                     figures.figure_filename("step2_spread", "random vectors", f"dk{dims[0]}-{dims[-1]}"), teaching)
        st.markdown(f"At d_k = {dims[-1]} the raw spread is **{raw_spread[-1]:.1f}** "
                    f"(√{dims[-1]} ≈ {np.sqrt(dims[-1]):.1f}); scaled, it is **{scaled_spread[-1]:.2f}**.")

    # The model's rows (learned mode: the whole sentence, hidden tokens folded into one column). A row that is
    # all-or-nothing with and without scaling shows nothing: then the row where scaling changes most is drawn.
    shown_rows = np.arange(len(tokens)) if view.is_toy else view.shown
    picked, entropy_change = explain.scaling_contrast_row(view.base.raw, s.d_k, shown_rows, me)
    picked_label = view.base_labels[picked]
    whole_unscaled, whole_scaled = core.softmax(view.base.raw[picked][None])[0], view.base.weights[picked]
    fold = (lambda row: row) if view.is_toy else view.fold
    unscaled, scaled = fold(whole_unscaled), fold(whole_scaled)
    keys = view.key_labels
    with why_bars:
        figures.show(figures.compare_bars({"softmax without scaling": unscaled, "softmax with scaling": scaled},
                                          keys, f"Row of “{picked_label}”: with √d_k, and with it removed",
                                          teaching=teaching),
                     figures.figure_filename("step2_saturation", view.settings.sentence, view.code), teaching)
        top_unscaled, top_scaled = int(unscaled.argmax()), int(scaled.argmax())
        before, after = core.row_entropy(whole_unscaled[None])[0], core.row_entropy(whole_scaled[None])[0]
        picked_note = (readouts.no_contrast_note(entropy_change, shown_rows) if entropy_change[picked] < 0.25 else
                       "") if picked == me else (
            f"The row of {quote(view.token_label)} changes little with scaling (its entropy by only "
            f"{entropy_change[me]:.2f} bits), so the bars show the row where scaling changes most, that of "
            f"{quote(picked_label)} ({entropy_change[picked]:.2f} bits). ")
        spread = (f"goes from {before:.2f} to {after:.2f} bits" if abs(after - before) >= 0.005 else
                  f"stays at {after:.2f} bits: on this sentence scaling does not change how spread out the row is")
        with why_text:
            st.markdown(
                picked_note +
                f"**The bars remove the division from this trained model** (scores {np.sqrt(s.d_k):.2f}× larger: "
                "a *temperature change*, not a model trained without it). "
                f"The raw scores of {quote(picked_label)} spread over {view.base.raw[picked].std():.2f} (standard "
                f"deviation), the scaled ones over {view.base.scaled[picked].std():.2f}. Without scaling, softmax "
                f"puts **{pct(unscaled[top_unscaled])}** on {quote(keys[top_unscaled])}; with scaling, the largest "
                f"weight is **{pct(scaled[top_scaled])}** on {quote(keys[top_scaled])}."
            )
            st.page_link("app_pages/training.py", label="The real test: the Training lab")
            with more_detail("how spread out the row is, in bits (entropy)"):
                st.markdown(
                    f"The row's entropy (a measure of how spread out the shares are: 0 bits = one token takes "
                    f"everything, more bits = more evenly spread) {spread}"
                    + f" — this one row's, that of {quote(picked_label)}"
                    + (f", over all {readouts.token_count(view)} the model sees" if not view.is_toy else "")
                    + ". (The What-if lab's “no √d_k scaling” reports the mean over every row, the other way round: "
                      "from scaled to unscaled.)"
                )
    specials_note(view, folded=not view.is_toy, scores_too=True)
    step_downloads(view, "step2_scaled", scaled_drawn, view.score_keys)
    whys.show_step2(view)
    step_nav("app_pages/step2_scaling.py")


slide_top("app_pages/step2_scaling.py")  # teaching mode: sentence, examples, Previous / Next (above the title)
step_page("Step 2 · Scale the scores by √d_k", follow_the_selected_token)
