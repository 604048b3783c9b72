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
from ui.content import words
from ui.model import warn_if_cut, warn_if_truncated
from ui.settings import MAX_SENTENCE_CHARS, open_head_in_steps
from ui.text import layer_head_name, layer_head_tag, md, pct, people_number, quote, shorten

from .pronoun_verdict import contrast_text, numbers_say, rollout_text

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

    sentence = st.text_input(words("pronoun.sentence_label"), key="pron_sentence", bind="query-params",
                             max_chars=MAX_SENTENCE_CHARS)
    st.session_state["_pron_kept"] = sentence
    warn_if_cut(sentence, MAX_SENTENCE_CHARS)
    if s.sentence.strip() and s.sentence != sentence:
        if pr.has_pronoun(s.sentence):
            st.button(words("pronoun.use_sidebar", sentence=md(shorten(s.sentence, 60))),
                      on_click=st.session_state.__setitem__, args=("pron_sentence", s.sentence),
                      key="pron_use_sidebar")
        else:
            st.caption(words("pronoun.sidebar_no_pronoun", sentence=quote(shorten(s.sentence, 60))))
    if not sentence.strip():
        st.info(words("pronoun.empty"))
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
    sentence_words = pr.words_of(analysis.tokens, analysis.word_ids)
    choice = pr.choose(sentence, sentence_words)
    if choice.pronoun is None:
        if analysis.truncated and pr.has_pronoun(sentence):
            st.info(words("pronoun.pronoun_cut"))
        else:
            st.info(words("pronoun.no_pronoun"))
        st.stop()

    # Every choice below is keyed on the sentence: a new sentence starts from its own defaults, while the
    # same sentence keeps what the user picked (Streamlit would otherwise keep old indices for new options).
    tag = f"{zlib.crc32(sentence.encode()):08x}"
    selectable = [i for i, w in enumerate(sentence_words)
                  if any(c.isalnum() for c in w.text) and i not in choice.fragments]
    word_labels = [f"{w.text} (#{i + 1})" for i, w in enumerate(sentence_words)]  # counted from 1, as people count
    left, right = st.columns(2)
    pronoun_index = left.selectbox(words("pronoun.pronoun_label"), selectable, index=selectable.index(choice.pronoun),
                                   format_func=word_labels.__getitem__, key=f"pron_word_{tag}")
    if pronoun_index != choice.pronoun:
        choice = pr.choose(sentence, sentence_words, pronoun=pronoun_index)
    chosen = right.multiselect(words("pronoun.candidates_label"),
                               [i for i in selectable if i != pronoun_index], default=list(choice.pair),
                               format_func=word_labels.__getitem__, key=f"pron_candidates_{tag}_{pronoun_index}",
                               max_selections=6)
    pronoun = sentence_words[pronoun_index]
    if len(choice.pair) < 2 and len(chosen) < 2:
        st.info(words("pronoun.too_few_candidates", pronoun=quote(pronoun.text),
                      found_one=quote(sentence_words[choice.pair[0]].text) if choice.pair else ""))
        st.stop()
    if len(chosen) < 2:
        st.info(words("pronoun.pick_two"))
        st.stop()
    candidates = [sentence_words[i] for i in chosen]
    if any(len(w.pieces) > 1 for w in candidates + [pronoun]):
        split = [w.text for w in candidates + [pronoun] if len(w.pieces) > 1]
        st.caption(words("pronoun.split_pieces", split=", ".join(quote(w) for w in split)))
    return tag, pronoun_index, pronoun, candidates


def parity_note(sentence: str, s, model, attentions) -> None:
    """Every number is the model's own attention: the core's recomputation of all heads against it. Not on a slide
    when they agree: a slide hides the green badge (ui/widgets/page_style.py), and its box alone showed a label
    without the statement it details; a difference is a warning, which a slide shows whole."""
    parity = float(np.abs(core_attentions(sentence, s.model_name or None) - attentions).max())
    n_heads_total = model.n_layers * model.n_heads
    if s.teaching and parity < 1e-5:
        return
    (st.warning if s.teaching else st.success)(
        words("pronoun.parity", n_heads=n_heads_total, tiny=parity < 1e-5, difference=f"{parity:.5f}"))
    with st.expander(words("pronoun.exact_label")):
        st.write(words("pronoun.exact", n_heads=n_heads_total, difference=f"{parity:.2e}"))


