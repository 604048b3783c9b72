import numpy as np
import streamlit as st

from lessons import explain as explain_rows
from lessons.whatif import effect, variants
from ui import figures, readouts, tables
from ui.content import words
from ui.sections import whys
from ui.sections.step_page import figure_pair
from ui.widgets.parity import parity_badge
from ui.text import pct, quote
from ui.view import current_view, steps_for
from ui.sections.whatif import (decoder_section, fit_slide, lab_temperature, no_softmax_text, temperature_slider,
                                variant_definition, variant_names, variant_text, word_order_section)
from ui.labels import numbered_note
from ui.widgets.pickers import numbered_caption
from ui.widgets.tour import slide_top, step_nav

slide_top("app_pages/whatif.py")  # teaching mode: sentence, examples, Previous / Next
st.title(words("whatif.title"))
view = current_view()
s = view.settings
teaching = s.teaching
# In learned mode the lab runs over every token the model sees, [CLS] and [SEP] included, so "normal" is the
# model's own attention (hiding them and renormalising the rest would not be).
base, tokens, i = view.base, view.base_labels, view.base_index
rows = view.shown if view.is_toy else np.arange(view.analysis.n_tokens)
if not teaching:  # a slide keeps its first screen for the two weight heatmaps (content/en/whatif.toml intro)
    st.markdown(words("whatif.intro", projection=view.label, learned=not view.is_toy,
                      token_count="" if view.is_toy else readouts.token_count(view)))
parity_badge(view)
# The slider is drawn under the choice, with the temperature variant only; its value is known before (the table).
temperature = lab_temperature()
other_mode = "identity" if s.mode != "identity" else "learned"
_, other = steps_for(view.model, view.analysis, rows, other_mode, s.d_k, s.seed, s.layer, s.head)
runs = variants(base.q, base.k, base.v, temperature=temperature, other_qkv=(other.q, other.k, other.v))
names = list(runs)
labels = variant_names(temperature, other_mode)
normal = runs["normal"]
# "—" where a number does not exist: another projection's outputs have another length than the normal ones.
columns = [words("whatif.column_variant"), words("whatif.column_entropy"), words("whatif.column_max_weight"),
           words("whatif.column_distance")]
table = [dict(zip(columns, [labels[name], *(f"{value:.4f}" if np.isfinite(value) else "—" for value in
                                            (e.entropy, e.max_weight, e.distance))]))
         for name, e in ((name, effect(run, normal)) for name, run in runs.items())]
if not teaching:  # a slide shows no tables (ui/widgets/page_style.py), so neither the table nor its key
    tables.dataframe(table, hide_index=True)
    st.caption(words("whatif.table_caption", learned=not view.is_toy, n=len(tokens),
                     bits=f"{np.log2(len(tokens)):.2f}"))

# The options are positions, not names: the temperature variant's name carries the slider's value, and a
# radio whose option changes forgets the choice (the variants always come in the same order).
position = st.radio(words("whatif.choice_label"), range(1, len(names)),
                    format_func=[labels[name] for name in names].__getitem__, horizontal=True, key="lab_variant")
choice = names[position]
run = runs[choice]
if choice == "temperature":
    temperature_slider(temperature)
# On a slide the line under the choice also says what a raised number means (numbered_caption's note), so the
# two weight heatmaps fit its first screen.
st.caption(variant_definition(choice, other_mode) + (" " + numbered_note(view.tokens, view.labels) if teaching else ""))
# A row that is all-or-nothing with and without scaling shows nothing: for "no scaling", the row where it changes
# most is outlined and read out instead (and the page says so).
shown_rows = np.arange(len(tokens)) if view.is_toy else view.shown
focus = i
entropy_change = np.zeros(len(tokens))
if choice == "no_scaling":
    focus, entropy_change = explain_rows.scaling_contrast_row(base.raw, base.d_k, shown_rows, i)


def drawn(weights):  # the step pages' way: the shown rows, hidden [CLS]/[SEP] as one column (view.fold)
    return weights if view.is_toy else view.fold(weights[shown_rows])


drawn_focus = int(np.flatnonzero(shown_rows == focus)[0])
row_note = words("whatif.row_note", token=quote(tokens[focus]), normal=pct(drawn(normal.weights)[drawn_focus].max()),
                 here=pct(drawn(run.weights)[drawn_focus].max()))
if choice == "no_scaling" and entropy_change[focus] < 0.25:
    row_note = readouts.no_contrast_note(entropy_change, shown_rows) + row_note
elif focus != i:
    row_note = words("whatif.row_moved", selected=quote(tokens[i]), selected_change=f"{entropy_change[i]:.2f}",
                     focus_change=f"{entropy_change[focus]:.2f}") + row_note
# One colour range for both outputs, so a change in size shows as a change in colour.
output_bound = float(max(np.abs(normal.output).max(), np.abs(run.output).max())) or 1.0
if not teaching:
    numbered_caption(view)  # the heatmaps are where a "the²" first shows on this page
left, right = figure_pair(teaching, len(view.key_labels))
for column, name, steps in ((left, "normal", normal), (right, choice, run)):
    with column:
        # Scores used as weights go below 0 and above 1: a signed scale, not the 0..1 one of shares.
        signed = name == "no_softmax"
        title = words("whatif.figure_weights", variant=labels[name])
        weights = figures.matrix_heatmap(drawn(steps.weights), view.labels, view.key_labels,
                                         figures.figure_title(title, s.sentence, view.short_label),
                                         kind="signed" if signed else "weights", highlight_row=drawn_focus,
                                         teaching=teaching, last_column=view.last_column("weights"),
                                         # half-width: smaller cells (a score's sign and digits need more; on a
                                         # slide the browser decides what fits)
                                         value_limit=None if teaching else (12 if signed else 8))
        # a slide's point, normal beside changed, is whole on its first screen
        figures.show(fit_slide(weights) if teaching else weights,
                     figures.figure_filename(f"whatif_{name}", s.sentence, view.code), teaching,
                     key=f"lab-w-{name}")
        title = words("whatif.figure_output", variant=labels[name])
        figures.show(figures.matrix_heatmap(steps.output[shown_rows], view.labels, None,
                                            figures.figure_title(title, s.sentence, view.short_label),
                                            kind="vectors", highlight_row=drawn_focus, teaching=teaching,
                                            x_title=words("whatif.axis_dimension"), y_title=words("whatif.axis_token"),
                                            bound=output_bound),
                     figures.figure_filename(f"whatif_out_{name}", s.sentence, view.code), teaching,
                     key=f"lab-o-{name}")

if choice == "no_softmax":  # its weights are scores, not shares: its own text reads out the row
    st.markdown(no_softmax_text(view, normal, focus))
else:
    st.markdown(variant_text(choice, runs, temperature, other_mode) + " " + row_note)
whys.show_whatif(view)
word_order_section(view)
decoder_section(view, runs["causal"], tokens)
step_nav("app_pages/whatif.py")
