"""Describing what heads do, from their attention matrices alone (numpy only)."""

from __future__ import annotations

import numpy as np

from attention import core

from .pronoun import case_weights, choose_head, role_cases, role_pairs

# The patterns a page can name (each page words them in its content/ file); a head with none of them is SPREAD.
PATTERNS = ("itself", "previous token", "next token", "[CLS]", "[SEP]", "punctuation")


def pattern_scores(weights, tokens, is_special):  # [n_heads, n, n] -> dict name -> [n_heads]
    """The average share of each row that goes to a recognisable target."""
    weights = np.asarray(weights)
    n = weights.shape[-1]
    tokens = list(tokens)
    rows = np.arange(n)
    scores = {
        "itself": weights[:, rows, rows].mean(-1),
        "previous token": weights[:, rows[1:], rows[1:] - 1].mean(-1) if n > 1 else np.zeros(len(weights)),
        "next token": weights[:, rows[:-1], rows[:-1] + 1].mean(-1) if n > 1 else np.zeros(len(weights)),
        "[CLS]": weights[..., [i for i, t in enumerate(tokens) if t == "[CLS]"]].sum(-1).mean(-1),
        "[SEP]": weights[..., [i for i, t in enumerate(tokens) if t == "[SEP]"]].sum(-1).mean(-1),
        "punctuation": weights[..., [i for i, t in enumerate(tokens)
                                     if not is_special[i] and t and all(not c.isalnum() for c in t)]].sum(-1).mean(-1),
    }
    return scores


LARGEST_TARGET_SHARE = 0.4  # a head's largest target is named when it gets at least this share, on one sentence
SPREAD = "spread"  # describe_heads's pattern for a head no target gets that share of (the page names it)


def describe_heads(weights, tokens, is_special, threshold=LARGEST_TARGET_SHARE):  # -> list of (pattern, share)
    """Each head's strongest pattern if it takes at least `threshold` of the attention, else SPREAD. On one
    sentence: a description of that sentence's weights, not a role the head keeps on others."""
    scores = pattern_scores(weights, tokens, is_special)
    labels = []
    for h in range(len(weights)):
        name = max(PATTERNS, key=lambda p: scores[p][h])
        share = float(scores[name][h])
        labels.append((name, share) if share >= threshold else (SPREAD, share))
    return labels


def head_distances(weights):  # [n_heads, n, n] -> [n_heads, n_heads]
    """Mean over rows of the total-variation distance between two heads' attention (0 = identical, 1 = disjoint)."""
    w = np.asarray(weights)
    # One head against all at a time: the all-pairs difference at once is [12, 12, n, n], 75 MB at 256 tokens.
    return np.stack([0.5 * np.abs(w[h] - w).sum(-1).mean(-1) for h in range(len(w))])


def layer_spread(attentions, rows):  # [n_layers, n_heads, n, n], row positions -> [n_layers]
    """How much each layer's heads differ on one sentence: the mean, over every pair of two different heads, of
    head_distances over the given rows (the tokens a page draws). 0 = all heads alike, 1 = no two overlap."""
    rows = np.asarray(rows, dtype=int)
    spreads = []
    for layer_weights in attentions:
        distances = head_distances(np.asarray(layer_weights)[:, rows])
        n = len(distances)
        spreads.append(distances.sum() / (n * (n - 1)) if n > 1 else 0.0)
    return np.asarray(spreads)


def next_word_rows(weights, shown):  # [n_shown, n_columns] as drawn, shown positions -> list of (row, next, largest)
    """Each drawn row whose next token in the sentence is drawn too: its row, the next token's column and the column
    it gives the most (the same column when it looks most at the word after it). A folded [CLS] + [SEP] column
    is the last one, and counts as one target, as the page draws it."""
    shown = [int(p) for p in shown]
    return [(row, shown.index(position + 1), int(np.argmax(weights[row])))
            for row, position in enumerate(shown) if position + 1 in shown]


# A default view must teach every step (issue 29): the selected row soft enough that softmax is visibly a
# weighting, not a pick, and √d_k visibly changing it. These are the limits the default is held to.
SOFT_ROW_LARGEST = 0.9       # the row's largest drawn weight at most this
SOFT_ROW_VISIBLE = 0.05      # a share a student sees in the heatmap
SOFT_ROW_MIN_VISIBLE = 2     # at least this many of them
SOFT_ROW_ENTROPY_CHANGE = 0.25  # bits between the row with and without √d_k
NAMEABLE_PATTERNS = ("itself", "previous token", "next token")  # a pattern a student can say in words


