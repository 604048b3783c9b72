"""Issue 52, the words every page shares (sidebar, menu, tour, notices, figures' own words): in content/, chosen by
the facts, and still telling widgets apart in every language."""

import numpy as np
import pytest

from ui.content import MARK_OPEN, PSEUDO, languages, words
from ui.readouts import shares
from ui.text import pct
from ui.settings import EXAMPLES, HEAD_PRESETS, MODES, preset_help, preset_name
from ui.turns import WAITING
from ui.widgets.downloads import matrix_csv
from ui.widgets.tour import OWN_INPUT, TOUR


@pytest.mark.parametrize("language", languages())
def test_presets_and_examples_keep_one_label_each_in_every_language(language):
    """Streamlit matches a widget by its label: two presets or examples saying the same would be one button."""
    names = [preset_name(preset, language) for preset in HEAD_PRESETS]
    assert len(set(names)) == len(HEAD_PRESETS) and all(names)
    assert all(preset_help(preset, language) for preset in HEAD_PRESETS)
    example_names = [words(f"settings.example_{example.key}", language=language) for example in EXAMPLES]
    assert len(set(example_names)) == len(EXAMPLES)
    captions = [words(f"settings.mode_{mode}_caption", language=language) for mode in MODES]
    assert len(set(captions)) == len(MODES)
    tour_names = [words(f"tour.name_{name}", language=language) for _, name in TOUR]
    assert len(set(tour_names)) == len(TOUR)
    assert all(words(f"tour.own_input_{name}", language=language) for name in OWN_INPUT.values())


def test_a_rows_shares_name_its_own_numbers_and_count_the_rest():
    """The read-out states the row's shares as the figure prints them, and the rest by their true count."""
    row = np.array([0.62, 0.25, 0.08, 0.05])
    text = shares(row, ["i", "am", "good", "."], me=0, limit=2)
    assert "**62%** on itself" in text and "**25%** on “am”" in text
    assert "13% on the other 2 keys" in text  # 0.08 + 0.05, two keys
    one_left = shares(np.array([0.7, 0.2, 0.1]), ["a", "b", "c"], me=None, limit=2)
    assert "10% on the one other key" in one_left
    uniform = shares(np.full(4, 0.25), list("abcd"), me=None, verb="from")
    assert uniform == words("readouts.shares_uniform", share="25%", verb="from", n=4)
    assert pct(0.0001) == "<1%" and pct(0.25) == "25%"


def test_each_waiting_notice_states_the_tabs_place():
    for why in WAITING:
        assert "place 7 in line" in words(f"turns.waiting_{why}", place=7)
        marked = words(f"turns.waiting_{why}", language=PSEUDO, place=7)
        assert MARK_OPEN in marked and " 7 " in marked  # the number stays as it is in every language


def test_the_truncation_notice_follows_whether_the_box_cut_the_text_first():
    kept = words("model.truncated", cut=True, kept="3,000", n_before=700, max_length=256, n_tokens=256, where="")
    typed = words("model.truncated", cut=False, kept="3,000", n_before=700, max_length=256, n_tokens=256,
                  where="“…the end”")
    assert kept.startswith("The 3,000 characters kept are 700 tokens long") and "up to" not in kept
    assert typed.startswith("Your text is 700 tokens long") and typed.endswith("up to “…the end”.")


def test_the_csv_names_its_corner_in_the_language_it_was_asked_for():
    english = matrix_csv([[0.5, 0.5]], ["a"], ["a", "b"]).decode()
    assert english.startswith('"query \\ key","a","b"')
    marked = matrix_csv([[0.5, 0.5]], ["a"], ["a", "b"], corner=words("downloads.csv_corner", language=PSEUDO))
    assert marked.decode().startswith(f'"{MARK_OPEN}') and "0.5,0.5" in marked.decode()
