"""The pronoun page's sections: its own sentence box, the words to compare, and each measurement's picture and words."""

from __future__ import annotations

import zlib

import numpy as np
import streamlit as st

from lessons import pronoun as pr
from attention.model import SentenceError
from serving import shared
from serving.models import analyze, core_attentions

from ui import figures
from ui.model import warn_if_cut, warn_if_truncated
from ui.settings import MAX_SENTENCE_CHARS, open_head_in_steps
from ui.text import layer_head_name, layer_head_tag, md, pct, people_number, plain_small, quote, shorten

DEFAULT = shared.PRONOUN_DEFAULT


def page_sentence(s) -> str:
    """The page's own sentence box; a message and a stop while it is empty."""
    # The page's sentence: the sidebar's when it has a pronoun, else the page's own example. A new sidebar
    # sentence with a pronoun flows in; the page box keeps what the user typed when they come back.
    sidebar_seen = st.session_state.get("_pron_sidebar_seen")
    st.session_state["_pron_sidebar_seen"] = s.sentence
    if "pron_sentence" not in st.session_state and "pron_sentence" not in st.query_params:
        kept = st.session_state.get("_pron_kept")
        if kept and sidebar_seen == s.sentence:
            st.session_state["pron_sentence"] = kept
        else:
            st.session_state["pron_sentence"] = s.sentence if pr.has_pronoun(s.sentence) else DEFAULT
    elif sidebar_seen is not None and sidebar_seen != s.sentence and pr.has_pronoun(s.sentence):
        st.session_state["pron_sentence"] = s.sentence

    sentence = st.text_input("Sentence", key="pron_sentence", bind="query-params", max_chars=MAX_SENTENCE_CHARS)
    st.session_state["_pron_kept"] = sentence
    warn_if_cut(sentence, MAX_SENTENCE_CHARS)
    if s.sentence.strip() and s.sentence != sentence:
        if pr.has_pronoun(s.sentence):
            st.button(f"Use the other pages' sentence: {md(shorten(s.sentence, 60))}",
                      on_click=st.session_state.__setitem__, args=("pron_sentence", s.sentence),
                      key="pron_use_sidebar")
        else:
            st.caption(f"The other pages' sentence {quote(shorten(s.sentence, 60))} has no pronoun, so this page uses "
                       "its own example. Type any sentence with a pronoun above.")
    if not sentence.strip():
        st.info("Type a sentence with a pronoun (it, he, she, they…) to begin.")
        st.stop()
    return sentence


def sentence_pass(sentence: str, s, model):
    """The model pass of the page's sentence, or a message and a stop."""
    try:
        analysis = analyze(sentence, s.model_name or None)
    except SentenceError as error:  # our own sentence: says what to type (never a library's message)
        st.info(md(str(error)))
        st.stop()
    warn_if_truncated(analysis, model, say_where=False, cut=len(sentence) >= MAX_SENTENCE_CHARS)
    return analysis


