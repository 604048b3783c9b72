"""The settings every page reads (Settings: the sidebar's values) and the callbacks that change them."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from ui.content import words


DEFAULT_SENTENCE = "I am good."
# Layer 1, head 8 as the code counts (pages say layer 2, head 9): chosen by measuring all 72 heads on the default sentence with lessons/heads.py
# teaching_heads (tests/test_default_view.py checks it again). It is the clearest nameable pattern among the heads
# whose selected row ("i") is soft: each word looks mostly at the word after it (59% on average; "i": 72% on
# "am", 22% on [CLS] + [SEP], 5% on itself), and dividing by √d_k moves the row's entropy from 0.02 to 1.11 bits.
# The old default, layer 0 head 2, copies the previous token: every row one-hot, so softmax and scaling showed
# nothing (issue 29). It stays one click away as a preset (HEAD_PRESETS).
DEFAULT_LAYER = 1
DEFAULT_HEAD = 8
# Heads named by what they do beyond the next or previous word. Each is chosen by one rule on a role's selection
# sentences and named by what it does on other sentences the choice never saw (lessons/data/role_heads.json;
# lessons/heads.py role_head and role_check; tests/test_examples.py measures both again). The pronoun head gives a
# pronoun's candidate nouns most of its attention and picks the right one where grammar or an easy cue decides, but
# no more often than guessing in pairs where only the meaning decides: so it is named for where it looks.
PRONOUN_HEAD = (3, 1)
SAME_WORD_HEAD = (2, 9)
PRONOUN_PRESET = "a head that looks from a pronoun to an earlier noun"
# The keys are the presets' identities (tests and pages name them); the words shown are in content/<language>/
# settings.toml under each one's text name: preset_name() and preset_help() (what each was measured on, no number:
# the pages state the live ones).
PRESET_TEXT = {
    "a head that looks at the next word": "next_word",
    "a head that looks at the previous word": "previous_word",
    PRONOUN_PRESET: "pronoun",
    "a head that looks back at the same word said earlier": "same_word",
}
HEAD_PRESETS = {
    "a head that looks at the next word": (DEFAULT_LAYER, DEFAULT_HEAD),
    "a head that looks at the previous word": (0, 2),
    PRONOUN_PRESET: PRONOUN_HEAD,
    "a head that looks back at the same word said earlier": SAME_WORD_HEAD,
}


def preset_name(preset: str, language: str | None = None) -> str:
    """A head preset's name (a key of HEAD_PRESETS) as the page's language says it."""
    return words(f"settings.preset_{PRESET_TEXT[preset]}", language=language)


def preset_help(preset: str, language: str | None = None) -> str:
    return words(f"settings.preset_{PRESET_TEXT[preset]}_help", language=language)


@dataclass(frozen=True)
class Example:
    """A built-in sentence and the lesson it opens on: the head chosen by measurement for it, the token selected."""
    key: str             # its identity; its button's name and what it shows are in content/<language>/settings.toml
    sentence: str
    focus: str           # the selected token (a label as the pages write it)
    target: str          # the word the lesson is about: the page states the focus token's share on it
    control: str | None  # another noun of the sentence, whose share the page states beside it
    layer: int
    head: int
    partner: str | None = None  # the same sentence with a word changed so that the focus means the control

    @property
    def name(self) -> str:
        """The button's label in the page's language."""
        return words(f"settings.example_{self.key}")

    @property
    def shows(self) -> str:
        """What it shows, in plain words, in the page's language."""
        return words(f"settings.example_{self.key}_shows")


