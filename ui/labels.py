"""Token labels a student can tell apart: a repeated word gets a small number, "the", "the²", "the³"; and the line
saying where the tokens differ from the words typed ("I" read as "i", "didn't" as "didn" "'" "t")."""

from __future__ import annotations

from lessons.tokens_said import token_changes
from ui.content import words
from ui.text import quote

_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def unique_labels(tokens) -> list[str]:
    """Each token as itself the first time it occurs, then with its occurrence number raised: the chips, the
    selectbox and the axes then name one token each (a widget matches its options by their labels)."""
    counts: dict[str, int] = {}
    labels = []
    for token in tokens:
        token = str(token)
        counts[token] = counts.get(token, 0) + 1
        labels.append(token if counts[token] == 1 else token + str(counts[token]).translate(_SUPERSCRIPTS))
    taken = set()
    for k, label in enumerate(labels):  # a typed "the²" next to a second "the": keep every label distinct
        while label in taken:
            label += "′"
        taken.add(label)
        labels[k] = label
    return labels


def numbered_note(tokens, labels=None) -> str:
    """One plain line saying what the raised number means, from the labels drawn (unique_labels(tokens) unless
    given): "" when no label is numbered, so there is nothing to explain. Named by the first repeat."""
    tokens = [str(t) for t in tokens]
    labels = unique_labels(tokens) if labels is None else list(labels)
    numbered = [k for k, (token, label) in enumerate(zip(tokens, labels)) if label != token]
    if not numbered:
        return ""
    token = tokens[numbered[0]]
    third = next((labels[k] for k in numbered[1:] if tokens[k] == token), "")
    return words("pickers.numbered", token=quote(token), second=quote(labels[numbered[0]]),
                 third=quote(third) if third else "")


def changed_note(sentence: str, tokens, special=()) -> str:
    """One plain line naming the first word the model reads in small letters and the first it reads as several
    tokens, measured on the sentence and its tokens: "" when the tokens are the words as typed."""
    changes = token_changes(sentence, tokens, special)
    if not changes:
        return ""
    lowered, split = changes.lowercased, changes.split
    return words("pickers.changed", lowered=quote(lowered.word) if lowered else "",
                 read=quote(lowered.read) if lowered else "", split=quote(split.word) if split else "",
                 pieces=" ".join(quote(t) for t in split.tokens) if split else "")
