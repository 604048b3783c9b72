"""The View: what a page shows (tokens, embeddings, the four steps), derived from the settings and the model."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attention import core
from lessons import explain
from attention.model import AttentionModel, SentenceAnalysis
from serving import models
from serving.sentences import analysis_of

from ui.content import words
from ui.labels import unique_labels
from ui.model import load_analysis
from ui.text import layer_head_name, layer_head_tag, layer_name
from ui.settings import Settings, settings


@dataclass(frozen=True)
class View:
    """What a step page needs: the shown tokens, their embeddings, and the four steps computed on them."""

    settings: Settings
    model: AttentionModel
    analysis: SentenceAnalysis
    shown: np.ndarray        # indices into analysis.tokens
    tokens: list[str]
    x: np.ndarray            # [n, d_model] what Q, K, V are made from: see input_name
    steps: core.AttentionSteps
    parity: float | None     # max |our weights - the model's|, learned mode only
    # Learned mode: the four steps on the WHOLE sentence, [CLS]/[SEP] included, exactly as the model runs
    # them; None for the toys. `hidden` are the positions (into analysis.tokens) not shown.
    full: core.AttentionSteps | None = None
    hidden: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    @property
    def input_name(self) -> str:
        """The vectors X the projections start from, named one way on every page: the embeddings (before any
        attention) in the toys, the vectors entering the chosen layer in learned mode."""
        if self.is_toy:
            return words("view.input_embeddings")
        return words("view.input_entering", layer=layer_name(self.settings.layer, self.model.n_layers))

    @property
    def input_explained(self) -> str:
        """input_name with what those vectors are, for the sentence where X first appears."""
        if self.is_toy or self.settings.layer == 0:
            return words("view.input_explained_embeddings", input=self.input_name)
        return words("view.input_explained_layer", input=self.input_name, layers=self.settings.layer)

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
        """Short tag for titles and filenames, counted from 1 as people count: L2H9, random dk32 s0, identity."""
        s = self.settings
        if s.mode == "learned":
            return layer_head_tag(s.layer, s.head, sep="")
        if s.mode == "random":
            return f"random-dk{s.d_k}-s{s.seed}"
        return "identity"

    @property
    def is_toy(self) -> bool:
        """Identity and random projections: the formula over the shown tokens, not the model's attention."""
        return self.full is None

    @property
    def hidden_label(self) -> str:
        """The one column that stands for the hidden [CLS] and [SEP], in weights and scores alike."""
        return explain.MARKER_COLUMN

    @property
    def key_labels(self) -> list[str]:
        """Columns of the weights: the shown tokens, and in learned mode one column for the hidden ones."""
        return self.labels + ([self.hidden_label] if not self.is_toy and self.hidden.size else [])

    def last_column(self, kind: str = "weights") -> str | None:
        """What the hidden markers' column holds, said in the figure: the two weights added (so each row still adds
        up to 1); None without one. Scores have no such column (score_keys): kind "scores" gives None."""
        if self.is_toy or not self.hidden.size or kind != "weights":
            return None
        return words("view.last_column_weights")

    def fold(self, matrix):  # [..., n_all] -> [..., len(key_labels)]
        """Columns over the whole sentence -> the shown ones plus the hidden ones added up (learned mode)."""
        return explain.fold_hidden(matrix, self.shown, self.hidden)

    @property
    def marker_labels(self) -> list[str]:
        """The hidden markers' own labels ("[CLS]", "[SEP]"): learned mode with them hidden, else none."""
        return [] if self.is_toy else [self.base_labels[j] for j in self.hidden]

    @property
    def score_columns(self) -> np.ndarray:
        """The keys of a score matrix's columns, as positions in `base`: the shown tokens, then each hidden one."""
        return np.arange(len(self.tokens)) if self.is_toy else np.concatenate([self.shown, self.hidden])

    @property
    def score_keys(self) -> list[str]:
        """Columns of a score matrix: the shown tokens, then in learned mode each hidden marker as its OWN column.
        Raw scores are not shares: two keys' scores add up to no score of anything, so the markers are merged into
        one column (key_labels) only from step 3 on, where their weights add up."""
        return self.labels + self.marker_labels

    def drawn_scores(self, scaled: bool = False) -> np.ndarray:  # -> [n_shown, len(score_keys)]
        """The raw (or scaled) scores as steps 1 and 2 draw them: in learned mode the shown tokens' rows over the
        whole sentence, every number the model's own, the hidden markers' keys as the last columns."""
        if self.is_toy:
            return self.steps.scaled if scaled else self.steps.raw
        return (self.full.scaled if scaled else self.full.raw)[self.shown][:, self.score_columns]

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
            return layer_head_name(s.layer, s.head, self.model.n_layers)
        if s.mode == "random":
            return words("view.short_random", d_k=s.d_k, seed=s.seed)
        return words("view.short_identity")

    @property
    def label(self) -> str:
        s = self.settings
        if s.mode == "learned":
            return words("view.label_learned", head_name=layer_head_name(s.layer, s.head, self.model.n_layers))
        if s.mode == "random":
            return words("view.label_random", d_k=s.d_k, seed=s.seed)
        return words("view.label_identity")


def steps_for(model: AttentionModel, analysis: SentenceAnalysis, shown: np.ndarray, mode: str, d_k: int, seed: int,
              layer: int, head: int, **kwargs):
    """X for the chosen mode (View.input_name) and the four steps on the shown tokens."""
    if mode == "learned":
        x = analysis.hidden_states[layer][shown].astype(np.float64)
        q, k, v = core.learned_projection(x, model.head_weights(layer, head))
    else:
        # The toys start where the model starts: the embedding layer's output, before any attention. Not
        # analysis.token_embeddings, which is sentence-transformers' name for the LAST layer's output.
        x = analysis.hidden_states[0][shown].astype(np.float64)
        q, k, v = core.random_projection(x, d_k, seed) if mode == "random" else core.identity_projection(x)
    return x, core.run_steps(q, k, v, **kwargs)


def current_view() -> View:
    s = settings()
    model, analysis = load_analysis(s)
    return build_view(s, model, analysis)


def view_again(s: Settings) -> View:
    """The same view rebuilt from its settings alone, outside a page run (a download made on click). Holding the
    settings instead of the view keeps a closed tab from pinning a 25 MB model pass after the cache let it go,
    and the model is found again by its name (settings.model_name): a visitor-chosen model the registry let go
    is not kept alive by a button."""
    model = models.get_model(s.model_name)
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
