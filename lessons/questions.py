"""The quiz's questions, each built from the live numbers of the user's sentence: facts, no sentences.

Pure: no Streamlit. `quiz(steps, tokens, token)` returns the questions in page order, grouped by step; each
question carries its option identities, the right one, the facts its text and explanation quote (numbers as
Percent/Number, tokens as Token, lists as Listing/Numbers/Shares, and which branch of the story applies), and the
page that explains it. ui/sections/quiz.py renders them in the page's language from content/<language>/quiz.toml
(the texts `<key>_question`, `<key>_option_<option>`, `<key>_why`).
Near-duplicate questions of the seed texts are merged into one (noted on each question).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from attention import core

HOME, STEP1, STEP2, STEP3, STEP4 = ("app_pages/home.py", "app_pages/step1_scores.py", "app_pages/step2_scaling.py",
                                    "app_pages/step3_softmax.py", "app_pages/step4_output.py")
PRONOUN, MULTIHEAD, WHATIF = "app_pages/pronoun.py", "app_pages/multihead.py", "app_pages/whatif.py"
MEANING = "app_pages/meaning.py"
PAGES = (HOME, STEP1, STEP2, STEP3, STEP4, PRONOUN, MULTIHEAD, WHATIF, MEANING)  # the pages a question links to
# The page's groups, in page order (their names: quiz.group_<group>).
GROUPS = ("why", "step1", "step2", "step3", "step4", "together")


# --- the kinds of value a question quotes: the renderer formats each kind the same way everywhere ------------------
@dataclass(frozen=True)
class Percent:
    value: float          # a share, 0..1


@dataclass(frozen=True)
class Number:
    value: float
    digits: int = 2
    sign: bool = False    # "+0.123" (a separation); both signed and true-minus forms print "0.000" for a zero
    true_minus: bool = False  # "−0.123", as the meaning page prints its cosines


@dataclass(frozen=True)
class Token:
    text: str             # a token of the sentence, quoted by the page


@dataclass(frozen=True)
class Listing:
    """Tokens with a number each, "“a” 0.123, “b” 0.456 …"; `more`: the list was cut."""
    items: tuple[tuple[Token, Number], ...]
    more: bool = False


@dataclass(frozen=True)
class Numbers:
    """Numbers in a row, "0.12, 0.34 …"; `more`: the list was cut."""
    items: tuple[Number, ...]
    more: bool = False


@dataclass(frozen=True)
class Shares:
    """A row's largest shares; a None token is the looking token itself."""
    items: tuple[tuple[Percent, Token | None], ...]


@dataclass(frozen=True)
class Question:
    key: str                          # stable id: widget keys, texts and tests use it, whatever the sentence
    group: str                        # one of GROUPS
    options: tuple[str, ...] | None   # option identities in their written order; None: a free-text question
    right: str | None                 # the right option's identity
    page: str                         # the page that explains it
    facts: Mapping[str, object] = field(default_factory=dict, compare=False)  # the texts' values, by placeholder

    @property
    def correct(self) -> int | None:
        return None if self.options is None else self.options.index(self.right)

    def shuffled_options(self) -> list[str]:
        """A fixed order per question, so the right answer is not always first."""
        seed = int(hashlib.sha256(self.key.encode()).hexdigest()[:8], 16)
        return [self.options[j] for j in np.random.default_rng(seed).permutation(len(self.options))]


def is_right(question: Question, choice: str | None) -> bool:
    return question.options is not None and choice == question.right


def answer_key(sentence: str, question_key: str) -> str:
    """Widget key of one answer: per sentence, so a new sentence starts clean and an old one keeps its answers."""
    return f"quiz-{hashlib.sha256(sentence.encode()).hexdigest()[:10]}-{question_key}"


def score(questions: list[Question], choices: dict[str, str]) -> tuple[int, int, int]:
    """(right, answered, total) over the multiple-choice questions; choices maps question key -> option identity."""
    graded = [q for q in questions if q.options is not None]
    answered = [q for q in graded if choices.get(q.key) in q.options]
    right = sum(is_right(q, choices[q.key]) for q in answered)
    return right, len(answered), len(graded)


@dataclass(frozen=True)
class KeyEntry:
    """One line of the answer key: the question, numbered in page order."""

    number: int
    question: Question


def answer_sheet(questions: list[Question]) -> list[KeyEntry]:
    """Every question numbered in page order (the page's "Show all answers" and the printable answer key)."""
    ordered = [q for group in GROUPS for q in questions if q.group == group]
    return [KeyEntry(number, q) for number, q in enumerate(ordered, start=1)]


def _numbers(values, limit: int, digits: int) -> Numbers:
    return Numbers(tuple(Number(float(v), digits) for v in values[:limit]), len(values) > limit)


