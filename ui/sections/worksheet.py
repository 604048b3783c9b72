"""A printable worksheet for one sentence: the four steps of the selected token with every number left blank for
the class, then an answer sheet with the live numbers, as one offline HTML file (print it from the browser).

The numbers are the pages' own, formatted as the pages print them: the softmax table of step 3
(lessons/explain.py softmax_arithmetic, four decimals), √d_k and the e-values' sum as steps 2 and 3 write them,
and step 4's shares (whys.other_words_share). tests/test_worksheet.py compares them with the pages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lessons import explain

from ui.content import ENGLISH, PSEUDO, current_language, words
from ui.text import html_text, pct
from ui.sections.whys import other_words_share

if TYPE_CHECKING:
    from ui.view import View

BLANK = ""  # a cell the class fills in


def _plain(value: float) -> str:
    """Three decimals, and never "-0.000" (a tiny negative product rounds to zero)."""
    return f"{round(float(value), 3) + 0.0:.3f}"


def worksheet_numbers(view: View) -> dict:
    """Every number the answer sheet prints, as the text it prints, from the view on screen."""
    me = view.base_index
    arithmetic = explain.softmax_arithmetic(view.base.scaled[me])  # step 3's table, every key of the row
    raw = view.base.raw[me]
    best = int(np.argmax(raw))
    values = view.base.v[:, 0]
    words, own = other_words_share(view)
    return {
        "raw": [f"{v:.4f}" for v in raw],
        "best": (view.base_key_labels[best], f"{raw[best]:.2f}"),
        "d_k": str(view.steps.d_k),
        "sqrt_dk": f"{np.sqrt(view.steps.d_k):.2f}",
        "scaled": [f"{v:.4f}" for v in arithmetic[:, 0]],
        "shifted": [f"{v:.4f}" for v in arithmetic[:, 1]],
        "exps": [f"{v:.4f}" for v in arithmetic[:, 2]],
        "exp_sum": f"{arithmetic[:, 2].sum():.3f}",
        "weights": [f"{v:.4f}" for v in arithmetic[:, 3]],
        "shares": [pct(v) for v in arithmetic[:, 3]],
        "value": [_plain(v) for v in values],
        "weighted": [_plain(v) for v in arithmetic[:, 3] * values],
        "output": f"{view.base.output[me][0]:.3f}",
        "own": pct(own),
        "words": pct(words),
        "markers": pct(max(0.0, 1.0 - words - own)),
    }


# Printed, each sheet fits one A4 or Letter page up to about 20 tokens (issue 55: at 14 tokens the sheets ran to 6
# pages): the four steps share one table of the selected token's row, a column per number the class writes.
STYLE = """
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 10.5pt; color: #111; margin: 0 auto;
       max-width: 190mm; padding: 8mm; line-height: 1.3; }
h1 { font-size: 15pt; margin: 0 0 3pt; }
p { margin: 3pt 0; } .sentence { font-size: 12pt; border-left: 4px solid #2563eb; padding-left: 8pt; }
ol.steps { margin: 4pt 0; padding-left: 16pt; } ol.steps li { margin: 2pt 0; }
table { border-collapse: collapse; margin: 6pt 0; font-size: 9.5pt; width: 100%; }
th, td { border: 1px solid #555; padding: 2pt 4pt; } th { background: #e5e7eb; font-weight: 600; }
td.n { text-align: right; height: 15pt; } td.me { background: #fde68a; }
.blank { display: inline-block; min-width: 24mm; border-bottom: 1px solid #111; }
.sheet + .sheet { break-before: page; page-break-before: always; }
.note { color: #333; font-size: 9.5pt; }
@page { size: A4; margin: 10mm; }
@media print { body { padding: 0; max-width: none; } table, li { break-inside: avoid; page-break-inside: avoid; } }
"""


def _fill(value: str, answers: bool) -> str:
    return f"<b>{html_text(value)}</b>" if answers else '<span class="blank">&nbsp;</span>'


# The one table: a column per number, grouped under the step that makes it (step 3's weight is step 4's too); the
# names are worksheet.toml's column_… texts.
STEP_COLUMNS = ((1, ["raw"]), (2, ["scaled"]), (3, ["shifted", "exps", "weights", "shares"]),
                (4, ["value", "weighted"]))


def _table(numbers: dict, keys: list[str], me: int, answers: bool, language: str) -> str:
    steps = "".join(f'<th colspan="{len(columns)}">'
                    f'{html_text(words("worksheet.step_group", language=language, step=step))}</th>'
                    for step, columns in STEP_COLUMNS)
    columns = [(f"{number}. {html_text(words(f'worksheet.column_{key}', language=language))}", numbers[key])
               for number, key in enumerate((c for _, cs in STEP_COLUMNS for c in cs), start=1)]
    head = "".join(f"<th>{name}</th>" for name, _ in columns)
    rows = []
    for r, key in enumerate(keys):
        mark = ' class="me"' if r == me else ""
        cells = "".join(f'<td class="n">{html_text(values[r]) if answers else BLANK}</td>' for _, values in columns)
        rows.append(f"<tr><td{mark}>{html_text(key)}</td>{cells}</tr>")
    first = html_text(words("worksheet.key_token", language=language))
    return (f'<table><thead><tr><th rowspan="2">{first}</th>{steps}</tr><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def sheet_html(view: View, numbers: dict, answers: bool, language: str | None = None) -> str:
    """One sheet: the class's (every number blank) or the answer sheet (the live numbers), in `language`."""
    language = language or current_language()
    keys, me = view.base_key_labels, view.base_index
    token = html_text(view.token_label)
    f = lambda key: _fill(numbers[key], answers)  # noqa: E731
    best_key = f"<b>“{html_text(numbers['best'][0])}”</b>" if answers else _fill("", False)
    items = [words("worksheet.step1", language=language, token=token, best_key=best_key,
                   best_score=_fill(numbers["best"][1], answers)),
             words("worksheet.step2", language=language, d_k=f("d_k"), sqrt_dk=f("sqrt_dk")),
             words("worksheet.step3", language=language, exp_sum=f("exp_sum")),
             words("worksheet.step4", language=language, token=token, output=f("output"))]
    parts = [
        f'<section class="sheet" id="{"answers" if answers else "class"}">',
        f"<h1>{words('worksheet.heading', language=language, answers=answers, token=token)}</h1>",
        f'<p class="sentence">{html_text(view.settings.sentence)}</p>',
        '<p class="note">' + words("worksheet.note", language=language, head=html_text(view.label), token=token,
                                   answers=answers, hidden=not view.is_toy and bool(view.hidden.size)) + "</p>",
        '<ol class="steps">', *(f"<li>{item}</li>" for item in items), "</ol>",
        _table(numbers, keys, me, answers, language),
        "<p>" + words("worksheet.shares", language=language, token=token, own=f("own"), others=f("words"),
                      has_markers=not view.is_toy, markers=f("markers")) + "</p>",
        "</section>",
    ]
    return "\n".join(parts)


def worksheet_html(view: View, language: str | None = None) -> bytes:
    """The class's sheet, then (from a new printed page) the answer sheet: one file, nothing fetched. language: the
    page's, bound when the download button was made (the file is made after the page's run)."""
    language = language or current_language()
    numbers = worksheet_numbers(view)
    title = html_text(words("worksheet.file_title", language=language, token=view.token_label))
    lang = ENGLISH if language == PSEUDO else language  # the pseudo-language is English, marked
    return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{STYLE}</style></head><body>\n{sheet_html(view, numbers, False, language)}\n"
            f"{sheet_html(view, numbers, True, language)}\n</body></html>\n").encode("utf-8")
