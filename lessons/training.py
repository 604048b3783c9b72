"""Training one attention head from scratch, forward and backward by hand, in numpy.

The core (core.py) runs attention with weights someone else learned. This module learns them: a toy task says
where each token *should* look, the head guesses, a loss measures how wrong the guess is, and the gradient of
that loss tells every weight which way to move. Read top to bottom:

    Q, K, V  = X @ W_Q, X @ W_K, X @ W_V       # projections
    raw      = Q @ K.T                          # dot products
    scores   = raw / sqrt(d_k)                  # scaling (or not: the experiment)
    weights  = softmax(scores + mask)           # softmax
    output   = weights @ V                      # weighted sum
    loss     = mean((output - target)^2)        # how far the head is from the right answer

and backward, one function per step, in the reverse order. Batched: every array may carry a leading batch
axis [b, ...]. No Streamlit, plotly or torch here; tests hold the gradients equal to finite differences and
to torch autograd.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field

import numpy as np

from attention.core import MASKED

# Single word pieces of the bundled tokenizer: the toy sentences are random strings of these words.
VOCABULARY = ("cat", "dog", "house", "tree", "car", "book", "river", "city", "music", "water", "apple", "green",
              "king", "queen", "road", "ship", "bird", "fish", "door", "sun", "moon", "star", "bread", "chair",
              "table", "horse", "rain", "snow", "milk", "stone", "gold", "glass")

# The toy tasks, each a rule for where a token should look (content/en/training.toml says each in words).
TASKS = ("previous", "copy", "marker")
# W_V's own step size in every run (measured: 1.0 diverges in all 18 task × d_k × scaling settings, 0.2 learns
# slower). W_Q and W_K step at a rate of their own per setting (qk_rate), found by bench/sweep_training.py.
VALUE_RATE = 0.5
LEARNING_RATE = VALUE_RATE  # the old name of the one shared rate
# The Training lab's runs: the main run, its snapshots, and the scaled/unscaled pairs at three d_k (fewer steps
# and sentences than the main run: six runs, one of them at d_k = 512).
LAB_STEPS = 300
LAB_DEFAULT_TASK = "previous"
LAB_SNAPSHOTS = (0, 20, 60, LAB_STEPS)
LAB_DEFAULT_D_K = 32
COMPARE_D_K = (8, 64, 512)
COMPARE_STEPS = 150
COMPARE_SENTENCES = 16
LAB_SEEDS = (0, 1, 2)          # the comparison's seeds: every setting trains once per seed
EXTRA_SEEDS = (3, 4, 5, 6, 7)  # trained too at a d_k whose verdict is unclear on LAB_SEEDS (~1 s at d_k 8 or 64)
HELDOUT_SENTENCES = 256        # new sentences, never trained on, on which every run is judged
SATURATED = 0.99  # a softmax row whose largest weight is above this passes almost no gradient


# --- the toy tasks -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ToyBatch:
    """Toy sentences, their inputs and where each token should look."""

    ids: np.ndarray      # [b, n] vocabulary indices
    x: np.ndarray        # [b, n, d_model] the model's own input embeddings (word + position + type, LayerNorm)
    target: np.ndarray   # [b, n] position each token should attend to
    scored: np.ndarray   # [b, n] bool: rows that have a right answer (the loss and accuracy use only these)
    mask: np.ndarray     # [b or 1, n, n] 0 = may look, MASKED = may not


def earlier_mask(n: int):  # -> [n, n]
    """Each token may look only at tokens before it; the first token, which has none, looks at itself."""
    mask = np.triu(np.full((n, n), MASKED), k=0)
    mask[0, 0] = 0.0
    return mask


def embed_tokens(tables: dict, ids, types):  # {name: array}, [...] int, [...] int -> [..., n, d_model]
    """The bundled model's input embedding: word + position + token type, then its LayerNorm."""
    n = ids.shape[-1]
    x = (tables["embeddings.word_embeddings.weight"][ids].astype(np.float64)
         + tables["embeddings.position_embeddings.weight"][:n]
         + tables["embeddings.token_type_embeddings.weight"][types])
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + 1e-12) * tables["embeddings.LayerNorm.weight"]
            + tables["embeddings.LayerNorm.bias"])