def chosen_words(sentence: str, analysis):
    """The pronoun and its candidates, as the user picks them (keyed on the sentence), or a message and a stop."""
    words = pr.words_of(analysis.tokens, analysis.word_ids)
    choice = pr.choose(sentence, words)
    if choice.pronoun is None:
        if analysis.truncated and pr.has_pronoun(sentence):
            st.info("The pronoun comes after the part of the text the model reads. Put it nearer the start, or "
                    "shorten the text.")
        else:
            st.info("This sentence has no pronoun (it, he, she, they, him, her, them, its, his, their…). Add one, "
                    "for example: “The cat sat on the mat because it was warm.”")
        st.stop()

    # Every choice below is keyed on the sentence: a new sentence starts from its own defaults, while the
    # same sentence keeps what the user picked (Streamlit would otherwise keep old indices for new options).
    tag = f"{zlib.crc32(sentence.encode()):08x}"
    selectable = [i for i, w in enumerate(words) if any(c.isalnum() for c in w.text) and i not in choice.fragments]
    word_labels = [f"{w.text} (#{i + 1})" for i, w in enumerate(words)]  # counted from 1, as people count
    left, right = st.columns(2)
    pronoun_index = left.selectbox("Pronoun", selectable, index=selectable.index(choice.pronoun),
                                   format_func=word_labels.__getitem__, key=f"pron_word_{tag}")
    if pronoun_index != choice.pronoun:
        choice = pr.choose(sentence, words, pronoun=pronoun_index)
    chosen = right.multiselect("Candidates it could refer to (two or more; the first one is called candidate A below)",
                               [i for i in selectable if i != pronoun_index], default=list(choice.pair),
                               format_func=word_labels.__getitem__, key=f"pron_candidates_{tag}_{pronoun_index}",
                               max_selections=6)
    pronoun = words[pronoun_index]
    if len(choice.pair) < 2 and len(chosen) < 2:
        found = (f"only one word it could refer to, {quote(words[choice.pair[0]].text)}" if choice.pair else
                 "no word it could refer to (a noun such as “dog”, a name such as “Anna”)")
        st.info(f"Before {quote(pronoun.text)} this sentence has {found}. Pick two candidates above, or try a "
                "sentence like “The cat chased the mouse because it was hungry.”")
        st.stop()
    if len(chosen) < 2:
        st.info("Pick at least two candidate words (not the pronoun itself).")
        st.stop()
    candidates = [words[i] for i in chosen]
    if any(len(w.pieces) > 1 for w in candidates + [pronoun]):
        split = [w.text for w in candidates + [pronoun] if len(w.pieces) > 1]
        st.caption("Split into several word pieces: " + ", ".join(quote(w) for w in split) +
                   ". Their weights are **summed** over the pieces (and averaged over the pronoun's pieces).")
    return tag, pronoun_index, pronoun, candidates


def parity_note(sentence: str, s, model, attentions) -> None:
    """Every number is the model's own attention: the core's recomputation of all heads against it."""
    parity = float(np.abs(core_attentions(sentence, s.model_name or None) - attentions).max())
    n_heads_total = model.n_layers * model.n_heads
    st.success(f"✅ Every number below is the model's own attention. Recomputed step by step from its learned "
               f"W_Q and W_K (the formula of the four step pages), all {n_heads_total} heads give the same weights: "
               f"they differ from the model's own attention by {plain_small(parity, at_most=True)}.")
    with st.expander("The exact difference"):
        st.write(f"Largest absolute difference over all {n_heads_total} heads and all token pairs: {parity:.2e}.")


def scoreboard(model) -> pr.Scoreboard:
    """The built-in pairs' scores, shared by everyone (a spinner only when not ready yet)."""
    if shared.is_ready(shared.pronoun_key(model)):  # the built-in pairs: the verdict weighs them too
        board = shared.builtin_pronoun_scoreboard(model)
    else:
        with st.spinner("Scoring the built-in sentence pairs (once for everyone)…"):
            board = shared.builtin_pronoun_scoreboard(model)
    return board


