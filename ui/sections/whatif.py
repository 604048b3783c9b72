"""The what-if lab's controls and longer read-outs: the variants' names and texts, what breaks without softmax, and
whether attention sees word order. Every sentence is written from the numbers it names, with a branch for when
they say otherwise."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention import core
from lessons import explain, whatif
from serving.sentences import analysis_of

from ui import figures
from ui.content import current_language, words
from ui.labels import unique_labels
from ui.widgets.pickers import kept_key, measured_default
from ui.text import head_name, layer_head_name, layer_head_tag, layer_name, md, pct, plain_small, quote
from ui.view import View, steps_for

COPIES = (2, 3)  # longer versions of the sentence: it said twice and three times over
TEMPERATURE_KEY = "lab_temperature"
TEMPERATURE_DEFAULT = 2.0


def lab_temperature() -> float:
    """The temperature the lab computes with: the slider's value, or the one kept while it is hidden (a widget that
    a run does not draw loses its value), so the reader's choice is back when the variant is chosen again."""
    kept = st.session_state.get(kept_key(TEMPERATURE_KEY), TEMPERATURE_DEFAULT)
    return float(st.session_state.get(TEMPERATURE_KEY, kept))


def temperature_slider(temperature: float) -> float:
    """The Temperature slider, drawn only with the temperature variant, opening on the value the lab computed."""
    st.session_state[TEMPERATURE_KEY] = temperature  # set before the widget exists: the kept value comes back
    value = st.slider(words("whatif.temperature_label"), 0.1, 10.0, step=0.1, key=TEMPERATURE_KEY)
    st.session_state[kept_key(TEMPERATURE_KEY)] = value
    return value


def variant_names(temperature: float, other_mode: str) -> dict[str, str]:
    """Each variant's name in the page's language (the choice's options: one dict per run, its language bound)."""
    return {"normal": words("whatif.variant_normal"), "no_scaling": words("whatif.variant_no_scaling"),
            "temperature": words("whatif.variant_temperature", temperature=f"{temperature:g}"),
            "causal": words("whatif.variant_causal"), "huge": words("whatif.variant_huge", factor=f"{whatif.HUGE:g}"),
            "uniform": words("whatif.variant_uniform"),
            "other": (words("whatif.variant_other_identity") if other_mode == "identity"
                      else words("whatif.variant_other_learned")),
            "no_softmax": words("whatif.variant_no_softmax")}


def variant_definition(choice: str, other_mode: str) -> str:
    """What the chosen variant is, in one line: a student needs the meaning of the variant chosen, not of all."""
    if choice == "other":
        return (words("whatif.define_other_identity") if other_mode == "identity"
                else words("whatif.define_other_learned"))
    if choice == "huge":
        return words("whatif.define_huge", factor=f"{whatif.HUGE:g}")
    return {"no_scaling": words("whatif.define_no_scaling"), "temperature": words("whatif.define_temperature"),
            "causal": words("whatif.define_causal"), "uniform": words("whatif.define_uniform"),
            "no_softmax": words("whatif.define_no_softmax")}[choice]


# On a slide (1920×1080) the two weight heatmaps share the first screen with the sentence row, the title, the
# choice and its definition. A taller weight heatmap gives its rows less height, down to SLIDE_ROW_PX (still above
# an 18 px label, so no label is thinned); a longer sentence's grows past the screen rather than that.
SLIDE_WEIGHTS_PX = 630
SLIDE_ROW_PX = 24
AXIS_BAND_PX = 120  # under the rows: the key tokens (upright once they do not fit side by side) and the axis title


def fit_slide(fig):
    """The weight heatmap at most SLIDE_WEIGHTS_PX high on a slide, its rows no lower than SLIDE_ROW_PX."""
    height, rows = fig.layout.height, len(fig.data[0].y)  # the rows drawn (a focus view keeps some)
    least = fig.layout.margin.t + AXIS_BAND_PX + rows * SLIDE_ROW_PX
    if height and height > SLIDE_WEIGHTS_PX:
        fig.update_layout(height=min(height, max(SLIDE_WEIGHTS_PX, least)))
    return fig


