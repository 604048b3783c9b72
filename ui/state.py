"""Shared state and all caching, in one place.

app.py draws the sidebar once per rerun (sidebar_ui) and every page calls current_view() to get the
same sentence, projection and selected token, already computed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from attention import core, explain
from attention.model import (AttentionModel, ModelLoadError, SentenceAnalysis, SentenceError,
                             resolve_model_name)

from .text import md

DEFAULT_SENTENCE = "I am good."
# Layer 0, head 2: every token looks at the token before it (measured with attention/heads.py
# describe_heads: 100% "previous token" on the default and the pronoun sentence) — a pattern a student sees.
DEFAULT_HEAD = 2
MODES = {
    "learned": "the model's own W_Q, W_K, W_V for one layer and head",
    "random": "seeded random matrices of width d_k",
    "identity": "the textbook toy: Q = K = V = embeddings",
}
D_K_CHOICES = [2, 4, 8, 16, 32, 64, 128, 384]
MAX_SENTENCE_CHARS = 10_000


@st.cache_resource(show_spinner=False, max_entries=2)
def _load_model(name: str) -> AttentionModel:
    return AttentionModel(name)


def get_model(name: str | None = None) -> AttentionModel:
    """The model, loaded once per process and shared by every session."""
    name = resolve_model_name(name)
    with st.spinner(f"Loading the model ({md(name)}) — the first time takes a few seconds…"):
        return _load_model(name)


def preload_model() -> None:
    """Warm the shared model; a failure is left for the page to explain."""
    try:
        get_model(st.session_state.get("model") or None)
    except ModelLoadError:
        pass


@st.cache_data(show_spinner=False, max_entries=8)
def _analyze(sentence: str, model_name: str) -> SentenceAnalysis:
    return _load_model(model_name).analyze(sentence)


def analyze(sentence: str, model_name: str | None = None) -> SentenceAnalysis:
    """One model pass per sentence, cached for every page and projection (bounded: a demo has ~700 MB)."""
    name = resolve_model_name(model_name)
    get_model(name)
    return _analyze(sentence, name)


@st.cache_data(show_spinner=False, max_entries=24)
def _core_attentions(sentence: str, model_name: str) -> np.ndarray:
    # float32: 72 matrices per sentence; at 256 tokens that is 19 MB, not 38.
    return _load_model(model_name).core_attentions(_analyze(sentence, model_name)).astype(np.float32)


def core_attentions(sentence: str, model_name: str | None = None) -> np.ndarray:
    """All layers × heads recomputed by our core for one sentence, cached like the model pass."""
    name = resolve_model_name(model_name)
    analyze(sentence, name)
    return _core_attentions(sentence, name)


@dataclass(frozen=True)
class Settings:
    sentence: str
    mode: str
    d_k: int
    seed: int
    layer: int
    head: int
    show_special: bool
    token: int            # position among the shown tokens
    teaching: bool
    model_name: str


def _clean_sentence(text: str) -> str:
    return (text or "")[:MAX_SENTENCE_CHARS]


LINK_CHECKS = {
    "mode": lambda v: v in MODES,
    "dk": lambda v: v.isdigit() and int(v) in D_K_CHOICES,
    "seed": lambda v: v.isdigit() and int(v) <= 9999,
    "layer": lambda v: v.isdigit() and int(v) < 6,
    "head": lambda v: v.isdigit() and int(v) < 12,
    "special": lambda v: v in ("true", "false"),
    "teach": lambda v: v in ("true", "false"),
}


def link_notices() -> list[str]:
    """Values in a shared link that are not valid: Streamlit drops them; we say so once per session."""
    if "_link_notices" not in st.session_state:
        notices = []
        for key, valid in LINK_CHECKS.items():
            value = st.query_params.get(key)
            if value is not None and not valid(value):
                notices.append(f"The link's {key} value “{md(value[:40])}” is not valid, so the default is used.")
        st.session_state["_link_notices"] = notices
    return st.session_state["_link_notices"]


def sidebar_ui() -> Settings:
    """The one sidebar every page shares; every value lives in the URL so a link reopens the view."""
    side = st.sidebar
    for notice in link_notices():
        side.warning(notice)
    side.header("Your sentence")
    sentence = side.text_area("Sentence", value=DEFAULT_SENTENCE, key="sentence", bind="query-params",
                              max_chars=MAX_SENTENCE_CHARS, height=90,
                              help="Any text; it is split into the model's word pieces.")
    side.header("How Q, K and V are made")
    # Options are their own short names so a shared link reads ?mode=identity.
    mode = side.radio("Projection", list(MODES), captions=list(MODES.values()), key="mode", bind="query-params",
                      help="How each token's query, key and value are made from its embedding (the list of "
                           "numbers that stands for it): multiplied by the model's learned tables W_Q, W_K, W_V, "
                           "by random tables, or not changed at all.")
    d_k, seed, layer, head = 32, 0, 0, DEFAULT_HEAD
    if mode == "random":
        d_k = side.select_slider("d_k (length of each query/key)", D_K_CHOICES, value=32, key="dk",
                                 bind="query-params",
                                 help="How many numbers each query and key has. Longer vectors give larger "
                                      "dot products, which is why step 2 divides by √d_k.")
        seed = int(side.number_input("Seed", 0, 9999, 0, key="seed", bind="query-params",
                                     help="Picks which random tables are drawn; the same seed gives the same "
                                          "numbers again."))
    if mode in ("learned",):
        columns = side.columns(2)
        layer = columns[0].selectbox("Layer", list(range(6)), key="layer", bind="query-params",
                                     help="The model repeats attention 6 times, each layer reading the one "
                                          "before. Layer 0 reads the word embeddings.")
        head = columns[1].selectbox("Head", list(range(12)), index=DEFAULT_HEAD, key="head", bind="query-params",
                                    help="Each layer has 12 heads: 12 separate attentions, each with its own "
                                         "W_Q, W_K, W_V, free to look for something different.")
    show_special = side.checkbox("Show [CLS] and [SEP]", value=False, key="special", bind="query-params",
                                 help="The special tokens the model adds around every sentence. "
                                      "Real heads often park attention on them.")
    tokens = _shown_tokens_for_sidebar(sentence, show_special)
    token = 0
    if tokens:
        token = side.selectbox("Selected token (its row is explained)", list(range(len(tokens))),
                               format_func=lambda i: f"{i}: {tokens[i]}", key="token", bind="query-params",
                               help="The token whose row of scores and weights the pages explain: the token "
                                    "that is looking.")
    side.header("Display")
    teaching = side.toggle("Teaching mode (big fonts, clean slides)", key="teach", bind="query-params",
                           help="Larger text and figures for screenshots and a projector.")
    with side.expander("Model"):
        model_name = st.text_input("Model name or local path (empty = bundled all-MiniLM-L6-v2)", value="",
                                   key="model")
    return Settings(sentence=_clean_sentence(sentence), mode=mode, d_k=int(d_k), seed=seed, layer=int(layer),
                    head=int(head), show_special=show_special, token=int(token or 0), teaching=teaching,
                    model_name=model_name.strip())


def _shown_tokens_for_sidebar(sentence: str, show_special: bool) -> list[str]:
    if not (sentence or "").strip():
        return []
    try:
        model = get_model(st.session_state.get("model") or None)
    except ModelLoadError:
        return []
    tokens = model.tokenize(_clean_sentence(sentence))
    return [t for t in tokens if show_special or t not in model.special_tokens]


def _leave_legacy_pages_mode() -> None:
    """Run the app through app.py's st.navigation, even for a server's very first visitor.

    Streamlit decides once per process, at the first session, whether a folder named pages/ means the old
    multipage mode; until app.py has called st.navigation, a deep link such as /step3_softmax runs that
    page alone, without the sidebar or the shared state. Flip the decision and rerun through app.py.
    """
    from streamlit.runtime.pages_manager import PagesManager

    # "_settings" missing means app.py has not run in this session: this page was started on its own.
    if getattr(PagesManager, "uses_pages_directory", None) and "_settings" not in st.session_state:
        PagesManager.uses_pages_directory = False
        st.rerun()


def settings() -> Settings:
    _leave_legacy_pages_mode()
    return st.session_state.get("_settings") or Settings(DEFAULT_SENTENCE, "learned", 32, 0, 0, DEFAULT_HEAD, False, 0,
                                                         False, "")


@dataclass(frozen=True)
class View:
    """What a step page needs: the shown tokens, their embeddings, and the four steps computed on them."""

    settings: Settings
    model: AttentionModel
    analysis: SentenceAnalysis
    shown: np.ndarray        # indices into analysis.tokens
    tokens: list[str]
    x: np.ndarray            # [n, d_model] the embeddings the projections start from
    steps: core.AttentionSteps
    parity: float | None     # max |our weights - the model's|, learned mode only
    # Learned mode: the four steps on the WHOLE sentence, [CLS]/[SEP] included, exactly as the model runs
    # them; None for the toys. `hidden` are the positions (into analysis.tokens) not shown.
    full: core.AttentionSteps | None = None
    hidden: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    @property
    def token(self) -> int:
        return min(self.settings.token, len(self.tokens) - 1)

    @property
    def token_label(self) -> str:
        return self.tokens[self.token]

    @property
    def code(self) -> str:
        """Short tag for titles and filenames: L0H3, random dk32 s0, identity."""
        s = self.settings
        if s.mode == "learned":
            return f"L{s.layer}H{s.head}"
        if s.mode == "random":
            return f"random-dk{s.d_k}-s{s.seed}"
        return "identity"

    @property
    def is_toy(self) -> bool:
        """Identity and random projections: the formula over the shown tokens, not the model's attention."""
        return self.full is None

    @property
    def hidden_label(self) -> str:
        """The one column that stands for every hidden token, e.g. "[CLS] + [SEP]"."""
        names = dict.fromkeys(self.analysis.tokens[j] for j in self.hidden)
        return " + ".join(names)

    @property
    def key_labels(self) -> list[str]:
        """Columns of the weights: the shown tokens, and in learned mode one column for the hidden ones."""
        return self.tokens + ([self.hidden_label] if not self.is_toy and self.hidden.size else [])

    def fold(self, matrix):  # [..., n_all] -> [..., len(key_labels)]
        """Columns over the whole sentence -> the shown ones plus the hidden ones added up (learned mode)."""
        return explain.fold_hidden(matrix, self.shown, self.hidden)

    @property
    def base(self) -> core.AttentionSteps:
        """The steps whose rows and columns the page's numbers come from (the whole sentence in learned mode)."""
        return self.steps if self.is_toy else self.full

    @property
    def base_index(self) -> int:
        """The selected token's row in `base`."""
        return self.token if self.is_toy else int(self.shown[self.token])

    @property
    def base_labels(self) -> list[str]:
        return self.tokens if self.is_toy else list(self.analysis.tokens)

    @property
    def weights(self) -> np.ndarray:
        """The attention weights a page shows: the model's own rows in learned mode (each sums to 1)."""
        return self.steps.weights if self.is_toy else self.fold(self.full.weights[self.shown])

    @property
    def output(self) -> np.ndarray:
        return self.steps.output if self.is_toy else self.full.output[self.shown]

    @property
    def hidden_share(self) -> float:
        """Share of the selected token's attention that goes to tokens not shown (learned mode)."""
        if self.is_toy or not self.hidden.size:
            return 0.0
        return float(self.full.weights[self.base_index, self.hidden].sum())

    @property
    def label(self) -> str:
        s = self.settings
        if s.mode == "learned":
            return f"learned weights, layer {s.layer} head {s.head}"
        if s.mode == "random":
            return f"random projections, d_k={s.d_k}, seed {s.seed}"
        return "identity (Q = K = V = X)"


