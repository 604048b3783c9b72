import numpy as np
import streamlit as st

from lessons import explain as explain_rows
from lessons.whatif import effect, naive_softmax, variants
from ui import figures, readouts, tables
from ui.sections import whys
from ui.sections.step_page import figure_pair
from ui.widgets.parity import parity_badge
from ui.text import pct, quote
from ui.view import current_view, steps_for
from ui.sections.whatif import decoder_section, no_softmax_text, word_order_section
from ui.widgets.tour import slide_top, step_nav

slide_top("app_pages/whatif.py")  # teaching mode: sentence, examples, Previous / Next
st.title("What-if lab: change one thing, watch every step")
view = current_view()
s = view.settings
teaching = s.teaching
# In learned mode the lab runs over every token the model sees, [CLS] and [SEP] included, so "normal" is the
# model's own attention (hiding them and renormalising the rest would not be).
base, tokens, i = view.base, view.base_labels, view.base_index
rows = view.shown if view.is_toy else np.arange(view.analysis.n_tokens)
st.markdown(
    f"Your sentence with Q, K, V from *{view.label}*. Each variant below changes **one** thing in the "
    "computation; the table measures what it does to every row, and the heatmaps compare it with the normal "
    "computation."
    + ("" if view.is_toy else f" The lab works on every token the model sees ({readouts.token_count(view)}), so "
       "“normal” is the model's own attention.")
)
parity_badge(view)
temperature = st.slider("Temperature (divides the scores before softmax; 1 = normal)", 0.1, 10.0, 2.0, 0.1,
                        key="lab_temperature")
other_mode = "identity" if s.mode != "identity" else "learned"
_, other = steps_for(view.model, view.analysis, rows, other_mode, s.d_k, s.seed, s.layer, s.head)
runs = variants(base.q, base.k, base.v, temperature=temperature,
                other_qkv=(other.q, other.k, other.v))
names = list(runs)
labels = {name: name for name in names}
labels["other projection"] = f"{other_mode} projection instead"
labels["no softmax"] = "no softmax (scores as weights)"
normal = runs["normal"]
# "—" where a number does not exist: another projection's outputs have another length than the normal ones.
table = [{"variant": labels[name], **{k: f"{v:.4f}" if np.isfinite(v) else "—" for k, v in effect(run, normal).items()}}
         for name, run in runs.items()]
tables.dataframe(table, hide_index=True)
st.caption(f"In this table, entropy: how spread out a row is over all its tokens{'' if view.is_toy else ', [CLS] and [SEP] apart'} (0 bits = "
           f"all on one token; log2({len(tokens)}) = {np.log2(len(tokens)):.2f} bits = even over all {len(tokens)}). "
           "Output distance: the average length of (new output − normal output) per token; “—” where the "
           "outputs have different lengths and cannot be compared, or (no softmax) where a row's numbers no longer "
           "add up to 1, so it has no entropy.")

# The options are positions, not names: the temperature variant's name carries the slider's value, and a
# radio whose option changes forgets the choice (the variants always come in the same order).
position = st.radio("Compare with normal", range(1, len(names)),
                    format_func=[labels[name] for name in names].__getitem__, horizontal=True, key="lab_variant")
choice = names[position]
run = runs[choice]
st.caption("**Temperature** is one number every score is divided by before softmax: above 1 it flattens each row, "
           "below 1 it sharpens it. A **causal mask** is what a decoder such as GPT uses while it writes word by "
           "word: each token may look only at itself and the tokens before it. **No softmax** uses the scaled "
           "scores as the weights, as they are.")
# A row that is all-or-nothing with and without scaling shows nothing: for "no scaling", the row where it changes
# most is outlined and read out instead (and the page says so).
shown_rows = np.arange(len(tokens)) if view.is_toy else view.shown
focus = i
entropy_change = np.zeros(len(tokens))
if choice == "no √d_k scaling":
    focus, entropy_change = explain_rows.scaling_contrast_row(base.raw, base.d_k, shown_rows, i)


def drawn(weights):  # the step pages' way: the shown rows, hidden [CLS]/[SEP] as one column (view.fold)
    return weights if view.is_toy else view.fold(weights[shown_rows])


drawn_focus = int(np.flatnonzero(shown_rows == focus)[0])
row_note = (f"For {quote(tokens[focus])}: the largest weight is {pct(drawn(normal.weights)[drawn_focus].max())} "
            f"normally and {pct(drawn(run.weights)[drawn_focus].max())} here.")
if choice == "no √d_k scaling" and entropy_change[focus] < 0.25:
    row_note = readouts.no_contrast_note(entropy_change, shown_rows) + row_note
elif focus != i:
    row_note = (f"The row of {quote(tokens[i])} changes little without scaling (its entropy by "
                f"{entropy_change[i]:.2f} bits), so the outlined row is the one where it changes most "
                f"({entropy_change[focus]:.2f} bits). " + row_note)
