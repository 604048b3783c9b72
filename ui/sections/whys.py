"""The "why" questions students ask, answered where they arise, with the live numbers of their sentence.

Each `*_whys(view, query)` returns (question, answer) pairs of Markdown, computed from the view; the
matching `show_*` draws them on the page (a page adds one line that calls it). `query` is the page's URL
parameters, carried into the glossary links so an entry opens on the same sentence.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention import core
from lessons import explain
from lessons.training_verdicts import small_words

from ui import figures
from ui.sections.glossary import term_link
from ui.widgets.links import view_link_params
from ui.view import View
from ui.readouts import shares, token_count
from ui.text import layer_name, pct, quote
from ui.sections.token_whys import Whys, token_whys


def _show(whys: Whys, teaching: bool) -> None:
    """Visible on the page; tucked into an expander in teaching mode, so a slide stays clean. Their box
    (.st-key-why_questions) marks where a step page's main line ends (tests/test_browser_lessons.py)."""
    with st.container(key="why_questions"):
        _show_whys(whys, teaching)


def _show_whys(whys: Whys, teaching: bool) -> None:
    if teaching:
        with st.expander("Why? The questions students ask"):
            for question, answer in whys:
                st.markdown(f"**{question}** {answer}")
        return
    for question, answer in whys:
        st.markdown(f"### {question}")
        st.markdown(answer)


def _query() -> dict[str, str]:
    return view_link_params()  # known, valid keys only: a link's unknown ones are not copied on


def show_tokens(view: View) -> None:
    _show(token_whys(view, _query()), view.settings.teaching)


# --- step 1: self-attention versus attention between two sequences

def step1_whys(view: View, query: dict[str, str] | None = None) -> Whys:
    n, n_all, layer = len(view.tokens), len(view.base_labels), view.settings.layer
    start = (f"{term_link('embedding', 'embedding', query)} (its numbers before any attention)" if view.is_toy or
             layer == 0 else f"vector as it enters {layer_name(layer, view.model.n_layers)}, the previous layer's "
             "output and not its embedding,")  # as View.input_name names it
    size = (f"the score matrix is {n} × {n}, one row and one column per token" if n_all == n else
            f"the model's score matrix is {n_all} × {n_all}, one row and one column per token: "
            f"{token_count(view)} (the picture above draws the {n} rows of your sentence's tokens)")
    return [
        ("Why “self”-attention?",
         f"Here the {term_link('query, key, value', 'queries, keys and values', query)} all come from your own "
         f"sentence, so it looks at itself: {size}. "
         f"In {term_link('cross-attention', 'attention between two sequences', query)}, as in a translation model, "
         "the queries come from the sentence being written and the keys and values from the sentence being read; "
         "its matrix has one row per written token and one column per read token."),
        ("Where do Q, K and V come from?",
         f"Each token's {start} is multiplied by three learned tables, "
         f"{term_link('W_Q, W_K, W_V', 'W_Q, W_K and W_V', query)}"
         + {"learned": "", "random": f" (on this page random tables, drawn from seed {view.settings.seed}, stand in "
                                     "for the learned ones)",
            "identity": " (on this page, the textbook toy, no table: Q, K and V are the embeddings themselves)"}
         .get(view.settings.mode, "") +
         f". Each result has d_k = {view.steps.d_k} numbers, the {term_link('dimension', 'dimensions', query)} you "
         "see as columns."),
    ]


def show_step1(view: View) -> None:
    _show(step1_whys(view, _query()), view.settings.teaching)


# --- step 2: gradients, and why scaling matters for them

def softmax_slopes(row) -> np.ndarray:  # [n] weights -> [n] d w_j / d score_j = w_j (1 - w_j)
    return row * (1 - row)


def step2_whys(view: View, query: dict[str, str] | None = None) -> Whys:
    s, i = view.base, view.base_index  # the model's own row in learned mode, [CLS]/[SEP] included
    scaled_row, unscaled_row = s.weights[i], core.softmax(s.raw[i:i + 1])[0]
    with_scaling, without = softmax_slopes(scaled_row).max(), softmax_slopes(unscaled_row).max()
    if without < with_scaling - 0.0005:
        verdict = "with the division removed, the row is closer to all-or-nothing and would learn more slowly."
    elif with_scaling < without - 0.0005:
        verdict = "on this row scaling does not slow learning down."
    else:
        verdict = "on this row the two are about the same" + (
            ": it is nearly all-or-nothing even with scaling (one token takes almost all its attention), so it "
            "barely learns either way." if with_scaling < 0.01 else ".")
    return [
        ("What is a gradient, and why should I care here?",
         f"A {term_link('gradient', 'gradient', query)} says how much a result changes when one input is nudged. "
         "Training follows gradients to improve W_Q and W_K. For softmax, a weight w moves at the rate w × (1 − w) "
         "when its own score is nudged: 0.25 at most (for w = 50%), almost 0 when w is near 0 or 100%. "
         f"For {quote(view.token_label)} the fastest rate is **{small_words(with_scaling)}** with scaling and "
         f"**{small_words(without)}** with the division removed from this trained model (the largest w × (1 − w) in "
         "this one row; the Training lab's section 4 prints the same kind of number, a row's largest Jacobian entry, "
         "for a soft and a saturated row it picks): " + verdict + " Removing the division after training is a "
         "temperature change on learned weights, not a model trained without it: the Training lab's section 3 "
         "trains heads both ways and compares them."),
    ]