def steps_for(model: AttentionModel, analysis: SentenceAnalysis, shown: np.ndarray, mode: str, d_k: int, seed: int,
              layer: int, head: int, **kwargs):
    """The embeddings X for the chosen mode and the four steps on the shown tokens."""
    if mode == "learned":
        x = analysis.hidden_states[layer][shown].astype(np.float64)
        q, k, v = core.learned_projection(x, model.head_weights(layer, head))
    else:
        x = analysis.token_embeddings[shown].astype(np.float64)
        q, k, v = core.random_projection(x, d_k, seed) if mode == "random" else core.identity_projection(x)
    return x, core.run_steps(q, k, v, **kwargs)


def model_parity(model: AttentionModel, analysis: SentenceAnalysis, layer: int, head: int) -> float:
    """Max |core weights - model's attention| on the full sequence, the model's own input."""
    x = analysis.hidden_states[layer].astype(np.float64)
    weights = core.run_steps(*core.learned_projection(x, model.head_weights(layer, head))).weights
    return float(np.abs(weights - analysis.attentions[layer, head]).max())


def model_or_stop(s: Settings) -> AttentionModel:
    """The model, or a message that says what failed and how to fix it, and a stop."""
    try:
        return get_model(s.model_name or None)
    except ModelLoadError as error:
        st.error(f"**The model could not be loaded.** {md(str(error))}")
        st.stop()


