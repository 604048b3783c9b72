"""The downloads beside a matrix: the matrix as CSV and every intermediate as .npz, made only when clicked."""

from __future__ import annotations

import io

import numpy as np
import streamlit as st

from ui import figures
from ui.content import words
from ui.text import no_bidi
from ui.view import View, view_again


def matrix_csv(matrix, row_tokens, col_tokens=None, corner: str | None = None) -> bytes:
    """CSV with token labels; cells are written as numbers, labels quoted so spreadsheets keep them text.
    corner: the top-left cell's words (default: the page's language's, downloads.csv_corner)."""
    matrix = np.asarray(matrix)
    cols = list(col_tokens) if col_tokens is not None else [f"dim{j}" for j in range(matrix.shape[1])]
    def cell(text):
        text = no_bidi(text).replace('"', '""')
        if text[:1] in ("=", "+", "-", "@"):  # never let a spreadsheet run a token as a formula
            text = "'" + text
        return f'"{text}"'
    lines = [",".join([cell(corner if corner is not None else words("downloads.csv_corner"))]
                      + [cell(c) for c in cols])]
    for token, row in zip(row_tokens, matrix):
        lines.append(",".join([cell(token)] + [repr(float(v)) for v in row]))
    return ("\n".join(lines) + "\n").encode("utf-8")


def intermediates_npz(view: View) -> bytes:
    """Every intermediate of the computation the page shows: in learned mode the whole sentence, [CLS] and [SEP]
    included, exactly as the model runs it (hiding them on the page does not change the numbers)."""
    s = view.base
    x = view.x if view.is_toy else view.analysis.hidden_states[view.settings.layer]
    buffer = io.BytesIO()
    np.savez_compressed(buffer, tokens=np.array(view.base_labels), x=x, q=s.q, k=s.k, v=s.v, raw=s.raw,
                        scaled=s.scaled, weights=s.weights, output=s.output)
    return buffer.getvalue()


def downloads(view: View, step_name: str, matrix, col_tokens=None) -> None:
    """Two download buttons whose files are made only when clicked: building both on every rerun cost ~20 ms
    at 256 tokens, for files most visitors never ask for. A click downloads without rerunning the page."""
    base = figures.figure_filename(step_name, view.settings.sentence, view.code)
    # The buttons' functions live as long as the tab (and two minutes after it closes): they hold a copy of the
    # one matrix and the settings, never the view, whose model pass is up to 25 MB.
    matrix, tokens, settings = np.array(matrix), list(view.labels), view.settings
    col_tokens = None if col_tokens is None else list(col_tokens)
    corner = words("downloads.csv_corner")  # the file is made later, on a click, outside the page's run
    left, right = st.columns(2)
    left.download_button(words("downloads.csv_button"), lambda: matrix_csv(matrix, tokens, col_tokens, corner),
                         file_name=f"{base}.csv", mime="text/csv", key=f"csv-{step_name}", on_click="ignore")
    right.download_button(words("downloads.npz_button"), lambda: intermediates_npz(view_again(settings)),
                          file_name=figures.figure_filename("attention", view.settings.sentence, view.code) + ".npz",
                          mime="application/octet-stream", key=f"npz-{step_name}", on_click="ignore")


def step_downloads(view: View, step_name: str, matrix, col_tokens=None) -> None:
    """The downloads, but not on slides (teaching mode)."""
    if not view.settings.teaching:
        downloads(view, step_name, matrix, col_tokens)
