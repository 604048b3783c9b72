import numpy as np
import streamlit as st

from attention import training
from ui import figures, shared, tables
from ui.state import current_view, model_or_stop, settings, steps_for
from ui.text import pct, quote

D_K_OPTIONS = [4, 8, 16, 32, 64, 128, 512]
SNAPSHOT_STEPS = training.LAB_SNAPSHOTS
COMPARE_D_K, COMPARE_STEPS, COMPARE_SENTENCES = training.COMPARE_D_K, training.COMPARE_STEPS, training.COMPARE_SENTENCES

st.title("Training lab: watch one attention head learn")
s = settings()
teaching = s.teaching
model = model_or_stop(s)
if model.embedding_tables() is None:
    st.info("The training lab needs the bundled model's own embedding table; this model cannot provide it. "
            "Clear the model name in the sidebar to use the bundled model.")
    st.stop()
embedding_tables = model.embedding_tables()
vocab_ids = model.vocabulary_ids(training.VOCABULARY)

st.markdown(
    "Every other page uses weights the model already **learned**. Here you watch learning happen. "
    "**Training** means: show the head many examples, measure how wrong it is, and nudge its numbers so it is a "
    "little less wrong next time. The **loss** is that measure of wrongness: one number, 0 means perfect. "
    "The **gradient** says, for every number in W_Q, W_K and W_V, which way and how strongly to nudge it to "
    "lower the loss. Softmax is **differentiable**: a tiny change in a score makes a tiny, computable change in "
    "the weights, so the gradient can flow back through it to W_Q and W_K."
)
st.markdown(
    "**The setup.** Short made-up sentences of 8 everyday words, as the model's own first layer sees them "
    "(its word, position and token-type embeddings, 384 numbers per token). One fresh head, with random W_Q, "
    "W_K, W_V, must make each word's output a copy of a fixed summary of one other word — the word the task "
    "names. It can only succeed by **attending to that word**. Each training step uses 32 new sentences."
)

left, middle, right = st.columns(3)
task = left.selectbox("Task", list(training.TASKS), key="train_task",
                      format_func={t: f"{t}: {d}" for t, d in training.TASKS.items()}.__getitem__)
d_k = middle.select_slider("d_k (length of each query/key)", D_K_OPTIONS, value=32, key="train_dk")
scaled = right.toggle("Divide scores by √d_k", value=True, key="train_scaled")
seed = 0


def with_progress(label, runs):
    """Train (or fetch, once per process for everyone) several runs, each under a progress bar while it trains."""
    results = []
    for index, run in enumerate(runs):
        if shared.is_ready(shared.training_key(model, **run)):
            results.append(shared.training_run(model, **run))
            continue
        text = f"{label} ({index + 1} of {len(runs)})" if len(runs) > 1 else label
        slot = st.empty()
        bar = None

        def progress(step, total):
            nonlocal bar
            bar = bar or slot.progress(0.0, text=text)
            bar.progress(step / total, text=text)

        with st.spinner(text):  # seen only while waiting for a run the warm-up or another visitor is training
            results.append(shared.training_run(model, progress=progress, **run))
        slot.empty()
    return results


main_run, compare_runs = shared.lab_runs(task, d_k, scaled, seed)
(run,) = with_progress("Training the head…", [main_run])
words = [training.VOCABULARY[i] for i in run.shown_ids]
shown = training.make_batch(task, training.toy_inputs(embedding_tables, vocab_ids, len(words)), 1, [seed, 1])
if task == "marker":
    words = [w + " ★" if shown.target[0, 0] == j else w for j, w in enumerate(words)]
setting = f"{task} · d_k={d_k} · {'scaled' if scaled else 'unscaled'}"

st.header("1 · The loss goes down")
if run.diverged:
    st.warning(f"The loss became infinite at step {len(run.losses) - 1}: the steps were too big for this "
               "setting, and training broke down.")
loss_fig = figures.line_chart(np.arange(len(run.losses)),
                              {"loss (each step's new sentences)": np.array(run.losses),
                               "looking at every allowed word evenly": np.full(len(run.losses), run.baseline_loss)},
                              f"Training loss · {setting}", "training step", "loss", teaching=teaching)
figures.show(loss_fig, figures.figure_filename("training_loss", task, f"dk{d_k}-{'s' if scaled else 'u'}"),
             teaching)
share = run.final_loss / run.losses[0]
st.markdown(
    f"The loss starts at **{run.losses[0]:.3f}** and ends at **{run.final_loss:.4f}** after {run.steps} steps "
    f"({'less than 1%' if share < 0.01 else pct(share)} of where it started). A head that looked at every "
    f"allowed word evenly would score {run.baseline_loss:.3f}. On 64 sentences it never saw, the head now puts "
    f"**{pct(run.final_on_target)}** of its attention on the right word on average, and the right word gets the "
    f"largest weight in **{pct(run.final_accuracy)}** of the rows."
)

