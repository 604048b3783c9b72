import inspect
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# In-process page runs (AppTest) do without the background warm-up, so the call counters the tests read are
# not raced by it; servers started by the tests warm up as shipped (devtools.browser.streamlit_server), and
# tests/test_performance.py tests the warm-up itself.
os.environ["ATTENTION_WARMUP"] = "0"
# Nothing is read from or kept in the disk cache (serving/diskcache.py): a test's counters and timings would depend on
# what an earlier run left in the home folder. tests/test_diskcache.py tests it, in folders of its own.
os.environ["ATTENTION_CACHE_DIR"] = "off"


# The fast lane, `pytest -m "not browser and not slow"`, runs every test that needs no Chromium and no server. A
# test is marked `browser` here when it asks for the browser or server fixture or its own code starts a server or
# Chromium (the calls below); one that does so out of sight (in a helper) is stopped by devtools.browser when it
# starts one unmarked, with a message asking for @pytest.mark.browser.
# A test that runs the warm-up worker (`python -m serving.warmup`, or start_warmup in a process of its own) waits
# for a process at the lowest CPU priority, which yields to everything else on a shared machine (12-60 s at load
# 13, 6-12 s when quiet): marked `slow`, so the fast lane is pytest -m "not browser and not slow".
BROWSER_FIXTURES = {"browser", "server"}
BROWSER_CALLS = ("streamlit_server(", "chromium(", "Student(")
SLOW_CALLS = ('"serving.warmup"', "start_warmup(")


def _source(item) -> str:
    try:
        return inspect.getsource(item.function)
    except (AttributeError, OSError, TypeError):
        return ""


def _needs_a_browser(item) -> bool:
    if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    return any(call in _source(item) for call in BROWSER_CALLS)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _needs_a_browser(item):
            item.add_marker(pytest.mark.browser)
        elif any(call in _source(item) for call in SLOW_CALLS):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    import devtools.browser

    devtools.browser.unmarked_test = None if item.get_closest_marker("browser") else item.nodeid


@pytest.fixture(scope="session")
def model():
    from attention.model import AttentionModel

    return AttentionModel()


@pytest.fixture(scope="session")
def reference():
    """The same model run by sentence-transformers and PyTorch: what "the model's own attention" means."""
    from attention.model import AttentionModel

    return AttentionModel(backend="torch")


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium for one test module (the browser tests skip or fail before asking for it)."""
    from devtools.browser import chromium

    with chromium() as b:
        yield b


# A phone's browser: "Mobi" in its User-Agent is what the app's on_a_phone reads (ui/figures/matrices.py).
PHONE_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 "
               "Mobile Safari/537.36")


@pytest.fixture(scope="module")
def phone(browser):
    """A 390×844 phone for one test module."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True, user_agent=PHONE_AGENT)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def server(browser):
    """`streamlit run app.py` for one test module, visited once so each test measures its own page rather than
    the model's first load (a module that needs a cold server makes its own)."""
    from devtools.browser import streamlit_server, wait_for_page

    with streamlit_server() as (url, _process, _seconds):
        page = browser.new_page()
        page.goto(url)
        wait_for_page(page)
        page.close()
        yield url


APP = str(ROOT / "app.py")


def run_app(page=None, sentence=None, **session):
    """Run app.py in-process with the given widget values, then switch to a page."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in session.items():
        at.session_state[key] = value
    if sentence is not None:
        at.session_state["sentence"] = sentence
    at.run()
    if page and page != "app_pages/home.py":  # home is already the current page
        at.switch_page(page)
        at.run()
    return at