def scoreboard(model) -> pr.Scoreboard:
    """The built-in pairs' scores, shared by everyone (a spinner only when not ready yet)."""
    if shared.is_ready(shared.pronoun_key(model)):  # the built-in pairs: the verdict weighs them too
        board = shared.builtin_pronoun_scoreboard(model)
    else:
        with st.spinner(words("pronoun.scoring")):
            board = shared.builtin_pronoun_scoreboard(model)
    return board


def weight_grids(verdict, pronoun, a, b, sentence: str, teaching: bool, tokens) -> None:
    """Each head's weight on candidate A, and its preference between A and B, with what the numbers say."""
    short = shorten(sentence, 40)
    st.header(words("pronoun.weight_header", pronoun=quote(pronoun.text), a=quote(a.text)))
    st.markdown(words("pronoun.weight_intro", pronoun=quote(pronoun.text), a=quote(a.text)))
    figures.show(figures.weight_grid(verdict.weight_a,
                                     words("pronoun.weight_title", pronoun=pronoun.text, a=a.text, sentence=short),
                                     teaching=teaching, highlight=verdict.best,
                                     colorbar_title=words("pronoun.weight_colorbar", a=a.text)),
                 figures.figure_filename("pronoun_weight", sentence, a.text), teaching)

    st.header(words("pronoun.share_header", a=quote(a.text), b=quote(b.text)))
    st.markdown(words("pronoun.share_intro", a=quote(a.text), b=quote(b.text), pronoun=quote(pronoun.text),
                      elsewhere=pct(pr.ELSEWHERE)))
    shown_share = np.where(verdict.looks_elsewhere, np.nan, verdict.share_a)
    share_title = words("pronoun.share_title", pronoun=pronoun.text, a=a.text, b=b.text, sentence=short)
    figures.show(figures.layer_head_grid(shown_share, share_title, teaching=teaching, zmid=0.5, bound=0.5,
                                         colorbar_title=words("pronoun.share_colorbar", a=a.text)),
                 figures.figure_filename("pronoun_grid", sentence, f"{a.text}-{b.text}"), teaching)

    st.subheader(words("pronoun.numbers_say_header"))
    st.markdown(numbers_say(verdict, pronoun.text, a.text, b.text, tokens))


def head_detail(rows, analysis, verdict, pronoun, a, b, sentence: str, tag: str, pronoun_index: int, model,
                teaching: bool) -> None:
    """One head's row of attention from the pronoun, the best head first, and the link into the step pages."""
    st.subheader(words("pronoun.detail_header"))
    c1, c2, c3 = st.columns([1, 1, 2])
    detail_key = f"{tag}_{pronoun_index}_{a.position}"
    layer = c1.selectbox(words("pronoun.layer_label"), range(model.n_layers), index=verdict.best[0],
                         key=f"pron_layer_{detail_key}",
                         format_func=people_number)
    head = c2.selectbox(words("pronoun.head_label"), range(model.n_heads), index=verdict.best[1],
                        key=f"pron_head_{detail_key}",
                        format_func=people_number)
    figures.show(figures.row_bars(rows[layer, head], analysis.tokens,
                                  words("pronoun.detail_title", pronoun=pronoun.text,
                                        head=layer_head_name(layer, head, model.n_layers)),
                                  teaching=teaching, highlight=pronoun.position),
                 figures.figure_filename("pronoun_row", sentence, layer_head_tag(layer, head, sep="")), teaching)
    st.caption(words("pronoun.detail_caption", pronoun=quote(pronoun.text), a=quote(a.text), b=quote(b.text),
                     weight_a=pct(verdict.weight_a[layer, head]), weight_b=pct(verdict.weight_b[layer, head])))
    c3.button(words("pronoun.open_steps"), on_click=open_head_in_steps, key="pron_open",
              args=(sentence, layer, head, pronoun.position, "app_pages/step3_softmax.py"))
    if st.session_state.pop("_goto", None):
        # An empty dict, not None: Streamlit refuses to clear URL values that widgets are bound to; the
        # bound widgets write the new view into the URL themselves.
        st.switch_page("app_pages/step3_softmax.py", query_params={})