def quiz(steps: core.AttentionSteps, tokens: list[str], token: int, shown=None) -> list[Question]:
    """Every question for this sentence, with the selected token's row as the running example.

    `shown`: the rows the step pages show (learned mode hides [CLS]/[SEP] by default); a question that names "the
    last token" names the last one shown, and counts the hidden ones apart, as the pages do. None: every row is shown.
    """
    w, n, i = steps.weights, len(tokens), token
    row, me = w[i], Token(tokens[i])
    top = int(np.argmax(row))
    unscaled = core.softmax(steps.raw[i:i + 1])[0]
    far = max(range(n), key=lambda j: (abs(j - i) > 1) * row[j]) if n > 2 else top
    # d weight_j / d score_j = w_j (1 - w_j): a softmax row's own slopes, largest when no weight is near 1
    slope_scaled, slope_unscaled = (row * (1 - row)).max(), (unscaled * (1 - unscaled)).max()
    cos = steps.v @ steps.output[i] / (np.linalg.norm(steps.v, axis=1) * np.linalg.norm(steps.output[i]) + 1e-12)
    closest = int(np.argmax(cos))
    col_sums = w.sum(0)
    exps = np.exp(steps.scaled[i] - steps.scaled[i].max())
    huge = core.softmax(steps.scaled[i:i + 1] * 1000)[0]
    no_softmax = steps.scaled[i]
    uniform_out = steps.v.mean(axis=0)
    shown = list(range(n)) if shown is None else [int(j) for j in shown]
    hidden = [j for j in range(n) if j not in set(shown)]
    last = shown[-1]
    # The model's tokens, [CLS]/[SEP] included in learned mode: the step pages hide them, so the count says so.
    counted = dict(n=n, markers_included=any(t in ("[CLS]", "[SEP]") for t in tokens))
    nxt = (i + 1) % n

    def listing(values, limit=6, digits=3, keys=None):
        keys = list(range(n)) if keys is None else keys
        return Listing(tuple((Token(tokens[j]), Number(float(values[j]), digits)) for j in keys[:limit]),
                       len(keys) > limit)

    # The last shown token's walk-through, with the hidden markers counted apart as the step pages count them
    # (never ending on the token ".").
    last_facts = dict(last=Token(tokens[last]), markers=tuple(Token(tokens[j]) for j in hidden),
                      scores=listing(steps.scaled[last], 8, 2, shown), weights=listing(w[last], 8, 3, shown),
                      marker_scores=Numbers(tuple(Number(float(steps.scaled[last, j]), 2) for j in hidden)),
                      marker_total=Number(float(w[last, hidden].sum()), 3),
                      marker_weights=Numbers(tuple(Number(float(w[last, j]), 3) for j in hidden)))
    order = np.argsort(row)[::-1][:4]
    shares = Shares(tuple((Percent(float(row[j])), None if j == i else Token(tokens[j])) for j in order))

    def q(key, group, page, options=None, right=None, **facts):
        return Question(key, group, tuple(options) if options else None,
                        right if right is not None else (options[0] if options else None), page, facts)

    g_why, g1, g2, g3, g4, g_all = GROUPS
    return [
        # --- why self-attention (seed 002 q1, q2, q10)
        q("need", g_why, HOME, ("context", "shorter", "alphabet"), me=me, others=Percent(float(1 - row[i]))),
        q("self_vs_cross", g_why, STEP4, ("same_sentence", "no_softmax", "previous_word"), **counted),
        q("translation", g_why, STEP4, others=Percent(float(1 - np.diag(w).mean()))),
        # --- step 1 (seed 002 q8 merged with seed 004 "non-adjacent words")
        q("four_steps", g1, STEP1, ("scores_first", "softmax_first", "divide_first"), d_out=steps.output.shape[1],
          **counted),
        q("high_score", g1, STEP1, ("similar", "neighbours", "long_word"), me=me,
          best=Token(tokens[int(steps.raw[i].argmax())]), highest=Number(float(steps.raw[i].max())),
          lowest=Number(float(steps.raw[i].min()))),
        q("far_apart", g1, STEP1, ("every_pair", "neighbours", "three_words"), me=me, share=Percent(float(row[far])),
          far=Token(tokens[far]), distance=abs(far - i)),
        # --- step 2 (seed 002 q4)
        q("scale", g2, STEP2, ("all_or_nothing", "negative", "memory"), me=me, d_k=steps.d_k,
          raw_spread=Number(float(steps.raw[i].std())), scaled_spread=Number(float(steps.scaled[i].std())),
          unscaled_top=Percent(float(unscaled.max())), top=Percent(float(row.max()))),
        q("gradient", g2, STEP2, ("tiny_gradients", "not_one", "shorter"), me=me,
          slope_scaled=Number(float(slope_scaled), 3), slope_unscaled=Number(float(slope_unscaled), 3)),
        # --- step 3 (seed 000; "role" + "purpose" merged, "how applied" + "why row-wise" merged,
        #     "how calculated and interpreted" + "what do the weights of each word represent" merged)
        q("role", g3, STEP3, ("positive_shares", "best_only", "dot_products"), me=me,
          score_low=Number(float(steps.scaled[i].min())), score_high=Number(float(steps.scaled[i].max())),
          weight_low=Number(float(row.min()), 3), weight_high=Number(float(row.max()), 3),
          total=Number(float(row.sum()), 6)),
        q("arithmetic", g3, STEP3, me=me, exps=listing(exps), exps_total=Number(float(exps.sum()), 3),
          weights=listing(row)),
        q("sum_to_one", g3, STEP3, ("average", "symmetric", "no_matter"), sums=_numbers(w.sum(1), 5, 6)),
        q("no_softmax", g3, WHATIF, ("negative", "nothing", "first_word"), me=me,
          scores=listing(no_softmax, digits=2), total=Number(float(no_softmax.sum())),
          negatives=int((no_softmax < 0).sum())),
        q("row_by_row", g3, STEP3, ("rows", "columns", "whole"), n=n, column_low=Number(float(col_sums.min())),
          column_high=Number(float(col_sums.max()))),
        q("read_row", g3, STEP3, me=me, shares=shares),
        q("context", g3, STEP3, me=me, share=Percent(float(row[top])), top=Token(tokens[top]), next=Token(tokens[nxt]),
          next_share=Percent(float(w[nxt, top]))),
        q("extremes", g3, WHATIF, ("almost_all", "equal", "error"), me=me, top=Percent(float(huge.max()))),
        q("differentiable", g3, STEP3, ("smooth", "sum_to_one", "faster"), me=me,
          slope=Number(float(slope_scaled), 3)),
        # --- step 4 (seed 004; "final step" + "how calculated" merged, "why multiply by V" + "why V not Q
        #     or K" merged, "weighted sum for" + "each output row" + "contextual" merged)
        q("final", g4, STEP4, ("times_v", "softmax_again", "divide"), n=n, d_v=steps.v.shape[1]),
        q("why_v", g4, STEP4, ("what_is_passed", "largest", "deleted"), me=me, share=Percent(float(row[top])),
          top=Token(tokens[top])),
        q("output_row", g4, STEP4, me=me, d_out=steps.output.shape[1], n=n, closest=Token(tokens[closest]),
          cosine=Number(float(cos[closest]))),
        q("uniform", g4, WHATIF, ("average", "zeros", "v"), me=me, n=n, average=_numbers(uniform_out, 3, 2),
          output=_numbers(steps.output[i], 3, 2)),
        # --- putting it together (seed 002 q9, seed 004 last two)
        q("last_word", g_all, STEP1, **last_facts),
        q("next", g_all, MULTIHEAD, ("heads_joined", "final_answer", "back")),
        q("disambiguate", g_all, PRONOUN),
    ]