st.header("2 · The attention pattern appears")
answer = np.zeros((len(words), len(words)))
answer[np.arange(len(words)), shown.target[0]] = shown.scored[0]
answer[~shown.scored[0]] = np.nan
panels = [run.snapshots[step] for step in SNAPSHOT_STEPS if step in run.snapshots]
titles = [("before training" if step == 0 else f"after {step} steps") for step in SNAPSHOT_STEPS
          if step in run.snapshots]
figures.show(figures.small_multiples(panels + [answer], words, titles + ["the right answer"],
                                     f"One sentence's attention while the head learns · {setting}",
                                     columns=len(panels) + 1, teaching=teaching),
             figures.figure_filename("training_patterns", task, f"dk{d_k}"), teaching)
right_first = np.take_along_axis(panels[0], shown.target[0][:, None], axis=1)[shown.scored[0], 0].mean()
right_last = np.take_along_axis(panels[-1], shown.target[0][:, None], axis=1)[shown.scored[0], 0].mean()
st.markdown(
    f"Rows are the words looking, columns the words looked at (darker = more attention). In this sentence the "
    f"right word gets **{pct(right_first)}** of the attention on average before training and "
    f"**{pct(right_last)}** after. Nobody wrote this pattern in: the gradient found it."
    + (" Rows without a right answer (blank in the last panel) are not scored." if not shown.scored[0].all()
       else "")
)


def small(x):
    return "less than 0.00001" if x < 1e-5 else f"{x:.5f}" if x < 0.01 else f"{x:.3f}"


def verdict(k, with_scaling, without):
    ratio = without.final_loss / max(with_scaling.final_loss, 1e-12)
    grad_ratio = without.start_grad_q / max(with_scaling.start_grad_q, 1e-12)
    if without.diverged:
        outcome = "without scaling, training broke down (the loss became infinite)"
    elif 0.67 <= ratio <= 1.5:
        outcome = (f"scaling makes **little difference** to the end result (loss {small(with_scaling.final_loss)} "
                   f"with, {small(without.final_loss)} without)")
    elif ratio > 1:
        outcome = (f"scaling **helps**: the loss ends {ratio:.1f}× lower with it ({small(with_scaling.final_loss)} "
                   f"vs {small(without.final_loss)})")
    else:
        outcome = (f"here scaling **does not help**: the loss ends {1 / ratio:.1f}× lower *without* it "
                   f"({small(without.final_loss)} vs {small(with_scaling.final_loss)})")
    return (f"**d_k = {k}:** without scaling, {pct(without.start_saturated)} of rows start saturated "
            f"(with scaling: {pct(with_scaling.start_saturated)}), and the gradient reaching W_Q at the start is "
            f"{grad_ratio:.1f}× the scaled one; {outcome}.")


st.header("3 · Why divide by √d_k? The same training, with and without")
st.markdown(
    f"Each pair below trains the same head on the same sentences ({COMPARE_STEPS} steps of {COMPARE_SENTENCES} "
    "sentences), once with the scores divided by √d_k and once without: one run each, from one seed, so small "
    "differences can change with another seed. A softmax row is **saturated** when one "
    f"weight is above {pct(training.SATURATED)}: the row is then almost flat to small changes, so it passes "
    "almost no gradient back."
)
if st.toggle("Run the comparison (six more trainings; the first time takes a while)", value=True,
             key="train_compare"):
    compare = with_progress("Training six heads to compare…", compare_runs)
    pairs = {k: (compare[2 * i], compare[2 * i + 1]) for i, k in enumerate(COMPARE_D_K)}
    figures.show(figures.line_chart(np.arange(COMPARE_STEPS + 1),
                                    {f"d_k={k} {'÷√d_k' if r.scaled else 'unscaled'}": np.array(r.losses)
                                     for k in COMPARE_D_K for r in pairs[k]},
                                    f"Loss with and without scaling · task: {task}", "training step", "loss",
                                    teaching=teaching),
                 figures.figure_filename("training_scaling", task, "dk8-64-512"), teaching)
    tables.dataframe({
        "d_k": [k for k in COMPARE_D_K for _ in range(2)],
        "scores": ["÷ √d_k" if r.scaled else "not scaled" for k in COMPARE_D_K for r in pairs[k]],
        "saturated rows at start": [pct(r.start_saturated) for k in COMPARE_D_K for r in pairs[k]],
        "gradient reaching W_Q at start": [small(r.start_grad_q) for k in COMPARE_D_K for r in pairs[k]],
        "gradient reaching W_K at start": [small(r.start_grad_k) for k in COMPARE_D_K for r in pairs[k]],
        f"loss after {COMPARE_STEPS} steps": [small(r.final_loss) for k in COMPARE_D_K for r in pairs[k]],
        "right word's share (new sentences)": [pct(r.final_on_target) for k in COMPARE_D_K for r in pairs[k]],
    }, hide_index=True)
    for k in COMPARE_D_K:
        st.markdown(verdict(k, *pairs[k]))
    saturated_runs = [r for k in COMPARE_D_K for r in pairs[k] if np.isfinite(r.start_row_grad_saturated)
                      and np.isfinite(r.start_row_grad_other)]
    if saturated_runs:
        worst = max(saturated_runs, key=lambda r: r.start_saturated)
        ratio = worst.start_row_grad_saturated / worst.start_row_grad_other
        learn = "far less" if ratio < 0.2 else "less" if ratio < 1 else "no less (here)"
        st.markdown(
            f"Row by row (d_k = {worst.d_k}, {'scaled' if worst.scaled else 'unscaled'}, at the start): a saturated "
            f"row sends back a gradient of size {small(worst.start_row_grad_saturated)} on average, the other rows "
            f"{small(worst.start_row_grad_other)}: saturated rows learn {learn}. Both runs use the same step size, "
            "and without scaling the scores are √d_k times larger, so the rows that are not saturated get a larger "
            "gradient too: the table shows which effect wins here."
        )
