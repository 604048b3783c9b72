import numpy as np
import streamlit as st

from attention import core
from attention import pronoun as pr
from ui import figures
from ui.state import analyze, core_attentions, model_or_stop, settings
from ui.text import md, pct, quote

DEFAULT = "A dog ate the food because it was hungry."
CONTRAST = "A dog ate the food because it was delicious."

st.title("Does “it” attend to “dog”?")
st.markdown(
    "A common claim: in *A dog ate the food because it was hungry.*, self-attention lets **it** put most of "
    "its attention on **dog**, and that is how the model knows what *it* means. Here you can test that on "
    "the real model, head by head, and see how far the claim holds."
)
s = settings()
teaching = s.teaching
model = model_or_stop(s)


def sentence_words(sentence: str):
    analysis = analyze(sentence, s.model_name or None)
    return analysis, pr.words_of(analysis.tokens, analysis.word_ids)


sentence = st.text_input("Sentence", value=DEFAULT, key="pron_sentence", bind="query-params", max_chars=2000)
if not sentence.strip():
    st.info("Type a sentence with a pronoun (it, he, she, they…) to begin.")
    st.stop()
try:
    analysis, words = sentence_words(sentence)
except Exception as error:  # SentenceError and friends: say what to type
    st.info(md(str(error)))
    st.stop()
pronoun_index = pr.find_pronoun(words)
if pronoun_index is None:
    st.info("This sentence has no pronoun (it, he, she, they, him, her, them, its, his, their…). Add one, "
            "for example: “The cat sat on the mat because it was warm.”")
    st.stop()
word_labels = [f"{w.text} (#{i})" for i, w in enumerate(words)]
left, right = st.columns(2)
pronoun_index = left.selectbox("Pronoun", range(len(words)), index=pronoun_index,
                               format_func=lambda i: word_labels[i], key="pron_word")
defaults = [i for i in (pr.find_word(words, "dog"), pr.find_word(words, "food")) if i is not None]
if len(defaults) < 2:
    defaults = [i for i in range(len(words)) if i != pronoun_index and len(words[i].text) > 2][:2]
chosen = right.multiselect("Candidates it could refer to (two or more)", range(len(words)), default=defaults,
                           format_func=lambda i: word_labels[i], key="pron_candidates", max_selections=6)
chosen = [c for c in chosen if c != pronoun_index]
if len(chosen) < 2:
    st.info("Pick at least two candidate words (not the pronoun itself).")
    st.stop()
pronoun = words[pronoun_index]
candidates = [words[i] for i in chosen]
if any(len(w.pieces) > 1 for w in candidates + [pronoun]):
    split = [w.text for w in candidates + [pronoun] if len(w.pieces) > 1]
    st.caption("Split into several word pieces: " + ", ".join(quote(w) for w in split) +
               ". Their weights are **summed** over the pieces (and averaged over the pronoun's pieces).")

ours = core_attentions(sentence, s.model_name or None)
parity = float(np.abs(ours - analysis.attentions).max())
st.success(f"✅ Every number below is recomputed by our numpy core from the model's learned W_Q, W_K; it "
           f"differs from the model's own attention by at most {parity:.1e} over all "
           f"{model.n_layers * model.n_heads} heads.")

a, b = candidates[0], candidates[1]
share = pr.preference(ours, pronoun, a, b)           # [L, H]
weights_on = np.stack([pr.weight_on(ours, pronoun, c) for c in candidates])  # [C, L, H]

st.header(f"Each head's preference: {quote(a.text)} or {quote(b.text)}?")
st.markdown(
    f"Each cell is one head. The number is the share of {quote(a.text)} in the attention that "
    f"{quote(pronoun.text)} gives to the two words: **1** = all on {quote(a.text)}, **0.5** = no preference, **0** = all on "
    f"{quote(b.text)}. Green leans to {quote(a.text)}, pink to {quote(b.text)}."
)
figures.show(figures.layer_head_grid(share, f"Share of “{pronoun.text}”→{a.text} vs {b.text} · “{sentence[:40]}”",
                                     teaching=teaching, zmid=0.5, bound=0.5,
                                     colorbar_title=f"{a.text} share"),
             figures.figure_filename("pronoun_grid", sentence, f"{a.text}-{b.text}"), teaching)

