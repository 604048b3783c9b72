"""Shared state and all caching, in one place.

app.py draws the sidebar once per rerun (sidebar_ui) and every page calls current_view() to get the
same sentence, projection and selected token, already computed.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field, replace

import numpy as np
import streamlit as st

from attention import core, explain
from attention.model import (AttentionModel, ModelLoadError, SentenceAnalysis, SentenceError,
                             allowed_model_choice, models_dir, resolve_model_name)

from .memory import ByteBudgetCache
from .shared import stored_core_attentions
from .text import md, plain_small

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


# A failed load is remembered for this long, so every page and rerun says so at once instead of retrying.
FAILED_LOAD_MEMORY_SECONDS = 60.0
_failed_loads: dict[str, tuple[float, str]] = {}
_failed_loads_lock = threading.Lock()
_loaded_models: set[str] = set()


def _model_to_load(name: str | None) -> str:
    """A visitor's Model field is checked against the allowed folder; empty means the server's model."""
    return allowed_model_choice(name) if (name or "").strip() else resolve_model_name(None)


def get_model(name: str | None = None) -> AttentionModel:
    """The model, loaded once per process and shared by every session; a failure is remembered a minute."""
    name = _model_to_load(name)
    with _failed_loads_lock:
        failed = _failed_loads.get(name)
    if failed and time.monotonic() - failed[0] < FAILED_LOAD_MEMORY_SECONDS:
        raise ModelLoadError(failed[1])
    try:
        if name in _loaded_models:  # no spinner: each one is two more elements for the browser, every run
            return _load_model(name)
        with st.spinner(f"Loading the model ({md(name)}) — the first time takes a few seconds…"):
            model = _load_model(name)
        _loaded_models.add(name)
        return model
    except ModelLoadError as error:
        with _failed_loads_lock:
            _failed_loads[name] = (time.monotonic(), str(error))
        raise


def forget_failed_loads() -> None:
    """The retry button: the next page run tries every failed model again."""
    with _failed_loads_lock:
        _failed_loads.clear()


def preload_model() -> AttentionModel | None:
    """Warm the shared model; a failure is left for the page to explain."""
    try:
        return get_model(st.session_state.get("model") or None)
    except ModelLoadError:
        return None


# Every per-sentence result of every session together: a hosted demo has ~700 MB, the server itself uses
# ~300, and an idle server should stay under 450.
SENTENCE_CACHE_BUDGET_BYTES = 100 * 2**20
SENTENCE_CACHE = ByteBudgetCache(SENTENCE_CACHE_BUDGET_BYTES)


def analysis_of(model: AttentionModel, sentence: str) -> SentenceAnalysis:
    # Shared read-only by every session (no per-session copy): its arrays cannot be written to.
    return SENTENCE_CACHE.get_or_compute(("analysis", sentence, model.name), lambda: model.analyze(sentence))


def _analyze(sentence: str, model_name: str) -> SentenceAnalysis:
    return analysis_of(_load_model(model_name), sentence)


def analyze(sentence: str, model_name: str | None = None) -> SentenceAnalysis:
    """One model pass per sentence, shared by every page, projection and session (bounded in bytes)."""
    model = get_model(model_name)
    return _analyze(sentence, model.name)


def _core_attentions_of(model: AttentionModel, sentence: str) -> np.ndarray:
    analysis = analysis_of(model, sentence)  # first, outside: a computation may not wait on the cache
    return SENTENCE_CACHE.get_or_compute(("core attentions", sentence, model.name),
                                         lambda: stored_core_attentions(model, analysis))


def _core_attentions(sentence: str, model_name: str) -> np.ndarray:
    return _core_attentions_of(_load_model(model_name), sentence)


def store_sentence_pass(model: AttentionModel, sentence: str, analysis: SentenceAnalysis,
                        core_attentions: np.ndarray) -> None:
    """A built-in sentence's model pass and core attentions from the warm-up (ui/shared.py, computed in its
    worker), kept as if a visitor had asked."""
    SENTENCE_CACHE.get_or_compute(("analysis", sentence, model.name), lambda: analysis)
    SENTENCE_CACHE.get_or_compute(("core attentions", sentence, model.name), lambda: core_attentions)


_analyze.clear = _core_attentions.clear = SENTENCE_CACHE.clear


def core_attentions(sentence: str, model_name: str | None = None) -> np.ndarray:
    """All layers × heads recomputed by our core for one sentence, cached like the model pass."""
    model = get_model(model_name)
    return _core_attentions(sentence, model.name)


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


def link_number(value: str | None, below: int) -> int | None:
    """A link's whole number: ASCII digits only (no sign, no "²" or "①", no decimals) and below the limit."""
    if value is None or not (0 < len(value) <= 6 and value.isascii() and value.isdigit()):
        return None
    number = int(value)
    return number if number < below else None


# The most tokens any model here reads: the exact range of a link's token is checked once the sentence is known.
MAX_LINK_TOKEN = 512

