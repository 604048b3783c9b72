"""What makes the app fast, held as behaviour (timings live in bench/run.py, never in a test).

- One sentence edit is one script run (URL-bound widgets must not add reruns).
- The step pages' downloads are built when clicked, and a click does not rerun the page.
- The model pass runs its matrix products on one BLAS thread, and that changes no number.
- What every visitor shares (the pronoun test set, the Training lab's default runs) is computed once per
  process, in a background warm-up.
- The libraries' objects are frozen after import: a full garbage collection does not walk them.
"""

import csv
import io
import os
from pathlib import Path

import numpy as np
import pytest

from devtools.browser import CHROMIUM, streamlit_server, type_sentence, wait_for_page
from lessons.explain import MARKER_COLUMN
from wording import said, without_icon

ROOT = Path(__file__).resolve().parents[1]


def test_the_model_pass_runs_on_one_blas_thread(model):
    from threadpoolctl import threadpool_info

    # numpy's own BLAS; scipy's, loaded later by the PyTorch reference's imports, is not the app's.
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas" and "numpy" in pool["filepath"]]
    assert blas and all(pool["num_threads"] == 1 for pool in blas)


def test_one_blas_thread_gives_the_numbers_two_give(model):
    """Pinning one BLAS thread changes no number the app shows beyond float32 rounding. Not bit for bit: on an AMD
    EPYC, OpenBLAS splits a product over two threads in another order and the last bits differ (attention weights
    by up to 1.6e-6, hidden states by 4e-6 of values up to 10.5), well inside the 1e-5 the app holds against
    PyTorch."""
    from threadpoolctl import threadpool_limits

    sentence = " ".join(["the cat sat on the mat"] * 40)  # 242 tokens: big enough for OpenBLAS to split work
    one = model.analyze(sentence)
    with threadpool_limits(2, user_api="blas"):
        two = model.analyze(sentence)
    for name in ("hidden_states", "attentions", "attention_outputs"):
        ours, theirs = getattr(one, name), getattr(two, name)
        assert np.abs(ours - theirs).max() <= 1e-5 * max(1.0, float(np.abs(theirs).max())), name


# --- in Chromium: one server and browser for the module ------------------------------------------------------

browser_only = pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                  reason="Debian's Chromium is not installed (apt-get install -y chromium)")


@pytest.fixture(scope="module")
def server(browser):
    with streamlit_server() as (url, _process, _seconds):
        yield url


@pytest.fixture(scope="module")
def step3(browser, server):
    """One tab on step 3, with its websocket's script runs counted."""
    from bench.run import ScriptRuns

    context = browser.new_context(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
    page = context.new_page()
    runs = ScriptRuns(page)
    page.goto(f"{server}/step3_softmax")
    wait_for_page(page)
    yield page, runs
    context.close()


def heatmap_ticks(page):
    return page.locator(".js-plotly-plot >> visible=true").first.locator(".ytick text").all_text_contents()


@browser_only
@pytest.mark.parametrize("sentence, new_token", [("Cats chase mice.", "mice"),
                                                 ("The animal didn't cross the street because it was too tired.",
                                                  "tired"),
                                                 ("You are kind.", "kind")])
def test_one_sentence_edit_is_one_script_run(step3, sentence, new_token):
    page, runs = step3
    import time

    box = page.locator('[data-testid="stSidebar"] textarea').first
    box.fill(sentence)
    since = time.perf_counter()
    box.press("Control+Enter")
    runs.wait_done(page, since)
    wait_for_page(page)
    assert new_token in heatmap_ticks(page)
    assert runs.runs_since(since) == 1
    assert f"sentence={sentence.split()[0]}" in page.url  # the URL still follows the sentence


@browser_only
def test_csv_download_is_made_on_click_without_a_rerun(step3):
    page, runs = step3
    import time

    type_sentence(page, "Cats chase mice.", "mice")
    since = time.perf_counter()
    with page.expect_download(timeout=60_000) as info:
        page.get_by_text(without_icon(said("downloads.csv_button"))).click()
    download = info.value
    assert download.suggested_filename.startswith("step3_weights_cats-chase-mice")
    rows = list(csv.reader(io.StringIO(Path(download.path()).read_text())))
    # Learned mode with [CLS]/[SEP] hidden: their share is one folded column, so each row is the model's own.
    assert rows[0][1:] == ["cats", "chase", "mice", ".", MARKER_COLUMN]
    weights = np.array([[float(v) for v in row[1:]] for row in rows[1:]])
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-6)  # the page's softmax rows, as numbers
    page.wait_for_timeout(500)
    assert runs.runs_since(since) == 0


