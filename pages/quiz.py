import numpy as np
import streamlit as st

from attention import core
from attention.whatif import naive_softmax
from ui.state import current_view
from ui.text import md, pct, quote

st.title("Check yourself")
st.markdown("Questions about self-attention, answered with **your sentence's** live numbers. Guess first, then "
            "open the answer. Change the sentence or the projection in the sidebar and the answers change too.")
view = current_view()
tokens, i, steps = view.tokens, view.token, view.steps
w, n = steps.weights, len(view.tokens)
me = quote(view.token_label)
row = w[i]
top = int(np.argmax(row))
unscaled = core.softmax(steps.raw)
no_softmax = steps.scaled[i]
uniform_out = steps.v.mean(axis=0)
causal = core.run_steps(steps.q, steps.k, steps.v, mask=core.causal_mask(n))
far = max(range(n), key=lambda j: (abs(j - i) > 1) * row[j]) if n > 2 else top
huge = core.softmax(steps.scaled * 1e3)
naive_nans = int((~np.isfinite(naive_softmax(steps.scaled * 1e3))).sum())
cos = steps.output @ steps.v.T / (np.linalg.norm(steps.output, axis=1)[:, None] * np.linalg.norm(steps.v, axis=1)
                                   + 1e-12)
grad = row[:, None] * (np.eye(n) - row[None, :])  # d softmax_i / d score_j for this row


def fmt_row(values):
    return ", ".join(f"{quote(tokens[j])} {values[j]:.3f}" for j in range(min(n, 8))) + (" …" if n > 8 else "")