with st.expander("How this is computed"):
    st.markdown(
        "Forward: Q = X W_Q, K = X W_K, V = X W_V; scores = Q Kᵀ / √d_k; weights = softmax(scores); output = "
        "weights V. Loss: the mean squared difference between each scored word's output and the summary of its "
        "right word. Backward, by hand, one step at a time in reverse (attention/training.py): weighted sum → "
        "softmax (through its Jacobian) → scaling → dot products → projections. Tests hold these gradients equal "
        "to finite differences and to PyTorch's autograd. Plain gradient descent, step size "
        f"{training.LEARNING_RATE}, starting weights drawn with a fixed seed ({seed}), so every run repeats "
        "exactly. The gradient size is the square root of the sum of squares of all its entries."
    )

st.header("4 · Why a saturated row passes almost no gradient")
view = current_view()
# The model's own row: every token it sees, [CLS] and [SEP] included (renormalising over the shown words would
# give a row the model never computes).
if view.settings.mode == "learned":
    steps = view.base
else:  # the Jacobian is about the model's own attention: recompute the selected row in learned mode
    _, steps = steps_for(view.model, view.analysis, np.arange(view.analysis.n_tokens), "learned", 32, 0,
                         view.settings.layer, view.settings.head)
i, tokens = int(view.shown[view.token]), list(view.analysis.tokens)
row = steps.weights[i]
unscaled_row = training.softmax(steps.raw[i].astype(np.float64))
jacobian = training.softmax_jacobian(row)
jacobian_unscaled = training.softmax_jacobian(unscaled_row)
# Side by side only while the matrix is small enough to keep its numbers readable in half the width.
side_by_side = not teaching and len(tokens) <= 6
left, right = st.columns(2) if side_by_side else (st.container(), None)
with left:
    st.markdown(
        f"The row of {quote(view.token_label)} from step 3 (the model's own weights, layer {view.settings.layer}, "
        f"head {view.settings.head}). Its **Jacobian** is a table: entry (i, j) says how much weight i moves when "
        "score j is nudged up a little. The gradient reaching the scores is this table times the gradient "
        "reaching the weights, so when every entry is near zero, almost nothing gets through."
    )
    st.latex(r"\frac{\partial w_i}{\partial s_j} = w_i\,(\delta_{ij} - w_j)")
    top = int(row.argmax())
    st.markdown(
        f"With √d_k the row's largest weight is **{pct(row[top])}** (on {quote(tokens[top])}) and the largest "
        f"Jacobian entry is **{small(np.abs(jacobian).max())}**. Without scaling the largest weight would be "
        f"**{pct(unscaled_row.max())}** and the largest entry **{small(np.abs(jacobian_unscaled).max())}**. "
        "The most any entry can be is 0.25 (two weights of 50%); a row with one weight near 100% has all "
        "entries near 0."
    )
jacobian_fig = figures.matrix_heatmap(jacobian, tokens, tokens, f"Softmax Jacobian · row of “{view.token_label}”",
                                     kind="signed", teaching=teaching, x_title="score nudged (j)",
                                     y_title="weight that moves (i)")
jacobian_file = figures.figure_filename("training_jacobian", view.settings.sentence, f"{view.code}-t{i}")
if side_by_side:
    with right:
        figures.show(jacobian_fig, jacobian_file, teaching)
else:
    figures.show(jacobian_fig, jacobian_file, teaching)
st.page_link("pages/step3_softmax.py", label="Back to step 3, softmax")
