"""Read-outs generated from the numbers a page draws, each with its branch for when they say otherwise (a tie, a
uniform row, nothing at all). Markdown strings; no Streamlit."""

from __future__ import annotations

import numpy as np

from ui.text import md, pct, quote

TIE = 0.005  # two scores this close print the same to two decimals: a tie, not a winner


def key_name(labels, j: int, me: int | None) -> str:
    return "its own key" if j == me else f"the key of {quote(labels[j])}"


def plain_key(labels, j: int, me: int | None) -> str:
    return "its own key" if j == me else quote(labels[j])


def best_score(row, labels, me: int | None, hidden=()) -> str:
    """ "the key of “am” (3.21)", or a tie, and a note when the winner is a token hidden from the matrix."""
    row = np.asarray(row, dtype=np.float64)
    order = np.argsort(row)[::-1]
    best = int(order[0])
    tied = [int(j) for j in order if row[best] - row[j] < TIE]
    if len(tied) > 1:
        names = ", ".join(key_name(labels, j, me) for j in tied[:4])
        return f"a tie between {names} ({row[best]:.2f})"
    text = f"{key_name(labels, best, me)} (**{row[best]:.2f}**)"
    if best in set(int(h) for h in hidden):
        text += (", a marker token hidden from the matrix: its column there counts [CLS] and [SEP] as one key")
    return text


def shares(row, labels, me: int | None, limit: int = 5, floor: float = 0.01, verb: str = "on") -> str:
    """The largest shares of one row of weights, named as the row has them: "72% on “am”, 22% on
    “[CLS]+[SEP]”, and 6% on the other 2 keys". A uniform row says so."""
    row = np.asarray(row, dtype=np.float64)
    n = len(row)
    if n and np.ptp(row) < 1e-4:
        return f"the same share, {pct(row[0])}, {verb} every one of its {n} keys"
    order = [int(j) for j in np.argsort(row)[::-1]]
    named = [j for j in order[:limit] if row[j] >= floor] or order[:1]
    rest = [j for j in order if j not in named]
    parts = [f"**{pct(row[j])}** {verb} {'itself' if j == me else quote(labels[j])}" for j in named]
    text = ", ".join(parts)
    if rest:
        left = row[rest].sum()
        others = "the one other key" if len(rest) == 1 else f"the other {len(rest)} keys"
        text += f", and {pct(left) if left > 0 else 'nothing'} {verb} {others}"
    return text

def no_contrast_note(change, rows) -> str:
    """When no row of the sentence changes with scaling: say so, and where to see it."""
    return (f"On this head scaling barely changes any row of your sentence (a row's entropy changes by at most "
            f"{max(float(change[rows].max()), 0.0):.2f} bits), so there is little to see here. Pick “a head that "
            "looks at the next word” in the sidebar to see a row it changes. ")


def share_text(x: float) -> str:
    """pct, except that a share too small to print as 0.1% says so instead of reading "0.0%"."""
    return "less than 0.1%" if 0 < x < 0.0005 else pct(x)


def every_token_lines(view, limit: int = 3) -> list[str]:
    """One line per shown token, from the drawn weights: where it looks (its largest share) and what its output
    mixes (step 4: each value times its share). A largest share on the hidden markers' column names each marker's
    own share, so "." giving its attention to the next token, [SEP], is not hidden in "[CLS] + [SEP]"."""
    keys, labels, weights = view.key_labels, view.labels, view.weights
    lines = []
    for i, label in enumerate(labels):
        row = np.asarray(weights[i], dtype=np.float64)
        order = [int(j) for j in np.argsort(row)[::-1]]
        top = order[0]
        where = f"{'itself' if top == i else quote(keys[top])}: **{pct(row[top])}**"
        if top >= len(labels):  # the folded column of the hidden markers: each one's own share, from the model's row
            where += " (" + ", ".join(f"{share_text(float(view.full.weights[view.shown[i], j]))} on "
                                      f"{md(view.analysis.tokens[j])}" for j in view.hidden) + ")"
        named = [j for j in order[:limit] if row[j] >= 0.01] or order[:1]
        parts = [f"{pct(row[j])} {'itself' if j == i else quote(keys[j])}" for j in named]
        rest = [j for j in order if j not in named]
        if rest:
            left = float(row[rest].sum())
            parts.append(f"{share_text(left) if left > 0 else 'nothing'} "
                         f"{'the one other key' if len(rest) == 1 else f'the other {len(rest)} keys'}")
        # weights, not shares of the output: a long value vector adds more than its weight (step 4)
        lines.append(f"{quote(label)} looks most at {where}. Its output mixes the values with the weights "
                     + ", ".join(parts) + ".")
    return lines


def token_count(view) -> str:
    """Every count of tokens said one way: "4 tokens of your sentence + [CLS] and [SEP] = 6 tokens", so the 4 rows
    drawn and the model's 6 × 6 matrix never read as two different counts."""
    words = int((~np.asarray(view.analysis.is_special)).sum())
    every = int(view.analysis.n_tokens)
    markers = " and ".join(dict.fromkeys(t for t, special in zip(view.analysis.tokens, view.analysis.is_special)
                                         if special)) or "no marker"
    if view.is_toy and view.hidden.size == 0 and len(view.tokens) == words:
        return f"{words} tokens of your sentence (the toy projections compute with these only, without {markers})"
    return f"{words} tokens of your sentence + {markers} = {every} tokens"


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
    return (f" The last token, {quote(view.labels[-1])}, has no word after it: its next token is "
            f"{md(view.analysis.tokens[after])}, which gets {pct(share)} of its attention, drawn inside the "
            f"“{md(view.hidden_label)}” column.")


def word_parts(view, row, keys, limit: int = 4) -> str:
    """The other words' shares that make up "73% from the other tokens of your sentence", each printed as the
    figure prints it: "“am” 72% + “good” 1% + “.” 0.1%" (the largest first, the rest counted)."""
    words = [j for j in range(len(view.tokens)) if j != view.token and not view.analysis.is_special[view.shown[j]]] \
        if not view.is_toy else [j for j in range(len(view.tokens)) if j != view.token]
    words.sort(key=lambda j: -row[j])
    parts = [f"{quote(keys[j])} {pct(row[j])}" for j in words[:limit]]
    if len(words) > limit:
        parts.append(f"{len(words) - limit} more {share_text(float(sum(row[j] for j in words[limit:])))}")
    return " + ".join(parts)
