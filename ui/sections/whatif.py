"""The what-if lab's longer read-outs: what breaks without softmax, and whether attention sees word order.
Every sentence is written from the numbers it names, with a branch for when they say otherwise."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention import core
from lessons import explain, whatif
from serving.sentences import analysis_of

from ui import figures
from ui.labels import unique_labels
from ui.widgets.pickers import kept_key, measured_default
from ui.text import head_name, layer_head_name, layer_head_tag, layer_name, md, pct, plain_small, quote
from ui.view import View, steps_for

COPIES = (2, 3)  # longer versions of the sentence: it said twice and three times over


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
        negative = (f"**{report.negative} of the {report.total} weights are negative** (the smallest is "
                    f"{report.smallest:.2f}; the row of {me} has {report.negative_in_row}): a token would take "
                    "*minus* some of another token's value, which no share can mean.")
    else:
        negative = (f"None of the {report.total} scaled scores of this sentence is negative, so here no weight "
                    "is below 0 either, but nothing keeps it so: a score below 0, which any other sentence may "
                    "give, would be a negative weight. Softmax makes every weight positive whatever the score.")
    sums = report.row_sums
    if (np.abs(sums - 1.0) < 0.005).all():
        rows = "Each row happens to add up to 1 here (to within 0.005), by chance: nothing makes it so."
    else:
        rows = (f"**The rows do not add up to 1**: they add up to anything from {sums.min():.2f} to "
                f"{sums.max():.2f} (the row of {me}: {sums[selected]:.2f}; with softmax every row adds up to 1).")
    ratio = report.output_norms.mean() / max(report.softmax_norms.mean(), 1e-12)
    output = (f"So the output is no longer an average of the values: its rows are on average "
              f"{report.output_norms.mean():.2f} long against {report.softmax_norms.mean():.2f} with softmax "
              f"({ratio:.1f}×), where a softmax output can never be longer than the longest value "
              f"({report.longest_value:.2f}).")
    return negative + " " + rows, output


def no_softmax_text(view: View, normal: core.AttentionSteps, selected: int) -> str:
    """What breaks when the scaled scores are the weights, in the sentence's own numbers."""
    labels = view.base_labels
    me = quote(labels[selected])
    row = normal.scaled[selected]
    shares, output = no_softmax_statements(normal, labels, selected)
    copies, runs = longer_runs(view)
    if len(runs) > 1:
        soft, hard = whatif.output_growth(runs)
        times = {1: "once", 2: "twice", 3: "three times"}
        said = ", ".join(f"{value:.2f} ({times[count]})" for count, value in zip(copies, hard))
        kept = ", ".join(f"{value:.2f}" for value in soft)
        grows = hard[-1] / hard[0]
        growth = (f" Said {' and '.join(times[c] for c in copies[1:])} over (a real model pass each, the same "
                  f"head), your sentence's outputs without softmax are on average {said} long; with softmax "
                  f"{kept}. " + (f"**Without softmax the output grows with the sentence** ({grows:.1f}× at "
                                 f"{copies[-1]} times the length); with softmax it stays an average."
                                 if grows >= 1.2 else
                                 f"Here the output without softmax does not grow much ({grows:.1f}×), because its "
                                 "positive and negative weights cancel; nothing keeps them balanced."))
    else:
        growth = " (Your sentence is too long to be said twice over within what the model reads.)"
    pick = whatif.hard_pick(row)
    top = int(np.argmax(row))
    hard = (f"And a hard “pick the largest” instead (weight 1 on {quote(labels[top])}, 0 on every other token of "
            f"the row of {me})? Nudge each of its {row.size} scores by ±{pick.nudge:g} and measure: the softmax "
            f"weights move at a rate of up to {pick.softmax_rate:.3f} per unit of score")
    if pick.hard_moved:
        hard += (f"; the picked weights do not move for {pick.nudges - pick.hard_moved} of the {pick.nudges} nudges, "
                 f"and for the other {pick.hard_moved} two scores are within {pick.nudge:g} of each other, so the "
                 "pick jumps from one token to the other all at once: a jump, not a slope training could follow.")
    else:
        hard += (f", the picked weights at {pick.hard_rate:.3f} ({pick.hard_moved} of the {pick.nudges} nudges "
                 "change anything). Its gradient is zero: training has nothing to follow, until a score crosses the "
                 f"top one (a gap of {pick.gap:.2f} here) and the pick jumps all at once.")
    same_scale = " The two output heatmaps above share one colour scale, so the normal output looks pale beside it."
    return "\n\n".join((shares, output + same_scale + growth, hard))


