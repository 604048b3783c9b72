"""“Flip through all 72 heads” on the multi-head page: every head's weights on the sentence in one figure (frames
stepped in the browser), its text alternative, a link per frame that opens that head in the step pages, and the
offline HTML file."""

from __future__ import annotations

import html
from urllib.parse import urlencode

import numpy as np

from lessons import explain
from lessons.heads import describe_heads

from ui.figures.alt_text import FIGURE_TEXT_LABEL
from ui.figures.animation import offline_html
from ui.figures.head_flip import flip_rows, head_flipbook, where_it_goes
from ui.figures.show import download_config, figure_filename
from ui.labels import unique_labels
from ui.text import pct, people_number, quote

ANCHOR = "flip-through-every-head"
STEP_PAGE = "step3_softmax"  # where "open this head" lands: the page of the weights the figure shows


def head_roles(analysis) -> list[list[tuple[str, float]]]:
    """Each layer's heads as describe_heads measures them on this one sentence: (largest target, its share)."""
    return [describe_heads(analysis.attentions[layer], analysis.tokens, analysis.is_special)
            for layer in range(analysis.n_layers)]


def step_page_links(params: dict, n_layers: int, n_heads: int) -> list[list[str]]:
    """The step page's address for each head: this view's link with the learned projection and that head."""
    kept = {key: value for key, value in params.items() if key not in ("layer", "head", "mode")}
    return [[f"{STEP_PAGE}?{urlencode({**kept, 'layer': layer, 'head': head})}" for head in range(n_heads)]
            for layer in range(n_layers)]


def drawn_weights(settings, analysis, weights):  # [..., n, n] -> [..., n_rows, n_keys], row labels, key labels
    """Weights as the step pages draw them: every token with "Show [CLS] and [SEP]", else the words' rows and
    their columns plus the hidden markers' weights added up in one column (explain.MARKER_COLUMN)."""
    rows = np.array([j for j in range(len(analysis.tokens)) if settings.show_special or not analysis.is_special[j]])
    hidden = np.setdiff1d(np.arange(len(analysis.tokens)), rows)
    labels = unique_labels(analysis.tokens)
    row_labels = [labels[j] for j in rows]
    matrix = explain.fold_hidden(np.asarray(weights)[..., rows, :], rows, hidden)
    return matrix, row_labels, row_labels + ([explain.MARKER_COLUMN] if hidden.size else [])


def build(settings, analysis, selected: int, params: dict | None = None):
    """The flip-through figure (first frame: the sidebar's layer and head), the roles and the file name.
    selected: the selected token's row among the drawn rows (drawn_weights)."""
    roles = head_roles(analysis)
    start = (settings.layer, settings.head) if settings.mode == "learned" else (0, 0)
    links = step_page_links(params, analysis.n_layers, analysis.n_heads) if params is not None else None
    matrices, rows, keys = drawn_weights(settings, analysis, analysis.attentions)
    fig = head_flipbook(matrices, rows, roles, settings.sentence, teaching=settings.teaching, selected=selected,
                        start=start, head_links=links, key_tokens=keys,
                        last_column="[CLS] and [SEP] added up" if len(keys) > len(rows) else None)
    return fig, roles, figure_filename("multihead_all_heads", settings.sentence, "L1-6H1-12")


def flip_text_html(settings, analysis, roles, selected: int, rows: range) -> str:
    """The figure as text: one sentence, then a table of its 72 frames (layer, head, where its attention goes on
    this sentence, and where the selected token looks most, among the columns drawn); all escaped."""
    matrices, tokens, keys = drawn_weights(settings, analysis, analysis.attentions)
    token = tokens[selected]
    window = "" if len(rows) == len(tokens) else (f" Each frame shows rows {rows.start + 1}–{rows.stop} of "
                                                  f"{len(tokens)} (the selected token and its neighbours).")
    sentence = (f"An animation of {sum(map(len, roles))} frames, one per layer and head, each the head's attention "
                f"weights on the sentence; the title says where that head's attention goes on this sentence: the "
                f"target that gets the largest average share of a row, and that share.{window} The table gives, for "
                f"each head, where “{token}” looks most.")
    rows_html = []
    for layer, layer_roles in enumerate(roles):
        for head, (role, share) in enumerate(layer_roles):
            row = matrices[layer][head][selected]
            top = int(row.argmax())
            rows_html.append(f"<tr><th scope=\"row\">{people_number(layer)}</th><td>{people_number(head)}</td>"
                             f"<td>{html.escape(where_it_goes(role, share))}</td><td>{html.escape(str(keys[top]))} ({pct(float(row[top]))})"
                             "</td></tr>")
    return (f'<div class="figure-text"><p>{html.escape(sentence)}</p><table><thead><tr><th scope="col">layer</th>'
            '<th scope="col">head</th><th scope="col">on this sentence, its attention goes</th>'
            f'<th scope="col">“{html.escape(str(token))}” looks most at</th></tr></thead><tbody>{"".join(rows_html)}'
            '</tbody></table></div>')


def show_head_flip(settings, model, analysis, selected: int) -> None:
    """The section: heading, one line of how to use it, the figure, its text alternative, the HTML file."""
    import streamlit as st

    from ui.widgets.links import view_link_params

    teaching = settings.teaching
    params = view_link_params()  # known, valid keys only (ui/widgets/links.py)
    fig, roles, filename = build(settings, analysis, selected, params)
    rows_drawn = drawn_weights(settings, analysis, analysis.attentions[:1, :1])[1]
    st.header("Flip through all 72 heads", anchor=ANCHOR)
    if not teaching:
        st.markdown(
            "All 6 layers × 12 heads of the model on your sentence, from the one model run above: drag the slider "
            "(or press **▶ Play**) to go from head to head; each title says where that head's attention goes on "
            "this sentence: the target (itself, the token before or after, [CLS], [SEP] or punctuation) that gets "
            "the largest average share of a row, and that share. One sentence shows what a head does here, not a "
            "role it keeps: on another sentence the same head can look elsewhere. **Open … in the step pages** (above the matrix) "
            f"shows the head on screen step by step, with the row of {quote(rows_drawn[selected])} selected.")
    st.plotly_chart(fig, config=download_config(filename, teaching, fig._layout.get("height")), key="fig-head-flip")
    with st.expander(FIGURE_TEXT_LABEL):
        st.html(flip_text_html(settings, analysis, roles, selected, flip_rows(len(rows_drawn), selected, teaching)))
    if teaching:
        return
    st.download_button("⬇️ All 72 heads as one HTML file (opens offline, for class)",
                       lambda: flip_html(settings, model, selected), file_name=f"{filename}.html",
                       mime="text/html", key="head-flip-html", on_click="ignore")


def flip_html(settings, model, selected: int) -> bytes:
    """The flip-through as one HTML file (plotly.js inside, offline); built on click from the shared cache."""
    from serving.models import analyze

    analysis = analyze(settings.sentence, settings.model_name or None)
    fig, _, filename = build(settings, analysis, selected)
    return offline_html(fig, filename, f"Every attention head ({model.n_layers} layers × {model.n_heads} heads) on "
                                       f"“{settings.sentence[:80]}”")