def show_step2(view: View) -> None:
    _show(step2_whys(view, _query()), view.settings.teaching)


# --- step 3: rows that sum to 1, row by row, differentiable

def step3_whys(view: View, query: dict[str, str] | None = None) -> Whys:
    # The model's own rows in learned mode ([CLS]/[SEP] included), the toy's rows otherwise.
    s, i, tokens = view.base, view.base_index, view.base_labels
    n, me, row = len(tokens), quote(view.token_label), s.weights[i]
    # Counts and sums of the matrix the page draws (hidden [CLS]/[SEP] folded into one column in learned mode).
    drawn = view.weights
    sums, columns = drawn.sum(axis=1), drawn.sum(axis=0)
    rows_drawn, columns_drawn = drawn.shape
    whole = core.softmax(s.scaled.reshape(1, -1))[0].reshape(n, n)  # one softmax over every cell at once
    cells = (f"all {n * n} cells" if n == rows_drawn == columns_drawn else
             f"all {n * n} cells of the model's whole {n} × {n} matrix ([CLS] and [SEP] have rows and columns "
             f"too; the picture draws {rows_drawn} rows and {columns_drawn} columns"
             + (f": your sentence's {rows_drawn} tokens, and [CLS] and [SEP] added up in one column"
                if columns_drawn == rows_drawn + 1 and view.hidden.size else "") + ")")
    # Nudge the key whose weight moves most (w(1 - w) is largest): on a row that is nearly all-or-nothing
    # every key moves little, and the sentence says so.
    top = int(np.argmax(row * (1 - row)))
    nudged = core.softmax((s.scaled[i] + 0.1 * (np.arange(n) == top))[None])[0]
    saturated = row.max() > 0.99
    return [
        ("Why must every row add up to 1?",
         "Each weight is a share of one token's attention, so the output of step 4 is a weighted *average* of "
         "the values. An average stays the same size for 4 tokens or 400. "
         + (f"The {rows_drawn} rows drawn each add up to {sums.mean():.4f} (computed)." if np.ptp(sums) < 5e-5
            else f"The {rows_drawn} rows drawn add up to between {sums.min():.4f} and {sums.max():.4f}.")),
        ("Why row by row, and not over the whole matrix?",
         f"Each row is one token asking “where should I look?”, and each asker needs its own answer. A single "
         f"{term_link('softmax', 'softmax', query)} over {cells} would give the row of {me} "
         f"{pct(whole[i].sum())} in total instead of 100%, and a token with one strong match would take attention "
         f"from every other token. Columns are not shares: the {columns_drawn} drawn add up to between "
         f"{columns.min():.2f} and {columns.max():.2f}."),
        ("Why does it matter that softmax is “differentiable”?",
         f"{term_link('differentiable', 'Differentiable', query)} means that a small change of a score gives a "
         "small change of the weights, with no jumps, so training can tell which way to move. "
         f"Raise the score of {me} for {quote(tokens[top])} by 0.1 and its weight goes from {pct(row[top])} to "
         f"{pct(nudged[top])}"
         + (" — hardly at all, because this row is nearly all-or-nothing: one key already takes almost "
            "everything, so nudging its scores changes little." if saturated else ".")
         + " A hard “pick the best” would not move at all and would give training nothing to follow."),
    ]


def show_step3(view: View) -> None:
    _show(step3_whys(view, _query()), view.settings.teaching)


# --- step 4: why V, what context buys, what comes next

def _cosine(a, b) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-12))


def other_words_share(view: View, by_length: bool = False) -> tuple[float, float]:
    """(other shown words', its own) share of the selected row: attention weight, or explain.length_shares."""
    row = view.weights[view.token]
    if by_length:
        lengths = explain.length_shares(view.base.weights[view.base_index], view.base.v)
        row = lengths if view.is_toy else view.fold(lengths[None])[0]
    row = row[:len(view.tokens)]  # the shown columns; a folded hidden column comes last
    words = ~view.analysis.is_special[view.shown]  # [CLS]/[SEP] shown as tokens are markers, not words
    words[view.token] = False
    return float(row[words].sum()), float(row[view.token])