def toy_inputs(tables: dict, vocab_ids, n_tokens: int = 8):  # -> [2 types, n_vocab, n_tokens, d_model]
    """Every (token type, vocabulary word, position) input the toy sentences can contain, embedded once:
    a batch is then a lookup, not 256 LayerNorms a step."""
    vocab_ids = np.asarray(vocab_ids)
    ids = np.broadcast_to(vocab_ids[:, None], (len(vocab_ids), n_tokens))
    return np.stack([embed_tokens(tables, ids, np.full(ids.shape, t)) for t in (0, 1)])


def make_batch(task: str, inputs, n_sentences: int = 32, seed=0) -> ToyBatch:  # inputs from toy_inputs
    """Random toy sentences for one task, with where each token should look.

    previous: every token's answer is the token before it.
    copy:     the second half of each sentence repeats words from the first half, shuffled; a repeated
              word's answer is its earlier copy.
    marker:   one token per sentence carries the model's second token type (the marker); every token's
              answer is that token.
    """
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose one of {sorted(TASKS)}.")
    rng = np.random.default_rng(seed)
    n_vocab, n = inputs.shape[1], inputs.shape[2]
    b = n_sentences
    rows = np.arange(n)
    types = np.zeros((b, n), dtype=int)
    if task == "copy":
        half = n // 2
        ids = rng.random((b, n_vocab)).argsort(axis=1)[:, :n]  # n different words per sentence
        sources = rng.random((b, half)).argsort(axis=1)[:, :n - half]
        ids[:, half:] = np.take_along_axis(ids, sources, axis=1)
        target = np.tile(rows, (b, 1))
        target[:, half:] = sources
        scored = np.tile(rows >= half, (b, 1))
        mask = earlier_mask(n)[None]
    else:
        ids = rng.integers(0, n_vocab, (b, n))
        if task == "previous":
            target = np.tile(np.maximum(rows - 1, 0), (b, 1))
            scored = np.tile(rows > 0, (b, 1))
            mask = earlier_mask(n)[None]
        else:
            marked = rng.integers(0, n, b)
            types[np.arange(b), marked] = 1
            target = np.tile(marked[:, None], (1, n))
            scored = np.ones((b, n), dtype=bool)
            mask = np.zeros((1, n, n))
    x = inputs[types, ids, rows]
    return ToyBatch(ids=ids, x=x, target=target, scored=scored, mask=mask.astype(inputs.dtype))


def readout(d_model: int, d_v: int, seed: int):  # -> [d_model, d_v]
    """A fixed random summary of a token: the head must carry this summary of the right token."""
    return np.random.default_rng(seed + 10_000).standard_normal((d_model, d_v)) / math.sqrt(d_model)


def task_targets(batch: ToyBatch, r):  # [d_model, d_v] -> [b, n, d_v]
    """What each token's output should be: the summary x @ R of the token it should look at."""
    return batch.x[np.arange(len(batch.x))[:, None], batch.target] @ r


# --- forward -----------------------------------------------------------------------------------------

@dataclass
class HeadParams:
    w_q: np.ndarray  # [d_model, d_k]
    w_k: np.ndarray  # [d_model, d_k]
    w_v: np.ndarray  # [d_model, d_v]

    def as_tuple(self):
        return self.w_q, self.w_k, self.w_v


def init_params(d_model: int, d_k: int, d_v: int, seed: int, qk_std: float | None = None) -> HeadParams:
    """Seeded Gaussian weights. W_V's entries have spread 1/sqrt(d_model); W_Q's and W_K's have spread qk_std
    (default the same): textbook_qk_std gives the spread that makes each component of q and k spread 1."""
    rng = np.random.default_rng(seed)
    scale = 1.0 / math.sqrt(d_model)
    qk = scale if qk_std is None else qk_std
    return HeadParams(rng.standard_normal((d_model, d_k)) * qk, rng.standard_normal((d_model, d_k)) * qk,
                      rng.standard_normal((d_model, d_v)) * scale)


