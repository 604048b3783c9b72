"""Layout pieces every step page repeats: a matrix beside its plain-language explanation, and downloads."""

from __future__ import annotations

import io

import numpy as np
import streamlit as st

from . import figures
from .state import View, current_view, parity_badge


def explained_matrix(view: View, text: str, formula: str | tuple[str, ...], fig, step_name: str) -> None:
    """Explanation and formula on the left, the figure on the right (stacked in teaching mode)."""
    teaching = view.settings.teaching
    filename = figures.figure_filename(step_name, view.settings.sentence, view.code)
    if teaching:
        st.latex(formula if isinstance(formula, str) else formula[0])  # a slide keeps one line of formula
        figures.show(fig, filename, teaching, key=f"fig-{step_name}")
        return
    left, right = st.columns([1.15, 2])
    with left:
        st.markdown(text)
        for line in (formula,) if isinstance(formula, str) else formula:  # one short line each: the column is narrow
            st.latex(line)
    with right:
        figures.show(fig, filename, teaching, key=f"fig-{step_name}")


def matrix_csv(matrix, row_tokens, col_tokens=None) -> bytes:
    """CSV with token labels; cells are written as numbers, labels quoted so spreadsheets keep them text."""
    matrix = np.asarray(matrix)
    cols = list(col_tokens) if col_tokens is not None else [f"dim{j}" for j in range(matrix.shape[1])]
    def cell(text):
        text = str(text).replace('"', '""')
        if text[:1] in ("=", "+", "-", "@"):  # never let a spreadsheet run a token as a formula
            text = "'" + text
        return f'"{text}"'
    lines = [",".join([cell("query \\ key")] + [cell(c) for c in cols])]
    for token, row in zip(row_tokens, matrix):
        lines.append(",".join([cell(token)] + [repr(float(v)) for v in row]))
    return ("\n".join(lines) + "\n").encode("utf-8")


def intermediates_npz(view: View) -> bytes:
    s = view.steps
    buffer = io.BytesIO()
    np.savez_compressed(buffer, tokens=np.array(view.tokens), x=view.x, q=s.q, k=s.k, v=s.v, raw=s.raw,
                        scaled=s.scaled, weights=s.weights, output=s.output)
    return buffer.getvalue()


def downloads(view: View, step_name: str, matrix, col_tokens=None) -> None:
    base = figures.figure_filename(step_name, view.settings.sentence, view.code)
    left, right = st.columns(2)
    left.download_button("⬇️ This matrix as CSV", matrix_csv(matrix, view.tokens, col_tokens),
                         file_name=f"{base}.csv", mime="text/csv", key=f"csv-{step_name}")
    right.download_button("⬇️ All intermediates (.npz)", intermediates_npz(view),
                          file_name=figures.figure_filename("attention", view.settings.sentence, view.code) + ".npz",
                          mime="application/octet-stream", key=f"npz-{step_name}")


TEACHING_CSS = """<style>
header[data-testid="stHeader"] {display: none;}
[data-testid="stMainBlockContainer"] {padding-top: 1.5rem; max-width: 1280px;}
/* A slide shows the picture: no parity badge (warnings and errors stay), downloads or tables. */
[data-testid="stMain"] [data-testid="stElementContainer"]:has([data-testid="stAlertContentSuccess"]),
[data-testid="stMain"] [data-testid="stElementContainer"]:has([data-testid="stDownloadButton"]),
[data-testid="stMain"] [data-testid="stElementContainer"]:has([data-testid="stDataFrame"]),
[data-testid="stMain"] [data-testid="stElementContainer"]:has([data-testid="stTable"]) {display: none;}
</style>"""


def apply_teaching_layout(teaching: bool) -> None:
    """Less chrome for slides: no header bar, a 16:9-friendly content width. Static CSS, no user text."""
    if teaching:
        st.markdown(TEACHING_CSS, unsafe_allow_html=True)


def step_page(title: str) -> View:
    """The top of every step page: its title, the shared view, and the parity badge."""
    st.title(title)
    view = current_view()
    parity_badge(view)
    return view
