"""Shared state and all caching, in one place.

app.py draws the sidebar once per rerun (sidebar_ui) and every page calls current_view() to get the
same sentence, projection and selected token, already computed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from attention import core, explain
from attention.model import (DEFAULT_MODEL, AttentionModel, ModelLoadError, SentenceAnalysis, SentenceError,
                             allowed_model_choice, models_dir, pytorch_allowed, resolve_model_name)

from .labels import unique_labels
from .memory import ByteBudgetCache, release_free_memory
from .shared import stored_core_attentions
from .text import md, plain_small, quote

DEFAULT_SENTENCE = "I am good."
# Layer 1, head 8: chosen by measuring all 72 heads on the default sentence with attention/heads.py
# teaching_heads (tests/test_default_view.py checks it again). It is the clearest nameable pattern among the heads
# whose selected row ("i") is soft: each word looks mostly at the word after it (59% on average; "i": 72% on
# "am", 22% on [CLS] + [SEP], 5% on itself), and dividing by √d_k moves the row's entropy from 0.02 to 1.11 bits.
# The old default, layer 0 head 2, copies the previous token: every row one-hot, so softmax and scaling showed
# nothing (issue 29). It stays one click away as a preset (HEAD_PRESETS).
DEFAULT_LAYER = 1
DEFAULT_HEAD = 8
HEAD_PRESETS = {
    "a head that looks at the next word": (DEFAULT_LAYER, DEFAULT_HEAD),
    "a head that looks at the previous word": (0, 2),
}
MODES = {
    "learned": "the model's own W_Q, W_K, W_V for one layer and head",
    "random": "seeded random matrices of width d_k",
    "identity": "the textbook toy: Q = K = V = embeddings",
}
D_K_CHOICES = [2, 4, 8, 16, 32, 64, 128, 384]
# The model reads at most 256 tokens, about 1,200 characters of English; a box takes 3,000 (the part beyond what
# the model reads stays in the box, and the page says how much was read).
MAX_SENTENCE_CHARS = 3_000
_LOGGER = logging.getLogger(__name__)


@st.cache_resource(show_spinner=False, max_entries=2)
def _load_model(name: str) -> AttentionModel:
    # The server's own model may need PyTorch (its operator chose it); a visitor's choice only where the operator
    # allows PyTorch: one bad folder name would otherwise add ~350 MB to the server for good.
    return AttentionModel(name, allow_torch=name == resolve_model_name(None) or pytorch_allowed())


# A failed load is remembered for this long, so every page and rerun says so at once instead of retrying.
FAILED_LOAD_MEMORY_SECONDS = 60.0
_failed_loads: dict[str, tuple[float, str]] = {}
_failed_loads_lock = threading.Lock()
_loaded_models: set[str] = set()


def _model_to_load(name: str | None) -> str:
    """A visitor's Model field is checked against the allowed folder; empty means the server's model."""
    return allowed_model_choice(name) if (name or "").strip() else resolve_model_name(None)


def load_failure_message(typed: str) -> str:
    """What a visitor reads when a model does not load: the name they typed and a fixed sentence, never the
    server's paths or a library's error (those go to the server's log)."""
    if typed:
        return (f"The model “{typed[:60]}” is not one this app can read on this server. Choose another folder "
                "name, or leave the Model field empty to use the bundled all-MiniLM-L6-v2.")
    return ("The server's model did not load. Whoever runs this server can find the reason in its log (and can "
            "unset ATTENTION_MODEL to use the bundled all-MiniLM-L6-v2).")


def get_model(name: str | None = None) -> AttentionModel:
    """The model, loaded once per process and shared by every session; a failure is remembered a minute."""
    typed = (name or "").strip()
    name = _model_to_load(name)  # its refusals name only what the visitor typed
    with _failed_loads_lock:
        failed = _failed_loads.get(name)
    if failed and time.monotonic() - failed[0] < FAILED_LOAD_MEMORY_SECONDS:
        raise ModelLoadError(failed[1])
    try:
        if name in _loaded_models:  # no spinner: each one is two more elements for the browser, every run
            return _load_model(name)
        shown = typed or ("all-MiniLM-L6-v2" if name == DEFAULT_MODEL else "the server's model")
        with st.spinner(f"Loading the model ({md(shown)}) — the first time takes a few seconds…"):
            model = _load_model(name)
        _loaded_models.add(name)
        return model
    except ModelLoadError as error:
        _LOGGER.warning("could not load the model %s: %s", name, error)  # the details, for the operator only
        message = load_failure_message(typed)
        with _failed_loads_lock:
            _failed_loads[name] = (time.monotonic(), message)
        raise ModelLoadError(message) from None


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
    # Only the part the model reads is passed on and kept (a 3,000-character text's first ~1,200 characters):
    # two long texts that start alike share one entry. Shared read-only by every session (no per-session copy).
    read, n_tokens = model.read_part(sentence)
    analysis = SENTENCE_CACHE.get_or_compute(("analysis", read, model.name), lambda: model.analyze(read))
    if n_tokens > analysis.n_tokens:  # the same arrays, with the whole text's length for the page's notice
        analysis = dataclasses.replace(analysis, truncated=True, n_tokens_before_truncation=n_tokens)
    return analysis


def _analyze(sentence: str, model_name: str) -> SentenceAnalysis:
    return analysis_of(_load_model(model_name), sentence)


def analyze(sentence: str, model_name: str | None = None) -> SentenceAnalysis:
    """One model pass per sentence, shared by every page, projection and session (bounded in bytes)."""
    model = get_model(model_name)
    return _analyze(sentence, model.name)


def _core_attentions_of(model: AttentionModel, sentence: str) -> np.ndarray:
    analysis = analysis_of(model, sentence)  # first, outside: a computation may not wait on the cache
    return SENTENCE_CACHE.get_or_compute(("core attentions", analysis.sentence, model.name),
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
    d_k, seed, layer, head = 32, 0, DEFAULT_LAYER, DEFAULT_HEAD
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
        layer = columns[0].selectbox("Layer", list(range(6)), index=DEFAULT_LAYER, key="layer", bind="query-params",
                                     help="The model repeats attention 6 times, each layer reading the one "
                                          "before. Layer 0 reads the word embeddings.")
        head = columns[1].selectbox("Head", list(range(12)), index=DEFAULT_HEAD, key="head", bind="query-params",
                                    help="Each layer has 12 heads: 12 separate attentions, each with its own "
                                         "W_Q, W_K, W_V, free to look for something different.")
        head_presets(side, int(layer), int(head))
    show_special = side.checkbox("Show [CLS] and [SEP]", value=False, key="special", bind="query-params",
                                 help="The special tokens the model adds around every sentence. "
                                      "Real heads often park attention on them.")
    tokens = shown_tokens(sentence, show_special)
    token = 0
    if tokens:
        _follow_sentence_with_token(sentence, show_special, len(tokens), notices)
        labels = unique_labels(tokens)  # "the", "the²": one label per token, as on the chips and axes
        token = side.selectbox("Selected token (its row is explained)", list(range(len(tokens))),
                               format_func=lambda i: f"{i}: {labels[i]}", key="token",
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


def _use_head(layer: int, head: int) -> None:
    """on_click of a preset: set the Layer and Head widgets (a callback runs before they are made again)."""
    st.session_state["layer"] = layer
    st.session_state["head"] = head


def head_presets(side, layer: int, head: int) -> None:
    """Named heads one click away: the default's soft next-word head, and the one-hot previous-word head."""
    side.caption("Or pick a head by what it does:")
    for name, (preset_layer, preset_head) in HEAD_PRESETS.items():
        current = (layer, head) == (preset_layer, preset_head)
        side.button(f"{'✓ ' if current else ''}{name} (layer {preset_layer}, head {preset_head})",
                    key=f"preset-{preset_layer}-{preset_head}", on_click=_use_head, args=(preset_layer, preset_head),
                    disabled=current, use_container_width=True)


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


# Callbacks and format functions handed to Streamlit live here, not in a page: Streamlit keeps them with the
# session (two minutes after its tab closes), and a function defined in a page script holds the page's whole
# namespace, its model passes and figures included (5 visitors' long texts on the pronoun page kept ~250 MB).
def keep_widget_value(store: str, widget_key: str) -> None:
    """Copy a widget's value into a dict of the session (a page's answers outlive its widgets)."""
    st.session_state.setdefault(store, {})[widget_key] = st.session_state[widget_key]


def open_head_in_steps(sentence: str, layer: int, head: int, token: int, goto: str) -> None:
    """Show one learned head for a sentence in the step pages, its token selected and [CLS]/[SEP] shown."""
    st.session_state["mode"] = "learned"
    st.session_state["layer"] = layer
    st.session_state["head"] = head
    choose_sentence(sentence, token, show_special=True)
    st.session_state["_goto"] = goto


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
    return st.session_state.get("_settings") or Settings(DEFAULT_SENTENCE, "learned", 32, 0, DEFAULT_LAYER,
                                                         DEFAULT_HEAD, False, 0, False, "")


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
    def labels(self) -> list[str]:
        """The shown tokens as a student tells them apart: a repeated word numbered ("the", "the²")."""
        return self.base_labels if self.is_toy else [self.base_labels[j] for j in self.shown]

    @property
    def token_label(self) -> str:
        return self.labels[self.token]

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
        return self.labels + ([self.hidden_label] if not self.is_toy and self.hidden.size else [])

    def fold(self, matrix):  # [..., n_all] -> [..., len(key_labels)]
        """Columns over the whole sentence -> the shown ones plus the hidden ones added up (learned mode)."""
        return explain.fold_hidden(matrix, self.shown, self.hidden)

    @property
    def score_keys(self) -> list[str]:
        """Columns of a score matrix: the shown tokens, and in learned mode one for the hidden ones' largest score."""
        names = ", ".join(dict.fromkeys(self.analysis.tokens[j] for j in self.hidden))
        return self.labels + ([f"max({names})"] if not self.is_toy and self.hidden.size else [])

    def drawn_scores(self, scaled: bool = False) -> np.ndarray:  # -> [n_shown, len(score_keys)]
        """The raw (or scaled) scores as steps 1 and 2 draw them: in learned mode the shown tokens' rows over the
        whole sentence, the hidden tokens as one column with their largest score, so the score pages show what
        step 3 will count."""
        if self.is_toy:
            return self.steps.scaled if scaled else self.steps.raw
        matrix = (self.full.scaled if scaled else self.full.raw)[self.shown]
        return explain.largest_hidden(matrix, self.shown, self.hidden)

    @property
    def base_key_labels(self) -> list[str]:
        """base_labels with the tokens hidden from the matrices marked, for a list of every key of one row."""
        hidden = set(self.hidden.tolist())
        return [f"{t} (hidden)" if j in hidden else t for j, t in enumerate(self.base_labels)]

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
        """Labels of `base`'s rows, a repeated word numbered: the whole sentence's in learned mode, so a word keeps
        the same label with [CLS]/[SEP] shown or hidden."""
        return unique_labels(self.tokens if self.is_toy else self.analysis.tokens)

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
                   f"are used, up to {quote('…' + analysis.sentence[-40:].lstrip())}.")
    return model, analysis


def current_view() -> View:
    s = settings()
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
            if pytorch_allowed():
                st.markdown("Here the model itself runs as a short numpy program (attention/bert.py) with its own "
                            "trained weights. The button runs the original model with PyTorch "
                            "(sentence-transformers) instead, an independent reference.")
                pytorch_check_button(view)
            else:  # PyTorch would stay in the server's memory (+500 MB) after one click
                st.markdown("Here the model itself runs as a short numpy program (attention/bert.py) with its own "
                            "trained weights. The check against the original model in PyTorch is switched off "
                            "on this server; whoever runs it can turn it on with ATTENTION_PYTORCH=on.")


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
                _LOGGER.warning("the PyTorch check could not load its model: %s", error)  # details: the log only
                st.error("PyTorch or the original model could not be loaded on this server, so this check "
                         "cannot run here.")
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


def typed_texts() -> list[str]:
    """Every text this session's page run may read: the sidebar's sentence and the pronoun page's own boxes (from
    the link on a first visit)."""
    state = st.session_state
    texts = [state.get("sentence"), state.get("pron_sentence"), st.query_params.get("pron_sentence")]
    texts += [value for key, value in state.items() if str(key).startswith("pron_contrast_")]
    return [text for text in texts if isinstance(text, str)]


@contextlib.contextmanager
def long_input_slot(*texts: str):
    """Around a page run (app.py): wait for the turn if any text is long, and hand the run's freed memory back
    to the system after it (a long run's temporary arrays are tens of MB)."""
    if max((len(text or "") for text in texts), default=0) < LONG_INPUT_CHARS:
        yield
        return
    with _long_input_runs:
        try:
            yield
        finally:
            release_free_memory()