def weight_grids(verdict, pronoun, a, b, sentence: str, teaching: bool) -> None:
    """Each head's weight on candidate A, and its preference between A and B, with what the numbers say."""
    short = shorten(sentence, 40)
    st.header(f"How much does {quote(pronoun.text)} look at {quote(a.text)}?")
    st.markdown(
        f"Each cell is one head. The number is the share of the attention of {quote(pronoun.text)} that goes "
        f"to {quote(a.text)}: **1.00** would be all of it. The framed cell is the head that gives {quote(a.text)} "
        "the most."
    )
    figures.show(figures.weight_grid(verdict.weight_a, f"Weight “{pronoun.text}”→{a.text} · “{short}”",
                                     teaching=teaching, highlight=verdict.best, colorbar_title=f"on {a.text}"),
                 figures.figure_filename("pronoun_weight", sentence, a.text), teaching)

    st.header(f"Each head's preference: {quote(a.text)} or {quote(b.text)}?")
    st.markdown(
        f"Now only the two words count. The number is the share of {quote(a.text)} in what {quote(pronoun.text)} "
        f"gives the two: **1** = all on {quote(a.text)}, **0.5** = no preference, **0** = all on {quote(b.text)}. "
        "Green "
        f"leans to {quote(a.text)}, pink to {quote(b.text)}. A blank cell is a head that looks elsewhere: the two "
        f"words together get less than {pct(pr.ELSEWHERE)} of its attention, so its preference means little."
    )
    shown_share = np.where(verdict.looks_elsewhere, np.nan, verdict.share_a)
    share_title = f"Share of “{pronoun.text}”→{a.text} vs {b.text} · “{short}”"
    figures.show(figures.layer_head_grid(shown_share, share_title,
                                         teaching=teaching, zmid=0.5, bound=0.5, colorbar_title=f"{a.text} share"),
                 figures.figure_filename("pronoun_grid", sentence, f"{a.text}-{b.text}"), teaching)

    st.subheader("What the numbers say")
    st.markdown(" ".join(verdict.sentences) + " A preference in one sentence is not yet resolution: the contrast "
                "test below checks whether a head changes its mind when the meaning changes.")


def head_detail(rows, analysis, verdict, pronoun, a, b, sentence: str, tag: str, pronoun_index: int, model,
                teaching: bool) -> None:
    """One head's row of attention from the pronoun, the best head first, and the link into the step pages."""
    st.subheader("One head in detail")
    c1, c2, c3 = st.columns([1, 1, 2])
    detail_key = f"{tag}_{pronoun_index}_{a.position}"
    layer = c1.selectbox("Layer", range(model.n_layers), index=verdict.best[0], key=f"pron_layer_{detail_key}",
                         format_func=people_number)
    head = c2.selectbox("Head", range(model.n_heads), index=verdict.best[1], key=f"pron_head_{detail_key}",
                        format_func=people_number)
    figures.show(figures.row_bars(rows[layer, head], analysis.tokens,
                                  f"Attention from “{pronoun.text}”, {layer_head_name(layer, head, model.n_layers)}",
                                  teaching=teaching, highlight=pronoun.position),
                 figures.figure_filename("pronoun_row", sentence, layer_head_tag(layer, head, sep="")), teaching)
    st.caption(f"In this head {quote(pronoun.text)} gives {quote(a.text)} {pct(verdict.weight_a[layer, head])} and "
               f"{quote(b.text)} {pct(verdict.weight_b[layer, head])} of its attention (the bars of a word's pieces "
               "add up).")
    c3.button("Open this head in the four step pages →", on_click=open_head_in_steps, key="pron_open",
              args=(sentence, layer, head, pronoun.position, "app_pages/step3_softmax.py"))
    if st.session_state.pop("_goto", None):
        # An empty dict, not None: Streamlit refuses to clear URL values that widgets are bound to; the
        # bound widgets write the new view into the URL themselves.
        st.switch_page("app_pages/step3_softmax.py", query_params={})


