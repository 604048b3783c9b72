"""The walk-through's words: one plain caption per frame, written from the frame's numbers, and the animation's
text alternative (a sentence and a table of its frames)."""

from __future__ import annotations

import html

import numpy as np

from lessons.walkthrough import Walkthrough

from ui.text import pct

# --- captions: one plain line per frame, written from its numbers ------------------------------------------------

def _q(label: str) -> str:
    return f"“{label}”"


def _num(x: float) -> str:
    return f"{x:.2f}".replace("-", "−")


def _pct(x: float) -> str:
    """The pages' percentages, and "less than 0.1%" where one decimal would print 0.0%."""
    return "less than 0.1%" if 0 < x < 0.001 else pct(x)


def _sum(x: float) -> str:
    """The e-values' sum with step 3's three decimals, so both pages print the same number."""
    return f"{x:.3f}"


def _power(shift: float) -> str:
    """Step 3's e-values as step 3's table computes them: e to the power of (score − the row's largest)."""
    return f"e^(score − {_num(shift)})" if shift >= 0 else f"e^(score + {_num(-shift)})"


def _who(column: int, columns: list[str], query_column: int) -> str:
    return "itself" if column == query_column else _q(columns[column])


def captions(walk: Walkthrough, columns: list[str], key_names: list[str], query_column: int) -> list[str]:
    """One line per frame, plain text (escape it for where it goes). columns: the drawn columns' labels;
    key_names: every key's token (the whole sentence in learned mode)."""
    me = _q(columns[query_column])
    raw_columns = walk.score_per_column(walk.raw, walk.scale)  # a folded column: its keys as one key
    single = [c for c, group in enumerate(walk.groups) if len(group) == 1]
    folded = [c for c, group in enumerate(walk.groups) if len(group) > 1]
    weights = walk.column_weights
    lines = []
    for frame in walk.frames:
        if frame.kind == "key":
            c = frame.columns[0]
            score = raw_columns[c]
            whom = "its own key" if c == query_column else f"the key of {_q(columns[c])}"
            sign = " Below zero: the two vectors point more apart than alike." if score < 0 else ""
            lines.append(f"The query of {me} meets {whom}: {walk.d_k} numbers multiplied pair by pair (top), "
                         f"added up: score {_num(score)} (bottom).{sign}")
        elif frame.kind == "rest":
            rest = raw_columns[list(frame.columns)]
            lines.append(f"The other {len(frame.columns)} keys the same way: scores from {_num(rest.min())} "
                         f"to {_num(rest.max())}.")
        elif frame.kind == "row":
            shown = raw_columns[single]
            best, worst = single[int(np.argmax(shown))], single[int(np.argmin(shown))]
            if len(single) == 1:
                text = f"The row of raw scores of {me} has one score: {_num(raw_columns[best])}, with itself."
            else:
                among = " among the words drawn" if folded else ""
                text = (f"The row of raw scores of {me}: highest{among} {_num(raw_columns[best])} with "
                        f"{_who(best, columns, query_column)}, lowest {_num(raw_columns[worst])} with "
                        f"{_who(worst, columns, query_column)}.")
            for c in folded:
                group = walk.groups[c]
                names = " and ".join(f"{key_names[j]} {_num(walk.raw[j])}" for j in group)
                text += (f" The hidden {' and '.join(key_names[j] for j in group)} get scores too ({names}); "
                         f"the column {_q(columns[c])} counts them as one key, {_num(raw_columns[c])}: the score "
                         f"that step 3 turns into their two weights added, as on step 1's page.")
            lines.append(text)
        elif frame.kind == "scaled":
            c = int(np.argmax(np.abs(raw_columns)))
            raw_row = raw_columns  # the drawn bars, a folded column's too
            scaled_row = raw_row / walk.scale
            lines.append(f"Every score is divided by √d_k = √{walk.d_k} = {_num(walk.scale)}: "
                         f"{_num(raw_columns[c])} becomes {_num(raw_columns[c] / walk.scale)} for "
                         f"{_who(c, columns, query_column)}. The order "
                         f"stays; the range {_num(raw_row.max() - raw_row.min())} shrinks to "
                         f"{_num(scaled_row.max() - scaled_row.min())}.")
        elif frame.kind == "exp":
            exps = walk.column_exps
            c = int(np.argmax(exps))
            whose = (_who(c, columns, query_column) if len(walk.groups[c]) == 1 else
                     f"{_q(columns[c])} (their e-values added)")
            # One way, as step 3's table: minus the row's largest score first, so the largest becomes 1.
            lines.append(f"Softmax raises e to the power of each score minus the largest, {_num(walk.shift)} "
                         f"(this changes no weight and keeps the numbers small): every number turns positive, "
                         f"the largest score's becomes 1; the tallest bar, {whose}, is {_num(exps[c])}. They add up to "
                         f"{_sum(walk.exp_total)}.")
        elif frame.kind == "weights":
            order = [int(c) for c in np.argsort(-weights, kind="stable")]
            top = [c for c in order[:3] if weights[c] >= 0.01] or order[:1]
            parts = ", ".join(f"{_pct(weights[c])} on {_who(c, columns, query_column)}" for c in top)
            shown_total = sum(round(100 * w) for w in weights)  # what the bars' whole-percent labels add up to
            rounding = (f" (Each bar's label is rounded: together they show {shown_total}%.)"
                        if shown_total != 100 else "")
            lines.append(f"Each divided by their sum, {_sum(walk.exp_total)}: the weights, which add up to 1 "
                         f"(100%): {parts}.{rounding}")
        elif frame.kind == "share":
            c = frame.columns[0]
            what = "its own value" if c == query_column else f"the value of {_q(columns[c])}"
            if len(walk.groups[c]) > 1:
                what = f"the values of {' and '.join(key_names[j] for j in walk.groups[c])}"
            lines.append(f"{_pct(weights[c])} × {what} (orange bars) is added to the output of {me} (dark bars).")
        elif frame.kind == "others":
            share = weights[list(frame.columns)].sum()
            lines.append(f"The last value, {_pct(share)} of the weight, is added in the same way." if
                         len(frame.columns) == 1 else
                         f"The other {len(frame.columns)} values, {_pct(share)} of the weight together, are added "
                         f"in the same way.")
        else:  # the output
            # Split as step 4 splits it: own value, the other words, and [CLS]/[SEP] (a folded column).
            own = weights[query_column]
            markers = float(sum(weights[c] for c in folded))
            words = max(1 - own - markers, 0.0)
            # Weights, said as weights: a weight is not a share of the output vector (values differ in length).
            from_markers = f" and [CLS] and [SEP]'s × {_pct(markers)}" if folded and markers >= 0.005 else ""
            lines.append(f"The output of {me}: {walk.output.size} new numbers, its own value × {_pct(own)}, the "
                         f"other words' values × {_pct(words)} in all{from_markers}, added up. The next layer reads "
                         f"this vector.")
    return lines


def frames_text_html(token: str, lines: list[str], steps: list[int]) -> str:
    """The walk-through as text: one sentence, then a table of its frames (frame, step, caption); all escaped."""
    sentence = (f"An animation of the four steps for “{token}” in {len(lines)} frames: the scores, the scaling by "
                "√d_k, the softmax weights and the output, each frame with its numbers.")
    rows = "".join(f"<tr><th scope=\"row\">{n}</th><td>{step}</td><td>{html.escape(line)}</td></tr>"
                   for n, (line, step) in enumerate(zip(lines, steps), 1))
    return (f'<div class="figure-text"><p>{html.escape(sentence)}</p><table><thead><tr><th scope="col">frame</th>'
            f'<th scope="col">step</th><th scope="col">what happens</th></tr></thead><tbody>{rows}</tbody></table>'
            '</div>')
