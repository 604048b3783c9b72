"""The walk-through's words: one plain caption per frame, written from the frame's numbers, and the animation's
text alternative (a sentence and a table of its frames)."""

from __future__ import annotations

import html

import numpy as np

from lessons.walkthrough import Walkthrough

from ui.content import words
from ui.text import pct

# --- captions: one plain line per frame, written from its numbers ------------------------------------------------

def _q(label: str) -> str:
    return f"“{label}”"


def _num(x: float) -> str:
    return f"{x:.2f}".replace("-", "−")


def _sum(x: float) -> str:
    """The e-values' sum with step 3's three decimals, so both pages print the same number."""
    return f"{x:.3f}"


def _power(shift: float, language: str | None = None) -> str:
    """Step 3's e-values as step 3's table computes them: e to the power of (score − the row's largest)."""
    return words("walkthrough.power", language=language, sign="−" if shift >= 0 else "+", shift=_num(abs(shift)))


def _who(column: int, columns: list[str], query_column: int, language: str | None = None) -> str:
    return words("walkthrough.who", language=language, own=column == query_column, token=_q(columns[column]))


def captions(walk: Walkthrough, columns: list[str], key_names: list[str], query_column: int,
             language: str | None = None) -> list[str]:
    """One line per frame, plain text (escape it for where it goes). columns: the drawn columns' labels;
    key_names: every key's token (the whole sentence in learned mode). language: the page's, bound for a file
    made after the page's run."""
    me = _q(columns[query_column])
    raw_columns = walk.score_per_column(walk.raw, walk.scale)  # a folded column: its keys as one key
    single = [c for c, group in enumerate(walk.groups) if len(group) == 1]
    folded = [c for c, group in enumerate(walk.groups) if len(group) > 1]
    weights = walk.column_weights

    def who(c: int) -> str:
        return _who(c, columns, query_column, language)

    lines = []
    for frame in walk.frames:
        if frame.kind == "key":
            c = frame.columns[0]
            score = raw_columns[c]
            lines.append(words("walkthrough.caption_key", language=language, me=me, own=c == query_column,
                               token=_q(columns[c]), d_k=walk.d_k, score=_num(score), negative=score < 0))
        elif frame.kind == "rest":
            rest = raw_columns[list(frame.columns)]
            lines.append(words("walkthrough.caption_rest", language=language, count=len(frame.columns),
                               low=_num(rest.min()), high=_num(rest.max())))
        elif frame.kind == "row":
            shown = raw_columns[single]
            best, worst = single[int(np.argmax(shown))], single[int(np.argmin(shown))]
            if len(single) == 1:
                text = words("walkthrough.caption_row_one", language=language, me=me, score=_num(raw_columns[best]))
            else:
                text = words("walkthrough.caption_row", language=language, me=me, among=bool(folded),
                             high=_num(raw_columns[best]), best=who(best), low=_num(raw_columns[worst]),
                             worst=who(worst))
            for c in folded:
                hidden = [(key_names[j], _num(walk.raw[j])) for j in walk.groups[c]]
                text += " " + words("walkthrough.caption_row_folded", language=language, hidden=hidden,
                                    column=_q(columns[c]), score=_num(raw_columns[c]))
            lines.append(text)
        elif frame.kind == "scaled":
            c = int(np.argmax(np.abs(raw_columns)))
            raw_row = raw_columns  # the drawn bars, a folded column's too
            scaled_row = raw_row / walk.scale
            lines.append(words("walkthrough.caption_scaled", language=language, d_k=walk.d_k, scale=_num(walk.scale),
                               raw=_num(raw_columns[c]), scaled=_num(raw_columns[c] / walk.scale), who=who(c),
                               range_raw=_num(raw_row.max() - raw_row.min()),
                               range_scaled=_num(scaled_row.max() - scaled_row.min())))
        elif frame.kind == "exp":
            exps = walk.column_exps
            c = int(np.argmax(exps))
            one = len(walk.groups[c]) == 1
            # One way, as step 3's table: minus the row's largest score first, so the largest becomes 1.
            lines.append(words("walkthrough.caption_exp", language=language, shift=_num(walk.shift),
                               folded=not one, whose=who(c) if one else _q(columns[c]), value=_num(exps[c]),
                               total=_sum(walk.exp_total)))
        elif frame.kind == "weights":
            order = [int(c) for c in np.argsort(-weights, kind="stable")]
            top = [c for c in order[:3] if weights[c] >= 0.01] or order[:1]
            shown_total = sum(round(100 * w) for w in weights)  # what the bars' whole-percent labels add up to
            lines.append(words("walkthrough.caption_weights", language=language, total=_sum(walk.exp_total),
                               parts=[(pct(weights[c]), who(c)) for c in top], shown_total=shown_total))
        elif frame.kind == "share":
            c = frame.columns[0]
            what = "own" if c == query_column else "one"
            if len(walk.groups[c]) > 1:
                what = "folded"
            lines.append(words("walkthrough.caption_share", language=language, share=pct(weights[c]),
                               what=what, token=_q(columns[c]), hidden=[key_names[j] for j in walk.groups[c]],
                               me=me))
        elif frame.kind == "others":
            share = weights[list(frame.columns)].sum()
            lines.append(words("walkthrough.caption_others", language=language, count=len(frame.columns),
                               share=pct(share)))
        else:  # the output
            # Split as step 4 splits it: own value, the other words, and [CLS]/[SEP] (a folded column).
            own = weights[query_column]
            markers = float(sum(weights[c] for c in folded))
            others = max(1 - own - markers, 0.0)
            # Weights, said as weights: a weight is not a share of the output vector (values differ in length).
            lines.append(words("walkthrough.caption_output", language=language, me=me, size=walk.output.size,
                               own=pct(own), others=pct(others),
                               markers=pct(markers) if folded and markers >= 0.005 else ""))
    return lines