# The heads: "I am good." opens on the default (teaching_heads); "river bank" on the head that, of all 72, sends its
# focus token most to its target while the row stays soft (lessons/heads.py focus_head); "it" and "who" on the
# pronoun preset, chosen on other sentences (PRONOUN_HEAD). What an example "shows" names what is drawn, not a
# finding: the start page states the live shares beside it, and for the animal sentence the partner sentence
# where "it" means the street (the same head still looks at "animal" there). tests/test_examples.py measures each.
EXAMPLES = (
    Example("good", "I am good.", "i", "am", None, DEFAULT_LAYER, DEFAULT_HEAD),
    Example("animal", "The animal didn't cross the street because it was too tired.", "it", "animal",
            "street", *PRONOUN_HEAD, partner="The animal didn't cross the street because it was too wide."),
    Example("river_bank", "I sat on the river bank and watched the water.", "bank", "river", "water", 0, 4),
    Example("long_sentence", "The old lighthouse keeper, who had lived alone on the island for thirty years, "
            "finally wrote down the stories the sailors had told him.", "who", "keeper", "island", *PRONOUN_HEAD),
)
# The sidebar's projections, by the short names a shared link carries (?mode=identity); each one's name and caption
# are in content/<language>/settings.toml.
MODES = ("learned", "random", "identity")
D_K_CHOICES = [2, 4, 8, 16, 32, 64, 128, 384]
# The model reads at most 256 tokens, about 1,200 characters of English; a box takes 3,000 (the part beyond what
# the model reads stays in the box, and the page says how much was read).
MAX_SENTENCE_CHARS = 3_000
# The other boxes' limits (each box has one, and each says so when full: ui/model.py warn_if_cut): two sentences
# side by side on the compare page, a written quiz answer, the glossary's search.
COMPARE_CHARS = 500
ANSWER_CHARS = 1_000
FILTER_CHARS = 100


@dataclass(frozen=True)
class Settings:
    sentence: str
    mode: str
    d_k: int
    seed: int
    layer: int
    head: int
    show_special: bool
    token: int            # position among the shown tokens
    teaching: bool
    model_name: str


def clean_sentence(text: str) -> str:
    return (text or "")[:MAX_SENTENCE_CHARS]


def cut_typed_sentence() -> None:
    """The sidebar's sentence held to the boxes' limit before its widget is made: Streamlit cuts what a box sends,
    not a value set from code (the page's own box copies its text in, a link seeds it), which a 20,000-character
    paste once grew into a 20,045-character link. The length before the cut is kept for the page's notice."""
    state = st.session_state
    for text in (state.get("sentence"), None if "sentence" in state else st.query_params.get("sentence")):
        if isinstance(text, str) and len(text) > MAX_SENTENCE_CHARS:
            state["sentence"] = clean_sentence(text)
            state["_sentence_typed_chars"] = (state["sentence"], len(text))
            if "sentence" in st.query_params:
                st.query_params["sentence"] = state["sentence"]
            return


def typed_chars(sentence: str) -> int | None:
    """How long the sidebar's sentence was before cut_typed_sentence cut it to this (None: not known)."""
    cut = st.session_state.get("_sentence_typed_chars")
    return cut[1] if cut and cut[0] == sentence else None


def choose_sentence(sentence: str, token: int = 0, show_special: bool | None = None) -> None:
    """For a callback that puts a new sentence in the sidebar and picks a token of it (an example sentence,
    "open this head"): the token is recorded as chosen for that sentence, so it is not reset as a new one."""
    state = st.session_state
    state["sentence"] = sentence
    if show_special is not None:
        state["special"] = show_special
    state["token"] = state["_token_kept"] = token  # _token_kept: the sidebar's own copy (ui/widgets/sidebar.py)
    state["_token_for"] = (sentence, bool(state.get("special", False)))


# Callbacks and format functions handed to Streamlit live here, not in a page: Streamlit keeps them with the
# session (two minutes after its tab closes), and a function defined in a page script holds the page's whole
# namespace, its model passes and figures included (5 visitors' long texts on the pronoun page kept ~250 MB).
def keep_widget_value(store: str, widget_key: str) -> None:
    """Copy a widget's value into a dict of the session (a page's answers outlive its widgets)."""
    st.session_state.setdefault(store, {})[widget_key] = st.session_state[widget_key]


def open_head_in_steps(sentence: str, layer: int, head: int, token: int, goto: str) -> None:
    """Show one learned head for a sentence in the step pages, its token selected and [CLS]/[SEP] shown."""
    st.session_state["mode"] = "learned"
    st.session_state["layer"] = layer
    st.session_state["head"] = head
    choose_sentence(sentence, token, show_special=True)
    st.session_state["_goto"] = goto


def settings() -> Settings:
    return st.session_state.get("_settings") or Settings(DEFAULT_SENTENCE, "learned", 32, 0, DEFAULT_LAYER,
                                                         DEFAULT_HEAD, False, 0, False, "")
