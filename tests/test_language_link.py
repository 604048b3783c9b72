"""The page's language follows its link: a tab that keeps its session (a reload) after ?lang= was changed shows the
link's language, and the notices about a link's refused values are in the page's current language."""

from conftest import APP

from ui.content import ENGLISH, LANGUAGE_KEY, PSEUDO, languages

SENTENCE = "I am good."
STEP3 = "app_pages/step3_softmax.py"


def _session(params: dict | None = None, **state):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    for key, value in {"sentence": SENTENCE, **state}.items():
        at.session_state[key] = value
    at.run()
    at.switch_page(STEP3)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _language(at) -> str:
    """The session's language: the switch's value, or English where no switch was drawn (English alone)."""
    return at.session_state[LANGUAGE_KEY] if LANGUAGE_KEY in at.session_state else ENGLISH


def _marked(at) -> int:
    """How many of the page's own texts are in the pseudo-language (⟦…⟧)."""
    return sum("⟦" in block.value for block in at.main.markdown)


def test_a_changed_link_wins_over_the_sessions_language():
    at = _session()
    assert _language(at) == ENGLISH and _marked(at) == 0
    at.query_params[LANGUAGE_KEY] = PSEUDO  # the same session, its address changed by hand and reloaded
    at.run()
    assert not at.exception
    assert _language(at) == PSEUDO and _marked(at) > 5
    assert at.sidebar.selectbox(key=LANGUAGE_KEY).value == PSEUDO  # the switch shows what the page is in
    # and back: a link naming English wins too; the switch then leaves `lang` out of the link (its default)
    at.query_params[LANGUAGE_KEY] = ENGLISH
    at.run()
    assert _language(at) == ENGLISH and _marked(at) == 0
    assert LANGUAGE_KEY not in at.query_params


def test_the_switch_wins_while_the_link_is_unchanged_and_a_link_without_lang_keeps_it():
    at = _session({LANGUAGE_KEY: PSEUDO})
    assert _marked(at) > 5
    at.sidebar.selectbox(key=LANGUAGE_KEY).set_value(ENGLISH).run()  # the link still says pseudo during this run
    assert _language(at) == ENGLISH and _marked(at) == 0
    assert LANGUAGE_KEY not in at.query_params
    at.run()
    assert _language(at) == ENGLISH and _marked(at) == 0
    # a session chosen in pseudo whose link names no language (a page link may leave it out) stays in pseudo
    kept = _session(lang=PSEUDO)
    assert _marked(kept) > 5 and kept.query_params.get(LANGUAGE_KEY) == PSEUDO


def test_a_link_notice_is_in_the_pages_current_language():
    at = _session({"layer": "²", "mode": "learned"})
    english = " ".join(at.session_state["_link_notices"])
    assert "layer" in english and "⟦" not in english
    at.query_params[LANGUAGE_KEY] = PSEUDO  # English alone has no switch (below): the link changes the language
    at.run()
    assert not at.exception
    notices = at.session_state["_link_notices"]
    assert len(notices) == 1 and "⟦" in notices[0] and "²" in notices[0]
    assert any(notices[0] == warning.value for warning in at.sidebar.warning)
    # a notice written after the first run (the token's range is known once the sentence is) follows too
    token = _session({"token": "40"}, lang=PSEUDO)
    assert any("⟦" in notice and "40" in notice for notice in token.session_state["_link_notices"])
    token.sidebar.selectbox(key=LANGUAGE_KEY).set_value(ENGLISH).run()
    assert any("40" in notice and "⟦" not in notice for notice in token.session_state["_link_notices"])


def test_the_switch_is_shown_only_where_there_is_a_language_to_choose():
    # content/ holds English alone: a student sees no box offering English and the testers' pseudo-language
    real_languages = [language for language in languages() if language != PSEUDO]
    english = _session()
    boxes = [box for box in english.sidebar.selectbox if box.key == LANGUAGE_KEY]
    assert bool(boxes) == (len(real_languages) > 1)
    # a page in another language by its link has the box, to come back
    pseudo = _session({LANGUAGE_KEY: PSEUDO})
    assert pseudo.sidebar.selectbox(key=LANGUAGE_KEY).value == PSEUDO