def rollout_section(attentions, pronoun, candidates, model, sentence: str, teaching: bool) -> None:
    """Across layers: the mean over heads and attention rollout, from the pronoun to each candidate."""
    st.header("Across layers: mean over heads and attention rollout")
    st.markdown(
        "A single head is only part of the story: each layer attends to vectors that earlier layers already mixed.\n\n"
        "- **Mean over heads** averages a layer's 12 heads.\n"
        "- **Attention rollout** follows attention back through all layers, to estimate how much of each word "
        "of the sentence has reached the pronoun's vector.\n"
        "- **The residual term**: each layer also passes its input straight through, next to what attention adds; "
        "rollout counts that as half of the mix."
    )
    with st.expander("How rollout is computed"):
        st.markdown("Abnar & Zuidema (2020). Take each layer's attention averaged over its heads, Ā. Mix in the "
                    "residual connection as half of an identity matrix I and make each row sum to 1 again; then "
                    "multiply the layers together, first layer on the right:")
        st.latex(r"\tilde A_\ell = \operatorname{rownorm}\left(\tfrac12 \bar A_\ell + \tfrac12 I\right), \qquad "
                 r"R_\ell = \tilde A_\ell \, \tilde A_{\ell-1} \cdots \tilde A_1")
        st.markdown("Row of the pronoun in R after layer ℓ: how much each input word flows into it. It is an "
                    "estimate: it ignores the feed-forward blocks and the values' sizes.")
    mean_weights, rollout_weights = pr.across_layers(attentions, pronoun, candidates)   # [candidates, L] each
    series = {}
    for c, mean_weight, rollout_weight in zip(candidates, mean_weights, rollout_weights):
        series[f"mean over heads → {c.text}"] = mean_weight
        series[f"rollout → {c.text}"] = rollout_weight
    figures.show(figures.line_chart(range(1, model.n_layers + 1), series, f"Weight from “{pronoun.text}” per layer",
                                    "layer", "weight", teaching=teaching),
                 figures.figure_filename("pronoun_layers", sentence, "rollout"), teaching)
    last_roll = {c.text: float(weights[-1]) for c, weights in zip(candidates, rollout_weights)}
    n_tokens = np.shape(attentions)[-1]  # a rollout row spreads 100% over every token the model sees
    st.markdown(f"After the last layer, rollout's estimate of the attention that flows into {quote(pronoun.text)}: "
                + ", ".join(f"{pct(v)} from {quote(k)}" for k, v in last_roll.items())
                + f" (an even spread over its {n_tokens} tokens would give each {pct(1 / n_tokens)}): "
                + pr.rollout_reading(last_roll, quote=quote))


def contrast_section(sentence: str, s, verdict, pronoun, a, b, tag: str, teaching: bool, chosen=None) -> None:
    """The contrast test: the user changes one word; does each head change its mind? chosen: the head chosen in
    advance for pronouns, whose answer is said apart."""
    st.header("The contrast test: change one word, does the head change its mind?")
    contrast = st.text_input("Contrast sentence: change one word so that the pronoun means the other candidate",
                             value=pr.contrast_partner(sentence), key=f"pron_contrast_{tag}",
                             max_chars=MAX_SENTENCE_CHARS)
    warn_if_cut(contrast, MAX_SENTENCE_CHARS)
    answer_first = st.radio(f"In the first sentence, {quote(pronoun.text)} means…", [a.text, b.text], format_func=md,
                            horizontal=True,
                            key=f"pron_answer_{tag}_{a.position}_{b.position}")
    if contrast.strip() == sentence.strip():
        st.info(f"Edit the contrast sentence: change one word so that {quote(pronoun.text)} means the other "
                f"candidate (for example “hungry” → “delicious” in “{DEFAULT}”).")
    else:
        try:
            c_analysis = analyze(contrast, s.model_name or None)
            c_words = pr.words_of(c_analysis.tokens, c_analysis.word_ids)
            c_pronoun = c_words[pr.find_word(c_words, pronoun.text)]
            c_a, c_b = c_words[pr.find_word(c_words, a.text)], c_words[pr.find_word(c_words, b.text)]
        except Exception:
            st.info(f"The contrast sentence must contain {quote(pronoun.text)}, {quote(a.text)} and {quote(b.text)}.")
        else:
            c_share = pr.preference(c_analysis.attentions, c_pronoun, c_a, c_b)
            summary = pr.contrast_summary(verdict.share_a, c_share, first_is_a=answer_first == a.text,
                                          elsewhere=verdict.looks_elsewhere, chosen=chosen)
            figures.show(figures.layer_head_grid(c_share - verdict.share_a,
                                                 f"Change of {a.text}'s share: contrast − first",
                                                 teaching=teaching, colorbar_title="change"),
                         figures.figure_filename("pronoun_contrast", contrast, f"{a.text}-{b.text}"), teaching)
            st.markdown(summary["sentence"])