LINK_CHECKS = {
    "mode": lambda v: v in MODES,
    "dk": lambda v: link_number(v, max(D_K_CHOICES) + 1) in D_K_CHOICES,
    "seed": lambda v: link_number(v, 10_000) is not None,
    "layer": lambda v: link_number(v, 6) is not None,
    "head": lambda v: link_number(v, 12) is not None,
    "special": lambda v: v in ("true", "false"),
    "teach": lambda v: v in ("true", "false"),
    "token": lambda v: link_number(v, MAX_LINK_TOKEN) is not None,
}


def _link_notice(key: str, value: str) -> str:
    return f"The link's {key} value “{md(value[:40])}” is not valid, so the default is used."


def _drop_link_value(key: str) -> None:
    """Take a refused value out of the link before any widget reads it.

    Streamlit would otherwise still seed the widget from it in its own, looser way ("+1" counts as 1), so
    the page would use a value the notice says was refused. Streamlit keeps the link's first values apart
    from st.query_params; both are cleared (internal API of Streamlit 1.67, hence the guard).
    """
    try:
        from streamlit.runtime.state import get_session_state

        with get_session_state().query_params() as params:
            params.remove_param(key)
            params._initial_query_params.pop(key, None)
    except Exception:  # a newer Streamlit: the notice still tells the user
        pass


def link_notices() -> list[str]:
    """Values in a shared link that are not valid: Streamlit drops them; we say so once per session.

    A key given twice counts with its last value, as Streamlit reads it; every value must be valid.
    """
    if "_link_notices" not in st.session_state:
        notices = []
        for key, valid in LINK_CHECKS.items():
            values = st.query_params.get_all(key)
            bad = next((v for v in values if not valid(v)), None)
            if bad is not None:
                notices.append(_link_notice(key, bad))
                _drop_link_value(key)
        st.session_state["_link_notices"] = notices
    return st.session_state["_link_notices"]


def sidebar_ui() -> Settings:
    """The one sidebar every page shares; every value lives in the URL so a link reopens the view."""
    side = st.sidebar
    notices = link_notices()
    notice_box = side.container()  # filled at the end: the token's range is known only once tokenized
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
    tokens = shown_tokens(sentence, show_special)
    token = 0
    if tokens:
        _keep_token_picked_in_a_fragment()
        _follow_sentence_with_token(sentence, show_special, len(tokens), notices)
        token = side.selectbox("Selected token (its row is explained)", list(range(len(tokens))),
                               format_func=lambda i: f"{i}: {tokens[i]}", key="token",
                               help="The token whose row of scores and weights the pages explain: the token "
                                    "that is looking.")
        _link_token(token)
    for notice in notices:
        notice_box.warning(notice)
    side.header("Display")
    teaching = side.toggle("Teaching mode (big fonts, clean slides)", key="teach", bind="query-params",
                           help="Larger text and figures for screenshots and a projector.")
    with side.expander("Model"):
        allowed = models_dir() is not None
        model_name = st.text_input("Model folder (empty = bundled all-MiniLM-L6-v2)", value="", key="model",
                                   disabled=not allowed,
                                   help="The name of a folder in this server's models folder." if allowed else
                                   "Switched off on this server: it uses the bundled all-MiniLM-L6-v2.")
    return Settings(sentence=_clean_sentence(sentence), mode=mode, d_k=int(d_k), seed=seed, layer=int(layer),
                    head=int(head), show_special=show_special, token=int(token or 0), teaching=teaching,
                    model_name=model_name.strip())


def _keep_token_picked_in_a_fragment() -> None:
    """A token chip in a fragment (selected_token_view) changed the token without redrawing the sidebar's list,
    whose old value comes back with the next full run: the picked token stays, unless the list was changed."""
    shown, picked = st.session_state.pop("_token_picked_in_fragment", (None, None))
    if picked is not None and st.session_state.get("token") == shown:
        st.session_state["token"] = picked


def _follow_sentence_with_token(sentence: str, show_special: bool, n_tokens: int, notices: list[str]) -> None:
    """The selected token follows the sentence: kept for the same sentence, token 0 for a new one.

    The selectbox is not bound to the URL by Streamlit (that writes the label, "19: loudly"): the link
    carries the index (token=19), written by _link_token and read here on a session's first run.
    """
    state = st.session_state
    previous = state.get("_token_for")
    if previous is None:  # first run of the session: the link's token, if any and in range
        raw = st.query_params.get("token")
        number = link_number(raw, n_tokens)
        if raw is not None and number is None and not any("link's token" in n for n in notices):
            notices.append(f"The link's token value “{md(raw[:40])}” is not one of this sentence's {n_tokens} "
                           "tokens (counted from 0), so the first token is used.")
        if raw is not None or not isinstance(state.get("token"), int):
            state["token"] = number or 0
    elif previous[0] != sentence:
        state["token"] = 0
    elif previous[1] != show_special and isinstance(state.get("token"), int):
        # The same sentence with [CLS] shown or hidden: keep the same word piece, now one place over.
        state["token"] = state["token"] + 1 if show_special else state["token"] - 1
    if not isinstance(state.get("token"), int) or not 0 <= state["token"] < n_tokens:
        state["token"] = max(0, min(n_tokens - 1, state.get("token") if isinstance(state.get("token"), int) else 0))
    state["_token_for"] = (sentence, show_special)


