"""Start the app with `streamlit run` on localhost and drive Debian's Chromium with Playwright."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# Without the background-networking flags Chromium keeps dialling out, and this network refuses it.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
# URL paths are the file names: Streamlit resolves a first request against app_pages/ before st.navigation runs,
# so a custom url_path shows "Page not found" on a cold link.
PAGES = {"home": "", "step1": "step1_scores", "step2": "step2_scaling", "step3": "step3_softmax",
         "step4": "step4_output",
         "pronoun": "pronoun", "multihead": "multihead", "whatif": "whatif", "quiz": "quiz",
         "glossary": "glossary",
         "training": "training",
         "compare": "compare",
         "meaning": "meaning",
         "by_hand": "by_hand"}

# The same pages as script files, for the in-process (AppTest) tests: one list, so a new page is tested everywhere.
PAGE_FILES = [f"app_pages/{path or 'home'}.py" for path in PAGES.values()]


# Set by tests/conftest.py while a test without the `browser` marker runs: the fast lane (pytest -m "not browser
# and not slow") must start no server and no Chromium, so such a test fails at once and says which marker it lacks.
unmarked_test: str | None = None


def _refuse_unmarked(what: str) -> None:
    if unmarked_test:
        raise RuntimeError(f"{unmarked_test} starts {what} but is not marked `browser`: add "
                           f"@pytest.mark.browser (tests/conftest.py marks only what it can see)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(port: int | None = None, timeout: float = 90.0):
    """`streamlit run app.py` from the project folder on 127.0.0.1; yields (base url, process, seconds until
    healthy); the server's log so far: server_log(process)."""
    _refuse_unmarked("a Streamlit server")
    port = port or free_port()
    env = dict(os.environ, HF_HUB_OFFLINE=os.environ.get("HF_HUB_OFFLINE", "1"))
    env.pop("ATTENTION_WARMUP", None)  # a server runs as shipped: with its background warm-up
    started = time.perf_counter()
    # The log goes to a file, not a pipe: nobody reads a pipe while the server runs, and a full one would
    # block the server mid-test.
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
    process.log_file = log
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + timeout
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"streamlit exited: {log.read().decode(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.time() > deadline:
                raise TimeoutError("streamlit did not become healthy")
            time.sleep(0.2)
        yield url, process, time.perf_counter() - started
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def server_log(process) -> str:
    """What a server from streamlit_server has written to its log so far (read within its `with`)."""
    process.log_file.flush()
    process.log_file.seek(0)
    return process.log_file.read().decode(errors="replace")


@contextlib.contextmanager
def chromium():
    _refuse_unmarked("Chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def wait_for_page(page, timeout_ms: int = 90_000, figures: bool = True) -> None:
    """Until the script has finished running and, if asked, a heatmap is drawn."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stSidebar"] textarea >> visible=true', timeout=timeout_ms)
    if figures:
        page.wait_for_selector(".js-plotly-plot .main-svg >> visible=true", timeout=timeout_ms)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout_ms)
    page.wait_for_timeout(500)


def type_sentence(page, sentence: str, shown_token: str, timeout_ms: int = 60_000) -> None:
    """Type a sentence into the sidebar, send it, and wait until a figure's tick labels show `shown_token`
    (the new sentence, not the old one, is drawn) and the page has settled."""
    box = page.locator('[data-testid="stSidebar"] textarea').first
    box.fill(sentence)
    box.press("Control+Enter")
    page.wait_for_function("token => [...document.querySelectorAll('.js-plotly-plot .ytick text')]"
                           ".some(t => t.textContent === token)", arg=shown_token, timeout=timeout_ms)
    wait_for_page(page)


def show_walkthrough(page, timeout_ms: int = 60_000) -> None:
    """Press the start page's “Show the animation” (ui/sections/walkthrough_section.py) and wait for the walk-through."""
    page.locator(".st-key-walkthrough-show button").click()
    page.wait_for_selector(".js-plotly-plot .slider-container", timeout=timeout_ms)
    wait_for_page(page)


def animated_chart(page):
    """The page's animated figure (the walk-through or the 72-head flip-through), scrolled into view: the chart,
    its slider's rail (a bounding box) and its ticks (a locator)."""
    chart = page.locator(".js-plotly-plot", has=page.locator(".slider-container"))
    chart.scroll_into_view_if_needed()
    return chart, chart.locator(".slider-rail-touch-rect").bounding_box(), chart.locator(".slider-tick-rect")


def click_tick(page, rail: dict, ticks, number: int) -> None:
    """Move an animated figure's slider to a frame (0-based), as a pointer does."""
    tick = ticks.nth(number).bounding_box()
    page.mouse.click(tick["x"] + tick["width"] / 2, rail["y"] + rail["height"] / 2)
