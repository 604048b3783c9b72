"""Read-outs generated from the numbers a page draws, each with its branch for when they say otherwise (a tie, a
uniform row, nothing at all). Markdown strings; no Streamlit."""

from __future__ import annotations

import numpy as np

from ui.content import words
from ui.settings import preset_name
from ui.text import md, pct, quote

NEXT_WORD_PRESET = "a head that looks at the next word"  # the preset no_contrast_note points to (ui/settings.py)

TIE = 0.005  # two scores this close print the same to two decimals: a tie, not a winner


def key_name(labels, j: int, me: int | None) -> str:
    return words("readouts.own_key") if j == me else words("readouts.key_of", token=quote(labels[j]))


def plain_key(labels, j: int, me: int | None) -> str:
    return words("readouts.own_key") if j == me else quote(labels[j])


def best_score(row, labels, me: int | None) -> str:
    """ "the key of “am” (3.21)", or a tie (the row as drawn: every key it names is a column)."""
    row = np.asarray(row, dtype=np.float64)
    order = np.argsort(row)[::-1]
    best = int(order[0])
    tied = [int(j) for j in order if row[best] - row[j] < TIE]
    if len(tied) > 1:
        names = ", ".join(key_name(labels, j, me) for j in tied[:4])
        return words("readouts.score_tie", names=names, score=f"{row[best]:.2f}")
    return words("readouts.score_best", name=key_name(labels, best, me), score=f"{row[best]:.2f}")


def shares(row, labels, me: int | None, limit: int = 5, floor: float = 0.01, verb: str = "on") -> str:
    """The largest shares of one row of weights, named as the row has them: "72% on “am”, 22% on
    “[CLS]+[SEP]”, and 6% on the other 2 keys". A uniform row says so."""
    row = np.asarray(row, dtype=np.float64)
    n = len(row)
    verb = words(f"readouts.verb_{verb}")  # verb: "on" or "from", the code's names of the two ways to say it
    if n and np.ptp(row) < 1e-4:
        return words("readouts.shares_uniform", share=pct(row[0]), verb=verb, n=n)
    order = [int(j) for j in np.argsort(row)[::-1]]
    named = [j for j in order[:limit] if row[j] >= floor] or order[:1]
    rest = [j for j in order if j not in named]
    itself = words("readouts.itself")
    parts = [words("readouts.share_part", share=pct(row[j]), verb=verb, key=itself if j == me else quote(labels[j]))
             for j in named]
    text = ", ".join(parts)
    if rest:
        left = row[rest].sum()
        text += words("readouts.shares_rest", left=pct(left) if left > 0 else words("readouts.nothing"), verb=verb,
                      others=words("readouts.rest_keys", n=len(rest)))
    return text

def no_contrast_note(change, rows) -> str:
    """When no row of the sentence changes with scaling: say so, and where to see it."""
    return words("readouts.no_contrast", change=f"{max(float(change[rows].max()), 0.0):.2f}",
                 preset=preset_name(NEXT_WORD_PRESET))


def every_token_lines(view, limit: int = 3) -> list[str]:
    """One line per shown token, from the drawn weights: where it looks (its largest share) and what its output
    mixes (step 4: each value times its share). A largest share on the hidden markers' column names each marker's
    own share, so "." giving its attention to the next token, [SEP], is not hidden in "[CLS] + [SEP]"."""
    keys, labels, weights = view.key_labels, view.labels, view.weights
    lines = []
    itself = words("readouts.itself")
    for i, label in enumerate(labels):
        row = np.asarray(weights[i], dtype=np.float64)
        order = [int(j) for j in np.argsort(row)[::-1]]
        top = order[0]
        markers = ""
        if top >= len(labels):  # the folded column of the hidden markers: each one's own share, from the model's row
            markers = ", ".join(words("readouts.marker_share", marker=md(view.analysis.tokens[j]),
                                      share=pct(float(view.full.weights[view.shown[i], j])))
                                for j in view.hidden)
        named = [j for j in order[:limit] if row[j] >= 0.01] or order[:1]
        parts = [words("readouts.weight_part", share=pct(row[j]), key=itself if j == i else quote(keys[j]))
                 for j in named]
        rest = [j for j in order if j not in named]
        if rest:
            left = float(row[rest].sum())
            parts.append(words("readouts.weight_part", share=pct(left) if left > 0 else
                               words("readouts.nothing"), key=words("readouts.rest_keys", n=len(rest))))
        # weights, not shares of the output: a long value vector adds more than its weight (step 4)
        lines.append(words("readouts.token_line", token=quote(label), where=itself if top == i else quote(keys[top]),
                           share=pct(row[top]), markers=markers, parts=", ".join(parts)))
    return lines


def token_count(view) -> str:
    """Every count of tokens said one way: "4 tokens of your sentence + [CLS] and [SEP] = 6 tokens", so the 4 rows
    drawn and the model's 6 × 6 matrix never read as two different counts."""
    n_words = int((~np.asarray(view.analysis.is_special)).sum())
    every = int(view.analysis.n_tokens)
    markers = words("readouts.marker_and").join(dict.fromkeys(
        t for t, special in zip(view.analysis.tokens, view.analysis.is_special) if special)) \
        or words("readouts.no_marker")
    if view.is_toy and view.hidden.size == 0 and len(view.tokens) == n_words:
        return words("readouts.token_count_toy", words=n_words, markers=markers)
    return words("readouts.token_count", words=n_words, markers=markers, every=every)


def next_token_note(view, pattern: str) -> str:
    """A next-word head with the markers hidden: the last token's next token is [SEP], inside the folded column, so
    its large share there is the same pattern, not an exception. Empty when it does not apply."""
    if pattern != "next token" or view.is_toy or not view.hidden.size:
        return ""
    last = int(view.shown[-1])
    after = last + 1
    if after >= view.analysis.n_tokens or after not in set(view.hidden.tolist()):
        return ""
    share = float(view.full.weights[last, after])
    return words("readouts.next_token", token=quote(view.labels[-1]), marker=md(view.analysis.tokens[after]),
                 share=pct(share), column=md(view.hidden_label))


def word_parts(view, row, keys, limit: int = 4) -> str:
    """The other words' shares that make up "73% from the other tokens of your sentence", each printed as the
    figure prints it: "“am” 72% + “good” 1% + “.” 0.1%" (the largest first, the rest counted)."""
    others = [j for j in range(len(view.tokens)) if j != view.token and not view.analysis.is_special[view.shown[j]]] \
        if not view.is_toy else [j for j in range(len(view.tokens)) if j != view.token]
    others.sort(key=lambda j: -row[j])
    parts = [f"{quote(keys[j])} {pct(row[j])}" for j in others[:limit]]
    if len(others) > limit:
        parts.append(words("readouts.more_words", n=len(others) - limit,
                           share=pct(float(sum(row[j] for j in others[limit:])))))
    return " + ".join(parts)
