"""The pronoun page's readings, said from lessons/pronoun.py's facts: the verdict on the head chosen in advance, what
the two grids say, what rollout says and what the contrast test finds. Every number is formatted here from the same
fact the figure draws; the sentences are in content/<language>/pronoun.toml."""

from __future__ import annotations

from lessons import pronoun as pr
from ui.content import words
from ui.text import layer_head_name, layer_head_tag, pct, quote


def record_checked(record: pr.Record) -> str:
    """The chosen head's record on the sentences it was not chosen on, beside the fixed rules and a guessing head."""
    return words("pronoun.record_checked", held_right=record.held_right, n_held=record.n_held,
                 subject=record.subject, nearest=record.nearest, n_pairs=record.n_pairs,
                 pairs_right=record.pairs_right, guess_mean=f"{record.guess_mean:.0f}", guess_low=record.guess_low,
                 guess_high=record.guess_high)


def page_verdict(found: pr.Verdict, a_text: str, b_text: str, pronoun_text: str, board: pr.Scoreboard,
                 known_as: str = "") -> tuple[str, str]:
    """The page's one verdict on the head chosen in advance, as (first read, how it was measured). The first read is
    the verdict and what the head does on this sentence: a slide's two sentences. The second is which head, chosen on
    which sentences, and its record on those it was not chosen on beside a guessing head and the fixed rules: the
    verdict's effect size and control, one click away. No verdict over many heads: they are not independent guesses.
    known_as: the preset's name when the head is one. Both empty without a chosen head."""
    record = pr.chosen_record(board)
    if record is None:
        return "", ""
    verdict = words("pronoun.verdict_head", reading=record.reading, looks=record.looks_at_nouns,
                    guessing=record.pairs_against_guessing)
    here = words("pronoun.verdict_here", a=quote(a_text), b=quote(b_text), pronoun=quote(pronoun_text),
                 weight_a=pct(float(found.weight_a[record.head])), weight_b=pct(float(found.weight_b[record.head])))
    which = words("pronoun.verdict_which", head=layer_head_name(*record.head), known_as=known_as,
                  n_selection=record.n_selection, n_checked=record.n_checked)
    return " ".join((verdict, here)), " ".join((which, record_checked(record), words("pronoun.verdict_below")))


def numbers_say(found: pr.Verdict, pronoun_text: str, a_text: str, b_text: str, tokens) -> str:
    """What the two grids say, as one paragraph (the template's lines are its sentences)."""
    best = found.best
    text = words("pronoun.numbers_say", n_a=found.n_prefer_a, n_b=found.n_prefer_b, n_same=found.n_same,
                 n_heads=found.n_heads, a=quote(a_text), b=quote(b_text), pronoun=quote(pronoun_text),
                 looking=found.looking, elsewhere=pct(pr.ELSEWHERE), n_elsewhere=found.n_heads - found.n_looking,
                 n_looking=found.n_looking, n_looking_a=found.n_looking_a,
                 head=layer_head_name(best[0], best[1], found.weight_a.shape[0], capital=True),
                 weight_a=pct(float(found.weight_a[best])), weight_b=pct(float(found.weight_b[best])),
                 reading=found.best_reading, top_weight=pct(found.top_weight), top=quote(tokens[found.top]))
    return " ".join(line.strip() for line in text.split("\n") if line.strip())


def rollout_text(last_roll: dict[str, float], pronoun_text: str, n_tokens: int) -> str:
    """After the last layer: each candidate's rollout share and what they say together."""
    lead = pr.rollout_lead(last_roll)
    shares = ", ".join(words("pronoun.rollout_share", share=pct(value), word=quote(word))
                       for word, value in last_roll.items())
    return words("pronoun.rollout_after", pronoun=quote(pronoun_text), shares=shares, n_tokens=n_tokens,
                 even=pct(1 / n_tokens), reading=lead.reading, small=pct(lead.small), top=quote(lead.top),
                 points=f"{100 * lead.lead:.0f}")


def contrast_text(found: pr.Contrast, n_layers: int) -> str:
    """The contrast test's counts, the flipping heads blank in the grid, the chosen head's outcome, and why a count
    of heads is no test."""
    flipped = found.flipped
    first = flipped[0] if flipped else (0, 0)
    parts = [words("pronoun.contrast_counts", n_first=int(found.right_first.sum()),
                   n_second=int(found.right_second.sum()), n_flipped=len(flipped),
                   flipped=", ".join(layer_head_tag(*head) for head in flipped[:12]), more=len(flipped) > 12,
                   first_tag=layer_head_tag(*first), first_name=layer_head_name(*first, n_layers))]
    if found.blank is not None and flipped:
        parts.append(words("pronoun.contrast_blank", n_blank=len(found.blank_heads), n_flipped=len(flipped),
                           names=", ".join(layer_head_tag(*head) for head in found.blank_heads),
                           elsewhere=pct(pr.ELSEWHERE)))
    if found.chosen is not None:
        parts.append(words("pronoun.contrast_chosen", head=layer_head_tag(*found.chosen),
                           outcome=found.chosen_outcome))
    parts.append(words("pronoun.contrast_no_test"))
    return " ".join(part.strip() for part in parts)
