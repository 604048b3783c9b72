"""A BERT encoder in numpy: the whole forward pass of all-MiniLM-L6-v2, read from its own files.

Like picoGPT, one small function per part. The app runs this instead of PyTorch so that its first page needs
neither torch nor transformers (importing them takes ~12 s on a 2-core machine); tests/test_bert.py holds it
equal to the PyTorch model. Weights keep the checkpoint's names, but each linear layer's weight is stored
transposed to [in, out] once at load: x @ w on a contiguous w is ~25% faster here than x @ w.T. The pieces
attention is made of (projection, head split, softmax, LayerNorm) are the core's own functions.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import core

WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"


def use_one_blas_thread() -> None:
    """Run numpy's matrix products on one thread, for the whole process.

    At this model's sizes a product takes about a millisecond, and OpenBLAS's second thread buys little even on
    an idle machine. On a busy one (a server's sessions, other programs on 2 cores) its threads wait on each
    other: measured here, the pass over 256 tokens took 0.8-1.2 s with two threads and 0.13-0.16 s with one.
    The numbers are the same: only who computes them changes.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # the limit is a speed-up, never a requirement
        return
    threadpool_limits(1, user_api="blas")


# A rational approximation of erf to float32 precision (the one Eigen and XLA use): scipy's erf takes ~27 ns an
# element here, 5x slower than this, and GELU is one call per layer on the widest matrix.
_ERF_NUMERATOR = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
                  -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02)
_ERF_DENOMINATOR = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03,
                    -1.42647390514189e-02)


def _polynomial(x2, coefficients):  # [...], highest power first -> [...]
    """Horner's rule on one fresh array updated in place: each extra temporary on a [32, 1536] matrix costs as
    much as the arithmetic, and GELU runs this on the widest matrix of every layer."""
    value = x2 * coefficients[0]
    for coefficient in coefficients[1:-1]:
        value += coefficient
        value *= x2
    value += coefficients[-1]
    return value


def erf(x):  # [...] -> [...], within 5e-7 of the exact erf in float32
    x = np.minimum(x, 4.0)  # erf(±4) is ±1 to float32 precision
    np.maximum(x, -4.0, out=x)
    x2 = x * x
    numerator = _polynomial(x2, _ERF_NUMERATOR)
    numerator *= x
    numerator /= _polynomial(x2, _ERF_DENOMINATOR)
    return numerator


def gelu(x):  # [...] -> [...], the exact (erf) GELU that BERT's "gelu" means, not the tanh approximation
    half_x = x * 0.5
    out = erf(x * (1.0 / math.sqrt(2.0)))
    out += 1.0
    out *= half_x
    return out


def self_attention(x, p, n_heads, knocked_out=None):  # [n, d_model] -> [n, d_model] context, [n_heads, n, n]
    """All heads at once, with the core's own projection, head split and softmax.

    Q, K and V come from one projection with W_Q, W_K, W_V side by side (GPT-2's c_attn): one matrix product
    instead of three. knocked_out ([n_heads] bool): those heads' weights become the identity (1 on the token
    itself, 0 elsewhere), so their output is each token's own value: an ablation, for lessons/meaning.py.
    """
    qkv = core.project(x, p["attention.self.qkv.weight"], p["attention.self.qkv.bias"])
    q, k, v = (core.split_heads(part, n_heads) for part in np.split(qkv, 3, axis=1))
    probabilities = core.softmax(q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1]))
    if knocked_out is not None and np.any(knocked_out):
        probabilities[np.asarray(knocked_out, dtype=bool)] = np.eye(len(x), dtype=probabilities.dtype)
    return core.merge_heads(probabilities @ v), probabilities


def encoder_layer(x, p, n_heads, eps, knocked_out=None):  # [n, d_model] -> [n, d_model] out, block out, weights
    context, probabilities = self_attention(x, p, n_heads, knocked_out)
    return (*after_attention(context, x, p, eps), probabilities)


def head_outputs(x, p, n_heads):  # [n, d_model] -> [n_heads, n, d_head]
    """Each head's output in one layer (its weights times its values), before W_O joins the heads."""
    context, _ = self_attention(x, p, n_heads)
    return core.split_heads(context, n_heads)


def each_head_replaced(x, p, n_heads, eps, replacement):  # [n, d_model], [n_heads, d_head] -> [n_heads, n, d_model]
    """The layer's output with one head's output replaced by replacement[head] at every token (the other heads
    working), for every head at once: a mean-ablation when replacement holds each head's mean output. The rest
    of the layer (W_O, residual, LayerNorm, feed-forward) runs as one batch of n_heads x n rows."""
    heads = head_outputs(x, p, n_heads)
    outputs = np.repeat(heads[None], n_heads, axis=0)                            # [replaced, n_heads, n, d_head]
    outputs[np.arange(n_heads), np.arange(n_heads)] = np.asarray(replacement, dtype=outputs.dtype)[:, None]
    n = len(x)
    out, _ = after_attention(outputs.transpose(0, 2, 1, 3).reshape(n_heads * n, -1), np.tile(x, (n_heads, 1)), p, eps)
    return out.reshape(n_heads, n, -1)