def textbook_qk_std(x) -> float:  # x [..., d_model] the tokens a head will see
    """The spread of W_Q's and W_K's entries that gives q and k components of variance 1, the textbook's premise
    for √d_k (then q·k has variance d_k). A component of q = x · w has variance |x|² · std² over random w; the
    model's LayerNorm gain (~0.62) leaves |x|² at ~0.32 · d_model, so 1/sqrt(d_model) would give variance ~0.32."""
    return 1.0 / math.sqrt(float((np.asarray(x, dtype=np.float64) ** 2).sum(axis=-1).mean()))


@dataclass(frozen=True)
class Forward:
    """Every intermediate of one forward pass: the backward pass reads them."""

    x: np.ndarray        # [b, n, d_model]
    q: np.ndarray        # [b, n, d_k]
    k: np.ndarray        # [b, n, d_k]
    v: np.ndarray        # [b, n, d_v]
    scores: np.ndarray   # [b, n, n] after scaling, before the mask
    weights: np.ndarray  # [b, n, n]
    output: np.ndarray   # [b, n, d_v]
    scale: float         # what raw was divided by (1 when unscaled)


# Weights below this are set to 0: a saturated float32 row is full of subnormal numbers (below 1e-38), which
# make every later product with them ~3x slower (the unscaled d_k = 512 run took 1.0 s instead of 0.3 s).
NEGLIGIBLE_WEIGHT = 1e-30


def softmax(scores):  # [..., n] -> [..., n]
    weights = scores - scores.max(axis=-1, keepdims=True)
    np.exp(weights, out=weights)
    weights /= weights.sum(axis=-1, keepdims=True)
    weights[weights < NEGLIGIBLE_WEIGHT] = 0.0
    return weights


def forward(params: HeadParams, x, mask=None, scaled: bool = True) -> Forward:  # x [b, n, d_model]
    # Q, K and V in one product X [W_Q | W_K | W_V] (as bert.py does), then split. The batch is flattened into
    # one matrix first: numpy multiplies a stack [b, n, d] by a matrix one sentence at a time, 3x slower here.
    d_k = params.w_q.shape[1]
    qkv = x.reshape(-1, x.shape[-1]) @ np.concatenate(params.as_tuple(), axis=1)
    q, k, v = np.split(qkv.reshape(*x.shape[:-1], -1), [d_k, 2 * d_k], axis=-1)
    scale = math.sqrt(q.shape[-1]) if scaled else 1.0
    scores = (q @ np.swapaxes(k, -1, -2)) / scale
    weights = softmax(scores if mask is None else scores + mask)
    return Forward(x=x, q=q, k=k, v=v, scores=scores, weights=weights, output=weights @ v, scale=scale)


def mse_loss(output, target, scored):  # [b, n, d_v], [b, n, d_v], [b, n] bool -> float
    """Mean squared difference between output and target over the rows that have a right answer."""
    diff = (output - target) * scored[..., None]
    return float((diff ** 2).sum() / (scored.sum() * output.shape[-1]))


# --- backward: one function per step, in reverse order -----------------------------------------------

def grad_mse(output, target, scored):  # -> d loss / d output [b, n, d_v]
    # The count as a Python int: divided by numpy's int64 a float32 output became float64, and the whole
    # backward pass with it (1.6× the time of float32 at d_k = 512).
    count = int(scored.sum()) * output.shape[-1]
    return 2.0 * (output - target) * scored[..., None] / count


def grad_weighted_sum(d_output, weights, v):  # [b, n, d_v], [b, n, n], [b, n, d_v] -> d_weights, d_v
    """output = weights @ V: each weight's gradient is its value vector · d_output; V collects weighted d_output."""
    return d_output @ np.swapaxes(v, -1, -2), np.swapaxes(weights, -1, -2) @ d_output


def softmax_jacobian(row):  # [n] -> [n, n]
    """d weight_i / d score_j = w_i (δ_ij − w_j): diag(w) − w wᵀ. A one-hot row makes it all zeros."""
    row = np.asarray(row, dtype=np.float64)
    return np.diag(row) - np.outer(row, row)


