"""The numpy core against a plain reference and against the properties attention must have."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention import core


def reference_attention(q, k, v, mask=None):
    """Loops, no tricks: the definition written out."""
    n_q, n_k = q.shape[0], k.shape[0]
    out = np.zeros((n_q, v.shape[1]))
    weights = np.zeros((n_q, n_k))
    for i in range(n_q):
        s = np.array([q[i] @ k[j] / np.sqrt(q.shape[1]) for j in range(n_k)])
        if mask is not None:
            s = s + mask[i]
        e = np.exp(s - s.max())
        weights[i] = e / e.sum()
        out[i] = sum(weights[i, j] * v[j] for j in range(n_k))
    return weights, out


shapes = st.tuples(st.integers(1, 9), st.integers(1, 12), st.integers(1, 7))


@st.composite
def qkv(draw):
    n, d_k, d_v = draw(shapes)
    elems = st.floats(-5, 5, allow_nan=False, width=64)
    q = draw(arrays(np.float64, (n, d_k), elements=elems))
    k = draw(arrays(np.float64, (n, d_k), elements=elems))
    v = draw(arrays(np.float64, (n, d_v), elements=elems))
    return q, k, v


@settings(max_examples=60, deadline=None)
@given(qkv())
def test_steps_match_reference_and_one_liner(data):
    q, k, v = data
    steps = core.run_steps(q, k, v)
    weights, out = reference_attention(q, k, v)
    np.testing.assert_allclose(steps.weights, weights, atol=1e-12)
    np.testing.assert_allclose(steps.output, out, atol=1e-10)
    np.testing.assert_allclose(core.attention(q, k, v), steps.output, atol=1e-12)
    np.testing.assert_allclose(steps.raw, q @ k.T)
    np.testing.assert_allclose(steps.scaled, q @ k.T / np.sqrt(q.shape[1]))


@settings(max_examples=60, deadline=None)
@given(qkv())
def test_rows_are_distributions(data):
    q, k, v = data
    w = core.run_steps(q, k, v).weights
    assert np.all(w >= 0) and np.all(w <= 1)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(qkv(), st.floats(-1e3, 1e3, allow_nan=False))
def test_softmax_ignores_a_constant_per_row(data, shift):
    q, k, _ = data
    scores = core.raw_scores(q, k)
    shifts = shift * np.arange(1, scores.shape[0] + 1)[:, None]
    np.testing.assert_allclose(core.softmax(scores + shifts), core.softmax(scores), atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(qkv(), st.randoms(use_true_random=False))
def test_permutation_equivariance(data, rnd):
    q, k, v = data
    perm = np.array(rnd.sample(range(q.shape[0]), q.shape[0]))
    out = core.attention(q, k, v)
    out_perm = core.attention(q[perm], k[perm], v[perm])
    np.testing.assert_allclose(out_perm, out[perm], atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_huge_scores_stay_finite(dtype):
    scores = np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4], [1e4, 1e4, -1e4]], dtype=dtype)
    w = core.softmax(scores)
    assert w.dtype == dtype
    assert np.all(np.isfinite(w))
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(w[0], [1, 0, 0])
    np.testing.assert_allclose(w[1], [1 / 3] * 3, rtol=1e-6)
    np.testing.assert_allclose(w[2], [0.5, 0.5, 0], rtol=1e-6)


def test_causal_mask_blocks_the_future():
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 5, 4))
    steps = core.run_steps(q, k, v, mask=core.causal_mask(5))
    assert np.allclose(np.triu(steps.weights, 1), 0)
    np.testing.assert_allclose(steps.weights.sum(1), 1)
    np.testing.assert_allclose(steps.weights[0], [1, 0, 0, 0, 0])
    mask = np.where(np.triu(np.ones((5, 5)), 1) > 0, -np.inf, 0.0)
    reference, _ = reference_attention(q, k, v, mask)
    np.testing.assert_allclose(steps.weights, reference, atol=1e-12)


def test_fully_masked_row_is_a_clear_error():
    mask = np.zeros((2, 3))
    mask[1] = core.MASKED
    with pytest.raises(core.AttentionInputError, match=r"row\(s\) \[1\] are fully masked"):
        core.softmax(np.zeros((2, 3)), mask)
    with pytest.raises(core.AttentionInputError, match="fully masked"):
        core.softmax(np.zeros((1, 3)), core.padding_mask([False, False, False]))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_are_rejected(bad):
    x = np.ones((3, 4))
    x[1, 2] = bad
    with pytest.raises(core.AttentionInputError, match="NaN or infinite"):
        core.run_steps(x, np.ones((3, 4)), np.ones((3, 4)))
    with pytest.raises(core.AttentionInputError, match="NaN or infinite"):
        core.identity_projection(x)


def test_mismatched_shapes_are_a_clear_error():
    with pytest.raises(core.AttentionInputError, match="same width"):
        core.raw_scores(np.ones((2, 3)), np.ones((2, 4)))


def test_random_projection_is_seeded():
    x = np.random.default_rng(1).standard_normal((4, 16))
    a = core.random_projection(x, 8, seed=7)
    b = core.random_projection(x, 8, seed=7)
    c = core.random_projection(x, 8, seed=8)
    for left, right in zip(a, b):
        np.testing.assert_array_equal(left, right)
    assert a[0].shape == (4, 8)
    assert not np.allclose(a[0], c[0])


def test_uniform_weights_give_the_mean_of_v():
    v = np.random.default_rng(2).standard_normal((5, 3))
    uniform = np.full((5, 5), 1 / 5)
    np.testing.assert_allclose(core.weighted_sum(uniform, v), np.tile(v.mean(0), (5, 1)))


def test_split_and_merge_heads_round_trip():
    x = np.arange(2 * 12, dtype=float).reshape(2, 12)
    heads = core.split_heads(x, 3)
    assert heads.shape == (3, 2, 4)
    np.testing.assert_array_equal(heads[1], x[:, 4:8])
    np.testing.assert_array_equal(core.merge_heads(heads), x)


def test_row_entropy_bounds():
    assert core.row_entropy(np.eye(3)).tolist() == [0, 0, 0]
    np.testing.assert_allclose(core.row_entropy(np.full((2, 4), 0.25)), [2, 2])


def test_rollout_is_row_stochastic_and_starts_at_the_first_layer():
    rng = np.random.default_rng(3)
    a = core.softmax(rng.standard_normal((4, 5, 5)))
    rolled = core.attention_rollout(a)
    np.testing.assert_allclose(rolled.sum(-1), 1)
    np.testing.assert_allclose(rolled[0], 0.5 * a[0] + 0.5 * np.eye(5))
    np.testing.assert_allclose(rolled[1], (0.5 * a[1] + 0.5 * np.eye(5)) @ rolled[0])


def test_temperature_and_no_scaling():
    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((3, 4, 16))
    unscaled = core.run_steps(q, k, v, scale=False)
    np.testing.assert_allclose(unscaled.scaled, unscaled.raw)
    hot = core.run_steps(q, k, v, temperature=4.0)
    np.testing.assert_allclose(hot.scaled, q @ k.T / 4 / 4)
    with pytest.raises(core.AttentionInputError):
        core.run_steps(q, k, v, temperature=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_step_keeps_the_input_precision(dtype):
    q = np.random.default_rng(5).standard_normal((4, 8)).astype(dtype)
    steps = core.run_steps(q, q, q, mask=core.causal_mask(4), temperature=2.0)
    for array in (steps.raw, steps.scaled, steps.weights, steps.output):
        assert array.dtype == dtype