def frame_words(walk: Walkthrough, frame, labels: list[str], query_label: str, d: int, number: int, n_frames: int,
                language: str) -> tuple[str, str, str, str]:
    """One frame's words in the figure: the top and bottom panels' axis titles, the step heading (HTML) and the
    big writing on the board (escaped; "" for a frame with a vector to show). labels: the axis's, escaped."""
    top_title, bottom_title, board = "", words("walkthrough.weight_title", language=language), ""
    if frame.step == 1:
        # the title is escaped as a whole where it is set
        key = f"k({html.unescape(labels[frame.columns[0]])})" if frame.kind == "key" else "k"
        top_title = (words("walkthrough.products_title", language=language, query=query_label, key=key)
                     if frame.kind == "key" else "")
        bottom_title = words("walkthrough.raw_title", language=language)
    elif frame.step == 2:
        bottom_title = words("walkthrough.scaled_title", language=language, d_k=walk.d_k)
    elif frame.kind == "exp":
        bottom_title = _power(walk.shift, language)
    elif frame.step == 4:
        top_title = words("walkthrough.output_title", language=language, done=frame.kind == "output",
                          query=query_label, d=d)
    name = html.escape(words(f"walkthrough.step_name_{frame.step}", language=language))
    heading = words("walkthrough.heading", language=language, step=frame.step, name=name, number=number + 1,
                    n_frames=n_frames)
    if frame.step == 2:
        board = words("walkthrough.board_scale", language=language, d_k=walk.d_k, scale=_num(walk.scale))
    elif frame.step == 3:
        power, total = _power(walk.shift, language), _sum(walk.exp_total)
        board = (words("walkthrough.board_exp", language=language, power=power, total=total) if frame.kind == "exp"
                 else words("walkthrough.board_weights", language=language, power=power, total=total,
                            bars=pct(sum(frame.bars))))
    elif frame.kind == "row":
        board = words("walkthrough.board_row", language=language, token=html.escape(query_label, quote=False))
    elif frame.kind == "rest":
        board = words("walkthrough.board_rest", language=language, count=len(frame.columns))
    return top_title, bottom_title, heading, board


def hover_template(name: str, language: str) -> str:
    """A trace's hover text: plotly's placeholders go in as values, so the pseudo-language leaves them as they are."""
    return words(name, language=language, x="%{x}", y="%{y:.3f}") + "<extra></extra>"


def frames_text_html(token: str, lines: list[str], steps: list[int]) -> str:
    """The walk-through as text: one sentence, then a table of its frames (frame, step, caption); all escaped."""
    sentence = words("walkthrough.text_sentence", token=token, count=len(lines))
    rows = "".join(f"<tr><th scope=\"row\">{n}</th><td>{step}</td><td>{html.escape(line)}</td></tr>"
                   for n, (line, step) in enumerate(zip(lines, steps), 1))
    head = "".join(f'<th scope="col">{html.escape(words(name))}</th>' for name in
                   ("walkthrough.column_frame", "walkthrough.column_step", "walkthrough.column_what"))
    return (f'<div class="figure-text"><p>{html.escape(sentence)}</p><table><thead><tr>{head}</tr></thead>'
            f'<tbody>{rows}</tbody></table></div>')