n_prefer_a = int((share > 0.5).sum())
best = np.unravel_index(np.argmax(share), share.shape)
strongest_total = np.unravel_index(np.argmax(weights_on[0]), share.shape)
totals = weights_on[0]
st.subheader("What the numbers say")
verdict = (f"**{n_prefer_a} of {share.size} heads** put more attention on {quote(a.text)} than on "
           f"{quote(b.text)}. ")
if n_prefer_a == 0:
    verdict += f"No head prefers {quote(a.text)}: on this sentence the claim does not hold for any single head. "
else:
    verdict += (f"The strongest is layer {best[0]} head {best[1]}: {pct(share[best])} of the two words' share "
                f"goes to {quote(a.text)}. ")
verdict += (f"But the largest absolute weight any head gives {quote(a.text)} is "
            f"{pct(totals[strongest_total])} (layer {strongest_total[0]}, head {strongest_total[1]}) — far from "
            "“100%”: most of the attention of a real head goes elsewhere (often to [SEP], punctuation or "
            "the pronoun itself). A preference in one sentence is not yet resolution: the contrast test below "
            "checks whether a head changes its mind when the meaning changes.")
st.markdown(verdict)

st.subheader("One head in detail")
c1, c2, c3 = st.columns([1, 1, 2])
layer = c1.selectbox("Layer", range(model.n_layers), index=int(best[0]), key="pron_layer")
head = c2.selectbox("Head", range(model.n_heads), index=int(best[1]), key="pron_head")
row = ours[layer, head, pronoun.position]
figures.show(figures.row_bars(row, analysis.tokens, f"Attention from “{pronoun.text}”, layer {layer} head {head}",
                              teaching=teaching, highlight=pronoun.position),
             figures.figure_filename("pronoun_row", sentence, f"L{layer}H{head}"), teaching)


def open_in_steps():
    st.session_state["sentence"] = sentence
    st.session_state["mode"] = "learned"
    st.session_state["layer"] = layer
    st.session_state["head"] = head
    st.session_state["special"] = True
    st.session_state["token"] = pronoun.position
    st.session_state["_goto"] = "pages/step3_softmax.py"


c3.button("Open this head in the four step pages →", on_click=open_in_steps, key="pron_open")
if st.session_state.pop("_goto", None):
    # An empty dict, not None: Streamlit refuses to clear URL values that widgets are bound to; the
    # bound widgets write the new view into the URL themselves.
    st.switch_page("pages/step3_softmax.py", query_params={})

st.header("Across layers: mean over heads and attention rollout")
st.markdown(
    "A single head is only part of the story: each layer mixes information, and the next layer attends to "
    "already-mixed vectors. **Mean over heads** averages a layer's 12 heads. **Attention rollout** (Abnar & "
    "Zuidema, 2020) multiplies the head-averaged attention of the layers (adding the residual connection as "
    "½·identity) to estimate how much each *input* word flows into the pronoun after each layer."
)
mean_heads = ours.mean(axis=1)                     # [L, n, n]
rolled = core.attention_rollout(mean_heads)        # [L, n, n]
series = {}
for c in candidates:
    series[f"mean over heads → {c.text}"] = pr.weight_on(mean_heads, pronoun, c)
    series[f"rollout → {c.text}"] = pr.weight_on(rolled, pronoun, c)
figures.show(figures.line_chart(range(model.n_layers), series, f"Weight from “{pronoun.text}” per layer",
                                "layer", "weight", teaching=teaching),
             figures.figure_filename("pronoun_layers", sentence, "rollout"), teaching)
last_roll = {c.text: float(pr.weight_on(rolled[-1], pronoun, c)) for c in candidates}
top = max(last_roll, key=last_roll.get)
st.markdown(f"After the last layer, rollout estimates that the vector of {quote(pronoun.text)} holds " +
            ", ".join(f"{pct(v)} from {quote(k)}" for k, v in last_roll.items())
            + f" — {quote(top)} leads.")

st.header("The contrast test: change one word, does the head change its mind?")
contrast = st.text_input("Contrast sentence (one word changed, so the pronoun means the other candidate)",
                         value=CONTRAST if sentence == DEFAULT else sentence, key="pron_contrast", max_chars=2000)
answer_first = st.radio(f"In the first sentence, {quote(pronoun.text)} means…", [a.text, b.text], horizontal=True,
                        key="pron_answer")
try:
    _, c_words = sentence_words(contrast)
    c_pronoun = c_words[pr.find_word(c_words, pronoun.text)]
    c_a, c_b = c_words[pr.find_word(c_words, a.text)], c_words[pr.find_word(c_words, b.text)]