def choose_sentence(sentence: str, token: int = 0, show_special: bool | None = None) -> None:
    """For a callback that puts a new sentence in the sidebar and picks a token of it (an example sentence,
    "open this head"): the token is recorded as chosen for that sentence, so it is not reset as a new one."""
    state = st.session_state
    state["sentence"] = sentence
    if show_special is not None:
        state["special"] = show_special
    state["token"] = token
    state["_token_for"] = (sentence, bool(state.get("special", False)))


def _link_token(token: int) -> None:
    """The selected token's index in the link (absent for token 0, like every other default)."""
    if token:
        if st.query_params.get("token") != str(token):
            st.query_params["token"] = str(token)
    elif "token" in st.query_params:
        del st.query_params["token"]


def shown_tokens(sentence: str, show_special: bool) -> list[str]:
    """The tokens the sidebar lists for a sentence (none when it is empty or the model cannot load)."""
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
    # Checked per session, not by the flag alone: in a crowd of first visitors another session may already
    # have flipped the flag while this one was started in the old mode.
    if "_settings" not in st.session_state and not st.session_state.get("_left_legacy_pages_mode"):
        st.session_state["_left_legacy_pages_mode"] = True
        if getattr(PagesManager, "uses_pages_directory", None):
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
    def short_label(self) -> str:
        """The view in a few plain words, for the subtitle of a half-width figure."""
        s = self.settings
        if s.mode == "learned":
            return f"layer {s.layer} head {s.head}"
        if s.mode == "random":
            return f"random, d_k={s.d_k}, seed {s.seed}"
        return "identity"

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


def model_or_stop(s: Settings) -> AttentionModel:
    """The model, or a message that says what failed and how to fix it, and a stop."""
    try:
        return get_model(s.model_name or None)
    except ModelLoadError as error:
        st.error(f"**The model could not be loaded.** {md(str(error))}")
        if st.button("Try loading the model again", key="retry_model_load"):
            forget_failed_loads()
            st.rerun()
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
    return build_view(s, model, analysis)


def selected_token_view() -> View:
    """current_view() for the part of a page that reruns alone (a fragment) when a token chip is clicked: with the
    token picked since the page's last full run, which the link then carries too."""
    s = settings()
    token = st.session_state.get("token")
    if isinstance(token, int) and token >= 0 and token != s.token:
        # The sidebar's list was not redrawn: it still shows, and on the next full run sends back, the token of
        # the last full run. Remembered, so that run keeps the picked one (_keep_token_picked_in_a_fragment).
        shown = st.session_state.get("_token_picked_in_fragment", (s.token, token))[0]
        st.session_state["_token_picked_in_fragment"] = (shown, token)
        s = replace(s, token=token)
        st.session_state["_settings"] = s
        _link_token(token)
    model, analysis = load_analysis(s)
    return build_view(s, model, analysis)


def view_again(s: Settings, model: AttentionModel) -> View:
    """The same view rebuilt from its settings alone, outside a page run (a download made on click). Holding the
    settings instead of the view keeps a closed tab from pinning a 25 MB model pass after the cache let it go."""
    return build_view(s, model, analysis_of(model, s.sentence))


def build_view(s: Settings, model: AttentionModel, analysis: SentenceAnalysis) -> View:
    """The four steps for the settings on one sentence's model pass (no Streamlit)."""
    shown = np.arange(analysis.n_tokens) if s.show_special else np.flatnonzero(~analysis.is_special)
    x, steps = steps_for(model, analysis, shown, s.mode, s.d_k, s.seed, s.layer, s.head)
    parity, full, hidden = None, None, np.zeros(0, dtype=int)
    if s.mode == "learned":
        everything = np.arange(analysis.n_tokens)
        # With [CLS]/[SEP] shown, the shown steps already are the whole sentence's: no second computation.
        full = steps if len(shown) == len(everything) else \
            steps_for(model, analysis, everything, s.mode, s.d_k, s.seed, s.layer, s.head)[1]
        parity = float(np.abs(full.weights - analysis.attentions[s.layer, s.head]).max())
        hidden = np.setdiff1d(everything, shown)
    return View(settings=s, model=model, analysis=analysis, shown=shown,
                tokens=[analysis.tokens[i] for i in shown], x=x, steps=steps, parity=parity, full=full,
                hidden=hidden)


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
    reference = _reference_model(_model_to_load(s.model_name))  # the same allow-list as the page's model
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
            f"page's weights by {plain_small(gap, at_most=True)} ({gap:.1e}).")


# A page's own temporary arrays and figures for a long text are tens of MB; a class sending long texts at
# once would add them all up. Runs on inputs this long (about 120 tokens and up) take turns, one at a time;
# ordinary sentences never wait.
LONG_INPUT_CHARS = 600
_long_input_runs = threading.BoundedSemaphore(1)


@contextlib.contextmanager
def long_input_slot(sentence: str):
    """Around a page run (app.py): wait for the turn if the sentence is long."""
    if len(sentence or "") < LONG_INPUT_CHARS:
        yield
        return
    with _long_input_runs:
        yield
