import numpy as np
import streamlit as st

from attention import core
from lessons import explain
from ui import figures, readouts
from ui.sections import whys
from ui.sections.step_page import figure_pair, more_detail, specials_note, step_page
from ui.widgets.downloads import step_downloads
from ui.widgets.tour import slide_top, step_nav
from ui.content import words
from ui.text import pct, quote


def follow_the_selected_token(view):
    """Everything under the title follows the selected token: a chip click reruns only this part, as a
    fragment (ui/page.py step_page)."""
    s, tokens, i = view.steps, view.labels, view.token
    teaching = view.settings.teaching

    raw_drawn, scaled_drawn = view.drawn_scores(), view.drawn_scores(scaled=True)  # markers' keys: own columns
    bound = float(np.abs(raw_drawn).max()) or 1.0  # one colour range for both: the shrinking spread is visible
    st.markdown(words("step2.intro", d_k=s.d_k, root=f"{np.sqrt(s.d_k):.2f}", bound=f"{bound:.1f}"))
    st.latex(r"\text{scaled}_{ij} = \frac{q_i \cdot k_j}{\sqrt{d_k}}")
    columns = figure_pair(teaching, len(view.score_keys))  # the wider side: the markers' keys are columns
    for column, name, matrix, title in ((columns[0], "step2_before", raw_drawn, words("step2.raw_title")),
                                        (columns[1], "step2_scaled", scaled_drawn, words("step2.scaled_title"))):
        with column:
            figures.show(figures.matrix_heatmap(matrix, tokens, view.score_keys,
                                                figures.figure_title(title, view.settings.sentence, view.short_label),
                                                kind="signed", highlight_row=i, teaching=teaching, bound=bound),
                         figures.figure_filename(name, view.settings.sentence, view.code), teaching, key=f"fig-{name}")
    specials_note(view, folded=not view.is_toy, scores_too=True)  # under the pictures whose columns it names
    me, drawn_keys = view.base_index, view.score_keys
    raw_row, scaled_row = raw_drawn[i], scaled_drawn[i]  # the drawn rows: every key, [CLS] and [SEP] included
    st.markdown(words("step2.row_range", token=quote(view.token_label), low=f"{raw_row.min():.2f}",
                      low_key=quote(drawn_keys[int(raw_row.argmin())]), high=f"{raw_row.max():.2f}",
                      high_key=quote(drawn_keys[int(raw_row.argmax())]), low_scaled=f"{scaled_row.min():.2f}",
                      high_scaled=f"{scaled_row.max():.2f}", every_key=bool(view.hidden.size)))

    st.header(words("step2.why_header"))
    # The reason in words on the left, the row's bars on the right: the main line stays within two screens.
    why_text, why_bars = st.columns([2, 3]) if not teaching else (st.container(), st.container())
    spread_box = st.container()  # under both: a line chart needs the page's width for its title
    why_text.markdown(words("step2.why_text"))
    dims, samples = [2, 8, 32, 128, 512, 1024], explain.SPREAD_SAMPLES
    raw_spread, scaled_spread = explain.dot_product_spread(tuple(dims))
    with spread_box, more_detail(words("step2.detail_spread", samples=f"{samples:,}")):
        figures.show(figures.line_chart(dims, {"q·k": raw_spread, "q·k / √d_k": scaled_spread},
                                        words("step2.spread_title", samples=f"{samples:,}"),
                                        words("step2.spread_x"), words("step2.spread_y"), teaching=teaching,
                                        log_x=True),
                     figures.figure_filename("step2_spread", "random vectors", f"dk{dims[0]}-{dims[-1]}"), teaching)
        st.markdown(words("step2.spread_result", d_k=dims[-1], raw=f"{raw_spread[-1]:.1f}",
                          root=f"{np.sqrt(dims[-1]):.1f}", scaled=f"{scaled_spread[-1]:.2f}"))

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
        figures.show(figures.compare_bars({words("step2.bar_unscaled"): unscaled, words("step2.bar_scaled"): scaled},
                                          keys, words("step2.bars_title", token=picked_label), teaching=teaching),
                     figures.figure_filename("step2_saturation", view.settings.sentence, view.code), teaching)
        top_unscaled, top_scaled = int(unscaled.argmax()), int(scaled.argmax())
        before, after = core.row_entropy(whole_unscaled[None])[0], core.row_entropy(whole_scaled[None])[0]
        picked_note = (readouts.no_contrast_note(entropy_change, shown_rows) if entropy_change[picked] < 0.25 else
                       "") if picked == me else words("step2.picked_note", token=quote(view.token_label),
                                                      change=f"{entropy_change[me]:.2f}", picked=quote(picked_label),
                                                      picked_change=f"{entropy_change[picked]:.2f}") + " "
        with why_text:
            st.markdown(picked_note + words(
                "step2.bars_text", factor=f"{np.sqrt(s.d_k):.2f}", picked=quote(picked_label),
                spread_raw=f"{view.base.raw[picked].std():.2f}", spread_scaled=f"{view.base.scaled[picked].std():.2f}",
                top_unscaled=pct(unscaled[top_unscaled]), top_unscaled_key=quote(keys[top_unscaled]),
                top_scaled=pct(scaled[top_scaled]), top_scaled_key=quote(keys[top_scaled])))
            st.page_link("app_pages/training.py", label=words("step2.training_link"))
            with more_detail(words("step2.detail_entropy")):
                st.markdown(words("step2.entropy_text", changed=abs(after - before) >= 0.005, before=f"{before:.2f}",
                                  after=f"{after:.2f}", picked=quote(picked_label),
                                  every="" if view.is_toy else readouts.token_count(view)))
    step_downloads(view, "step2_scaled", scaled_drawn, view.score_keys)
    whys.show_step2(view)
    step_nav("app_pages/step2_scaling.py")


slide_top("app_pages/step2_scaling.py")  # teaching mode: sentence, examples, Previous / Next (above the title)
step_page(words("step2.title"), follow_the_selected_token)