def test_the_warm_up_computes_what_every_visitor_shares_once():
    """The background warm-up scores the pronoun test set and trains the Training lab's default runs in a
    worker process; a visitor who comes later gets them without computing anything in the server (a fresh
    process here: the warm-up runs once per process)."""
    import subprocess
    import sys

    script = """
import os, threading
os.environ["ATTENTION_WARMUP"] = "1"
from lessons import training
from attention.model import AttentionModel
import serving.shared as shared
model = AttentionModel()
passes_here = []
analyze = model.analyze
model.analyze = lambda *args, **kwargs: passes_here.append(args) or analyze(*args, **kwargs)
shared.start_warmup(model)
shared.start_warmup(model)  # a second session: nothing more starts
warmers = [t for t in threading.enumerate() if t.name == "warm-up"]
assert len(warmers) == 1, warmers
warmers[0].join(300)
assert len(shared.SHARED_RESULTS) == 1 + 1 + len(shared.lab_runs()[1])  # pronoun, main run, comparison
assert not passes_here, passes_here  # the server ran no model pass: the worker did them all
from lessons import meaning  # the meaning page's built-in word sets: measured by the worker too
measured_here = []
meaning.measure = lambda *a, **k: measured_here.append(a)
for word_set in meaning.BUILT_IN.values():
    result = shared.meaning_measurement(model, word_set.word, list(word_set.meaning_a), list(word_set.meaning_b))
    assert result is not None and len(result.separation) == model.n_layers + 1
assert not measured_here and len(shared.MEANING_RESULTS) == len(meaning.BUILT_IN)
from serving.sentences import SENTENCE_CACHE  # the pages' built-in sentences, warmed into the shared sentence cache
import numpy as np
for sentence in shared.BUILTIN_SENTENCES:
    warmed = SENTENCE_CACHE.get_or_compute(("analysis", sentence, model.name), lambda: None)
    core = SENTENCE_CACHE.get_or_compute(("core attentions", sentence, model.name), lambda: None)
    assert warmed is not None and core is not None, sentence
    here = analyze(sentence)  # the same numbers as a pass in this process
    assert warmed.tokens == here.tokens and np.array_equal(warmed.attentions, here.attentions), sentence
    assert np.array_equal(core, shared.stored_core_attentions(model, here)), sentence
main, compare = shared.lab_runs()
trained = []
original = training.train
training.train = lambda *a, **k: trained.append(1) or original(*a, **k)
runs = [shared.training_run(model, **run) for run in [main, *compare]]
shared.builtin_pronoun_scoreboard(model)
assert not trained and shared.BUILTIN_PRONOUN_SCORINGS["count"] == 0  # all computed by the worker
assert runs[0].steps == training.LAB_STEPS and runs[0].final_loss < runs[0].losses[0]
kept = len(shared.SHARED_RESULTS)
shared.SHARED_RESULTS.clear()  # the same numbers as computing here
training.train = original
assert shared.training_run(model, **main).losses == runs[0].losses
print("ok", kept)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    from serving.shared import lab_runs

    assert done.stdout.split() == ["ok", str(2 + len(lab_runs()[1]))]


def test_the_warm_up_hands_over_each_result_as_soon_as_it_is_done():
    """The worker sends the pronoun page's test set first and each later result when it is ready, so a visitor
    of the pronoun page a second after start does not wait for the Training lab's seven trainings."""
    import pickle
    import subprocess
    import sys

    from attention.model import resolve_model_name

    name = resolve_model_name(None)
    group = Path("/proc/self/autogroup")
    nice_before = group.read_text() if group.exists() else None
    # Started in this test's own session, as a developer might: the worker must not lower the priority of the
    # whole session (it did: every test after this one, and the developer's shell, ran at nice 19).
    worker = subprocess.Popen([sys.executable, "-m", "serving.warmup", name], cwd=ROOT, stdout=subprocess.PIPE)
    try:
        kind, key, _ = pickle.load(worker.stdout)
        assert (kind, key) == ("shared", ("pronoun test set", name))
        assert worker.poll() is None  # handed over while the trainings are still to come
        rest = []
        while True:
            try:
                rest.append(pickle.load(worker.stdout)[:2])
            except EOFError:
                break
    finally:
        worker.stdout.close()
        assert worker.wait(300) == 0
    assert nice_before is None or group.read_text() == nice_before
    from lessons.meaning import BUILT_IN
    from serving.shared import BUILTIN_SENTENCES, lab_runs

    kinds = [kind for kind, _ in rest]
    trainings = 1 + len(lab_runs()[1])  # the main run and the comparison's runs
    # the built-in sentences, the meaning page's built-in word sets, the trainings
    assert kinds == ["sentence"] * len(BUILTIN_SENTENCES) + ["meaning"] * len(BUILT_IN) + ["shared"] * trainings
    assert [key[0] for kind, key in rest if kind == "shared"] == ["training"] * trainings