def row_softness(raw_row, d_k: int, shown, hidden):  # [n] raw scores of one row -> dict
    """How soft one row of attention is, as a page draws it (hidden tokens folded into one column).

    raw_row is the row of Q·Kᵀ over the whole sentence; the weights are softmax(raw / √d_k), the model's own.
    Entropies are over the whole row (every token the model sees), with and without the √d_k scaling.
    """
    raw_row = np.asarray(raw_row, dtype=np.float64)
    scaled_weights = core.softmax(core.scale_scores(raw_row[None], d_k))[0]
    unscaled_weights = core.softmax(raw_row[None])[0]
    drawn = fold_columns(scaled_weights, shown, hidden)
    entropy = float(core.row_entropy(scaled_weights[None])[0])
    entropy_unscaled = float(core.row_entropy(unscaled_weights[None])[0])
    largest = float(drawn.max())
    visible = int((drawn >= SOFT_ROW_VISIBLE).sum())
    return {"largest weight": largest, "visible shares": visible, "entropy (bits)": entropy,
            "entropy without scaling (bits)": entropy_unscaled,
            "soft": bool(largest <= SOFT_ROW_LARGEST and visible >= SOFT_ROW_MIN_VISIBLE
                         and abs(entropy - entropy_unscaled) >= SOFT_ROW_ENTROPY_CHANGE)}


def fold_columns(row, shown, hidden):  # [n] -> [n_shown + (1 if hidden else 0)]
    row = np.asarray(row)
    hidden = np.asarray(hidden, dtype=int)
    return np.concatenate([row[np.asarray(shown, dtype=int)], [row[hidden].sum()] if hidden.size else []])


def teaching_heads(model, analysis, row: int):  # -> list of (layer, head, pattern, share, softness), best first
    """Every layer and head of `model` on one sentence: the heads whose pattern a student can name (over the whole
    sentence) and whose row `row` (a position in analysis.tokens) is soft, the clearest pattern first.

    model is an AttentionModel (attention/model.py): head_weights(layer, head) gives that head's W_Q, W_K, W_V.
    """
    shown = np.flatnonzero(~analysis.is_special)
    hidden = np.flatnonzero(analysis.is_special)
    found = []
    for layer in range(analysis.n_layers):
        x = analysis.hidden_states[layer].astype(np.float64)
        for head in range(analysis.n_heads):
            q, k, _ = core.learned_projection(x, model.head_weights(layer, head))
            raw = core.raw_scores(q, k)
            weights = core.softmax(core.scale_scores(raw, q.shape[-1]))
            (pattern, share), = describe_heads(weights[None], analysis.tokens, analysis.is_special)
            softness = row_softness(raw[row], q.shape[-1], shown, hidden)
            if pattern in NAMEABLE_PATTERNS and softness["soft"]:
                found.append((layer, head, pattern, share, softness))
    return sorted(found, key=lambda item: -item[3])


# --- heads named by what they do beyond the next or previous word (issues 41, 51) ---------------------------------

# A role's head is chosen on its "selection" sentences only and checked on its "held_out" sentences (and pairs),
# which the choice never saw: lessons/data/role_heads.json, read by lessons/pronoun.py. A case names the word that
# looks, two words it could look at and the one the role says it finds ("cat²" is the second "cat").
ROLES = ("pronoun", "same word")


def word_position(tokens, word: str) -> int:
    """The position of a whole-token word in tokens; "cat²" is the second "cat"."""
    base, nth = (word[:-1], 1) if word.endswith("²") else (word, 0)
    return [i for i, token in enumerate(tokens) if token == base][nth]


def _attentions_of(analyze):
    def attentions_of(sentence):
        analysis = analyze(sentence)
        return analysis.attentions, analysis.tokens, analysis.word_ids
    return attentions_of


def role_head(role: str, analyze) -> tuple[int, int, int]:
    """(layer, head, heads passing): the head a role names, chosen on its selection sentences alone
    (lessons/pronoun.py choose_head)."""
    answer, other, _, _ = case_weights(role_cases(role, "selection"), _attentions_of(analyze))
    return choose_head(answer, other)


def held_out_cases(role: str) -> list:
    """Every sentence a role's head is checked on: its held-out sentences, then its pairs' sentences in order."""
    return role_cases(role, "held_out") + [case for pair in role_pairs(role) for case in pair]


def role_check(role: str, analyze):  # -> answer [L, H, n], other [L, H, n], first noun right [n], nearest right [n]
    """Each head's attention from the looking word to the answer and to the other word, on the held-out sentences."""
    return case_weights(held_out_cases(role), _attentions_of(analyze))


def focus_head(model, analysis, row: int, target: int):  # -> (layer, head, share)
    """The head, over every layer and head, that sends row's token most to target while its row stays soft
    (row_softness: a weighting, not a one-hot pick, so every step page has something to show)."""
    shown = np.flatnonzero(~analysis.is_special)
    hidden = np.flatnonzero(analysis.is_special)
    best = (-1, -1, -1.0)
    for layer in range(analysis.n_layers):
        x = analysis.hidden_states[layer].astype(np.float64)
        for head in range(analysis.n_heads):
            q, k, _ = core.learned_projection(x, model.head_weights(layer, head))
            raw = core.raw_scores(q, k)
            share = float(analysis.attentions[layer, head, row, target])
            if share > best[2] and row_softness(raw[row], q.shape[-1], shown, hidden)["soft"]:
                best = (layer, head, share)
    return best