def variant_text(choice: str, runs: dict, temperature: float, other_mode: str) -> str:
    """What the chosen variant did, in the numbers the table and heatmaps show (no softmax has no_softmax_text)."""
    normal, run = runs["normal"], runs[choice]
    before, after = whatif.effect(normal, normal), whatif.effect(run, normal)
    if choice == "no_scaling":
        return words("whatif.explain_no_scaling", lower=before.entropy - after.entropy >= 0.005,
                     peaked=before.max_weight >= 0.99, before=f"{before.entropy:.2f}", after=f"{after.entropy:.2f}",
                     mean_of=words("whatif.mean_of", n=normal.weights.shape[0]))
    if choice == "temperature":
        return words("whatif.explain_temperature", temperature=f"{temperature:g}",
                     direction="flatten" if temperature > 1 else "sharpen" if temperature < 1 else "same",
                     entropy_before=f"{before.entropy:.2f}", entropy_after=f"{after.entropy:.2f}",
                     largest_before=f"{before.max_weight:.2f}", largest_after=f"{after.max_weight:.2f}")
    if choice == "causal":
        return words("whatif.explain_causal", first=pct(run.weights[0, 0]))
    if choice == "uniform":
        return words("whatif.explain_uniform", gap=f"{np.abs(run.output - normal.v.mean(0)).max():.1e}")
    if choice == "huge":
        return words("whatif.explain_huge", largest=f"{after.max_weight:.3f}", total=run.scaled.size,
                     overflow=int((~np.isfinite(whatif.naive_softmax(run.scaled))).sum()),
                     finite=int(np.isfinite(run.weights).sum()))
    if choice == "other":
        return words("whatif.explain_other", identity=other_mode == "identity", distance=f"{after.distance:.2f}")
    return ""


def longer_runs(view: View) -> tuple[list[int], list[core.AttentionSteps]]:
    """The lab's computation on the sentence and on it said COPIES times over (each a real model pass, the same
    projection, layer and head); a version longer than the model reads is left out."""
    s, model = view.settings, view.model
    copies, runs = [1], [view.base]
    for count in COPIES:
        longer = " ".join([s.sentence.strip()] * count)
        if model.read_part(longer)[0].strip() != longer:  # the model would cut it
            break
        analysis = analysis_of(model, longer)
        rows = (np.arange(analysis.n_tokens) if not view.is_toy or len(view.shown) == view.analysis.n_tokens
                else np.flatnonzero(~analysis.is_special))
        copies.append(count)
        runs.append(steps_for(model, analysis, rows, s.mode, s.d_k, s.seed, s.layer, s.head)[1])
    return copies, runs


def no_softmax_statements(normal: core.AttentionSteps, labels, selected: int) -> tuple[str, str]:
    """(negative weights and row sums, the output's length), each sentence from the numbers it names."""
    me = quote(labels[selected])
    report = whatif.no_softmax_report(normal, selected)
    if report.negative:
        negative = words("whatif.no_softmax_negative", negative=report.negative, total=report.total,
                         smallest=f"{report.smallest:.2f}", row=me, in_row=report.negative_in_row)
    else:
        negative = words("whatif.no_softmax_no_negative", total=report.total)
    sums = report.row_sums
    if (np.abs(sums - 1.0) < 0.005).all():
        rows = words("whatif.no_softmax_rows_one")
    else:
        rows = words("whatif.no_softmax_rows_differ", lowest=f"{sums.min():.2f}", highest=f"{sums.max():.2f}",
                     row=me, row_sum=f"{sums[selected]:.2f}")
    ratio = report.output_norms.mean() / max(report.softmax_norms.mean(), 1e-12)
    output = words("whatif.no_softmax_output", without=f"{report.output_norms.mean():.2f}",
                   with_softmax=f"{report.softmax_norms.mean():.2f}", ratio=f"{ratio:.1f}",
                   longest=f"{report.longest_value:.2f}")
    return negative + " " + rows, output


def times_said(count: int) -> str:
    return {1: words("whatif.times_1"), 2: words("whatif.times_2"), 3: words("whatif.times_3")}[count]