def rollout_section(attentions, pronoun, candidates, model, sentence: str, teaching: bool) -> None:
    """Across layers: the mean over heads and attention rollout, from the pronoun to each candidate."""
    st.header(words("pronoun.rollout_header"))
    st.markdown(words("pronoun.rollout_intro", n_heads=model.n_heads))
    with st.expander(words("pronoun.rollout_how_label")):
        st.markdown(words("pronoun.rollout_how"))
        st.latex(r"\tilde A_\ell = \operatorname{rownorm}\left(\tfrac12 \bar A_\ell + \tfrac12 I\right), \qquad "
                 r"R_\ell = \tilde A_\ell \, \tilde A_{\ell-1} \cdots \tilde A_1")
        st.markdown(words("pronoun.rollout_how_after"))
    mean_weights, rollout_weights = pr.across_layers(attentions, pronoun, candidates)   # [candidates, L] each
    series = {}
    for c, mean_weight, rollout_weight in zip(candidates, mean_weights, rollout_weights):
        series[words("pronoun.series_mean", word=c.text)] = mean_weight
        series[words("pronoun.series_rollout", word=c.text)] = rollout_weight
    figures.show(figures.line_chart(range(1, model.n_layers + 1), series,
                                    words("pronoun.layers_title", pronoun=pronoun.text),
                                    words("pronoun.axis_layer"), words("pronoun.axis_weight"), teaching=teaching),
                 figures.figure_filename("pronoun_layers", sentence, "rollout"), teaching)
    last_roll = {c.text: float(weights[-1]) for c, weights in zip(candidates, rollout_weights)}
    n_tokens = np.shape(attentions)[-1]  # a rollout row spreads 100% over every token the model sees
    st.markdown(rollout_text(last_roll, pronoun.text, n_tokens))


def contrast_section(sentence: str, s, verdict, pronoun, a, b, tag: str, teaching: bool, chosen=None) -> None:
    """The contrast test: the user changes one word; does each head change its mind? chosen: the head chosen in
    advance for pronouns, whose answer is said apart."""
    st.header(words("pronoun.contrast_header"))
    contrast = st.text_input(words("pronoun.contrast_label"),
                             value=pr.contrast_partner(sentence), key=f"pron_contrast_{tag}",
                             max_chars=MAX_SENTENCE_CHARS)
    warn_if_cut(contrast, MAX_SENTENCE_CHARS)
    answer_first = st.radio(words("pronoun.answer_label", pronoun=quote(pronoun.text)), [a.text, b.text],
                            format_func=md,
                            horizontal=True,
                            key=f"pron_answer_{tag}_{a.position}_{b.position}")
    if contrast.strip() == sentence.strip():
        st.info(words("pronoun.contrast_same", pronoun=quote(pronoun.text), example=md(DEFAULT)))
    else:
        try:
            c_analysis = analyze(contrast, s.model_name or None)
            c_words = pr.words_of(c_analysis.tokens, c_analysis.word_ids)
            c_pronoun = c_words[pr.find_word(c_words, pronoun.text)]
            c_a, c_b = c_words[pr.find_word(c_words, a.text)], c_words[pr.find_word(c_words, b.text)]
        except Exception:
            st.info(words("pronoun.contrast_missing", pronoun=quote(pronoun.text), a=quote(a.text),
                          b=quote(b.text)))
        else:
            c_share = pr.preference(c_analysis.attentions, c_pronoun, c_a, c_b)
            summary = pr.contrast_summary(verdict.share_a, c_share, first_is_a=answer_first == a.text,
                                          elsewhere=verdict.looks_elsewhere, chosen=chosen)
            figures.show(figures.layer_head_grid(c_share - verdict.share_a,
                                                 words("pronoun.contrast_title", a=a.text), teaching=teaching,
                                                 colorbar_title=words("pronoun.contrast_colorbar")),
                         figures.figure_filename("pronoun_contrast", contrast, f"{a.text}-{b.text}"), teaching)
            st.markdown(contrast_text(summary, verdict.weight_a.shape[0]))