def test_the_libraries_a_server_imports_are_hidden_from_the_garbage_collector():
    """A full garbage collection walks every object it tracks: the libraries the server imports (Streamlit,
    plotly, pandas, pyarrow) are frozen right after their import, so a full collection walks only what the
    pages made since, not the libraries, and does not stall a page for tens of milliseconds."""
    import subprocess
    import sys

    script = """
import gc
import streamlit
gc.collect()
before = gc.get_freeze_count()
import serving.startup
after_startup = gc.get_freeze_count()
import ui.tables
after_tables = gc.get_freeze_count()
print(before, after_startup, after_tables, len(gc.get_objects()))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    before, after_startup, after_tables, still_tracked = map(int, done.stdout.split())
    # pandas and pyarrow are imported (and frozen) at start-up now: without them about 81,000 objects
    assert before == 0 and after_startup > 100_000 and after_tables >= after_startup
    assert still_tracked < after_tables / 20  # what a full collection still walks


def test_pandas_is_imported_before_the_first_page_and_every_table_goes_through_ui_tables():
    """pandas and pyarrow are imported at start-up (serving/startup.py), before the first page runs, even the start
    page that shows no table: a class's simultaneous first visits once saw a half-imported pandas when one page
    imported it for a table while another drew a figure (tests/test_crowd.py). Tables go through ui/tables.py."""
    import re
    import subprocess
    import sys

    script = """
import os, sys
os.environ["ATTENTION_WARMUP"] = "0"
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=120)
at.run()
assert not at.exception, at.exception
assert at.get("plotly_chart"), "the start page drew no figure"
print("pandas" in sys.modules, "pyarrow" in sys.modules)
at.switch_page("app_pages/step3_softmax.py").run()
assert not at.exception, at.exception
print("pandas" in sys.modules, "pyarrow" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True", "True", "True"]  # already there for the start page
    direct = [f"{path.relative_to(ROOT)}:{number}" for path in [ROOT / "app.py", *ROOT.glob("app_pages/*.py"),
                                                                *ROOT.glob("ui/**/*.py")]
              if path.name != "tables.py"
              for number, line in enumerate(path.read_text().splitlines(), 1)
              if re.search(r"\bst\.(dataframe|table|data_editor)\(", line)]
    assert not direct, f"call ui.tables instead: {direct}"