def grad_softmax(d_weights, weights):  # [b, n, n], [b, n, n] -> d_scores [b, n, n]
    """Each row's Jacobian (softmax_jacobian) applied to its gradient, without building the n×n matrix:
    J g = w ⊙ (g − w·g). Masked positions have weight 0, so they get no gradient."""
    return weights * (d_weights - (d_weights * weights).sum(axis=-1, keepdims=True))


def grad_scaling(d_scores, scale: float):  # -> d_raw
    """scores = raw / scale, so the gradient shrinks by the same factor on the way back."""
    return d_scores / scale


def grad_dot_products(d_raw, q, k):  # [b, n, n], [b, n, d_k], [b, n, d_k] -> d_q, d_k
    """raw = Q Kᵀ: a query moves toward the keys it should score higher, and each key toward its queries."""
    return d_raw @ k, np.swapaxes(d_raw, -1, -2) @ q


def grad_projection(d_out, x):  # [b, n, d], [b, n, d_model] -> d_w [d_model, d]
    """out = X W for every sentence: the weight's gradient adds up Xᵀ d_out over the batch."""
    return x.reshape(-1, x.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])


def backward(fwd: Forward, d_output) -> HeadParams:  # -> gradients with the parameters' shapes
    d_weights, d_v = grad_weighted_sum(d_output, fwd.weights, fwd.v)
    d_raw = grad_scaling(grad_softmax(d_weights, fwd.weights), fwd.scale)
    d_q, d_k = grad_dot_products(d_raw, fwd.q, fwd.k)
    # The three projections share X: one product Xᵀ [dQ | dK | dV] instead of three (a third of the step's time).
    d_all = grad_projection(np.concatenate([d_q, d_k, d_v], axis=-1), fwd.x)
    return HeadParams(*np.split(d_all, [d_q.shape[-1], 2 * d_q.shape[-1]], axis=1))


def loss_and_grads(params: HeadParams, batch: ToyBatch, targets, scaled: bool = True):
    fwd = forward(params, batch.x, batch.mask, scaled)
    loss = mse_loss(fwd.output, targets, batch.scored)
    return loss, backward(fwd, grad_mse(fwd.output, targets, batch.scored)), fwd


def sgd_step(params: HeadParams, grads: HeadParams, lr_qk: float, lr_v: float | None = None) -> None:
    """Move every weight a small step against its gradient (downhill on the loss), in place: W_Q and W_K at
    rate lr_qk, W_V at lr_v (default the same)."""
    lr_v = lr_qk if lr_v is None else lr_v
    for p, g, lr in zip(params.as_tuple(), grads.as_tuple(), (lr_qk, lr_qk, lr_v)):
        p -= lr * g


# --- measurements ------------------------------------------------------------------------------------

def grad_norm(g) -> float:
    return float(np.sqrt((g ** 2).sum()))


def has_choice(mask, scored):  # [b or 1, n, n], [b, n] -> [b, n] bool
    """Scored rows that may look at two or more tokens: a row with one allowed token is 100% on it by force."""
    allowed = np.broadcast_to(mask > MASKED / 2, (scored.shape[0],) + mask.shape[1:]).sum(axis=-1)
    return scored & (allowed >= 2)


def saturated_share(weights, rows) -> float:
    """Share of the given rows whose largest weight is above SATURATED (softmax's flat, no-gradient region)."""
    return float((weights.max(axis=-1) > SATURATED)[rows].mean())


def weight_on_target(weights, batch: ToyBatch) -> float:
    """Mean attention the scored rows put on their right token (1 = all of it)."""
    on = np.take_along_axis(weights, batch.target[..., None], axis=-1)[..., 0]
    return float(on[batch.scored].mean())


def accuracy(weights, batch: ToyBatch) -> float:
    """Share of scored rows whose largest weight is on the right token."""
    return float((weights.argmax(axis=-1) == batch.target)[batch.scored].mean())


