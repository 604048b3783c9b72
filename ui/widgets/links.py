"""A shared link's values: which ones are valid, the notice for the others, and the selected token in the link."""

from __future__ import annotations

import streamlit as st

from lessons.meaning import MAX_WORD_CHARS
from ui.content import languages, words
from ui.settings import D_K_CHOICES, MAX_SENTENCE_CHARS, MODES
from ui.text import md


def link_number(value: str | None, below: int) -> int | None:
    """A link's whole number: ASCII digits only (no sign, no "²" or "①", no decimals) and below the limit."""
    if value is None or not (0 < len(value) <= 6 and value.isascii() and value.isdigit()):
        return None
    number = int(value)
    return number if number < below else None


# The most tokens any model here reads: the exact range of a link's token is checked once the sentence is known.
MAX_LINK_TOKEN = 512

LINK_CHECKS = {
    "mode": lambda v: v in MODES,
    "dk": lambda v: link_number(v, max(D_K_CHOICES) + 1) in D_K_CHOICES,
    "seed": lambda v: link_number(v, 10_000) is not None,
    "layer": lambda v: link_number(v, 6) is not None,
    "head": lambda v: link_number(v, 12) is not None,
    "special": lambda v: v in ("true", "false"),
    "teach": lambda v: v in ("true", "false"),
    "token": lambda v: link_number(v, MAX_LINK_TOKEN) is not None,
    "predict": lambda v: v in ("true", "false"),
    "lang": lambda v: v in languages(),
}
# The link's texts, each at most its box's length (the meaning page's word box takes 40 characters).
LINK_TEXTS = {"sentence": MAX_SENTENCE_CHARS, "pron_sentence": MAX_SENTENCE_CHARS, "word": MAX_WORD_CHARS,
              "meaning_a": MAX_SENTENCE_CHARS, "meaning_b": MAX_SENTENCE_CHARS}
KNOWN_LINK_KEYS = frozenset(LINK_CHECKS) | frozenset(LINK_TEXTS)
# What a link built by a page carries: the sidebar's view (its sentence and settings), which every page reads.
VIEW_LINK_KEYS = (*LINK_CHECKS, "sentence")


def cut_link_text(key: str) -> int | None:
    """A box's text from a link (or set from code) held to the box's limit before the box is made, as the sidebar's
    sentence is (ui/settings.py cut_typed_sentence): Streamlit would cut it silently (a linked meaning_a of 7,247
    characters became 3,000 without a word). Returns the length before the cut while the box still holds what was
    kept (None: no cut known), for the page's notice (ui/model.py warn_if_cut)."""
    state, limit, typed_key = st.session_state, LINK_TEXTS[key], f"_typed_chars_{key}"
    for text in (state.get(key), None if key in state else st.query_params.get(key)):
        if isinstance(text, str) and len(text) > limit:
            state[key] = text[:limit]
            state[typed_key] = (state[key], len(text))
            if key in st.query_params:
                st.query_params[key] = state[key]
            break
    cut = state.get(typed_key)
    return cut[1] if cut and cut[0] == state.get(key) else None


def _notice_text(notice: tuple) -> str:
    """A link notice in the page's language, made again on every run: the session may have changed language since
    the link was read (the notice is kept as its values)."""
    if notice[0] == "token":
        _, value, n_tokens = notice
        return words("links.token_out_of_range", value=md(value[:40]), n_tokens=n_tokens, last=n_tokens - 1)
    _, key, value = notice
    return words("links.not_valid", key=key, value=md(value[:40]))


def _drop_link_value(key: str) -> None:
    """Take a refused value out of the link before any widget reads it.

    Streamlit would otherwise still seed the widget from it in its own, looser way ("+1" counts as 1), so
    the page would use a value the notice says was refused. Streamlit keeps the link's first values apart
    from st.query_params; both are cleared (internal API of Streamlit 1.67, hence the guard).
    """
    try:
        from streamlit.runtime.state import get_session_state

        with get_session_state().query_params() as params:
            params.remove_param(key)
            params._initial_query_params.pop(key, None)
    except Exception:  # a newer Streamlit: the notice still tells the user
        pass


