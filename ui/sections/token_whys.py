"""Why do the tokens look like that? Answered from the sentence's own tokens (the start page)."""

from __future__ import annotations

import re

from ui.content import words
from ui.sections.glossary import term_link
from ui.sections.markers import ANCHOR as MARKERS_ANCHOR
from ui.readouts import token_count
from ui.text import quote
from ui.view import View

Whys = list[tuple[str, str]]


def _pieces(view: View, word: str) -> list[str]:
    return [t for t in view.model.tokenize(word) if t not in view.model.special_tokens]


def _joined(pieces: list[str]) -> str:
    return " + ".join(quote(p) for p in pieces)


def term_url(term: str, query: dict[str, str] | None = None) -> str:
    """The address of a glossary entry (term_link's), for a text whose own words make the link's label."""
    return term_link(term, "_", query).partition("](")[2][:-1]  # "_": no entry looked up for a label


# --- home: the tokens, where they are first shown

def token_whys(view: View, query: dict[str, str] | None = None) -> Whys:
    sentence = view.settings.sentence
    typed = re.findall(r"\S+", sentence)[:60]
    notes = []
    upper = next((w for w in typed if any(c.isupper() for c in w)), None)
    if upper:
        notes.append(words("token_whys.uncased", word=quote(upper), pieces=_joined(_pieces(view, upper))))
    split = next(((w, p) for w in re.findall(r"\w+", sentence)[:60] for p in [_pieces(view, w)]
                  if any(t.startswith("##") for t in p)), None)
    if split:
        notes.append(words("token_whys.split", pieces_url=term_url("word piece (##)", query), word=quote(split[0]),
                           pieces=_joined(split[1])))
    apostrophe = next((w for w in typed if re.search(r"\w['’]\w", w)), None)
    if apostrophe:
        notes.append(words("token_whys.apostrophe", word=quote(apostrophe),
                           pieces=_joined(_pieces(view, apostrophe))))
    punctuation = sorted({t for t in view.tokens if t and not any(c.isalnum() for c in t)})
    if punctuation:
        notes.append(words("token_whys.punctuation", marks=", ".join(quote(t) for t in punctuation[:6])))
    repeated = next(((label, token) for label, token in zip(view.labels, view.tokens) if label != token), None)
    if repeated:  # the labels the pages draw (ui/labels.py): a token said twice is named apart
        notes.append(words("token_whys.repeated", token=quote(repeated[1]), label=quote(repeated[0])))
    notes.append(words("token_whys.markers", markers_url=term_url("[CLS] and [SEP]", query),
                       markers_anchor="" if view.is_toy else MARKERS_ANCHOR, shown=view.settings.show_special))
    intro = words("token_whys.intro", token_url=term_url("token", query), token_count=token_count(view))
    return [(words("token_whys.question"), "\n".join([intro, ""] + [f"- {note}" for note in notes]))]
