"""Why do the tokens look like that? Answered from the sentence's own tokens (the start page)."""

from __future__ import annotations

import re

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


# --- home: the tokens, where they are first shown

def token_whys(view: View, query: dict[str, str] | None = None) -> Whys:
    sentence = view.settings.sentence
    words = re.findall(r"\S+", sentence)[:60]
    notes = []
    upper = next((w for w in words if any(c.isupper() for c in w)), None)
    if upper:
        pieces = _pieces(view, upper)
        notes.append(f"The model is *uncased*: it reads every letter as lower case, so {quote(upper)} shows as "
                     f"{_joined(pieces)}.")
    split = next(((w, p) for w in re.findall(r"\w+", sentence)[:60] for p in [_pieces(view, w)]
                  if any(t.startswith("##") for t in p)), None)
    if split:
        notes.append(f"A word the model does not know whole is cut into "
                     f"{term_link('word piece (##)', 'word pieces', query)}: {quote(split[0])} becomes "
                     f"{_joined(split[1])}. “##” means “glued to the piece before”.")
    apostrophe = next((w for w in words if re.search(r"\w['’]\w", w)), None)
    if apostrophe:
        notes.append(f"An apostrophe is punctuation, so it splits the word: {quote(apostrophe)} becomes "
                     f"{_joined(_pieces(view, apostrophe))}.")
    punctuation = sorted({t for t in view.tokens if t and not any(c.isalnum() for c in t)})
    if punctuation:
        notes.append("Punctuation marks are tokens of their own (" + ", ".join(quote(t) for t in punctuation[:6])
                     + "): they take part in attention like words.")
    repeated = next(((label, token) for label, token in zip(view.labels, view.tokens) if label != token), None)
    if repeated:  # the labels the pages draw (ui/labels.py): a token said twice is named apart
        notes.append(f"A token said again is numbered on the pictures: the second {quote(repeated[1])} is "
                     f"{quote(repeated[0])}.")
    special = ("They are shown here." if view.settings.show_special
               else "They are hidden here; tick “Show [CLS] and [SEP]” in the sidebar to see them.")
    why = "" if view.is_toy else f" ([why so much attention goes to them](#{MARKERS_ANCHOR}))"
    notes.append(f"The model also adds two markers, {term_link('[CLS] and [SEP]', '[CLS] and [SEP]', query)}, at "
                 f"the start and end{why}. {special}")
    intro = (f"A {term_link('token', 'token', query)} is a piece of text the model reads. It reads "
             f"{token_count(view)}.")
    return [("Why do the tokens look like that?", "\n".join([intro, ""] + [f"- {note}" for note in notes]))]
