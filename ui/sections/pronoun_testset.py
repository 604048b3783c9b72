"""The pronoun page's last section: the head chosen in advance, scored on sentences it was not chosen on."""

from __future__ import annotations

import streamlit as st

from lessons import pronoun as pr

from ui import figures, tables
from ui.text import layer_head_name


def _sentences_table(cases, role: str) -> list[dict]:
    return [{"sentence": case.sentence, "pronoun": case.pronoun, "means": case.answer, "used to": role}
            for case in cases]


def test_set_section(board: pr.Scoreboard, teaching: bool) -> None:
    """The head chosen on the selection sentences, its record on the held-out sentences and Winograd-style pairs
    beside two fixed rules and guessing; every head's accuracy on the pairs as a picture, not as a verdict."""
    st.header("A test on new sentences: the head chosen in advance")
    st.markdown(
        f"One head is chosen by a fixed rule on {len(pr.SELECTION)} sentences, then scored on sentences the choice "
        f"never saw: {len(pr.HELD_OUT)} where grammar or an easy cue tells what the pronoun means, and "
        f"{len(pr.PAIRS)} **Winograd-style** pairs: two sentences that differ in a word, and that word changes what "
        "the pronoun means, so only the meaning decides. A head answers with the candidate it gives more attention; "
        "it gets a pair fully right only if it changes its answer with the word.")
    with st.expander("Where the name comes from, and every sentence"):
        st.markdown("Terry Winograd (1972) used *The city councilmen refused the demonstrators a permit because "
                    "they feared / advocated violence.* to show that resolving a pronoun needs knowledge of the "
                    "world. Levesque, Davis and Morgenstern (2012) made a test of such pairs, the Winograd Schema "
                    "Challenge.")
        tables.table(_sentences_table(pr.SELECTION, "choose the head")
                     + _sentences_table(pr.HELD_OUT, "check it (an easy cue)")
                     + _sentences_table([case for pair in pr.PAIRS for case in pair], "check it (a pair)"))
    record = pr.chosen_record(board)
    if record is not None:
        held = f"{record.held_right} of {record.n_held}"
        rows_table = [
            {"who": f"the head chosen in advance: {layer_head_name(*record.head)}", "easy-cue sentences right": held,
             "pairs fully right": f"{record.pairs_right} of {record.n_pairs}"},
            {"who": "always the first noun", "easy-cue sentences right": f"{record.subject} of {record.n_held}",
             "pairs fully right": f"0 of {record.n_pairs}"},
            {"who": "always the nearest noun before the pronoun",
             "easy-cue sentences right": f"{record.nearest} of {record.n_held}",
             "pairs fully right": f"0 of {record.n_pairs}"},
            {"who": "a head that guesses",
             "easy-cue sentences right": f"about {record.n_held / 2:.0f} of {record.n_held}",
             "pairs fully right": f"about {record.n_pairs / 4:.0f} of {record.n_pairs} ({record.guess_low} to "
                                  f"{record.guess_high} nine times in ten)"},
        ]
        tables.table(rows_table)
        st.markdown("A fixed rule like “always the first noun” never changes its answer within a pair, so it gets "
                    "**no pair** fully right. " + pr.record_text(record))
    st.subheader("Every head on the pairs")
    figures.show(figures.layer_head_grid(board.head_accuracy, "Accuracy of each head on the pairs' sentences",
                                         teaching=teaching, zmid=0.5, bound=0.5, colorbar_title="accuracy"),
                 figures.figure_filename("pronoun_testset", "builtin pairs", "accuracy"), teaching)
    best_head, best_pairs = pr.best_heads(board)
    st.markdown(
        f"The best head on the pairs' sentences, {layer_head_name(*best_head)}, gets {board.head_correct[best_head]} "
        f"of {board.n_sentences} right; the best on whole pairs, {layer_head_name(*best_pairs)}, gets "
        f"{board.head_pairs[best_pairs]} of {board.n_pairs} pairs. Both were picked on these same pairs out of "
        f"{board.head_pairs.size} heads, so their scores flatter them: among many heads some do well by luck, and "
        "heads are not independent guesses either. Only the head chosen in advance is a fair test.")