def twins(tokens, ids, is_special, row) -> str:
    """Without positions a repeated word is one vector twice: the sentence that says so, from the row, or ""."""
    ids = np.asarray(ids)
    for token_id in dict.fromkeys(ids[~np.asarray(is_special)].tolist()):
        where = np.flatnonzero((ids == token_id) & ~np.asarray(is_special))
        if where.size > 1 and np.ptp(row[where]) < 1e-6:
            return (f"Your sentence has {quote(tokens[where[0]])} {where.size} times: without positions they are "
                    "the same vector, so every row gives each the same weight (the row shown: "
                    f"{pct(row[where[0]])} each); only a position tells them apart. ")
    return ""


ORDER_HEAD_KEY = "order_head"  # the word-order lesson's own head of the first layer


def word_order_section(view: View) -> None:
    """Shuffle the sentence's words: without position embeddings each row's weights are the same numbers, moved;
    with the model's position embeddings they change. The first layer only: the one whose input is the embeddings."""
    s, model, analysis, teaching = view.settings, view.model, view.analysis, view.settings.teaching
    st.header("Does attention see the order of the words?")
    tables = model.embedding_tables()
    if tables is None:
        st.info("This model runs in PyTorch here, so its embedding tables are not read: the word-order lesson "
                "needs the bundled model (or another plain BERT folder).")
        return
    ids = model.vocabulary_ids(analysis.tokens)
    perm = whatif.word_shuffle(analysis.word_ids, analysis.is_special)
    if perm is None or any(i is None for i in ids):
        st.info("Type at least two words to shuffle them.")
        return
    eps = model.layer_weights(0)["ln_eps"]
    by_head = whatif.order_sensitivity_by_head(tables, ids, perm, [model.head_weights(0, h) for h in
                                                                   range(analysis.n_heads)], eps)
    # Opens on the head of the first layer whose weights move most when the words are shuffled (measured).
    measured_default(ORDER_HEAD_KEY, s.sentence, int(by_head.argmax()))
    head = st.selectbox("Head", range(analysis.n_heads), key=ORDER_HEAD_KEY,
                        format_func=lambda h: f"{head_name(h, capital=True)}: {pct(by_head[h])} moves",
                        help=f"The {analysis.n_heads} heads of {layer_name(0)}, each with the share of a row's "
                             "attention that moves when the words are shuffled. The lab opens on the one where it "
                             "moves most.")
    st.session_state[kept_key(ORDER_HEAD_KEY)] = (s.sentence, head)
    order = whatif.word_order(tables, ids, analysis.word_ids, analysis.is_special, model.head_weights(0, head), eps)
    # Every token the model reads, in the toys' modes too (their rows are the shown tokens only).
    labels = unique_labels(analysis.tokens)
    shuffled = [labels[j] for j in order.perm]  # each word keeps its label (“the²” stays “the²”)
    me = int(view.shown[view.token])
    st.markdown(
        "The four steps never look at where a token stands: a score is one query times one key, whatever their "
        "places. So the model adds a **position embedding** to each token first (a learned vector for “first "
        "place”, “second place”, …). To see what that does, take the first layer, layer 1, whose "
        f"input is the embeddings themselves, with {head_name(head)}'s learned W_Q and W_K"
        + (" (the model's own, whatever projection the lab above uses)" if view.is_toy else "")
        + ", and shuffle your words: "
        f"{md(' '.join(shuffled))}.")
    moved = order.moved_with
    where = np.flatnonzero(order.perm == me)[0]
    row_shuffled = order.plain_shuffled[where]
    # In the shuffled sentence's order while it is short enough to read; else its largest weights.
    keys = range(len(shuffled)) if len(shuffled) <= 8 else np.argsort(row_shuffled)[::-1][:5]
    listed = ", ".join(f"{pct(row_shuffled[j])} to {quote(shuffled[j])}" for j in keys)
    st.markdown(
        f"**Without position embeddings** (word embeddings only), the row of {quote(labels[me])} in the shuffled "
        f"sentence gives {'' if len(shuffled) <= 8 else 'its five largest weights, '}{listed}: the same numbers as "
        "before, moved with their words. Every weight of every row matches its word's "
        f"weight in your sentence's order (difference {plain_small(order.gap_without)}): attention alone is "
        "*permutation-equivariant* (shuffle the words and its results shuffle the same way). "
        + twins(analysis.tokens, ids, analysis.is_special, order.plain[me]))
    st.markdown(
        f"**With the model's position embeddings** the weights change: {pct(moved[me])} of the attention of "
        f"{quote(labels[me])} moves to other tokens"
        + (" (the most of any row). " if int(moved.argmax()) == me else
           f", and {pct(moved.max())} of the row of {quote(labels[int(moved.argmax())])}, the most of any row. ")
        + "The position embeddings are what make word order count"
        + f". On {head_name(head)} {pct(by_head[head])} of a row's attention moves, on average; "
        + (f"on the {by_head.size} heads of {layer_name(0)} from {pct(by_head.min())} to {pct(by_head.max())}, the most on "
           f"{head_name(int(by_head.argmax()))} (choose it in the Head box above to see order count more)."
           if by_head.argmax() != head else f"the most of the {by_head.size} heads of {layer_name(0)}, which is why "
           f"the lab opens on it (the least: {pct(by_head.min())})."))
    # The bars as the step pages draw weights: the words, and hidden [CLS]/[SEP] as one bar, their shares added.
    words = np.arange(analysis.n_tokens) if s.show_special else np.flatnonzero(~analysis.is_special)
    markers = np.setdiff1d(np.arange(analysis.n_tokens), words)
    bars = {panel: {name: explain.fold_hidden(row, words, markers) for name, row in pair.items()} for panel, pair in
            {"no position embeddings": {"your order": order.plain[me], "shuffled": order.placed[me]},
             "with position embeddings": {"your order": order.model[me], "shuffled": order.model_placed[me]}}.items()}
    figures.show(
        figures.paired_bar_panels(
            bars, [labels[j] for j in words] + ([explain.MARKER_COLUMN] if markers.size else []),
            figures.figure_title(f"{layer_head_name(0, head, capital=True)} · the row of {labels[me]}, words shuffled",
                                         s.sentence, "word order"), teaching=teaching),
        figures.figure_filename("whatif_word_order", s.sentence, f"{layer_head_tag(0, head, sep='')}-t{me}"), teaching,
        key="whatif-word-order")
    st.caption(
        "Each bar is the share the row gives one token, in your order and in the shuffled sentence (put back under "
        f"the same token). The limits of this lesson: it is {layer_name(0)} only (later layers read vectors that already "
        "carry positions, mixed in by the layers before); [CLS] and [SEP] stay at the two ends; without position "
        "embeddings the weights are no longer the model's own (it was trained with them); and one shuffle is "
        "shown, always the same for the same sentence.")


