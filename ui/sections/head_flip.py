"""“Flip through all 72 heads” on the multi-head page: every head's weights on the sentence in one figure (frames
stepped in the browser), its text alternative, a link per frame that opens that head in the step pages, and the
offline HTML file."""

from __future__ import annotations

import html
from urllib.parse import urlencode

import numpy as np

from lessons import explain
from lessons.heads import describe_heads

from ui.figures.alt_text import figure_text_label
from ui.figures.animation import offline_html
from ui.figures.head_flip import flip_rows, head_flipbook, where_it_goes
from ui.figures.show import download_config, figure_filename
from ui.content import current_language, words
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


def build(settings, analysis, selected: int, params: dict | None = None, language: str | None = None):
    """The flip-through figure (first frame: the sidebar's layer and head), the roles and the file name.
    selected: the selected token's row among the drawn rows (drawn_weights); language: the words' (None: the
    page's)."""
    roles = head_roles(analysis)
    start = (settings.layer, settings.head) if settings.mode == "learned" else (0, 0)
    links = step_page_links(params, analysis.n_layers, analysis.n_heads) if params is not None else None
    matrices, rows, keys = drawn_weights(settings, analysis, analysis.attentions)
    fig = head_flipbook(matrices, rows, roles, settings.sentence, teaching=settings.teaching, selected=selected,
                        start=start, head_links=links, key_tokens=keys, language=language,
                        last_column=(words("head_flip.markers_added", language=language) if len(keys) > len(rows)
                                     else None))
    return fig, roles, figure_filename("multihead_all_heads", settings.sentence, "L1-6H1-12")


def flip_text_html(settings, analysis, roles, selected: int, rows: range) -> str:
    """The figure as text: one sentence, then a table of its 72 frames (layer, head, where its attention goes on
    this sentence, and where the selected token looks most, among the columns drawn); all escaped."""
    matrices, tokens, keys = drawn_weights(settings, analysis, analysis.attentions)
    token = tokens[selected]
    window = "" if len(rows) == len(tokens) else words("head_flip.text_window", first=rows.start + 1,
                                                       last=rows.stop, n=len(tokens))
    sentence = words("head_flip.text_intro", frames=sum(map(len, roles)), window=window, token=token)
    rows_html = []
    for layer, layer_roles in enumerate(roles):
        for head, (role, share) in enumerate(layer_roles):
            row = matrices[layer][head][selected]
            top = int(row.argmax())
            rows_html.append(f"<tr><th scope=\"row\">{people_number(layer)}</th><td>{people_number(head)}</td>"
                             f"<td>{html.escape(where_it_goes(role, share))}</td><td>{html.escape(str(keys[top]))} ({pct(float(row[top]))})"
                             "</td></tr>")
    header = "".join(f'<th scope="col">{html.escape(column)}</th>' for column in (
        words("head_flip.column_layer"), words("head_flip.column_head"), words("head_flip.column_goes"),
        words("head_flip.column_looks", token=str(token))))
    return (f'<div class="figure-text"><p>{html.escape(sentence)}</p><table><thead><tr>{header}</tr></thead>'
            f'<tbody>{"".join(rows_html)}</tbody></table></div>')


def show_head_flip(settings, model, analysis, selected: int) -> None:
    """The section: heading, one line of how to use it, the figure, its text alternative, the HTML file."""
    import streamlit as st

    from ui.widgets.links import view_link_params

    teaching = settings.teaching
    params = view_link_params()  # known, valid keys only (ui/widgets/links.py)
    fig, roles, filename = build(settings, analysis, selected, params)
    rows_drawn = drawn_weights(settings, analysis, analysis.attentions[:1, :1])[1]
    st.header(words("head_flip.header", n=model.n_layers * model.n_heads), anchor=ANCHOR)
    if not teaching:
        st.markdown(words("head_flip.intro", n_layers=model.n_layers, n_heads=model.n_heads,
                          row=quote(rows_drawn[selected])))
    st.plotly_chart(fig, config=download_config(filename, teaching, fig._layout.get("height")), key="fig-head-flip")
    with st.expander(figure_text_label()):
        st.html(flip_text_html(settings, analysis, roles, selected, flip_rows(len(rows_drawn), selected, teaching)))
    if teaching:
        return
    language = current_language()  # the file is built on click, outside the page's run
    st.download_button(words("head_flip.download", n=model.n_layers * model.n_heads),
                       lambda: flip_html(settings, model, selected, language), file_name=f"{filename}.html",
                       mime="text/html", key="head-flip-html", on_click="ignore")


def flip_html(settings, model, selected: int, language: str | None = None) -> bytes:
    """The flip-through as one HTML file (plotly.js inside, offline); built on click from the shared cache, in the
    language of the page it was asked from."""
    from serving.models import analyze

    analysis = analyze(settings.sentence, settings.model_name or None)
    fig, _, filename = build(settings, analysis, selected, language=language)
    return offline_html(fig, filename, words("head_flip.file_title", language=language, n_layers=model.n_layers,
                                             n_heads=model.n_heads, sentence=settings.sentence[:80]),
                        language=language)
