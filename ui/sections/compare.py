"""The compare page's check on its own reading: when one head sends the followed word's largest share to the same
place in both sentences (the next token, say), the two rows differ because the words at that place differ, not
because of what the word means. The page then says so under the heatmaps, with the numbers they draw."""

from __future__ import annotations

import streamlit as st

from lessons.compare import SamePlace, same_place
from ui.content import words
from ui.text import pct, quote


def drawn_columns(run: dict) -> list[int | None]:
    """The token position of each drawn column of a run; None for the folded marker column."""
    return [int(j) for j in run["shown"]] + [None] * (len(run["keys"]) - len(run["tokens"]))


def position_note(runs: list[dict], word: str) -> SamePlace:
    """Measure where each sentence's drawn row for `word` peaks; say it when both peak at the same place."""
    rows = [run["weights"][run["tokens"].index(word)] for run in runs]
    fact = same_place(rows, [drawn_columns(run) for run in runs],
                      [int(run["shown"][run["tokens"].index(word)]) for run in runs])
    if fact.offset is None:
        return fact
    first, second = (run["keys"][top.column] for run, top in zip(runs, fact.tops))
    st.markdown(words("compare.same_place", word=quote(word), offset=fact.offset, first=quote(first),
                      second=quote(second), share_a=pct(fact.tops[0].share), share_b=pct(fact.tops[1].share),
                      same_token=first == second))
    st.page_link("app_pages/meaning.py", icon="📏", label=words("menu.page_meaning"))
    return fact