QUESTIONS = [
    # --- why self-attention, the four steps (seed 002)
    ("Why does a model need self-attention to understand a word?",
     ["Because a word's meaning depends on the words around it", "To make the sentence shorter",
      "To sort the words alphabetically"], 0,
     f"A word's meaning depends on its context, and self-attention lets each token pull in information from "
     f"every other token. On your sentence, {me} takes {pct(1 - row[i])} of its new vector from other tokens."),
    ("How does *self*-attention differ from the older attention between two sequences (e.g. an encoder and a "
     "decoder)?", ["Queries, keys and values all come from the same sentence", "It has no softmax",
                   "It only looks at the previous word"], 0,
     "In self-attention Q, K and V are all made from the same sequence, so the sentence attends to itself; "
     "classic encoder–decoder attention takes queries from one sequence and keys/values from another. Here all "
     f"three are {n} × d matrices built from your {n} tokens."),
    ("What are the four steps of self-attention, in order?", None, None,
     "1) dot products of queries and keys (Q·Kᵀ), 2) divide by √d_k, 3) softmax per row → attention weights, "
     f"4) weights · V. For your sentence the matrices are {n}×{n}, {n}×{n}, {n}×{n} and {n}×{steps.output.shape[1]}."),
    ("Why divide the scores by √d_k?", ["To keep softmax from saturating as d_k grows",
                                        "To make the scores negative", "To save memory"], 0,
     f"The spread of a dot product grows like √d_k. Here d_k = {steps.d_k}: the raw scores of {me} spread over "
     f"{steps.raw[i].std():.2f}, the scaled ones over {steps.scaled[i].std():.2f}. Without scaling, the largest "
     f"weight of {me} would be {pct(unscaled[i].max())} instead of {pct(row.max())}: a more saturated softmax, "
     "whose gradients vanish."),
    ("What role does softmax play?", ["It turns any scores into positive weights that sum to 1",
                                      "It picks the single best token", "It computes the dot product"], 0,
     f"It makes each row a distribution. The row of {me}: {fmt_row(row)} — sum {row.sum():.6f}."),
    ("How are attention weights calculated and how do you read them?", None, None,
     f"softmax(Q·Kᵀ/√d_k), row by row. Row = the token that is looking, column = the token looked at. {me} "
     f"puts its largest weight, {pct(row[top])}, on {quote(tokens[top])}."),
    ("What is the weighted sum of value vectors for?", None, None,
     f"It builds each token's new, context-aware vector: output of {me} = Σ_j w_j·v_j. Its output is most "
     f"similar to the value of {quote(tokens[int(cos[i].argmax())])} (cosine {cos[i].max():.2f})."),
    ("Can self-attention relate words that are far apart?", ["Yes, every pair of tokens is compared directly",
                                                             "No, only neighbours", "Only within 3 words"], 0,
     "Yes: the score matrix compares every pair, whatever the distance, in one step (an RNN would pass the "
     f"information along word by word). In your sentence {me} gives {pct(row[far])} to {quote(tokens[far])}, "
     f"{abs(far - i)} positions away."),
    ("How does the model compute attention for the last word of your sentence?", None, None,
     f"Its query is compared with every key: scaled scores {fmt_row(steps.scaled[-1])}; softmax gives "
     f"{fmt_row(w[-1])}; its output is that mix of the value vectors."),
    ("How does self-attention help translation or summarisation?", None, None,
     "Every token's vector carries its context, so words like “bank” or “it” are represented by what they mean "
     "in this sentence; all positions are computed in parallel, and long-range links cost one step. On your "
     f"sentence the average token gives {pct(1 - np.diag(w).mean())} of its attention to other tokens."),
    # --- softmax (seed 000)
    ("Why must each row of attention weights sum to 1?", ["So the output is a weighted average of the values",
                                                          "So the matrix is symmetric", "It does not matter"], 0,
     f"Then the output is a true weighted average: its size does not grow with the sentence length. Your rows "
     f"sum to {', '.join(f'{v:.6f}' for v in w.sum(1)[:6])}{' …' if n > 6 else ''}."),
    ("What would happen without softmax?", ["Weights could be negative and rows would not sum to 1",
                                            "Nothing changes", "The model would stop at the first word"], 0,
     f"The scaled scores would be used directly: the row of {me} would be {fmt_row(no_softmax)} — sum "
     f"{no_softmax.sum():.3f}, with {int((no_softmax < 0).sum())} negative entries. That is no longer an "
     "average of the values."),
    ("How is softmax applied to the score matrix in a transformer?", ["Row by row (over the keys)",
                                                                      "Column by column", "Over the whole matrix"], 0,
     f"Row by row: each query token gets its own distribution over the {n} keys. Column sums are not 1 — here "
     f"they range from {w.sum(0).min():.2f} to {w.sum(0).max():.2f}."),
    ("How does softmax make attention context-aware?", None, None,
     "The weights depend on the query: the same tokens get different weights from different query tokens, so "
     f"each output mixes the values in its own way. {me} gives {pct(row[top])} to {quote(tokens[top])}, while "
     f"{quote(tokens[(i + 1) % n])} gives it {pct(w[(i + 1) % n, top])}."),
    ("How does softmax handle very large or very small scores?", None, None,
     f"Large gaps make it all-or-nothing: with the scores × 1000 the largest weights are "
     f"{', '.join(pct(v) for v in huge.max(1)[:5])}. Computed naively, e^score overflows ({naive_nans} of "
     f"{huge.size} weights NaN/∞); subtracting the row maximum first keeps every weight finite. Very negative "
     "scores just give weights near 0."),
    ("Why row-wise and not over the whole matrix?", None, None,
     "Each row answers one token's question “where should I look?”, so each row needs its own distribution. "
     f"A softmax over all {n * n} cells would let one token's strong match starve every other token."),
    ("Is softmax differentiable, and why does it matter?", ["Yes: smooth, so gradients reach Q and K",
                                                            "No, it is a hard choice", "Only at 0"], 0,
     "Yes. Unlike a hard “pick the max”, softmax changes smoothly, so training can adjust W_Q and W_K. For the "
     f"row of {me}, ∂w/∂score on the diagonal is w(1−w): largest {grad.diagonal().max():.3f}. When a row "
     "saturates (a weight near 1) these gradients shrink toward 0 — one more reason to scale."),
    ("In “I am good.”, what does the weights row of each word mean?", None, None,
     f"Row r is how token r divides its attention among all tokens. On your current sentence, {me}: "
     + ", ".join(f"{pct(row[j])} on {'itself' if j == i else quote(tokens[j])}" for j in np.argsort(row)[::-1][:4])
     + "."),
    ("What is the purpose of the softmax function in self-attention?", None, None,
     "To turn unbounded similarity scores into weights between 0 and 1 that add up to 1. Your scaled scores "
     f"range from {steps.scaled.min():.2f} to {steps.scaled.max():.2f}; after softmax, from {w.min():.3f} to "
     f"{w.max():.3f}."),
    ("How does softmax turn similarity scores into attention weights?", None, None,
     f"e^score for every score in the row, then divide by the row's total. For {me}: e^(scaled) = "
     f"{fmt_row(np.exp(steps.scaled[i] - steps.scaled[i].max()))} (after subtracting the max), divided by "
     f"their sum {np.exp(steps.scaled[i] - steps.scaled[i].max()).sum():.3f}."),
    # --- the output (seed 004)
    ("What is the final step of self-attention?", ["Multiply the weights by V", "Apply softmax again",
                                                   "Divide by √d_k"], 0,
     f"output = weights · V, here a {n}×{n} matrix times a {n}×{steps.v.shape[1]} matrix."),
    ("How is the attention output matrix calculated?", None, None,
     "softmax(Q·Kᵀ/√d_k)·V. Our step-by-step chain and the one-line formula agree to "
     f"{np.abs(core.attention(steps.q, steps.k, steps.v) - steps.output).max():.1e} on your sentence."),
    ("Why multiply the softmax output by V?", None, None,
     "The weights say how much of each token to take; V holds what to take. Multiplying mixes the value "
     f"vectors: the output of {me} is {pct(row[top])} of v({md(tokens[top])}) plus smaller shares of the others."),
    ("What does each row of the output matrix represent?", None, None,
     f"A context-aware vector for one token. Row {i} is the new vector of {me}, "
     f"{steps.output.shape[1]} numbers, a mix of all {n} value vectors."),
    ("How does this step make a word's representation contextual?", None, None,
     f"Before: {me} is its own value vector. After: it moved toward the others — the distance between its "
     f"output and its own value is {np.linalg.norm(steps.output[i] - steps.v[i]):.2f}, and the output's cosine "
     f"with its own value is {cos[i, i]:.2f}."),
    ("Can the output give weight to words that are not adjacent?", ["Yes", "No"], 0,
     f"Yes, nothing in the formula depends on distance (there is no mask here). {me} gives "
     f"{pct(row[far])} to {quote(tokens[far])}, {abs(far - i)} tokens away. A causal mask would remove every "
     f"token after it: then {me} would give {pct(causal.weights[i, i + 1:].sum() if i + 1 < n else 0.0)} to later tokens."),
    ("Why is the output made from V and not from Q or K?", None, None,
     "Q and K decide *where* to look (they only ever meet in the dot product); V is *what* is passed on. "
     "Keeping them separate lets a token be found for one reason and contribute something else. With the "
     "learned weights the three are different matrices; with the identity toy Q = K = V."),
    ("How would the output change if the weights were uniform?", ["Every row would be the average of V",
                                                                  "It would be zero", "It would equal V"], 0,
     f"Every token would get the same vector, mean(V). Its first numbers here: "
     f"{', '.join(f'{v:.3f}' for v in uniform_out[:5])} …; the actual output of {me} starts "
     f"{', '.join(f'{v:.3f}' for v in steps.output[i, :5])} …"),
    ("Describe a real situation where this step disambiguates.", None, None,
     "“A dog ate the food because it was hungry.”: to represent “it”, attention can draw on “dog” rather than "
     "“food”. Whether a real head does that is measured on the pronoun page — on this small model the answer "
     "is mixed and heads rarely put anything near 100% on one word."),
    ("How does the attention output prepare the input for the feed-forward network?", None, None,
     "The heads' outputs are concatenated, mixed by W_O, added to the input (residual) and normalised; the "
     "feed-forward network then transforms each token's vector on its own. So all mixing *between* tokens "
     "happens in attention; the feed-forward part works per token. See the multi-head page for the real "
     "numbers of each stage."),
]

n_done = 0
for number, (question, options, correct, answer) in enumerate(QUESTIONS, 1):
    with st.container(border=True):
        st.markdown(f"**{number}. {question}**")
        if options:
            # A fixed shuffle per question, so the right answer is not always the first one.
            shuffled = [options[j] for j in np.random.default_rng(number).permutation(len(options))]
            guess = st.radio("Your guess", shuffled, index=None, key=f"quiz_{number}", label_visibility="collapsed")
            if guess is not None:
                n_done += 1
                if guess == options[correct]:
                    st.success("Right. " + answer)
                else:
                    st.error(f"Not quite — the answer is: {options[correct]}. " + answer)
        else:
            guess = st.text_input("Your answer (for yourself)", key=f"quiz_{number}", max_chars=500)
            if st.toggle("Show the answer", key=f"quiz_show_{number}"):
                n_done += 1
                st.info(answer)
st.caption(f"{n_done} of {len(QUESTIONS)} answers opened. Numbers computed from: {md(view.label)}.")