def decoder_section(view: View, causal: core.AttentionSteps, tokens: list[str]) -> None:
    """From attention to a chatbot: this head's weights under a decoder's causal mask (each row sees itself and the
    tokens before it), and what a decoder does with the last position. Said of decoders, not of this encoder."""
    s, teaching = view.settings, view.settings.teaching
    weights = np.array(causal.weights, dtype=np.float32)
    n = len(weights)
    ahead = np.triu(np.ones((n, n), dtype=bool), k=1)
    blocked = float(weights[ahead].max()) if ahead.any() else 0.0  # 0: the mask lets nothing through
    weights[ahead] = np.nan  # drawn blank: a decoder's row never sees these
    st.header("From attention to a chatbot")
    st.markdown(
        f"The same head with a decoder's **causal mask**: each row may look only at its own token and the ones "
        f"before it, so the cells above the diagonal are blank ({int(ahead.sum())} of {n * n} cells; the weight "
        f"left on them is {plain_small(blocked, at_most=True)}). The first row can only look at itself "
        f"({pct(float(causal.weights[0, 0]))}); the last row, {quote(tokens[-1])}, sees all {n} tokens.")
    figures.show(
        figures.matrix_heatmap(weights, tokens, tokens,
                               figures.figure_title("A decoder's view · causal mask", s.sentence, view.short_label),
                               kind="weights", teaching=teaching),
        figures.figure_filename("whatif_decoder_mask", s.sentence, view.code), teaching, key="whatif-decoder-mask")
    st.markdown(
        "**How a decoder writes.** Decoders (GPT-style models, the kind behind chatbots) use this mask in every "
        "layer. After the last layer they read the output vector at the **last position**: one more matrix turns "
        "it into a score for every word the model knows, softmax turns the scores into probabilities, and one "
        "likely word is picked as the next word. The word is added to the text and everything runs again, word "
        "by word: that loop is a chatbot's answer. The model on this page is an *encoder*: it reads the whole "
        "sentence in both directions and never predicts a next word; the mask above is only applied to one of "
        "its heads to show what a decoder's rows may see.")
