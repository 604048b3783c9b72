import streamlit as st

from lessons import training
from serving import shared
from ui.sections import training_jacobian
from ui.sections import training_lab as sections
from ui.model import model_or_stop
from ui.settings import settings
from ui.widgets.tour import slide_top, step_nav

D_K_OPTIONS = [4, 8, 16, 32, 64, 128, 512]

slide_top("app_pages/training.py")  # teaching mode: sentence, examples, Previous / Next
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

main_run, compare_runs = shared.lab_runs(task, d_k, scaled, seed)
(run,) = sections.with_progress(model, "Training the head…", [main_run])
words = [training.VOCABULARY[i] for i in run.shown_ids]
shown = training.make_batch(task, training.toy_inputs(embedding_tables, vocab_ids, len(words)), 1, [seed, 1])
if task == "marker":
    words = [w + " ★" if shown.target[0, 0] == j else w for j, w in enumerate(words)]
setting = f"{task} · d_k={d_k} · {'scaled' if scaled else 'unscaled'}"

sections.loss_section(run, setting, task, d_k, scaled, teaching)
sections.pattern_section(run, words, shown, setting, task, d_k, teaching)
sections.comparison_section(model, task, compare_runs, teaching)
sections.how_computed(run, seed)
training_jacobian.jacobian_section(teaching)
st.page_link("app_pages/step3_softmax.py", label="Back to step 3, softmax")
step_nav("app_pages/training.py")
