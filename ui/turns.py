"""A page run's turn (serving/queue.py): which browser and tab it comes from, what it costs, and the notice a
waiting tab shows with its place in line."""

from __future__ import annotations

import binascii

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from lessons import meaning as me
from serving import queue, shared
from ui.content import current_language, words

# Streamlit's cookie against cross-site requests: set once per browser (on its first health check, before any tab's
# connection), so every tab of a browser sends it; the same browser's cookie differs only in its random mask.
BROWSER_COOKIE = "_streamlit_xsrf"
WAITING = ("tabs", "cheap", "costly")  # why a tab waits (serving/queue.py); its notice: turns.waiting_<why>


def browser_id(cookies, session: str):
    """The browser a tab belongs to: its cookie's token without the mask, else (no cookie: a client that is not a
    browser, or a server without the cookie) the tab's own session: one address may be a whole class behind one
    router, so the address alone never decides."""
    value = (cookies.get(BROWSER_COOKIE) or "").strip("\"'")
    parts = value.split("|")
    if len(parts) == 4 and parts[0] == "2":
        try:
            mask, masked = binascii.a2b_hex(parts[1]), binascii.a2b_hex(parts[2])
            if mask:
                return ("browser", bytes(b ^ mask[i % len(mask)] for i, b in enumerate(masked)))
        except (binascii.Error, ValueError):
            pass
    return ("browser", value) if value else ("tab", session)


def page_cost(url_path: str, sentence: str | None, model=None) -> int:
    """The run's work in token-passes: the sidebar's sentence, and the texts of the page about to run (from the
    link on a first visit): the pronoun page's boxes, the compare page's two, the meaning page's sets (nothing for
    a set already measured: it is read back)."""
    state, link = st.session_state, st.query_params
    sentences, meaning_sentences = [sentence], []
    if url_path == "pronoun":
        sentences += [state.get("pron_sentence", link.get("pron_sentence"))]
        sentences += [value for key, value in state.items() if str(key).startswith("pron_contrast_")]
    elif url_path == "compare":
        sentences += [state.get("compare_a"), state.get("compare_b")]
    elif url_path == "meaning":
        word, group_a, group_b = (state.get(key, link.get(key)) for key in ("word", "meaning_a", "meaning_b"))
        if isinstance(group_a, str) and isinstance(group_b, str):
            lines_a, lines_b = me.split_lines(group_a), me.split_lines(group_b)
            if not (model is not None and shared.is_ready(shared.meaning_key(model, str(word or ""), lines_a,
                                                                             lines_b))):
                meaning_sentences = [str(word or ""), *lines_a, *lines_b]
    return queue.run_cost([s for s in sentences if isinstance(s, str)], meaning_sentences)


def interrupted(context) -> bool:
    """Whether a rerun or a stop waits for this run (Streamlit's own request state; unknown: say yes)."""
    state = getattr(getattr(context, "script_requests", None), "_state", None)
    return getattr(state, "name", None) != "CONTINUE"


def run_in_turn(navigation, sentence: str | None, model=None) -> None:
    """Run the page in its turn, showing the place in line while it waits (checked every second, which is
    also where a rerun or a closed tab ends the wait: Streamlit stops a run when it next writes)."""
    context = get_script_run_ctx()
    session = context.session_id if context else "no session"
    notice, shown, waited = None, None, {}
    language = current_language()  # the notice may be written while this run waits in serving/queue.py

    def show(why: str, place: int) -> None:
        """Write the notice when its place changed, or when a rerun or stop waits (Streamlit ends the run as it
        writes): a hundred waiting tabs rewriting theirs twice a second kept the server busy sending them."""
        nonlocal notice, shown
        waited[why] = waited.get(why, 0) + 1
        quick = why == "cheap" and waited[why] == 1   # a cheap run's wait is mostly shorter than a second: no flash
        if (not quick and (why, place) != shown) or interrupted(context):
            notice = notice or st.empty()
            notice.info(words(f"turns.waiting_{why}", language=language, place=place), icon="⏳")
            shown = (why, place)

    try:
        turn = queue.page_turn(browser_id(st.context.cookies, session), session,
                               page_cost(navigation.url_path, sentence, model), show, every=1.0)
        with turn:
            if notice is not None:
                notice.empty()
            navigation.run()
    except queue.LineFull:
        st.info(words("turns.line_full"), icon="⏳")