def no_softmax_text(view: View, normal: core.AttentionSteps, selected: int) -> str:
    """What breaks when the scaled scores are the weights, in the sentence's own numbers."""
    labels = view.base_labels
    me = quote(labels[selected])
    row = normal.scaled[selected]
    shares, output = no_softmax_statements(normal, labels, selected)
    copies, runs = longer_runs(view)
    if len(runs) > 1:
        soft, hard = whatif.output_growth(runs)
        said = ", ".join(words("whatif.growth_item", length=f"{value:.2f}", times=times_said(count))
                         for count, value in zip(copies, hard))
        grows = hard[-1] / hard[0]
        growth = words("whatif.growth", again=words("whatif.and_word").join(times_said(c) for c in copies[1:]),
                       said=said, kept=", ".join(f"{value:.2f}" for value in soft), grows=f"{grows:.1f}",
                       grew=bool(grows >= 1.2), copies=copies[-1])
    else:
        growth = words("whatif.growth_too_long")
    pick = whatif.hard_pick(row)
    top = int(np.argmax(row))
    hard = words("whatif.hard_pick", top=quote(labels[top]), row=me, n=row.size, nudge=f"{pick.nudge:g}",
                 rate=f"{pick.softmax_rate:.3f}")
    if pick.hard_moved:
        hard += words("whatif.hard_pick_jumps", still=pick.nudges - pick.hard_moved, nudges=pick.nudges,
                      moved=pick.hard_moved, nudge=f"{pick.nudge:g}")
    else:
        hard += words("whatif.hard_pick_flat", hard_rate=f"{pick.hard_rate:.3f}", moved=pick.hard_moved,
                      nudges=pick.nudges, gap=f"{pick.gap:.2f}")
    return "\n\n".join((shares, output + words("whatif.no_softmax_same_scale") + growth, hard))


def twins(tokens, ids, is_special, row) -> str:
    """Without positions a repeated word is one vector twice: the sentence that says so, from the row, or ""."""
    ids = np.asarray(ids)
    for token_id in dict.fromkeys(ids[~np.asarray(is_special)].tolist()):
        where = np.flatnonzero((ids == token_id) & ~np.asarray(is_special))
        if where.size > 1 and np.ptp(row[where]) < 1e-6:
            return words("whatif.order_twins", token=quote(tokens[where[0]]), count=where.size,
                         share=pct(row[where[0]]))
    return ""


ORDER_HEAD_KEY = "order_head"  # the word-order lesson's own head of the first layer