def after_attention(context, x, p, eps):  # -> the layer's output, the attention block's output
    attended = core.layer_norm(core.project(context, p["attention.output.dense.weight"],
                                            p["attention.output.dense.bias"]) + x,
                               p["attention.output.LayerNorm.weight"], p["attention.output.LayerNorm.bias"], eps)
    hidden = gelu(core.project(attended, p["intermediate.dense.weight"], p["intermediate.dense.bias"]))
    out = core.layer_norm(core.project(hidden, p["output.dense.weight"], p["output.dense.bias"]) + attended,
                          p["output.LayerNorm.weight"], p["output.LayerNorm.bias"], eps)
    return out, attended


def to_x_at_w(array):  # a linear layer's [out, in] weight -> a contiguous [in, out]; biases and gains unchanged
    return np.ascontiguousarray(array.T) if array.ndim == 2 else array


def fuse_qkv(p):  # one layer's weights -> the same, plus "attention.self.qkv.*" [d_model, 3 d_model]
    """W_Q, W_K, W_V side by side in one array; the separate names become views of it, so no memory is doubled."""
    names = [f"attention.self.{name}" for name in ("query", "key", "value")]
    for part in ("weight", "bias"):
        fused = np.concatenate([p[f"{name}.{part}"] for name in names], axis=-1)
        p[f"attention.self.qkv.{part}"] = fused
        for name, view in zip(names, np.split(fused, 3, axis=-1)):
            p[f"{name}.{part}"] = view
    return p


@dataclass(frozen=True)
class BertOutputs:
    hidden_states: np.ndarray      # [n_layers + 1, n, d_model]; [L] is the input of layer L
    attentions: np.ndarray         # [n_layers, n_heads, n, n]
    attention_outputs: np.ndarray  # [n_layers, n, d_model], LayerNorm(W_O · context + input) of each layer


class NumpyBert:
    """A BERT checkpoint (config.json + model.safetensors) run in numpy, float32 like the original."""

    def __init__(self, config: dict, weights: dict[str, np.ndarray]):
        use_one_blas_thread()
        self.config = config
        self.n_layers = int(config["num_hidden_layers"])
        self.n_heads = int(config["num_attention_heads"])
        self.d_model = int(config["hidden_size"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        # Some checkpoints prefix every name with "bert."; the names below are relative to the encoder.
        weights = {name.removeprefix("bert."): array for name, array in weights.items()}
        # The embeddings (and the unused pooler) stay as stored; the layers hold every linear weight once, as
        # [in, out], with Q/K/V fused.
        self.weights = {name: array for name, array in weights.items() if not name.startswith("encoder.")}
        self.layers = [fuse_qkv({name[len(prefix):]: to_x_at_w(array) for name, array in weights.items()
                                 if name.startswith(prefix)})
                       for prefix in (f"encoder.layer.{i}." for i in range(self.n_layers))]

    @classmethod
    def from_folder(cls, folder: str | Path) -> "NumpyBert":
        from safetensors.numpy import load_file

        folder = Path(folder)
        config = json.loads((folder / "config.json").read_text())
        return cls(config, load_file(str(folder / WEIGHTS_FILE)))

    @staticmethod
    def can_load(folder: str | Path) -> bool:
        """A local folder whose model this module can run exactly: a plain BERT with GELU and absolute positions."""
        folder = Path(folder)
        try:
            config = json.loads((folder / "config.json").read_text())
        except (OSError, ValueError):
            return False
        return (config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
                and config.get("position_embedding_type", "absolute") == "absolute"
                and (folder / WEIGHTS_FILE).is_file() and (folder / TOKENIZER_FILE).is_file())

    def embed(self, ids):  # [n] int -> [n, d_model]: word + position + token type, then LayerNorm
        w = self.weights
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:len(ids)]
             + w["embeddings.token_type_embeddings.weight"][0])
        return core.layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)

    def forward(self, ids) -> BertOutputs:  # one unpadded sentence, so no attention mask is needed
        x = self.embed(np.asarray(ids))
        hidden_states, attentions, attention_outputs = [x], [], []
        for p in self.layers:
            x, attended, probabilities = encoder_layer(x, p, self.n_heads, self.eps)
            hidden_states.append(x)
            attention_outputs.append(attended)
            attentions.append(probabilities)
        return BertOutputs(np.stack(hidden_states), np.stack(attentions), np.stack(attention_outputs))

    def hidden_states_knocked_out(self, ids, knocked_out):  # -> [n_layers + 1, n, d_model]
        """Hidden states with the heads marked in knocked_out ([n_layers, n_heads] bool) knocked out."""
        x = self.embed(np.asarray(ids))
        states = [x]
        for layer, p in enumerate(self.layers):
            x = encoder_layer(x, p, self.n_heads, self.eps, knocked_out[layer])[0]
            states.append(x)
        return np.stack(states)
