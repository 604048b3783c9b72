"""The quiz's questions, each built from the live numbers of the user's sentence.

Pure: no Streamlit. `quiz(steps, tokens, token)` returns the questions in page order, grouped by step; each
question carries its options, the right option, an explanation that quotes the live numbers, and the page
that explains it. `verdict(question, choice)` is the feedback a student sees after choosing.
Near-duplicate questions of the seed texts are merged into one (noted on each question).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from attention import core

from .names import head_name, layer_name

HOME, STEP1, STEP2, STEP3, STEP4 = ("app_pages/home.py", "app_pages/step1_scores.py", "app_pages/step2_scaling.py",
                                    "app_pages/step3_softmax.py", "app_pages/step4_output.py")
PRONOUN, MULTIHEAD, WHATIF = "app_pages/pronoun.py", "app_pages/multihead.py", "app_pages/whatif.py"
MEANING = "app_pages/meaning.py"
PAGE_TITLES = {HOME: "What self-attention does", STEP1: "Step 1 · Query·Key scores",
               STEP2: "Step 2 · Scaling by √d_k", STEP3: "Step 3 · Softmax → weights",
               STEP4: "Step 4 · Output = weights·V", PRONOUN: "Does “it” find its noun?",
               MULTIHEAD: "Multi-head attention", WHATIF: "What-if lab",
               MEANING: "A word's meaning comes from its sentence"}
GROUPS = ("Why self-attention", "Step 1 · Query·Key scores", "Step 2 · Scaling by √d_k",
          "Step 3 · Softmax → weights", "Step 4 · Output = weights·V", "Putting it together")


@dataclass(frozen=True)
class Question:
    key: str                          # stable id: widget keys and tests use it, whatever the sentence
    group: str                        # one of GROUPS
    text: str                         # Markdown; names the user's tokens, never a fixed sentence
    options: tuple[str, ...] | None   # None: a free-text question with a model answer
    correct: int | None               # index into options
    explanation: str                  # the "because", with the live numbers
    page: str                         # the page that explains it

    @property
    def right_option(self) -> str | None:
        return None if self.options is None else self.options[self.correct]

    def shuffled_options(self) -> list[str]:
        """A fixed order per question, so the right answer is not always first."""
        seed = int(hashlib.sha256(self.key.encode()).hexdigest()[:8], 16)
        return [self.options[j] for j in np.random.default_rng(seed).permutation(len(self.options))]


@dataclass(frozen=True)
class Verdict:
    right: bool
    text: str


def verdict(question: Question, choice: str) -> Verdict:
    """Feedback for a chosen option: right or wrong, which option is right, and why."""
    right = choice == question.right_option
    if right:
        return Verdict(True, f"**Right:** “{question.right_option}”. {question.explanation}")
    return Verdict(False, f"**Not quite.** You chose “{choice}”. The right answer is “{question.right_option}”, "
                          f"because: {question.explanation}")


def model_answer(question: Question) -> str:
    return f"**A model answer:** {question.explanation}"


def answer_key(sentence: str, question_key: str) -> str:
    """Widget key of one answer: per sentence, so a new sentence starts clean and an old one keeps its answers."""
    return f"quiz-{hashlib.sha256(sentence.encode()).hexdigest()[:10]}-{question_key}"


def score(questions: list[Question], choices: dict[str, str]) -> tuple[int, int, int]:
    """(right, answered, total) over the multiple-choice questions; choices maps question key -> option."""
    graded = [q for q in questions if q.options is not None]
    answered = [q for q in graded if choices.get(q.key) in q.options]
    right = sum(choices[q.key] == q.right_option for q in answered)
    return right, len(answered), len(graded)


@dataclass(frozen=True)
class KeyEntry:
    """One line of the answer key: the question, its right answer (or "open question"), why, and where to read."""

    number: int
    group: str
    text: str
    answer: str | None                # None: an open question, whose reason is the model answer
    reason: str
    page: str
    page_title: str


def answer_sheet(questions: list[Question]) -> list[KeyEntry]:
    """Every question with its right answer and its reason, numbered in page order (the page's "Show all answers")."""
    ordered = [q for group in GROUPS for q in questions if q.group == group]
    return [KeyEntry(number, q.group, q.text, q.right_option, q.explanation, q.page, PAGE_TITLES[q.page])
            for number, q in enumerate(ordered, start=1)]


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%" if x >= 0.01 or x == 0 else f"{100 * x:.1f}%"


def _plain_quote(token: str) -> str:
    return f"“{token}”"


def quiz(steps: core.AttentionSteps, tokens: list[str], token: int,
         quote: Callable[[str], str] = _plain_quote, shown=None) -> list[Question]:
    """Every question for this sentence, with the selected token's row as the running example.

    `quote` formats a token for the page (the page passes its Markdown-escaping quote). `shown`: the rows the step
    pages show (learned mode hides [CLS]/[SEP] by default); a question that names "the last token" names the last
    one shown, and counts the hidden ones apart, as the pages do. None: every row is shown.
    """
    w, n, i = steps.weights, len(tokens), token
    row, me = w[i], quote(tokens[i])
    top = int(np.argmax(row))
    other_than_self = 1 - row[i]
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
    counted = f"{n} tokens" + (" ([CLS] and [SEP] included)" if any(t in ("[CLS]", "[SEP]") for t in tokens) else "")

    def listing(values, limit=6, digits=3, keys=None):
        keys = list(range(n)) if keys is None else keys
        said = ", ".join(f"{quote(tokens[j])} {values[j]:.{digits}f}" for j in keys[:limit])
        return said + (" …" if len(keys) > limit else "")

    # The last shown token's walk-through, with the hidden markers counted apart as the step pages count them.
    if hidden:
        markers = " and ".join(quote(tokens[j]) for j in hidden)
        last_scores = (f"{listing(steps.scaled[last], 8, 2, shown)} (and the markers {markers}: "
                       f"{', '.join(f'{steps.scaled[last, j]:.2f}' for j in hidden)})")
        last_weights = (f"{listing(w[last], 8, 3, shown)}, and {w[last, hidden].sum():.3f} on {markers} together "
                        f"({', '.join(f'{w[last, j]:.3f}' for j in hidden)})")
        last_name = f"{quote(tokens[last])}, the last token the step pages show"  # never ends on the token: “.”.
    else:
        last_scores, last_weights = listing(steps.scaled[last], 8, 2, shown), listing(w[last], 8, 3, shown)
        last_name = f"{quote(tokens[last])}, the last token"

    def shares(values, limit=4):
        order = np.argsort(values)[::-1][:limit]
        return ", ".join(f"{_pct(values[j])} on {'itself' if j == i else quote(tokens[j])}" for j in order)

    g_why, g1, g2, g3, g4, g_all = GROUPS
    return [
        # --- why self-attention (seed 002 q1, q2, q10)
        Question("need", g_why, "Why does a model need self-attention to understand a word?",
                 ("Because a word's meaning depends on the words around it", "To make the sentence shorter",
                  "To sort the words alphabetically"), 0,
                 f"A word means different things in different company (*bank* near *river* or near *money*). "
                 f"Self-attention lets each token take in the others. In your sentence {me} takes "
                 f"{_pct(other_than_self)} of its new vector from the other tokens.", HOME),
        Question("self_vs_cross", g_why,
                 "How does *self*-attention differ from attention between two sequences (for example, a "
                 "translation model reading English and writing French)?",
                 ("Queries, keys and values all come from the same sentence",
                  "Self-attention has no softmax", "Self-attention only looks at the previous word"), 0,
                 "In self-attention the sentence looks at itself: Q, K and V are all made from its own "
                 f"{counted}, so the weights form a {n} × {n} square. Between two sequences, as in the translation "
                 "models that first used attention (2014), the queries come from one (the French being written) and "
                 "the keys and values from the other (the English); those models also read the words one at a "
                 "time, where self-attention takes them all at once.", STEP4),
        Question("translation", g_why,
                 "How do context-aware vectors help a model translate or summarise?", None, None,
                 "Each token's vector now carries some of its context, so an ambiguous word (“bank”) can be "
                 "represented by what it means in *this* sentence; far-apart words are linked in one step; and "
                 "all tokens are computed at the same time. Whether a given model does this well has to be "
                 "measured (the Compare page measures one word in two sentences; the pronoun page whether “it” "
                 "looks at what it means). On your sentence the average token gives "
                 f"{_pct(1 - np.diag(w).mean())} of its attention to other tokens.", STEP4),
        # --- step 1 (seed 002 q8 merged with seed 004 "non-adjacent words")
        Question("four_steps", g1, "What are the four steps of self-attention, in order?",
                 ("Scores Q·Kᵀ → divide by √d_k → softmax per row → weights·V",
                  "Softmax → scores Q·Kᵀ → divide by √d_k → weights·V",
                  "Divide by √d_k → weights·V → scores Q·Kᵀ → softmax"), 0,
                 f"Compare, shrink, turn into shares, mix. For your {counted} the four results are "
                 f"{n}×{n}, {n}×{n}, {n}×{n} and {n}×{steps.output.shape[1]} matrices.", STEP1),
        Question("high_score", g1, f"The query of {me} gets a high score with one key. What does that say?",
                 ("The two vectors point in a similar direction: a good match",
                  "The two tokens are next to each other", "The key token is a long word"), 0,
                 "A dot product multiplies the two vectors number by number and adds up: it is large when they "
                 f"point the same way. The query of {me} matches the key of {quote(tokens[int(steps.raw[i].argmax())])} "
                 f"best (score {steps.raw[i].max():.2f}); its lowest score is {steps.raw[i].min():.2f}.", STEP1),
        Question("far_apart", g1, "Can a token attend to a word that is far away from it in the sentence?",
                 ("Yes: every pair of tokens gets a score, whatever the distance",
                  "No: only neighbours are compared", "Only up to three words away"), 0,
                 "Nothing in the formula depends on distance: the score matrix compares every pair in one step "
                 f"(an older recurrent network passed information along word by word). {me} gives "
                 f"{_pct(row[far])} to {quote(tokens[far])}, {abs(far - i)} positions away.", STEP1),
        # --- step 2 (seed 002 q4)
        Question("scale", g2, "Why are the scores divided by √d_k?",
                 ("So softmax does not become all-or-nothing when the vectors are long",
                  "To make the scores negative", "To save memory"), 0,
                 f"A dot product of d_k numbers spreads more as d_k grows. Here d_k = {steps.d_k}: the raw scores "
                 f"of {me} spread over {steps.raw[i].std():.2f}, the scaled ones over {steps.scaled[i].std():.2f}. "
                 f"With the division removed from this trained model, its largest weight would be "
                 f"{_pct(unscaled.max())} instead of {_pct(row.max())}: a temperature change on learned weights, not "
                 "a model trained without √d_k. The Training lab trains heads both ways: that is the real test.",
                 STEP2),
        Question("gradient", g2, "What goes wrong for training when softmax is all-or-nothing?",
                 ("Its gradients become tiny, so the model can hardly learn",
                  "The weights stop adding up to 1", "The sentence gets shorter"), 0,
                 "A gradient says how much an output changes when an input is nudged; training follows it. "
                 "The slope of a weight with respect to its own score is w(1 − w), near 0 when w is near 0 or 1. "
                 f"For {me} the largest slope is {slope_scaled:.3f} with scaling and {slope_unscaled:.3f} "
                 "with the division removed after training (a temperature change, not a model trained without it; "
                 "the Training lab measures what training without √d_k does).", STEP2),
        # --- step 3 (seed 000; "role" + "purpose" merged, "how applied" + "why row-wise" merged,
        #     "how calculated and interpreted" + "what do the weights of each word represent" merged)
        Question("role", g3, "What does softmax do to a row of scores?",
                 ("Turns any numbers into positive weights that add up to 1",
                  "Keeps only the single best token", "Computes the dot products"), 0,
                 f"It raises e to each score and divides by the row's total. The scaled scores of {me} run from "
                 f"{steps.scaled[i].min():.2f} to {steps.scaled[i].max():.2f}; its weights from "
                 f"{row.min():.3f} to {row.max():.3f}, and they add up to {row.sum():.6f}.", STEP3),
        Question("arithmetic", g3, f"Work it out: how does softmax turn the scores of {me} into weights?", None, None,
                 f"Take e to the power of each score (first subtracting the largest, which changes nothing): "
                 f"{listing(exps)}. Divide each by their total, {exps.sum():.3f}: {listing(row)}.", STEP3),
        Question("sum_to_one", g3, "Why must each row of weights add up to 1?",
                 ("So the output is a weighted average of the values",
                  "So the matrix is symmetric", "It does not matter"), 0,
                 "Then each weight is a share, and the output is an average of the value vectors whose size "
                 "does not grow with the sentence. Your rows add up to "
                 f"{', '.join(f'{v:.6f}' for v in w.sum(1)[:5])}{' …' if n > 5 else ''}.", STEP3),
        Question("no_softmax", g3, "What would happen without softmax?",
                 ("Weights could be negative and rows would not add up to 1", "Nothing would change",
                  "The model would only read the first word"), 0,
                 f"The scaled scores would be the weights: the row of {me} would be {listing(no_softmax, digits=2)}, "
                 f"adding up to {no_softmax.sum():.2f}, with {int((no_softmax < 0).sum())} negative entries. "
                 "That is no longer an average: the what-if lab's “no softmax” shows what else breaks.", WHATIF),
        Question("row_by_row", g3, "Softmax is applied to the score matrix…",
                 ("row by row: one distribution per looking token", "column by column",
                  "over the whole matrix at once"), 0,
                 f"Each row answers one token's question “where should I look?”, so each row gets its own "
                 f"shares over the {n} tokens. Over the whole matrix, one strong match would starve every other "
                 f"token. Columns do not add up to 1: here they range from {col_sums.min():.2f} to "
                 f"{col_sums.max():.2f}.", STEP3),
        Question("read_row", g3, f"What does the row of weights of {me} tell you?", None, None,
                 f"How {me} divides its attention: {shares(row)}. Row = the token that looks, column = the token "
                 "looked at.", STEP3),
        Question("context", g3, "How does softmax make attention context-aware?", None, None,
                 "The weights depend on who asks: the same token gets different shares from different tokens, so "
                 f"each output mixes the values in its own way. {me} gives {_pct(row[top])} to "
                 f"{quote(tokens[top])}, while {quote(tokens[(i + 1) % n])} gives it {_pct(w[(i + 1) % n, top])}.",
                 STEP3),
        Question("extremes", g3, "A score is far larger than the rest of its row. What does softmax do?",
                 ("Gives that token almost all of the weight", "Makes all weights equal",
                  "Returns an error"), 0,
                 f"Gaps become ratios: e^(gap). With the scores of {me} × 1000 its largest weight is {_pct(huge.max())}. "
                 "Very negative scores get weights near 0. A careful softmax subtracts the row's largest score "
                 "first, so e never overflows.", WHATIF),
        Question("differentiable", g3, "Softmax is *differentiable*. Why does that matter?",
                 ("Small changes of the scores change the weights smoothly, so training can adjust W_Q and W_K",
                  "It makes the weights add up to 1", "It makes the model run faster"), 0,
                 "Differentiable means every output changes smoothly with every input, so a gradient exists. "
                 "A hard “pick the best” would jump, and training could not tell which way to move. "
                 f"In the row of {me}, nudging its top score changes its top weight at the rate {slope_scaled:.3f}.",
                 STEP3),
        # --- step 4 (seed 004; "final step" + "how calculated" merged, "why multiply by V" + "why V not Q
        #     or K" merged, "weighted sum for" + "each output row" + "contextual" merged)
        Question("final", g4, "Which operation makes the output, once the weights are known?",
                 ("Multiply the weights by V", "Apply softmax again", "Divide by √d_k"), 0,
                 f"output = weights · V: here a {n}×{n} matrix times a {n}×{steps.v.shape[1]} matrix, one row "
                 "per token.", STEP4),
        Question("why_v", g4, "Why are the *values* mixed into the output, and not the queries or keys?",
                 ("Q and K decide where to look; V holds what is passed on",
                  "V is the largest matrix", "Q and K are deleted after step 1"), 0,
                 "Queries and keys only meet each other in the scores. The values are a third view of each token, "
                 "so a token can be found for one reason and pass on something else. "
                 f"The output of {me} is {_pct(row[top])} of the value of {quote(tokens[top])} plus smaller shares of "
                 "the others.", STEP4),
        Question("output_row", g4, f"What is the output row of {me}?", None, None,
                 f"A new, context-aware vector for {me}: {steps.output.shape[1]} numbers, a mix of all {n} value "
                 f"vectors. It points most like the value of {quote(tokens[closest])} (cosine similarity "
                 f"{cos[closest]:.2f}).", STEP4),
        Question("uniform", g4, "What would the output be if every weight were the same?",
                 ("Every token would get the same vector: the average of V", "All zeros",
                  "Exactly V"), 0,
                 f"Each weight would be 1/{n}, so every row is the plain average of the values and no token knows "
                 f"who is asking. The average starts {', '.join(f'{v:.2f}' for v in uniform_out[:3])} …; "
                 f"the real output of {me} starts {', '.join(f'{v:.2f}' for v in steps.output[i, :3])} ….", WHATIF),
        # --- putting it together (seed 002 q9, seed 004 last two)
        Question("last_word", g_all, f"Walk through attention for {last_name}.",
                 None, None,
                 f"Its query meets every key; scaled scores {last_scores}; softmax gives {last_weights}; its output "
                 "is that mix of the value vectors.", STEP1),
        Question("next", g_all, "Where does the attention output go next in a transformer?",
                 ("The heads are joined and mixed by W_O, added to the input, normalised, then a feed-forward "
                  "network", "Straight to the final answer", "Back into step 1 of the same head"), 0,
                 "The 12 heads' outputs are glued together and mixed by W_O; the token's input is added back "
                 "(the residual connection) and LayerNorm rescales it; then a feed-forward network transforms each "
                 "token on its own. All mixing *between* tokens happens in attention.", MULTIHEAD),
        Question("disambiguate", g_all, "Describe a sentence where attention helps to pick a meaning.", None, None,
                 "“The dog ate the food because it was hungry.”: to represent “it”, attention can draw on “dog” "
                 "rather than “food”. The pronoun page measures whether this small model's heads really do that.",
                 PRONOUN),
    ]


# The meaning quiz's options: which is right is read from the measurement (the tests index these).
MEANING_BEFORE_OPTIONS = ("Very alike but not the same: the embedding adds where the word stands",
                          "Exactly the same: before attention a word has one vector", "Already far apart")
MEANING_CONTROL_OPTIONS = ("Far less than with attention: the word keeps only itself and where it stands",
                           "About as far as with attention", "Further than with attention")


def meaning_questions(result, names: tuple[str, str], quote: Callable[[str], str]) -> list[Question]:
    """Questions on the meaning page's measurement of a built-in word (lessons/meaning.Measurement): which answer is
    right is read from its numbers, and the explanations quote them."""
    from . import meaning as me

    g_all = GROUPS[-1]
    fact = me.facts(result)
    word, seps, out = quote(result.word), result.separation, result.separation_knocked_out
    last = len(seps) - 1
    a, b = quote(names[0]), quote(names[1])
    apart = me.separates(seps)
    before = 1 if not fact.embeddings_differ else 0 if fact.embedding_low >= 0.8 else 2
    questions = [
        Question("meaning_before", g_all, f"Before any attention, how alike is the vector of {word} in a {a} "
                 f"sentence and in a {b} sentence?", MEANING_BEFORE_OPTIONS, before,
                 f"In the embedding the cosine of {word} between two of the {len(result.sentences)} sentences is "
                 f"between {me.cosine(fact.embedding_low)} and {me.cosine(fact.embedding_high)}. The embedding is "
                 "the word's own entry plus an entry for its position, so the same word at another place is a "
                 "slightly different vector"
                 + (f"; the cosine is 1.000 only for the {fact.same_place_pairs} pairs where it stands at the same "
                    "place." if fact.identical_only_at_same_place and fact.same_place_pairs else "."), MEANING),
    ]
    control_gap, model_gap = fact.control_high - out[0], seps[1:].max() - seps[0]
    control = (2 if control_gap > model_gap + me.SEPARATES else 1 if control_gap >= 0.5 * model_gap else 0)
    questions.append(Question(
        "meaning_self_only", g_all, f"The control on the meaning page, self-only attention, makes every token attend "
        f"only to itself in every layer. How far apart do the two meanings of {word} get then?",
        MEANING_CONTROL_OPTIONS, control,
        f"With self-only attention the separation is {me.signed(out[0])} {me.stage(0)} and {me.signed(out[last])} "
        f"{me.stage(last)} (at most {me.signed(fact.control_high)}); with attention, {me.signed(seps[0])} and "
        f"{me.signed(seps[last])}. A token that takes nothing from the others depends only on its word and its "
        "position: the control shows what those alone give.", MEANING))
    if apart and result.head_costs is not None:
        layer, head = result.growth_layer - 1, result.costliest_heads()[0]
        same, different = fact.same, fact.different
        questions.append(Question(
            "meaning_heads", g_all, f"How does attention help the model tell the two meanings of {word} apart?",
            None, None,
            f"Attention lets the word's vector take in its neighbours ({a} words or {b} words). From the embedding "
            f"to {me.stage(last)}, same-meaning pairs' mean cosine {me.VERB[same.direction]} ({me.cosine(same.start)} "
            f"→ {me.cosine(same.end)}) and different-meaning pairs' {me.VERB[different.direction]} "
            f"({me.cosine(different.start)} → {me.cosine(different.end)}), so the separation goes "
            f"{me.signed(seps[0])} → {me.signed(seps[last])}. Replacing {head_name(head)} of {layer_name(layer)} by its "
            f"mean output lowers the separation after that layer by {me.plain(result.head_costs[head])}, the most of "
            "any head there.", MEANING))
    return questions