def word_order_section(view: View) -> None:
    """Shuffle the sentence's words: without position embeddings each row's weights are the same numbers, moved;
    with the model's position embeddings they change. The first layer only: the one whose input is the embeddings."""
    s, model, analysis, teaching = view.settings, view.model, view.analysis, view.settings.teaching
    st.header(words("whatif.order_header"))
    tables = model.embedding_tables()
    if tables is None:
        st.info(words("whatif.order_no_tables"))
        return
    ids = model.vocabulary_ids(analysis.tokens)
    perm = whatif.word_shuffle(analysis.word_ids, analysis.is_special)
    if perm is None or any(i is None for i in ids):
        st.info(words("whatif.order_one_word"))
        return
    eps = model.layer_weights(0)["ln_eps"]
    by_head = whatif.order_sensitivity_by_head(tables, ids, perm, [model.head_weights(0, h) for h in
                                                                   range(analysis.n_heads)], eps)
    # Opens on the head of the first layer whose weights move most when the words are shuffled (measured).
    measured_default(ORDER_HEAD_KEY, s.sentence, int(by_head.argmax()))
    language = current_language()  # bound: the options are named again outside this run
    head = st.selectbox(words("whatif.order_head_label"), range(analysis.n_heads), key=ORDER_HEAD_KEY,
                        format_func=lambda h: words("whatif.order_head_option", language=language,
                                                    head=head_name(h, capital=True), moved=pct(by_head[h])),
                        help=words("whatif.order_head_help", n=analysis.n_heads, layer=layer_name(0)))
    st.session_state[kept_key(ORDER_HEAD_KEY)] = (s.sentence, head)
    order = whatif.word_order(tables, ids, analysis.word_ids, analysis.is_special, model.head_weights(0, head), eps)
    # Every token the model reads, in the toys' modes too (their rows are the shown tokens only).
    labels = unique_labels(analysis.tokens)
    shuffled = [labels[j] for j in order.perm]  # each word keeps its label (“the²” stays “the²”)
    me = int(view.shown[view.token])
    st.markdown(words("whatif.order_intro", head=head_name(head), toy=view.is_toy, shuffled=md(" ".join(shuffled))))
    moved = order.moved_with
    where = np.flatnonzero(order.perm == me)[0]
    row_shuffled = order.plain_shuffled[where]
    # In the shuffled sentence's order while it is short enough to read; else its largest weights.
    keys = range(len(shuffled)) if len(shuffled) <= 8 else np.argsort(row_shuffled)[::-1][:5]
    listed = ", ".join(words("whatif.order_listed_item", share=pct(row_shuffled[j]), token=quote(shuffled[j]))
                       for j in keys)
    st.markdown(words("whatif.order_without", row=quote(labels[me]), some=len(shuffled) > 8, listed=listed,
                      gap=plain_small(order.gap_without),
                      twins=twins(analysis.tokens, ids, analysis.is_special, order.plain[me])))
    top_row = int(moved.argmax())
    st.markdown(words("whatif.order_with", moved=pct(moved[me]), row=quote(labels[me]), row_most=top_row == me,
                      top_moved=pct(moved.max()), top_row=quote(labels[top_row]), head=head_name(head),
                      head_moved=pct(by_head[head]), heads=by_head.size, layer=layer_name(0),
                      least=pct(by_head.min()), most=pct(by_head.max()), is_most=bool(by_head.argmax() == head),
                      most_head=head_name(int(by_head.argmax()))))
    # The bars as the step pages draw weights: the words, and hidden [CLS]/[SEP] as one bar, their shares added.
    shown = np.arange(analysis.n_tokens) if s.show_special else np.flatnonzero(~analysis.is_special)
    markers = np.setdiff1d(np.arange(analysis.n_tokens), shown)
    yours, shuffled_name = words("whatif.series_yours"), words("whatif.series_shuffled")
    bars = {panel: {name: explain.fold_hidden(row, shown, markers) for name, row in pair.items()} for panel, pair in
            {words("whatif.panel_without"): {yours: order.plain[me], shuffled_name: order.placed[me]},
             words("whatif.panel_with"): {yours: order.model[me], shuffled_name: order.model_placed[me]}}.items()}
    figures.show(
        figures.paired_bar_panels(
            bars, [labels[j] for j in shown] + ([explain.MARKER_COLUMN] if markers.size else []),
            figures.figure_title(words("whatif.order_figure", head=layer_head_name(0, head, capital=True),
                                       token=labels[me]), s.sentence, words("whatif.order_figure_view")),
            teaching=teaching),
        figures.figure_filename("whatif_word_order", s.sentence, f"{layer_head_tag(0, head, sep='')}-t{me}"), teaching,
        key="whatif-word-order")
    st.caption(words("whatif.order_caption", layer=layer_name(0)))


def decoder_section(view: View, causal: core.AttentionSteps, tokens: list[str]) -> None:
    """From attention to a chatbot: this head's weights under a decoder's causal mask (each row sees itself and the
    tokens before it), and what a decoder does with the last position. Said of decoders, not of this encoder."""
    s, teaching = view.settings, view.settings.teaching
    weights = np.array(causal.weights, dtype=np.float32)
    n = len(weights)
    ahead = np.triu(np.ones((n, n), dtype=bool), k=1)
    blocked = float(weights[ahead].max()) if ahead.any() else 0.0  # 0: the mask lets nothing through
    weights[ahead] = np.nan  # drawn blank: a decoder's row never sees these
    st.header(words("whatif.decoder_header"))
    st.markdown(words("whatif.decoder_intro", blank=int(ahead.sum()), cells=n * n,
                      blocked=plain_small(blocked, at_most=True), first=pct(float(causal.weights[0, 0])),
                      last=quote(tokens[-1]), n=n))
    figures.show(
        figures.matrix_heatmap(weights, tokens, tokens,
                               figures.figure_title(words("whatif.decoder_figure"), s.sentence, view.short_label),
                               kind="weights", teaching=teaching),
        figures.figure_filename("whatif_decoder_mask", s.sentence, view.code), teaching, key="whatif-decoder-mask")
    st.markdown(words("whatif.decoder_writes"))