# One colour range for both outputs, so a change in size shows as a change in colour.
output_bound = float(max(np.abs(normal.output).max(), np.abs(run.output).max())) or 1.0
left, right = figure_pair(teaching, len(view.key_labels))
for column, name, steps in ((left, "normal", normal), (right, labels[choice], run)):
    with column:
        # Scores used as weights go below 0 and above 1: a signed scale, not the 0..1 one of shares.
        signed = name == labels["no softmax"]
        figures.show(figures.matrix_heatmap(drawn(steps.weights), view.labels, view.key_labels,
                                            figures.figure_title(f"Weights · {name}", s.sentence, view.short_label),
                                            kind="signed" if signed else "weights", highlight_row=drawn_focus,
                                            teaching=teaching, last_column=view.last_column("weights"),
                                            # half-width: smaller cells (a score's sign and digits need more; on a
                                            # slide the browser decides what fits)
                                            value_limit=None if teaching else (12 if signed else 8)),
                     figures.figure_filename(f"whatif_{name}", s.sentence, view.code), teaching,
                     key=f"lab-w-{name}")
        figures.show(figures.matrix_heatmap(steps.output[shown_rows], view.labels, None,
                                            figures.figure_title(f"Output · {name}", s.sentence, view.short_label),
                                            kind="vectors", highlight_row=drawn_focus, teaching=teaching,
                                            x_title="dimension", y_title="token", bound=output_bound),
                     figures.figure_filename(f"whatif_out_{name}", s.sentence, view.code), teaching,
                     key=f"lab-o-{name}")

e_normal, e_run = effect(normal, normal), effect(run, normal)
mean_of = (f" (the average of all {normal.weights.shape[0]} rows' entropies; step 2 prints one row's own, the selected "
           "token's)")
entropy_before, entropy_after = e_normal['mean entropy (bits)'], e_run['mean entropy (bits)']
explain = {
    "no √d_k scaling": ("Without dividing by √d_k the scores are larger, so softmax is more peaked: the mean "
                        f"entropy goes from {entropy_before:.2f} to {entropy_after:.2f} bits{mean_of}."
                        if entropy_before - entropy_after >= 0.005 else
                        f"Without dividing by √d_k the scores are larger, yet the mean entropy stays at "
                        f"{entropy_after:.2f} bits{mean_of}: "
                        + ("these rows are already all-or-nothing with scaling."
                           if e_normal['mean max weight'] >= 0.99 else "on these rows the difference is too small "
                           "to change the weights.")),
    "causal (decoder) mask": "A decoder (like GPT) may not look ahead: everything above the diagonal is set to "
                             "−∞ before softmax, so the first token can only attend to itself "
                             f"({pct(run.weights[0, 0])}).",
    "uniform weights": "If every weight were 1/n, every token's output would be the same: the plain average of "
                       "the value vectors. The largest difference between any output row and mean(V) is "
                       f"{np.abs(run.output - normal.v.mean(0)).max():.1e} — context would carry no information "
                       "about which token is asking.",
    "scores × 1000": "Huge scores make softmax all-or-nothing (mean max weight "
                     f"{e_run['mean max weight']:.3f}). Computed naively, e^score overflows: "
                     f"{int((~np.isfinite(naive_softmax(run.scaled))).sum())} of {run.scaled.size} weights would be "
                     "NaN or ∞. Subtracting each row's maximum first (our softmax does) keeps them finite: "
                     f"{int(np.isfinite(run.weights).sum())} of {run.weights.size} are.",
    "other projection": f"The same sentence with the {other_mode} projection: a different way of making Q and K "
                        f"gives a different pattern (output distance {e_run['output distance from normal']:.2f}).",
}
explain[f"temperature × {temperature:g}"] = (
    f"Dividing scores by {temperature:g} "
    f"{'flattens' if temperature > 1 else 'sharpens' if temperature < 1 else 'leaves'} every row"
    f"{' as it is' if temperature == 1 else ''}: entropy "
    f"{e_normal['mean entropy (bits)']:.2f} → {e_run['mean entropy (bits)']:.2f} bits, mean max weight "
    f"{e_normal['mean max weight']:.2f} → {e_run['mean max weight']:.2f}.")
explain["scores × 1000"] = explain.pop("scores × 1000")
if choice == "no softmax":  # its weights are scores, not shares: its own text reads out the row
    explain[choice], row_note = no_softmax_text(view, normal, focus), ""
st.markdown(explain.get(choice, "") + " " + row_note)
whys.show_whatif(view)
word_order_section(view)
decoder_section(view, runs["causal (decoder) mask"], tokens)
step_nav("app_pages/whatif.py")
