"""The real bundled model: it loads offline, and our core reproduces its attention exactly."""

import numpy as np
import pytest

from attention import core
from attention.model import AttentionModel, ModelLoadError, SentenceError

PARITY_SENTENCES = [
    "I am good.",
    "A dog ate the food because it was hungry.",
    "Transformers tokenize unbelievably long words into pieces, don't they?",
    "东京 is big 🙂",
]


def test_model_loads_offline_with_384_dim_tokens(model, reference):
    analysis = model.analyze("I am good.")
    assert analysis.tokens == ["[CLS]", "i", "am", "good", ".", "[SEP]"]
    assert analysis.is_special.tolist() == [True, False, False, False, False, True]
    assert analysis.token_embeddings.shape == (6, 384)
    assert analysis.hidden_states.shape == (7, 6, 384)
    assert analysis.attentions.shape == (6, 12, 6, 6)
    assert (model.n_layers, model.n_heads, model.d_model, model.d_head) == (6, 12, 384, 32)
    np.testing.assert_allclose(reference.encode_tokens("I am good."), analysis.token_embeddings, atol=1e-5)


@pytest.mark.parametrize("sentence", PARITY_SENTENCES)
def test_parity_with_the_models_attention_every_layer_and_head(model, sentence):
    analysis = model.analyze(sentence)
    ours = model.core_attentions(analysis)
    assert ours.shape == (6, 12, analysis.n_tokens, analysis.n_tokens)
    worst = float(np.abs(ours - analysis.attentions).max())
    assert worst <= 1e-5, worst


@pytest.mark.parametrize("sentence", PARITY_SENTENCES)
def test_parity_with_pytorchs_attention_every_layer_and_head(model, reference, sentence):
    """The app's numbers (numpy forward, then our four steps) against the PyTorch model's own probabilities."""
    ours = model.core_attentions(model.analyze(sentence))
    worst = float(np.abs(ours - reference.analyze(sentence).attentions).max())
    assert worst <= 1e-5, worst


def test_parity_of_the_whole_attention_block(model):
    analysis = model.analyze("A dog ate the food because it was hungry.")
    for layer in range(model.n_layers):
        w = model.layer_weights(layer)
        x = analysis.hidden_states[layer].astype(np.float64)
        heads, concat = core.multi_head(x, w["w_q"], w["b_q"], w["w_k"], w["b_k"], w["w_v"], w["b_v"],
                                        model.n_heads)
        for head, steps in enumerate(heads):
            assert np.abs(steps.weights - analysis.attentions[layer, head]).max() <= 1e-5
        block = core.layer_norm(core.project(concat, w["w_o"], w["b_o"]) + x, w["ln_gamma"], w["ln_beta"],
                                w["ln_eps"])
        assert np.abs(block - analysis.attention_outputs[layer]).max() <= 1e-4


def test_identity_projection_on_i_am_good_is_diagonal_dominant(model):
    analysis = model.analyze("I am good.")
    words = ~analysis.is_special
    x = analysis.hidden_states[0][words]  # what the identity toy starts from: the embeddings
    weights = core.run_steps(*core.identity_projection(x)).weights
    assert np.all(np.argmax(weights, axis=1) == np.arange(len(x)))
    assert np.all(np.diag(weights) > 0.5)


def test_long_input_is_truncated_and_says_so(model):
    analysis = model.analyze("word " * 600)
    assert analysis.truncated
    assert analysis.n_tokens == model.max_length
    assert analysis.n_tokens_before_truncation == 602
    assert not model.analyze("short one").truncated


@pytest.mark.parametrize("sentence", ["", "   \n\t", "\x00\x01"])
def test_empty_sentences_are_a_clear_error(model, sentence):
    with pytest.raises(SentenceError, match="type"):
        model.analyze(sentence)


def test_word_pieces_map_to_words(model):
    analysis = model.analyze("unbelievably good")
    pieces = [t for t, w in zip(analysis.tokens, analysis.word_ids) if w == 0]
    assert len(pieces) > 1 and pieces[1].startswith("##")


def test_missing_model_is_one_clear_error(tmp_path):
    with pytest.raises(ModelLoadError, match="bundled"):
        AttentionModel(str(tmp_path / "no-such-model"))


def test_layer_and_head_are_checked(model):
    with pytest.raises(ValueError, match="layer must be"):
        model.head_weights(6, 0)


def test_unknown_pieces_stay_visible_tokens(model):
    analysis = model.analyze("I 💜 attention")
    assert "[UNK]" in analysis.tokens
    assert not analysis.is_special[analysis.tokens.index("[UNK]")]