def row_gradients_by_saturation(fwd: Forward, d_output, rows):  # -> (saturated rows, other rows)
    """Mean size (norm) of the gradient each of the given rows passes back to its scores, for saturated rows and for
    the others; nan when a group is empty. A saturated row's Jacobian is nearly zero, so its gradient is tiny."""
    d_weights, _ = grad_weighted_sum(d_output, fwd.weights, fwd.v)
    sizes = np.linalg.norm(grad_softmax(d_weights, fwd.weights), axis=-1)[rows]
    saturated = (fwd.weights.max(axis=-1) > SATURATED)[rows]
    return (float(sizes[saturated].mean()) if saturated.any() else float("nan"),
            float(sizes[~saturated].mean()) if (~saturated).any() else float("nan"))


@dataclass
class TrainingRun:
    task: str
    d_k: int
    scaled: bool
    steps: int
    lr: float                                                # W_Q's and W_K's step size
    losses: list = field(default_factory=list)              # one per step, before the step (its new sentences)
    snapshots: dict = field(default_factory=dict)           # step -> weights of sentence 0 [n, n]
    start_grad_q: float = 0.0                                # |dL/dW_Q| at step 0
    start_grad_k: float = 0.0
    start_saturated: float = 0.0                             # share of saturated rows at step 0
    start_row_grad_saturated: float = float("nan")          # mean gradient size leaving a saturated row's scores
    start_row_grad_other: float = float("nan")              # the same for the other rows
    final_loss: float = 0.0                                  # the last step's (training) loss
    final_on_target: float = 0.0                             # on HELDOUT_SENTENCES new sentences, after training
    final_accuracy: float = 0.0
    final_saturated: float = 0.0
    baseline_loss: float = 0.0                               # loss of looking evenly at every allowed token
    diverged: bool = False                                   # the loss became infinite (step size too big)
    shown_ids: np.ndarray | None = None                      # [n] the watched sentence's vocabulary indices
    params: HeadParams | None = None
    seed: int = 0
    lr_v: float = VALUE_RATE                                 # W_V's step size
    qk_shrink: float = 1.0                                   # W_Q and W_K started this many times smaller
    heldout_loss: float = float("nan")                       # loss on HELDOUT_SENTENCES new sentences, after training
    start_qk_variance: float = float("nan")                 # measured variance of q·k (before any ÷√d_k) at step 0


def _one_blas_thread():
    """Small matrix products run faster on one BLAS thread, and far faster on a machine other work shares."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: only speed depends on it
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def qk_rate(task: str, d_k: int, scaled: bool) -> float:
    """W_Q's and W_K's step size for a setting: the sweep's best (training_rates.py, found by
    bench/sweep_training.py); for a d_k the sweep did not try, the nearest d_k's."""
    from .training_rates import QK_RATES

    tried = sorted({k for t, k, _ in QK_RATES if t == task})
    nearest = min(tried, key=lambda k: (abs(math.log(k / d_k)), k))
    return QK_RATES[(task, nearest, scaled)]


def equivalent_unscaled(task: str, d_k: int) -> dict:
    """The unscaled run that is the scaled run in disguise: W_Q and W_K started d_k^¼ smaller (so Q Kᵀ starts
    √d_k smaller, exactly as ÷√d_k would make it) and stepped at the scaled rate / √d_k. With plain gradient
    descent both runs then make the same scores at every step: ÷√d_k is a change of units of W_Q and W_K."""
    return dict(scaled=False, lr=qk_rate(task, d_k, True) / math.sqrt(d_k), qk_shrink=d_k ** 0.25)


