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
from ui.sections.training_words import small_words

from ui import figures
from ui.content import words
from ui.widgets.links import view_link_params
from ui.view import View
from ui.readouts import shares, token_count
from ui.text import layer_name, pct, quote
from ui.sections.token_whys import Whys, term_url, token_whys


def _show(whys: Whys, teaching: bool) -> None:
    """Visible on the page; tucked into an expander in teaching mode, so a slide stays clean. Their box
    (.st-key-why_questions) marks where a step page's main line ends (tests/test_browser_lessons.py)."""
    with st.container(key="why_questions"):
        _show_whys(whys, teaching)


def _show_whys(whys: Whys, teaching: bool) -> None:
    if teaching:
        with st.expander(words("whys.box_label")):
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
    return [
        (words("whys.self_question"),
         words("whys.self_answer", n=n, n_all=n_all, token_count=token_count(view),
               qkv_url=term_url("query, key, value", query), cross_url=term_url("cross-attention", query))),
        (words("whys.qkv_question"),
         words("whys.qkv_answer", from_embedding=view.is_toy or layer == 0,  # as View.input_name names it
               embedding_url=term_url("embedding", query), layer=layer_name(layer, view.model.n_layers),
               weights_url=term_url("W_Q, W_K, W_V", query), mode=view.settings.mode, seed=view.settings.seed,
               d_k=view.steps.d_k, dimension_url=term_url("dimension", query))),
    ]


def show_step1(view: View) -> None:
    _show(step1_whys(view, _query()), view.settings.teaching)


# --- step 2: gradients, and why scaling matters for them

def softmax_slopes(row) -> np.ndarray:  # [n] weights -> [n] d w_j / d score_j = w_j (1 - w_j)
    return row * (1 - row)


def scaling_verdict(with_scaling: float, without: float) -> str:
    """Which story the row's fastest rates tell: "slower" without the division, "not_slower", or "same"."""
    if without < with_scaling - 0.0005:
        return "slower"
    return "not_slower" if with_scaling < without - 0.0005 else "same"


def step2_whys(view: View, query: dict[str, str] | None = None) -> Whys:
    s, i = view.base, view.base_index  # the model's own row in learned mode, [CLS]/[SEP] included
    scaled_row, unscaled_row = s.weights[i], core.softmax(s.raw[i:i + 1])[0]
    with_scaling, without = softmax_slopes(scaled_row).max(), softmax_slopes(unscaled_row).max()
    return [
        (words("whys.gradient_question"),
         words("whys.gradient_answer", gradient_url=term_url("gradient", query), token=quote(view.token_label),
               with_scaling=small_words(with_scaling), without=small_words(without),
               verdict=scaling_verdict(with_scaling, without), saturated=bool(with_scaling < 0.01))),
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
    # Nudge the key whose weight moves most (w(1 - w) is largest): on a row that is nearly all-or-nothing
    # every key moves little, and the sentence says so.
    top = int(np.argmax(row * (1 - row)))
    nudged = core.softmax((s.scaled[i] + 0.1 * (np.arange(n) == top))[None])[0]
    return [
        (words("whys.rows_question"),
         words("whys.rows_answer", rows=rows_drawn, equal=bool(np.ptp(sums) < 5e-5), sum=f"{sums.mean():.4f}",
               lowest=f"{sums.min():.4f}", highest=f"{sums.max():.4f}")),
        (words("whys.row_by_row_question"),
         words("whys.row_by_row_answer", softmax_url=term_url("softmax", query),
               all_drawn=n == rows_drawn == columns_drawn, cells=n * n, n=n, rows=rows_drawn, columns=columns_drawn,
               folded=bool(columns_drawn == rows_drawn + 1 and view.hidden.size), token=me,
               whole_share=pct(whole[i].sum()), column_low=f"{columns.min():.2f}",
               column_high=f"{columns.max():.2f}")),
        (words("whys.differentiable_question"),
         words("whys.differentiable_answer", differentiable_url=term_url("differentiable", query), token=me,
               key=quote(tokens[top]), before=pct(row[top]), after=pct(nudged[top]),
               saturated=bool(row.max() > 0.99))),
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
    words_ = ~view.analysis.is_special[view.shown]  # [CLS]/[SEP] shown as tokens are markers, not words
    words_[view.token] = False
    return float(row[words_].sum()), float(row[view.token])


def step4_whys(view: View, query: dict[str, str] | None = None) -> Whys:
    s = view.base  # the model's own steps in learned mode
    me = quote(view.token_label)
    drawn_row, keys = view.weights[view.token], view.key_labels  # as the page draws it
    others, own = other_words_share(view)
    markers = 1.0 - others - own
    layer = view.settings.layer if view.settings.mode == "learned" else 0
    position = int(view.shown[view.token])
    block_in = view.analysis.hidden_states[layer][position]
    after_attention = view.analysis.attention_outputs[layer][position]
    after_layer = view.analysis.hidden_states[layer + 1][position]
    # the control for "keeps the word": how alike its input is to the other words' vectors after attention
    other_rows = [j for j in np.flatnonzero(~view.analysis.is_special) if j != position]
    kept = _cosine(block_in, after_attention)
    baseline = float(np.mean([_cosine(block_in, view.analysis.attention_outputs[layer][j]) for j in other_rows])) \
        if other_rows else float("nan")
    keeps = "clear" if kept - baseline >= 0.2 else "similar" if np.isfinite(baseline) else "alone"
    return [
        (words("whys.values_question"),
         words("whys.values_answer", token=me, shares=shares(drawn_row, keys, view.token, verb="on"),
               toy=view.settings.mode == "identity")),
        (words("whys.context_question"),
         words("whys.context_answer", token=me, others=pct(others), any_others=others >= 0.005,
               markers=pct(markers), any_markers=markers >= 0.005, own=pct(own),
               by_length=pct(other_words_share(view, by_length=True)[0]))),
        (words("whys.next_question"),
         words("whys.next_answer", numbers=s.output.shape[1], w_o_url=term_url("W_O", query),
               residual_url=term_url("residual connection", query), layernorm_url=term_url("LayerNorm", query),
               ffn_url=term_url("feed-forward network", query), token=me,
               layer=layer_name(layer, view.model.n_layers), cosine_url=term_url("cosine similarity", query),
               kept=f"{kept:.2f}", keeps=keeps, baseline=f"{baseline:.2f}",
               after_layer=f"{_cosine(block_in, after_layer):.2f}")),
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
    st.header(words("whys.uniform_header"))
    st.markdown(words("whys.uniform_text", n=n, share=f"{1 / n:.3f}", normal=f"{normal.max():.2f}",
                      uniform=f"{uniform.max():.2f}"))
    figures.show(figures.compare_bars({words("whys.uniform_real"): normal, words("whys.uniform_uniform"): uniform},
                                      view.base_labels, words("whys.uniform_title"), teaching=teaching,
                                      percent=False),
                 figures.figure_filename("whatif_uniform", view.settings.sentence, view.code), teaching,
                 key="why-uniform")