def load_analysis(s: Settings) -> tuple[AttentionModel, SentenceAnalysis]:
    """The model and the sentence's model pass, or a clear message and a stop."""
    model = model_or_stop(s)
    if not s.sentence.strip():
        st.info("Type a sentence in the sidebar to begin (for example: I am good.).")
        st.stop()
    try:
        analysis = analyze(s.sentence, s.model_name or None)
    except SentenceError as error:
        st.info(md(str(error)))
        st.stop()
    if analysis.truncated:
        st.warning(f"Your text is {analysis.n_tokens_before_truncation} tokens long; the model reads at most "
                   f"{model.max_length}, so only the first {analysis.n_tokens} tokens (with [CLS] and [SEP]) "
                   f"are used.")
    return model, analysis


def current_view() -> View:
    s = settings()
    model, analysis = load_analysis(s)
    shown = np.arange(analysis.n_tokens) if s.show_special else np.flatnonzero(~analysis.is_special)
    x, steps = steps_for(model, analysis, shown, s.mode, s.d_k, s.seed, s.layer, s.head)
    parity, full, hidden = None, None, np.zeros(0, dtype=int)
    if s.mode == "learned":
        everything = np.arange(analysis.n_tokens)
        _, full = steps_for(model, analysis, everything, s.mode, s.d_k, s.seed, s.layer, s.head)
        parity = float(np.abs(full.weights - analysis.attentions[s.layer, s.head]).max())
        hidden = np.setdiff1d(everything, shown)
    return View(settings=s, model=model, analysis=analysis, shown=shown,
                tokens=[analysis.tokens[i] for i in shown], x=x, steps=steps, parity=parity, full=full,
                hidden=hidden)


