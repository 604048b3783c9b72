"""The meaning page's stories: each paragraph rendered from the facts lessons/meaning.py measured (which branch, which
numbers), with the words of content/<language>/meaning.toml. Every number is formatted here, once, the way the
figures' hover texts and the tests print it (lessons/meaning.py signed, cosine, plain, share)."""

from __future__ import annotations

from lessons import meaning as me

from ui.content import words
from ui.figures.meaning import similarity_range
from ui.text import head_name, layer_name, md, quote


def default_names() -> tuple[str, str]:
    """The two groups' names when the boxes do not hold a built-in set."""
    return words("meaning.default_name_a"), words("meaning.default_name_b")


def after(state: int) -> str:
    """Hidden state L >= 1's layer name: L = 2 is "layer 2" (the templates say "after …")."""
    return layer_name(state - 1)


def word_set_error(error: me.WordSetError) -> str:
    """What is wrong with the word set as typed, and what to type instead."""
    values = error.values
    group = default_names()[values["group"]] if "group" in values else ""
    return words("meaning.word_set_error", kind=error.kind, group=md(group), count=values.get("count", 0),
                 limit=values.get("limit", 0), missing=values.get("missing", []))


def embedding_story(result: me.Measurement, fact: me.Facts) -> str:
    """Why the word's vectors differ before any attention: the position the embedding adds."""
    same_place = fact.same_place_pairs if fact.identical_only_at_same_place else 0
    return words("meaning.embedding_story", word=quote(result.word), differ=fact.embeddings_differ,
                 low=me.cosine(fact.embedding_low), high=me.cosine(fact.embedding_high), same_place=same_place)


def separation_story(result: me.Measurement, fact: me.Facts) -> str:
    """What the two charts show, every number a drawn y value; a branch for each direction and for meanings that do
    not separate."""
    last = len(result.separation) - 1
    top = fact.separation_top
    return words("meaning.separation_story", word=quote(result.word), last_layer=after(last),
                 same_direction=fact.same.direction, same_start=me.cosine(fact.same.start),
                 same_end=me.cosine(fact.same.end), different_direction=fact.different.direction,
                 different_start=me.cosine(fact.different.start), different_end=me.cosine(fact.different.end),
                 separates=result.growth_layer is not None, changes_less=fact.different_changes_less,
                 start=me.signed(fact.separation.start), end=me.signed(fact.separation.end),
                 low=me.signed(fact.separation_low), high=me.signed(fact.separation_high),
                 threshold=f"{me.SEPARATES:.2f}", top_layer=after(top) if top != last else "",
                 top=me.signed(result.separation[top]), splits=f"{fact.splits:,}", n_a=result.n_a,
                 m=len(result.sentences), verdict=fact.split_verdict, as_large=f"{fact.splits_as_large:,}",
                 as_large_share=f"{fact.splits_as_large / fact.splits:.0%}")


def control_story(result: me.Measurement, fact: me.Facts) -> str:
    """The control: self-only attention gives what the word and its position alone give."""
    return words("meaning.control_story", word=quote(result.word), start=me.signed(fact.control.start),
                 end=me.signed(fact.control.end), high=me.signed(fact.control_high),
                 control_separates=fact.control_separates, separates=result.growth_layer is not None,
                 gap=me.signed(fact.separation.end - fact.control.end))


def matrix_story(result: me.Measurement, fact: me.Facts, names: tuple[str, str]) -> str:
    """What the animated matrix shows under its one colour scale, from the same numbers as the means chart."""
    low, high = similarity_range(result.similarity)
    same, different = fact.same, fact.different
    return words("meaning.matrix_story", word=quote(result.word), n_a=result.n_a, n_b=result.n_b,
                 name_a=md(names[0]), name_b=md(names[1]), low=me.cosine(low), high=me.cosine(high),
                 same_direction=same.direction, same_start=me.cosine(same.start), same_end=me.cosine(same.end),
                 different_direction=different.direction, different_start=me.cosine(different.start),
                 different_end=me.cosine(different.end),
                 across_more=same.direction == different.direction == "falls" and fact.different_changes_less)


def accuracy_story(result: me.Measurement) -> str:
    fact = me.accuracy_facts(result)
    return words("meaning.accuracy_story", start=me.share(fact.start), sentences=fact.sentences,
                 last_layer=after(len(result.accuracy) - 1), end=me.share(fact.end), best=me.share(fact.best),
                 best_state=fact.best_at, best_layer=after(fact.best_at) if fact.best_at else "",
                 control_end=me.share(fact.control_end), chance=me.share(fact.chance),
                 positions=fact.positions_above_chance, at_chance=fact.at_chance)


def heads_story(result: me.Measurement, spread: me.HeadSpread | None) -> str | None:
    """What mean-ablating one head of the layer where separation first grows does (None when the meanings do not
    separate), with the drops' spread over the built-in words measured at that layer."""
    fact = me.head_facts(result)
    if fact is None:
        return None
    heads = [{"name": head_name(h), "drop": me.plain(result.head_costs[h]),
              "left": me.signed(result.head_separation[h])} for h in fact.costly]
    head = fact.costly[0] if fact.costly else 0
    low = high = mean = ""
    if spread is not None and fact.costly:
        low, high = me.plain(spread.drops[:, head].min()), me.plain(spread.drops[:, head].max())
        mean = me.plain(spread.mean[head])
    return words("meaning.heads_story", layer=after(fact.grown), before=me.signed(fact.before),
                 after=me.signed(fact.after), heads=heads, remains=fact.remains, head=head_name(head),
                 without=me.plain(fact.without), added=me.plain(fact.added), total=me.plain(fact.total_drop),
                 spread=spread is not None, words=", ".join(quote(w) for w in spread.words) if spread else "",
                 low=low, high=high, mean=mean, same_leader=bool(spread and spread.same_leader(head)))