def view_link_params() -> dict[str, str]:
    """The sidebar's view as the parameters of a link a page builds (a glossary term, "open this head"): known
    keys only, each valid, the sentence at most a box's length. Nothing else in the page's own address is
    copied: the multi-head page once copied every parameter into its 72 head links, and one unknown parameter
    of 40,000 emoji made a 35.2 MB message, refused with a MessageSizeError (tests/test_links.py)."""
    view = {}
    for key in VIEW_LINK_KEYS:
        value = st.query_params.get(key)  # the last value, as Streamlit reads a key given twice
        if value is None:
            continue
        if key in LINK_TEXTS:
            view[key] = value[: LINK_TEXTS[key]]
        elif LINK_CHECKS[key](value):
            view[key] = value
    return view


def link_notices() -> list[str]:
    """Values in a shared link that are not valid: Streamlit drops them; we say so once per session.

    A key given twice counts with its last value, as Streamlit reads it; every value must be valid. A key the
    app does not know is taken out of the link silently: no page reads it, and no page's address carries it on.
    """
    state = st.session_state
    if LINK_NOTICES not in state:
        for key in [key for key in st.query_params if key not in KNOWN_LINK_KEYS]:
            _drop_link_value(key)
        notices = []
        for key, valid in LINK_CHECKS.items():
            values = st.query_params.get_all(key)
            bad = next((v for v in values if not valid(v)), None)
            if bad is not None:
                notices.append(("not_valid", key, bad))
                if key == "token":
                    state["_link_token_refused"] = True
                _drop_link_value(key)
        state[LINK_NOTICES] = notices
    # the run's texts, for the sidebar and for tests that read the session after a page ran without the sidebar
    state["_link_notices"] = [_notice_text(notice) for notice in state[LINK_NOTICES]]
    return state["_link_notices"]


LINK_NOTICES = "_link_notice_values"  # the session's link notices as values, each made into text in every run


def follow_sentence_with_token(sentence: str, show_special: bool, n_tokens: int, notices: list[str]) -> None:
    """The selected token follows the sentence: kept for the same sentence, token 0 for a new one.

    The selectbox is not bound to the URL by Streamlit (that writes the label, "19: loudly"): the link
    carries the index (token=19), written by link_token and read here on a session's first run.
    """
    state = st.session_state
    previous = state.get("_token_for")
    if previous is None:  # first run of the session: the link's token, if any and in range
        raw = st.query_params.get("token")
        number = link_number(raw, n_tokens)
        # one notice for the token: link_notices may have refused its value already
        if raw is not None and number is None and not state.get("_link_token_refused"):
            notice = ("token", raw, n_tokens)
            state.setdefault(LINK_NOTICES, []).append(notice)  # shown on the session's later runs too
            notices.append(_notice_text(notice))
        if raw is not None or not isinstance(state.get("token"), int):
            state["token"] = number or 0
    elif previous[0] != sentence:
        state["token"] = 0
    elif previous[1] != show_special and isinstance(state.get("token"), int):
        # The same sentence with [CLS] shown or hidden: keep the same word piece, now one place over.
        state["token"] = state["token"] + 1 if show_special else state["token"] - 1
    if not isinstance(state.get("token"), int) or not 0 <= state["token"] < n_tokens:
        state["token"] = max(0, min(n_tokens - 1, state.get("token") if isinstance(state.get("token"), int) else 0))
    state["_token_for"] = (sentence, show_special)


def link_token(token: int) -> None:
    """The selected token's index in the link (absent for token 0, like every other default)."""
    if token:
        if st.query_params.get("token") != str(token):
            st.query_params["token"] = str(token)
    elif "token" in st.query_params:
        del st.query_params["token"]