def plain_small(x: float) -> str:
    """A difference a student can read: no scientific notation."""
    return "less than 0.00001" if x < 1e-5 else f"{x:.5f}"


def parity_badge(view: View) -> None:
    """One line a student can read; the exact statement and the PyTorch check in an expander. Not on slides."""
    s = view.settings
    if view.is_toy:
        st.info(f"**Toy numbers.** Q, K and V come from {view.label}, not from the model's attention: the same "
                "four steps, over the words shown. Choose “learned” in the sidebar for the model's own numbers.")
        return
    if s.teaching:
        return
    ok = view.parity <= 1e-5
    where = f"layer {s.layer}, head {s.head}"
    (st.success if ok else st.warning)(
        f"✓ The same numbers as the model ({where})." if ok else
        f"⚠️ These numbers differ from the model's own ({where}) by {view.parity:.5f}.")
    with st.expander("What exactly is compared?"):
        st.markdown(
            f"The page computes the four steps itself: the model's learned W_Q, W_K and W_V for {where}, "
            f"applied to the vectors that enter layer {s.layer}, over the whole sentence with [CLS] and [SEP]. "
            f"Its attention weights are compared with the attention probabilities the model reports for the "
            f"same layer and head. Largest difference over all {view.analysis.n_tokens} × "
            f"{view.analysis.n_tokens} weights: {plain_small(view.parity)} ({view.parity:.1e}).")
        if view.model.backend == "numpy":
            st.markdown("Here the model itself runs as a short numpy program (attention/bert.py) with its own "
                        "trained weights. The button runs the original model with PyTorch "
                        "(sentence-transformers) instead, an independent reference.")
            pytorch_check_button(view)


@st.cache_resource(show_spinner=False, max_entries=1)
def _reference_model(name: str) -> AttentionModel:
    # The only place the app imports torch, and only when a user presses the check button.
    return AttentionModel(name, backend="torch")


def pytorch_gap(view: View) -> float:
    """Max |this page's weights - PyTorch's attention| for the view's sentence, layer and head."""
    s = view.settings
    reference = _reference_model(resolve_model_name(s.model_name or None))
    return explain.reference_gap(reference, view.analysis.sentence, s.layer, s.head, view.full.weights)


def pytorch_check_button(view: View) -> None:
    """Run the independent PyTorch reference on demand; remember the result for this sentence/layer/head."""
    s = view.settings
    checks = st.session_state.setdefault("_pytorch_checks", {})
    key = (s.model_name, view.analysis.sentence, s.layer, s.head)
    if st.button("Check against PyTorch now", key="pytorch-check"):
        with st.spinner("Loading PyTorch and the original model (the first time takes up to a minute)…"):
            try:
                checks[key] = pytorch_gap(view)
            except ModelLoadError as error:
                st.error(f"PyTorch could not be loaded: {md(str(error))}")
    if key in checks:
        gap = checks[key]
        (st.success if gap <= 1e-5 else st.warning)(
            f"PyTorch's own attention for this sentence, layer {s.layer}, head {s.head} differs from this "
            f"page's weights by {'' if gap < 1e-5 else 'at most '}{plain_small(gap)} ({gap:.1e}).")


BUILTIN_PRONOUN_SCORINGS = {"count": 0}   # how often the built-in pronoun test set was scored (tests read it)


@st.cache_resource(show_spinner="Scoring the built-in sentence pairs (once for everyone)…", max_entries=2)
def builtin_pronoun_scoreboard(model_name: str):
    """The pronoun page's built-in test set, scored once per process: it does not depend on the session.

    It reads the model's own attention, not the bounded per-session cache of sentences (16 passes would
    push every user's sentences out of it).
    """
    from attention import pronoun

    BUILTIN_PRONOUN_SCORINGS["count"] += 1
    model = _load_model(resolve_model_name(model_name or None))

    def attentions_of(text):
        analysis = model.analyze(text)
        return analysis.attentions, analysis.tokens, analysis.word_ids

    return pronoun.score_heads(pronoun.PAIRS, attentions_of)