except Exception:
    st.info(f"The contrast sentence must contain {quote(pronoun.text)}, {quote(a.text)} and {quote(b.text)}.")
else:
    c_share = pr.preference(core_attentions(contrast, s.model_name or None), c_pronoun, c_a, c_b)
    first_is_a = answer_first == a.text
    right_first = share > 0.5 if first_is_a else share < 0.5
    right_second = c_share < 0.5 if first_is_a else c_share > 0.5
    both = right_first & right_second
    figures.show(figures.layer_head_grid(c_share - share, f"Change of {a.text}'s share: contrast − first",
                                         teaching=teaching, colorbar_title="change"),
                 figures.figure_filename("pronoun_contrast", contrast, f"{a.text}-{b.text}"), teaching)
    flipped = [f"L{layer_}H{head_}" for layer_, head_ in zip(*np.nonzero(both))]
    st.markdown(
        f"**{int(right_first.sum())}** heads are right on the first sentence, **{int(right_second.sum())}** on the "
        f"contrast, and **{len(flipped)}** flip the right way in both"
        + (f": {', '.join(flipped[:12])}{'…' if len(flipped) > 12 else ''}." if flipped else ". ")
        + f" For comparison, if each head picked at random, about {share.size / 4:.0f} of {share.size} would "
        "get both right by luck."
    )

st.header("A small test set: how many pairs does each head get right?")
st.markdown(f"{len(pr.PAIRS)} pairs of sentences in the style of the Winograd schema: in each pair one word "
            "changes and the pronoun's meaning flips. A head answers with the candidate it attends to more.")


def attentions_of(text):
    an = analyze(text, s.model_name or None)
    return core_attentions(text, s.model_name or None), an.tokens, an.word_ids


board = pr.score_heads(pr.PAIRS, attentions_of)
figures.show(figures.layer_head_grid(board.head_accuracy, "Accuracy of each head on the built-in pairs",
                                     teaching=teaching, zmid=0.5, bound=0.5, colorbar_title="accuracy"),
             figures.figure_filename("pronoun_testset", "builtin pairs", "accuracy"), teaching)
best_head = np.unravel_index(np.argmax(board.head_accuracy), board.head_accuracy.shape)
best_pairs = np.unravel_index(np.argmax(board.head_pairs), board.head_pairs.shape)
rows = [
    {"who": "chance", "sentences right": f"{board.n_sentences / 2:.0f} of {board.n_sentences}",
     "pairs fully right": f"{board.n_pairs / 4:.0f} of {board.n_pairs}"},
    {"who": "always the first-mentioned candidate (subject)",
     "sentences right": f"{board.subject_correct} of {board.n_sentences}", "pairs fully right": f"0 of {board.n_pairs}"},
    {"who": "always the nearest candidate before the pronoun",
     "sentences right": f"{board.nearest_correct} of {board.n_sentences}", "pairs fully right": f"0 of {board.n_pairs}"},
    {"who": f"best head: layer {best_head[0]} head {best_head[1]}",
     "sentences right": f"{board.head_correct[best_head]} of {board.n_sentences}",
     "pairs fully right": f"{board.head_pairs[best_head]} of {board.n_pairs}"},
    {"who": f"best head on pairs: layer {best_pairs[0]} head {best_pairs[1]}",
     "sentences right": f"{board.head_correct[best_pairs]} of {board.n_sentences}",
     "pairs fully right": f"{board.head_pairs[best_pairs]} of {board.n_pairs}"},
]
st.table(rows)
top_pairs = int(board.head_pairs.max())
st.markdown(
    "A fixed rule like “always the subject” scores half the sentences but **no pair**, because it never "
    "changes its answer — a head that does the same is not resolving the pronoun. "
    + (f"The best head gets {top_pairs} of {board.n_pairs} pairs fully right, against about "
       f"{board.n_pairs / 4:.0f} expected by chance. "
       + ("That is above chance on this small set, but with so few pairs it is weak evidence."
          if top_pairs > board.n_pairs / 4 else "That is no better than chance.")
       if top_pairs else "No head gets any pair fully right.")
    + " With 72 heads tried, one of them will look good by luck alone; in a model this small, pronoun "
    "resolution, where it happens, is spread over many heads and layers rather than in one clean head."
)