# The meaning quiz's options, in their written order: which is right is read from the measurement.
MEANING_BEFORE_OPTIONS = ("alike", "same", "far")
MEANING_CONTROL_OPTIONS = ("far_less", "about_as_far", "further")


def meaning_questions(result, names: tuple[str, str]) -> list[Question]:
    """Questions on the meaning page's measurement of a built-in word (lessons/meaning.Measurement): which answer is
    right is read from its numbers, and the explanations quote them."""
    from . import meaning as me

    g_all = GROUPS[-1]
    fact = me.facts(result)
    word, seps, out = Token(result.word), result.separation, result.separation_knocked_out
    last = len(seps) - 1  # hidden state `last` is "after layer `last`"
    a, b = Token(names[0]), Token(names[1])

    def cosine(x):
        return Number(float(x), 3, true_minus=True)

    def signed(x):
        return Number(float(x), 3, sign=True, true_minus=True)

    before = 1 if not fact.embeddings_differ else 0 if fact.embedding_low >= 0.8 else 2
    questions = [Question(
        "meaning_before", g_all, MEANING_BEFORE_OPTIONS, MEANING_BEFORE_OPTIONS[before], MEANING,
        dict(word=word, a=a, b=b, n_sentences=len(result.sentences), low=cosine(fact.embedding_low),
             high=cosine(fact.embedding_high),
             same_place_pairs=fact.same_place_pairs if fact.identical_only_at_same_place else 0))]
    control_gap, model_gap = fact.control_high - out[0], seps[1:].max() - seps[0]
    control = (2 if control_gap > model_gap + me.SEPARATES else 1 if control_gap >= 0.5 * model_gap else 0)
    questions.append(Question(
        "meaning_self_only", g_all, MEANING_CONTROL_OPTIONS, MEANING_CONTROL_OPTIONS[control], MEANING,
        dict(word=word, control_first=signed(out[0]), control_last=signed(out[last]), last_layer=last,
             control_high=signed(fact.control_high), first=signed(seps[0]), last=signed(seps[last]))))
    if me.separates(seps) and result.head_costs is not None:
        head = result.costliest_heads()[0]
        same, different = fact.same, fact.different
        questions.append(Question(
            "meaning_heads", g_all, None, None, MEANING,
            # layer: hidden state growth_layer comes out of the code's layer growth_layer - 1, read as layer growth_layer
            dict(word=word, a=a, b=b, last_layer=last, same_direction=same.direction,
                 same_start=cosine(same.start), same_end=cosine(same.end), different_direction=different.direction,
                 different_start=cosine(different.start), different_end=cosine(different.end),
                 first=signed(seps[0]), last=signed(seps[last]), head=head + 1, layer=result.growth_layer,
                 cost=Number(float(result.head_costs[head]), 3, true_minus=True))))
    return questions