def step4_whys(view: View, query: dict[str, str] | None = None) -> Whys:
    s = view.base  # the model's own steps in learned mode
    me = quote(view.token_label)
    drawn_row, keys = view.weights[view.token], view.key_labels  # as the page draws it
    words, own = other_words_share(view)
    markers = 1.0 - words - own
    layer = view.settings.layer if view.settings.mode == "learned" else 0
    position = int(view.shown[view.token])
    block_in = view.analysis.hidden_states[layer][position]
    after_attention = view.analysis.attention_outputs[layer][position]
    after_layer = view.analysis.hidden_states[layer + 1][position]
    # the control for "keeps the word": how alike its input is to the other words' vectors after attention
    others = [j for j in np.flatnonzero(~view.analysis.is_special) if j != position]
    kept, baseline = _cosine(block_in, after_attention), float(np.mean(
        [_cosine(block_in, view.analysis.attention_outputs[layer][j]) for j in others])) if others else float("nan")
    keeps = (f"(the residual keeps the word: against {baseline:.2f}, on average, for the other words' vectors)"
             if kept - baseline >= 0.2 else f"(but {baseline:.2f} for the other words' vectors, on average: in this "
             "layer the vectors point in similar directions, so the number says little about this word)"
             if np.isfinite(baseline) else "(the residual keeps the word)")
    same = ("In this toy mode Q = K = V, so here the three are the same vectors; the real model learns three "
            "different ones." if view.settings.mode == "identity" else "")
    return [
        ("Why are the values mixed, and not the queries or keys?",
         "Queries and keys decide *where* to look: they only ever meet in the scores. Values are *what* is passed "
         "on. Keeping them apart lets a token be found for one reason and contribute something else. "
         f"The output of {me} adds up the values weighted {shares(drawn_row, keys, view.token, verb='on')}. {same}"),
        ("How does this help translation or summarising?",
         f"{me} puts {pct(words)} of its attention weight on the other words of your sentence"
         + (f" and {pct(markers)} on [CLS] and [SEP], which are not words of your sentence" if markers >= 0.005 else "")
         + f" ({pct(own)} on itself); counted as weight × the value's length (a short value adds little), their "
           f"part is {pct(other_words_share(view, by_length=True)[0])}. "
         + ("Mixing in other words is how a word's vector can come to mean what it means *in this sentence*. "
            if words >= 0.005 else "This head mixes no other word into it on this sentence. ")
         + "This page has not measured any translation or summary: that would need a model trained for the task "
           "and its own test. What this app does measure: whether one word's output changes between two "
           "sentences (Compare two sentences) and where a pronoun's attention goes, held-out sentences included "
           "(the pronoun page)."),
        ("Where does the output go next?",
         f"In the real model this head's {s.output.shape[1]} numbers are joined with the other heads' and mixed by "
         f"{term_link('W_O', 'W_O', query)}; the token's input is added back "
         f"({term_link('residual connection', 'the residual', query)}) and "
         f"{term_link('LayerNorm', 'LayerNorm', query)} rescales it; then a "
         f"{term_link('feed-forward network', 'feed-forward network', query)} transforms each token on its own. "
         f"Measured for {me} in {layer_name(layer, view.model.n_layers)}: its vector before and after attention has a "
         f"{term_link('cosine similarity', 'cosine similarity', query)} of "
         f"{kept:.2f} {keeps}, and after the feed-forward "
         f"network {_cosine(block_in, after_layer):.2f}. The next layer starts from there."),
    ]


def show_step4(view: View) -> None:
    _show(step4_whys(view, _query()), view.settings.teaching)


# --- what-if lab: uniform weights, with a picture

def uniform_spread(steps: core.AttentionSteps) -> tuple[np.ndarray, np.ndarray]:  # -> [n], [n]
    """Each token's distance from the average output: with the real weights, and with uniform ones (all 0)."""
    n = steps.weights.shape[0]
    uniform_output = core.weighted_sum(np.full((n, n), 1 / n), steps.v)
    normal = np.linalg.norm(steps.output - steps.output.mean(axis=0), axis=1)
    uniform = np.linalg.norm(uniform_output - uniform_output.mean(axis=0), axis=1)
    return normal, uniform


def show_whatif(view: View) -> None:
    normal, uniform = uniform_spread(view.base)
    n, teaching = len(view.base_labels), view.settings.teaching
    st.header("What if every weight were the same?")
    st.markdown(
        f"With uniform weights each token gives 1/{n} = {1 / n:.3f} to every token, so every output is the same "
        "vector: the average of the values. No token can tell who is asking. The bars show how far each token's "
        f"output is from the average output: with the real weights up to **{normal.max():.2f}**, with uniform "
        f"weights **{uniform.max():.2f}** for every token.")
    figures.show(figures.compare_bars({"real weights": normal, "uniform weights": uniform}, view.base_labels,
                                      "How far each output is from the average output", teaching=teaching,
                                      percent=False),
                 figures.figure_filename("whatif_uniform", view.settings.sentence, view.code), teaching,
                 key="why-uniform")
