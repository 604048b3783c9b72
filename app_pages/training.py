import streamlit as st

from lessons import training
from serving import shared
from ui.sections import training_jacobian
from ui.sections import training_lab as sections
from ui.content import current_language, words
from ui.model import model_or_stop
from ui.settings import settings
from ui.widgets.tour import slide_top, step_nav

D_K_OPTIONS = [4, 8, 16, 32, 64, 128, 512]

slide_top("app_pages/training.py")  # teaching mode: sentence, examples, Previous / Next
st.title(words("training.title"))
s = settings()
teaching = s.teaching
model = model_or_stop(s)
if model.embedding_tables() is None:
    st.info(words("training.no_embeddings"))
    st.stop()
embedding_tables = model.embedding_tables()
vocab_ids = model.vocabulary_ids(training.VOCABULARY)

st.markdown(words("training.intro"))
setup = st.empty()  # said once the run is known: its sentence length and batch are the run's own

language = current_language()  # bound: Streamlit calls format_func again outside this run
task_options = {task: words(f"training.task_option_{task}", language=language) for task in training.TASKS}
left, middle, right = st.columns(3)
task = left.selectbox(words("training.label_task"), list(training.TASKS), key="train_task",
                      format_func=task_options.__getitem__)
d_k = middle.select_slider(words("training.label_d_k"), D_K_OPTIONS, value=32, key="train_dk")
scaled = right.toggle(words("training.label_scaled"), value=True, key="train_scaled")
seed = 0

main_run, compare_runs = shared.lab_runs(task, d_k, scaled, seed)
(run,) = sections.with_progress(model, words("training.progress_main"), [main_run])
tokens = [training.VOCABULARY[i] for i in run.shown_ids]
width = embedding_tables["embeddings.word_embeddings.weight"].shape[1]
setup.markdown(words("training.setup", length=len(tokens), width=width, batch=main_run["n_sentences"]))
shown = training.make_batch(task, training.toy_inputs(embedding_tables, vocab_ids, len(tokens)), 1, [seed, 1])
if task == "marker":
    tokens = [w + " ★" if shown.target[0, 0] == j else w for j, w in enumerate(tokens)]
setting = words("training.setting", task=words(f"training.task_name_{task}"), d_k=d_k, scaled=scaled)

sections.loss_section(run, setting, task, d_k, scaled, teaching)
sections.pattern_section(run, tokens, shown, setting, task, d_k, teaching)
sections.comparison_section(model, task, compare_runs, teaching)
sections.how_computed(run, seed, width, main_run["n_sentences"])
training_jacobian.jacobian_section(teaching)
st.page_link("app_pages/step3_softmax.py", label=words("training.back_link"))
step_nav("app_pages/training.py")
