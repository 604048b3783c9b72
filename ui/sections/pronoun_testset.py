"""The pronoun page's last section: the head chosen in advance, scored on sentences it was not chosen on."""

from __future__ import annotations

import streamlit as st

from lessons import pronoun as pr

from ui import figures, tables
from ui.content import words
from ui.text import layer_head_name, pct

from .pronoun_verdict import record_checked


def _sentences_table(cases, role: str, columns: dict[str, str]) -> list[dict]:
    """The sentences (model input: they stay as written) with what each is used for."""
    return [{columns["sentence"]: case.sentence, columns["pronoun"]: case.pronoun, columns["means"]: case.answer,
             columns["used_to"]: role} for case in cases]


def _record_table(record: pr.Record) -> list[dict]:
    """The chosen head, the two fixed rules and a guessing head: easy-cue sentences and pairs right."""
    who, easy, pairs = (words("pronoun_testset.column_who"), words("pronoun_testset.column_easy"),
                        words("pronoun_testset.column_pairs"))

    def count(n: int, total: int) -> str:
        return words("pronoun_testset.count_of", count=n, total=total)

    return [
        {who: words("pronoun_testset.who_chosen", head=layer_head_name(*record.head)),
         easy: count(record.held_right, record.n_held), pairs: count(record.pairs_right, record.n_pairs)},
        {who: words("pronoun_testset.who_first"), easy: count(record.subject, record.n_held),
         pairs: count(0, record.n_pairs)},
        {who: words("pronoun_testset.who_nearest"), easy: count(record.nearest, record.n_held),
         pairs: count(0, record.n_pairs)},
        {who: words("pronoun_testset.who_guess"),
         easy: words("pronoun_testset.guess_easy", count=f"{record.n_held / 2:.0f}", total=record.n_held),
         pairs: words("pronoun_testset.guess_pairs", count=f"{record.guess_mean:.0f}", total=record.n_pairs,
                      low=record.guess_low, high=record.guess_high)},
    ]


def test_set_section(board: pr.Scoreboard, teaching: bool) -> None:
    """The head chosen on the selection sentences, its record on the held-out sentences and Winograd-style pairs
    beside two fixed rules and guessing; every head's accuracy on the pairs as a picture, not as a verdict."""
    st.header(words("pronoun_testset.header"))
    st.markdown(words("pronoun_testset.intro", n_selection=len(pr.SELECTION), n_held=len(pr.HELD_OUT),
                      n_pairs=len(pr.PAIRS)))
    with st.expander(words("pronoun_testset.sentences_label")):
        st.markdown(words("pronoun_testset.history"))
        columns = {"sentence": words("pronoun_testset.column_sentence"),
                   "pronoun": words("pronoun_testset.column_pronoun"),
                   "means": words("pronoun_testset.column_means"), "used_to": words("pronoun_testset.column_used_to")}
        tables.table(_sentences_table(pr.SELECTION, words("pronoun_testset.used_choose"), columns)
                     + _sentences_table(pr.HELD_OUT, words("pronoun_testset.used_check_cue"), columns)
                     + _sentences_table([case for pair in pr.PAIRS for case in pair],
                                        words("pronoun_testset.used_check_pair"), columns))
    record = pr.chosen_record(board)
    if record is not None:
        tables.table(_record_table(record))
        st.markdown(" ".join((
            words("pronoun_testset.reading", head=layer_head_name(*record.head, capital=True),
                  n_selection=record.n_selection, n_passing=record.n_passing, n_heads=record.n_heads,
                  n_checked=record.n_checked),
            record_checked(record),
            words("pronoun_testset.looks", to_candidates=pct(record.to_candidates)))))
    st.subheader(words("pronoun_testset.every_head_header"))
    figures.show(figures.layer_head_grid(board.head_accuracy, words("pronoun_testset.grid_title"),
                                         teaching=teaching, zmid=0.5, bound=0.5,
                                         colorbar_title=words("pronoun_testset.grid_colorbar")),
                 figures.figure_filename("pronoun_testset", "builtin pairs", "accuracy"), teaching)
    best_head, best_pairs = pr.best_heads(board)
    st.markdown(words("pronoun_testset.best", best_head=layer_head_name(*best_head),
                      head_correct=board.head_correct[best_head], n_sentences=board.n_sentences,
                      best_pairs=layer_head_name(*best_pairs), pairs_right=board.head_pairs[best_pairs],
                      n_pairs=board.n_pairs, n_heads=board.head_pairs.size))
