"""The compare page's check on itself: does one head send a shared word's attention to the same PLACE in both
sentences (the next token, the previous one, itself)? Then the two rows differ because the words at that place
differ, and reading them as two meanings of the word would teach position as meaning.

Measured on the rows the page draws (hidden markers folded into one column); no Streamlit, no English."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# The places a head can be said to pick by position alone, as offsets from the word (the page names each).
PLACES = (-1, 0, 1)


@dataclass(frozen=True)
class TopKey:
    """Where one sentence's drawn row for the word puts its largest share."""
    column: int         # the drawn column (the marker column is the last one when markers are hidden)
    offset: int | None  # that key's token position minus the word's; None for the folded marker column
    share: float


@dataclass(frozen=True)
class SamePlace:
    """The two sentences' top keys and, when both are the same place next to (or at) the word, that offset."""
    tops: tuple[TopKey, TopKey]

    @property
    def offset(self) -> int | None:
        first, second = (top.offset for top in self.tops)
        return first if first == second and first in PLACES else None


def top_key(row, columns, position: int) -> TopKey:
    """row: one drawn row of weights; columns: the token position of each drawn column (None for the folded
    marker column); position: the word's token position. A tie goes to the first column, as numpy's argmax."""
    row = np.asarray(row, dtype=float)
    column = int(row.argmax())
    key = columns[column] if column < len(columns) else None
    return TopKey(column, None if key is None else int(key) - int(position), float(row[column]))


def same_place(rows, columns, positions) -> SamePlace:
    """The SamePlace fact of two sentences: their drawn rows for the word, columns and the word's positions."""
    first, second = (top_key(row, cols, place) for row, cols, place in zip(rows, columns, positions))
    return SamePlace((first, second))
