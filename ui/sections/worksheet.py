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


# The one table: a column per number, grouped under the step that makes it (step 3's weight is step 4's too).
STEP_COLUMNS = (("Step 1", [("score q·k", "raw")]), ("Step 2", [("score ÷ √d_k", "scaled")]),
                ("Step 3", [("minus the row's largest", "shifted"), ("e to that power", "exps"),
                            ("weight", "weights"), ("as a share", "shares")]),
                ("Step 4", [("value (1st number)", "value"), ("weight × value", "weighted")]))


def _table(numbers: dict, keys: list[str], me: int, answers: bool) -> str:
    steps = "".join(f'<th colspan="{len(columns)}">{step}</th>' for step, columns in STEP_COLUMNS)
    columns = [(f"{number}. {html_text(name)}", numbers[key]) for number, (name, key) in
               enumerate((c for _, cs in STEP_COLUMNS for c in cs), start=1)]
    head = "".join(f"<th>{name}</th>" for name, _ in columns)
    rows = []
    for r, key in enumerate(keys):
        mark = ' class="me"' if r == me else ""
        cells = "".join(f'<td class="n">{html_text(values[r]) if answers else BLANK}</td>' for _, values in columns)
        rows.append(f"<tr><td{mark}>{html_text(key)}</td>{cells}</tr>")
    return (f'<table><thead><tr><th rowspan="2">key token</th>{steps}</tr><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def sheet_html(view: View, numbers: dict, answers: bool) -> str:
    """One sheet: the class's (every number blank) or the answer sheet (the live numbers)."""
    keys, me = view.base_key_labels, view.base_index
    token = html_text(view.token_label)
    f = lambda key: _fill(numbers[key], answers)  # noqa: E731
    hidden = (" The rows marked “(hidden)” are [CLS] and [SEP], the marker tokens the model adds; they count "
              "like every other key." if not view.is_toy and view.hidden.size else "")
    title = "Answer sheet" if answers else "Worksheet"
    best_key = f"<b>“{html_text(numbers['best'][0])}”</b>" if answers else _fill("", False)
    parts = [
        f'<section class="sheet" id="{"answers" if answers else "class"}">',
        f"<h1>{title}: self-attention, four steps for “{token}”</h1>",
        f'<p class="sentence">{html_text(view.settings.sentence)}</p>',
        f"<p class=\"note\">Model all-MiniLM-L6-v2, {html_text(view.label)}. The selected token is "
        f"“{token}” (highlighted). "
        + ("The live numbers of the app's step pages." if answers else "Fill the blanks from the app's step pages.")
        + f"{hidden}</p>",
        '<ol class="steps">',
        f"<li><b>Compare the query with every key.</b> The score of a key is the dot product q(“{token}”) · k(key) "
        f"(column 1). The best match is {best_key} with a score of {_fill(numbers['best'][1], answers)}.</li>",
        f"<li><b>Scale.</b> Each query and key has d_k = {f('d_k')} numbers, so every score is divided by "
        f"√d_k = {f('sqrt_dk')} (column 2).</li>",
        "<li><b>Softmax turns the scores into weights.</b> Subtract the row's largest scaled score from each "
        f"(column 3), raise e to that power (column 4), and divide by the sum of the e-values, {f('exp_sum')}: the "
        "weight (column 5, and as a share of 100% in column 6).</li>",
        f"<li><b>The output is a weighted mix of the values.</b> Each key's value vector, times its weight, is added "
        f"into the output of “{token}”. For the first number of each value vector (column 7), weight × value is "
        f"column 8; their sum is the first number of the output of “{token}”: {f('output')}.</li>",
        "</ol>",
        _table(numbers, keys, me, answers),
        f"<p>“{token}” puts {f('own')} of its attention weight on itself and {f('words')} on the other words of "
        f"the sentence" + (f"; {f('markers')} goes to [CLS] and [SEP]" if not view.is_toy else "")
        + ". (A weight is not a share of the output: a value vector that is long adds more than its weight.)</p>",
        "</section>",
    ]
    return "\n".join(parts)


def worksheet_html(view: View) -> bytes:
    """The class's sheet, then (from a new printed page) the answer sheet: one file, nothing fetched."""
    numbers = worksheet_numbers(view)
    title = html_text(f"Worksheet: self-attention for “{view.token_label}”")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{STYLE}</style></head><body>\n{sheet_html(view, numbers, answers=False)}\n"
            f"{sheet_html(view, numbers, answers=True)}\n</body></html>\n").encode("utf-8")
