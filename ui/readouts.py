"""Read-outs generated from the numbers a page draws, each with its branch for when they say otherwise (a tie, a
uniform row, nothing at all). Markdown strings; no Streamlit."""

from __future__ import annotations

import numpy as np

from .text import pct, quote

TIE = 0.005  # two scores this close print the same to two decimals: a tie, not a winner


def key_name(labels, j: int, me: int | None) -> str:
    return "its own key" if j == me else f"the key of {quote(labels[j])}"


def plain_key(labels, j: int, me: int | None) -> str:
    return "its own key" if j == me else quote(labels[j])


def best_score(row, labels, me: int | None, hidden=()) -> str:
    """ "the key of “am” (3.21)", or a tie, and a note when the winner is a token hidden from the matrix."""
    row = np.asarray(row, dtype=np.float64)
    order = np.argsort(row)[::-1]
    best = int(order[0])
    tied = [int(j) for j in order if row[best] - row[j] < TIE]
    if len(tied) > 1:
        names = ", ".join(key_name(labels, j, me) for j in tied[:4])
        return f"a tie between {names} ({row[best]:.2f})"
    text = f"{key_name(labels, best, me)} (**{row[best]:.2f}**)"
    if best in set(int(h) for h in hidden):
        text += (", a marker token hidden from the matrix: its column there is the larger of the hidden tokens' "
                 "scores")
    return text


def shares(row, labels, me: int | None, limit: int = 5, floor: float = 0.01, verb: str = "on") -> str:
    """The largest shares of one row of weights, named as the row has them: "72% on “am”, 22% on
    “[CLS] + [SEP]”, and 6% on the other 2 keys". A uniform row says so."""
    row = np.asarray(row, dtype=np.float64)
    n = len(row)
    if n and np.ptp(row) < 1e-4:
        return f"the same share, {pct(row[0])}, {verb} every one of its {n} keys"
    order = [int(j) for j in np.argsort(row)[::-1]]
    named = [j for j in order[:limit] if row[j] >= floor] or order[:1]
    rest = [j for j in order if j not in named]
    parts = [f"**{pct(row[j])}** {verb} {'itself' if j == me else quote(labels[j])}" for j in named]
    text = ", ".join(parts)
    if rest:
        left = row[rest].sum()
        others = "the one other key" if len(rest) == 1 else f"the other {len(rest)} keys"
        text += f", and {pct(left) if left > 0 else 'nothing'} {verb} {others}"
    return text

def no_contrast_note(change, rows) -> str:
    """When no row of the sentence changes with scaling: say so, and where to see it."""
    return (f"On this head scaling barely changes any row of your sentence (a row's entropy changes by at most "
            f"{max(float(change[rows].max()), 0.0):.2f} bits), so there is little to see here. Pick “a head that "
            "looks at the next word” in the sidebar to see a row it changes. ")