def train(task: str, tables: dict, vocab_ids, d_k: int = 32, scaled: bool = True, steps: int = 300,
          lr: float | None = None, seed: int = 0, d_v: int = 16, n_sentences: int = 32, n_tokens: int = 8,
          snapshot_steps=(), progress=None, dtype=np.float32, lr_v: float = VALUE_RATE, qk_shrink: float = 1.0,
          heldout_sentences: int = HELDOUT_SENTENCES) -> TrainingRun:
    """Train one head on a task with plain gradient descent; deterministic for a seed.

    W_Q and W_K start with the textbook's spread (q and k components of variance 1, textbook_qk_std), divided
    by qk_shrink, and step at rate lr (default: the setting's own rate, qk_rate); W_V steps at lr_v.
    float32 by default: half the time of float64 at d_k = 512, and the tests check the gradients in float64.

    Every step sees new random sentences, so the head cannot memorise answers: only the right attention
    pattern brings the loss down. After training, it is judged on heldout_sentences new sentences.
    progress(step, steps) is called now and then (the page's progress bar).
    """
    lr = qk_rate(task, d_k, scaled) if lr is None else lr
    with _one_blas_thread():
        return _train(task, tables, vocab_ids, d_k, scaled, steps, lr, lr_v, qk_shrink, seed, d_v, n_sentences,
                      n_tokens, set(snapshot_steps), progress, dtype, heldout_sentences)


def _train(task, tables, vocab_ids, d_k, scaled, steps, lr, lr_v, qk_shrink, seed, d_v, n_sentences, n_tokens,
           snapshot_steps, progress, dtype, heldout_sentences) -> TrainingRun:
    inputs = toy_inputs(tables, vocab_ids, n_tokens).astype(dtype)

    def make(n_sentences, seed):
        return make_batch(task, inputs, n_sentences, seed)

    shown = make(1, [seed, 1])  # the sentence the page watches
    d_model = shown.x.shape[-1]
    r = readout(d_model, d_v, seed).astype(dtype)
    start = init_params(d_model, d_k, d_v, seed, qk_std=textbook_qk_std(inputs[0]) / qk_shrink)
    params = HeadParams(*(p.astype(dtype) for p in start.as_tuple()))
    run = TrainingRun(task=task, d_k=d_k, scaled=scaled, steps=steps, lr=lr, shown_ids=shown.ids[0], seed=seed,
                      lr_v=lr_v, qk_shrink=qk_shrink)
    for step in range(steps + 1):
        batch = make(n_sentences, [seed, 2, step])
        loss, grads, fwd = loss_and_grads(params, batch, task_targets(batch, r), scaled)
        run.losses.append(loss)
        if step == 0:
            run.start_grad_q, run.start_grad_k = grad_norm(grads.w_q), grad_norm(grads.w_k)
            choice = has_choice(batch.mask, batch.scored)
            run.start_saturated = saturated_share(fwd.weights, choice)
            run.start_row_grad_saturated, run.start_row_grad_other = row_gradients_by_saturation(
                fwd, grad_mse(fwd.output, task_targets(batch, r), batch.scored), choice)
            uniform = softmax(np.zeros_like(batch.mask[0]) + batch.mask[0])
            run.baseline_loss = mse_loss(uniform @ (batch.x @ r), task_targets(batch, r), batch.scored)
            allowed = np.broadcast_to(batch.mask > MASKED / 2, fwd.scores.shape) & choice[..., None]
            run.start_qk_variance = float((fwd.scores * fwd.scale)[allowed].astype(np.float64).var())
        if step in snapshot_steps:
            run.snapshots[step] = forward(params, shown.x, shown.mask, scaled).weights[0]
        if not np.isfinite(loss):
            run.diverged = True
            break
        if step == steps:
            break
        sgd_step(params, grads, lr, lr_v)
        if progress is not None and step % max(steps // 10, 1) == 0:
            progress(step, steps)
    run.final_loss = run.losses[-1]
    run.final_saturated = saturated_share(fwd.weights, has_choice(batch.mask, batch.scored))
    fresh = make(heldout_sentences, [seed, 3])
    with np.errstate(all="ignore"):  # a diverged head's numbers are not finite: its loss is then inf
        fresh_fwd = forward(params, fresh.x, fresh.mask, scaled)
        fresh_loss = mse_loss(fresh_fwd.output, task_targets(fresh, r), fresh.scored)
    fresh_weights = fresh_fwd.weights
    run.heldout_loss = fresh_loss if np.isfinite(fresh_loss) else float("inf")
    run.final_on_target = weight_on_target(fresh_weights, fresh)
    run.final_accuracy = accuracy(fresh_weights, fresh)
    run.params = params
    return run
