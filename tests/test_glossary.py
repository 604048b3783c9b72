"""The glossary in any language: the entries keep their anchors (other pages link to them), their words come from
content/<lang>/glossary.toml, and the search box filters on the words the visitor reads."""

from conftest import run_app

from ui.content import PSEUDO, words
from ui.sections.glossary import GLOSSARY_URL, TERMS, anchor, entry, entry_key, term_link


def test_every_entry_has_its_words_and_a_unique_anchor():
    anchors = [anchor(term) for term in TERMS]
    assert len(set(anchors)) == len(TERMS) == len({entry_key(term) for term in TERMS})
    for term in TERMS:
        name, text = entry(term, language="en")
        assert name.strip() and len(text.split()) >= 5, term
    # the identities are the English names: in English the shown name is the identity itself
    assert [entry(term, language="en")[0] for term in TERMS] == list(TERMS)


def test_a_link_shows_the_entry_in_the_page_language_and_keeps_its_anchor():
    assert term_link("softmax") == f"[softmax]({GLOSSARY_URL}#softmax)"
    link = words("glossary.term_softmax", language=PSEUDO)
    assert link != "softmax" and "⟦" in link
    assert term_link("softmax", link) == f"[{link}]({GLOSSARY_URL}#softmax)"


def test_the_pseudo_language_page_keeps_every_anchor_and_filters_on_its_own_words():
    at = run_app("app_pages/glossary.py", lang=PSEUDO)
    assert not at.exception, at.exception
    assert [h.proto.anchor for h in at.main.header] == [anchor(term) for term in TERMS]  # links still land
    assert [h.value for h in at.main.header] == [entry(term, language=PSEUDO)[0] for term in TERMS]
    shown_softmax = entry("softmax", language=PSEUDO)[0]
    typed = shown_softmax.strip("⟦⟧")  # what a visitor reading this language types: "šóftmáx"
    at.text_input(key="glossary_filter").input(typed).run()
    shown = [h.value for h in at.main.header]
    # the entries whose shown name or explanation holds the typed word, and only those
    expected = [entry(term, language=PSEUDO)[0] for term in TERMS
                if any(typed.lower() in part.lower() for part in entry(term, language=PSEUDO))]
    assert shown_softmax in shown and shown == expected and len(shown) < len(TERMS)
    assert not at.info
    at.text_input(key="glossary_filter").input("softmax").run()  # the English word is not in the shown words
    assert [h.value for h in at.main.header] == [] and len(at.info) == 1
    assert str(len(TERMS)) in at.info[0].value  # "all 32 entries": the count of the entries there are
