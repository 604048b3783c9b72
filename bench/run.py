"""Speed, size and memory of the explainer, each printed beside its target. Not a pass/fail test.

    python bench/run.py            # everything (starts a server and Chromium for cold start and memory)
    python bench/run.py --quick    # core, pipeline and payload only
    python bench/run.py --floor    # only the app-vs-floor comparison in Chromium (--pairs N, default 5)
    python bench/load.py           # only the classroom load test (concurrent students, worst-case memory)
    python bench/training.py       # only the Training lab's speed
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from attention import core  # noqa: E402


def best_of(fn, repeat=7, number=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def line(name, value, target, unit="", ok=None):
    verdict = "" if ok is None else ("  ok" if ok else "  MISSED")
    print(f"{name:<58} {value:>10} {unit:<4} target {target}{verdict}")


def bench_core():
    import torch

    torch.set_num_threads(2)
    print("\n# core: our four steps (every intermediate kept) vs torch scaled_dot_product_attention")
    rng = np.random.default_rng(0)
    for n in (12, 128, 512):
        for d_k in (32, 384):
            q, k, v = (rng.standard_normal((n, d_k)).astype(np.float32) for _ in range(3))
            tq, tk, tv = (torch.from_numpy(a)[None, None] for a in (q, k, v))
            ours = best_of(lambda: core.run_steps(q, k, v))
            with torch.inference_mode():
                ref = best_of(lambda: torch.nn.functional.scaled_dot_product_attention(tq, tk, tv))
            ratio = ours / ref
            # Information only: the ≤ 1.3× target was retired (at the app's 256-token cap the four steps take
            # about a millisecond, which no user sees); what users feel is measured against the floor app.
            line(f"n={n:<4} d_k={d_k:<4} ours {ours * 1e3:.3f} ms / torch {ref * 1e3:.3f} ms", f"{ratio:.2f}",
                 "(info)", "×")
            if n >= 128 and d_k == 32:
                # The least any numpy softmax attention can do: one matmul, one exp, one matmul, no scaling, no
                # max-subtraction, no normalising, no checks. If even this misses, the target needs a fused kernel.
                floor = best_of(lambda: np.exp(q @ k.T) @ v)
                line(f"  floor: bare np.exp(q @ k.T) @ v {floor * 1e3:.3f} ms / torch", f"{floor / ref:.2f}",
                     "(info)", "×")


def bench_pipeline():
    import plotly.io
    import plotly.tools

    from attention.model import AttentionModel
    from ui import figures
    from ui.view import steps_for

    print("\n# pipeline: a step page's work (tokens → model pass → Q/K/V → 4 steps → figures) vs bare encode")
    model = AttentionModel()                    # what the app runs: the numpy forward pass
    reference = AttentionModel(backend="torch")  # sentence-transformers on PyTorch, for the bare encode

    def page_work(sentence):
        analysis = model.analyze(sentence)
        shown = np.flatnonzero(~analysis.is_special)
        _, steps = steps_for(model, analysis, shown, "learned", 32, 0, 0, 0)
        tokens = [analysis.tokens[i] for i in shown]
        figs = [figures.matrix_heatmap(m, tokens, tokens, "t", kind=kind)
                for m, kind in ((steps.raw, "signed"), (steps.scaled, "signed"), (steps.weights, "weights"))]
        figs.append(figures.matrix_heatmap(steps.output, tokens, None, "t", kind="vectors"))
        # What st.plotly_chart does with each figure before sending it.
        return [plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(f, validate_figure=True),
                                  validate=False) for f in figs]

    for n_words, label in ((30, "32 tokens"), (400, "max length (256 tokens)")):
        sentence = " ".join(f"word{i % 50}" if i % 3 else "the" for i in range(n_words))
        if n_words == 30:
            sentence = " ".join(["cats"] * 30)  # 30 words + [CLS]/[SEP] = 32 tokens
        model.analyze(sentence)
        ours = best_of(lambda: page_work(sentence), repeat=5, number=1)
        encode = best_of(lambda: reference.encode_tokens(sentence), repeat=5, number=1)
        # Information, not a target (retired: the numpy pass alone is 1.2–1.9× PyTorch's at 32 tokens; what a
        # visitor waits for is held by the floor comparison and the 256-token line below).
        line(f"{label}: page work {ours * 1e3:.0f} ms / encode {encode * 1e3:.0f} ms", f"{ours / encode:.2f}",
             "(info, the 1.5× target is retired)" if n_words == 30 else "(info)", "×")
        if n_words != 30:
            line("  absolute page work at max length", f"{ours:.2f}", "≤ 0.5 s", "s", ok=ours <= 0.5)
        numpy_pass = best_of(lambda: model.analyze(sentence), repeat=5, number=1)
        torch_pass = best_of(lambda: reference.analyze(sentence), repeat=5, number=1)
        line(f"  model pass alone: numpy {numpy_pass * 1e3:.0f} ms / PyTorch {torch_pass * 1e3:.0f} ms",
             f"{numpy_pass / torch_pass:.2f}", "(info)", "×")

    print("\n# payload: what the step-3 page sends at 128 tokens")
    sentence = " ".join(["word"] * 126)
    payload = sum(len(j) for j in page_work(sentence))
    line("four heatmaps' JSON", f"{payload / 1e6:.3f}", "≤ 1 MB", "MB", ok=payload <= 1e6)

    print("\n# payload: the multi-head page's flip-through (72 frames) at 256 tokens, as st.plotly_chart sends it")
    from serving.models import analyze
    from ui import head_flip
    from ui.settings import Settings

    sentence = " ".join(["word"] * 400)
    flip_settings = Settings(sentence, "learned", 32, 0, 1, 8, False, 100, False, "")
    for teaching in (False, True):
        fig, _, _ = head_flip.build(dataclasses.replace(flip_settings, teaching=teaching), analyze(sentence, None),
                                    101, {"sentence": sentence})
        size = len(plotly.io.to_json(fig, validate=False))
        line(f"flip-through spec{', teaching mode' if teaching else ''}", f"{size / 1e6:.2f}",
             "≤ 2 MB (well under the server's websocket message limit)", "MB", ok=size <= 2e6)



def rss_mb(pid):
    """Resident memory of the server process (Streamlit serves every session from this one process)."""
    with open(f"/proc/{pid}/status") as status:
        for row in status:
            if row.startswith("VmRSS"):
                return int(row.split()[1]) / 1e3
    return float("nan")


def bench_server():
    from devtools.browser import chromium, streamlit_server, wait_for_page

    print("\n# cold start and memory: `streamlit run app.py` in headless Chromium")
    with chromium() as browser:
        # What `streamlit run app.py` opens: the start page, on a server that has served nobody yet.
        started = time.perf_counter()
        with streamlit_server() as (url, process, healthy):
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector(".js-plotly-plot .main-svg >> visible=true", timeout=120_000)
            cold = time.perf_counter() - started
            line(f"cold start to first heatmap, start page (healthy after {healthy:.1f} s)", f"{cold:.1f}", "≤ 8 s",
                 "s", ok=cold <= 8)
        # A shared link straight to a step page: the legacy-pages rerun and a heavier page come on top.
        started = time.perf_counter()
        with streamlit_server() as (url, process, healthy):
            page = browser.new_page()
            page.goto(url + "/step3_softmax")
            page.wait_for_selector(".js-plotly-plot .main-svg >> visible=true", timeout=120_000)
            cold = time.perf_counter() - started
            line(f"cold start to first heatmap, link to step 3 (healthy after {healthy:.1f} s)", f"{cold:.1f}",
                 "(info)", "s")
            wait_for_page(page)
            one = rss_mb(process.pid)
            line("server memory, 1 session", f"{one:.0f}", "≤ 900 MB", "MB", ok=one <= 900)
            pages = []
            for i in range(7):
                p = browser.new_page()
                p.goto(f"{url}/step3_softmax?sentence=Session+{i}+says+hello")
                pages.append(p)
            for p in pages:
                wait_for_page(p)
            eight = rss_mb(process.pid)
            per = (eight - one) / 7
            line("server memory, 8 sessions", f"{eight:.0f}", "", "MB")
            line("  per extra session", f"{per:.1f}", "≤ +30 MB", "MB", ok=per <= 30)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="skip the server and browser measurements")
    parser.add_argument("--floor", action="store_true", help="only the app-vs-floor comparison in Chromium")
    parser.add_argument("--pairs", type=int, default=5, help="app/floor pairs for the floor comparison")
    parser.add_argument("--cache", choices=["kept", "cold"], default="kept",
                        help="the app's disk cache in the floor comparison: kept (one folder for the whole bench, "
                             "filled by the first app server) or cold (every app server starts with an empty one)")
    args = parser.parse_args()
    if args.floor:
        bench_floor(args.pairs, args.cache)
        return
    from bench import load
    from bench.training import bench_task, bench_training

    bench_core()
    bench_pipeline()
    bench_training(line)
    bench_task(line)
    if not args.quick:
        bench_server()
        bench_floor(args.pairs, args.cache)
        load.main(["--students", "1,4,8,16", "--worst", "12", "--idle", "150"])



# --- the app against its floor: bare Streamlit with the same pages and figures (bench/floor_app.py) -------------

FLOOR_APP = ROOT / "bench" / "floor_app.py"
# (name, what the user does); every step is timed from the action until the page is drawn.
JOURNEY = [
    ("cold start → first heatmap, start page", ("cold",)),
    ("click a token chip on the start page", ("chip", "good")),
    ("show the walk-through (drawn once asked for)", ("button", "walkthrough-show")),
    ("play the walk-through (to its 3rd frame)", ("play", 3)),
    ("click a token chip on the start page, walk-through shown", ("chip", "am")),
    ("switch to step 3 (first visit)", ("click", "3 · Softmax → weights")),
    ("new sentence on step 3, 14 tokens", ("type", "The animal didn't cross the street because it was too tired.",
                                           "tired")),
    ("new sentence on step 3, 4 tokens", ("type", "You are kind.", "kind")),
    ("switch to step 1", ("click", "1 · Query·Key scores")),
    ("switch to step 4", ("click", "4 · Output = weights·V")),
    ("back to step 3", ("click", "3 · Softmax → weights")),
    ("click a token chip on step 3", ("chip", "are")),
    ("switch to multi-head", ("click", "Multi-head attention")),
    ("flip through the 72 heads (slider to the last head)", ("flip", 71)),
    ("switch to the pronoun page (first visit)", ("click", "Does “it” look at “dog”?")),
    ("switch to step 3 again", ("click", "3 · Softmax → weights")),
    ("pronoun page revisit", ("click", "Does “it” look at “dog”?")),
    ("switch to compare two sentences", ("click", "Compare two sentences")),
    ("switch to the Training lab (first visit)", ("click", "Training lab")),
    ("switch to the meaning page (first visit)", ("click", "A word's meaning comes from its sentence")),
    ("new tab on the warm server, link to step 3", ("tab", "step3_softmax?sentence=Cats+chase+mice")),
]
TARGETS = {"pronoun page revisit": 1.0,  # seconds to drawn, on top of the ≤ 1.2× ratio
           "click a token chip on the start page": 0.3, "click a token chip on step 3": 0.3}
# Actions that must not run the page's script at all (the table's "runs" column shows it).
NO_SCRIPT_RUNS = {"play the walk-through (to its 3rd frame)", "flip through the 72 heads (slider to the last head)"}
# The walk-through's step heading (ui/walkthrough.py): "Step 1 of 4 · … (3/11)".
WALKTHROUGH_HEADING_JS = """() => {
  const plot = [...document.querySelectorAll('.js-plotly-plot')].find(p => p.querySelector('.slider-container'));
  const heading = plot && plot.querySelector('.annotation-text');
  return heading ? heading.textContent : '';
}"""
# The multi-head flip-through's title (ui/figures/head_flip.py): "Layer 1, head 8: next token, 59%".
FLIP_TITLE_JS = """() => {
  const plot = [...document.querySelectorAll('.js-plotly-plot')].find(p => p.querySelector('.slider-container'));
  return plot ? plot.querySelector('.gtitle').textContent : '';
}"""
# Every visible figure drawn, nothing left over from the previous run, the script done.
DRAWN_JS = """() => {
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  const plots = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].filter(p => p.offsetParent);
  return plots.length > 0 && plots.every(p => p.querySelector('.main-svg'));
}"""

# The page's last change (its own clock), recorded from the first moment: a page is drawn when its figures are and
# it has stopped changing. Streamlit draws each figure twice (three times in a column); a page whose script ends
# early had its last figures' second draw still to come when DRAWN_JS held, and the next action waited for it
# (the app's pronoun page: four of its twelve draws came after; the floor's slower script hid its own). Not
# counted: the attributes the pages' own scripts set once a page is quiet (ui/page_style.py's keyboard-reachable
# boxes, ui/figures/show.py's class on a figure whose cells are too small for their numbers).
LAST_CHANGE_JS = """
window.__lastChange = performance.now();
new MutationObserver((mutations) => {
  for (const change of mutations) {
    const name = change.attributeName;
    if (change.type === 'attributes' && (SCROLL_FOCUS_ATTRIBUTES.includes(name) ||
        (name === 'class' && change.target.classList.contains('js-plotly-plot')))) continue;
    window.__lastChange = performance.now();
    return;
  }
}).observe(document, {childList: true, subtree: true, attributes: true, characterData: true});
"""  # SCROLL_FOCUS_ATTRIBUTES: ui/page_style.py's, filled in by journey()
QUIET_MS = 300  # no change for this long: the page has stopped changing


def seconds_to_settled(page, drawn_seconds: float) -> float:
    """Seconds to drawn, plus how long after DRAWN_JS held the page still changed (waited for until quiet)."""
    now = page.evaluate("performance.now()")
    page.wait_for_function(f"() => performance.now() - window.__lastChange > {QUIET_MS}", polling=20,
                           timeout=60_000)
    return drawn_seconds + max(0.0, page.evaluate("window.__lastChange") - now) / 1000


def watcher_setting() -> str:
    """The file-watcher type both servers run with: both start in the project folder, so they read the same
    .streamlit/config.toml (Streamlit's default, "auto", when it sets none)."""
    import tomllib

    config = ROOT / ".streamlit" / "config.toml"
    settings = tomllib.loads(config.read_text()) if config.is_file() else {}
    return settings.get("server", {}).get("fileWatcherType", "auto (Streamlit's default)")


class ScriptRuns:
    """Counts the script runs a page's websocket reports (one `new_session` message per run)."""

    def __init__(self, page):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self.started, self.finished = [], []
        self._message = ForwardMsg

        def on_socket(socket):
            socket.on("framereceived", self._received)

        page.on("websocket", on_socket)

    def _received(self, payload):
        if not isinstance(payload, (bytes, bytearray)):
            return
        message = self._message()
        message.ParseFromString(bytes(payload))
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self.started.append(time.perf_counter())
        elif kind == "script_finished":
            self.finished.append((time.perf_counter(), message.script_finished))

    def wait_done(self, page, since: float, timeout: float = 120.0) -> None:
        """Until a run that started after `since` finished for good (not cut short for another rerun)."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        rerun = ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN
        deadline = time.perf_counter() + timeout
        while not (self.finished and self.finished[-1][0] > since and self.finished[-1][1] != rerun):
            if time.perf_counter() > deadline:
                raise TimeoutError("the script did not finish")
            page.wait_for_timeout(5)

    def runs_since(self, since: float) -> int:
        return sum(t > since for t in self.started)

    def script_seconds(self, since: float) -> float:
        """From the first run's start (as the browser hears it) to the last run's end: the server's part."""
        first = min((t for t in self.started if t > since), default=since)
        return self.finished[-1][0] - first


@contextlib.contextmanager
def server_for(script: Path, timeout: float = 90.0):
    """`streamlit run <script>` from the project folder; yields its URL."""
    from devtools.browser import streamlit_server

    with streamlit_server(timeout=timeout, script=script) as (url, _process, _seconds):
        yield url


def journey(browser, script: Path) -> dict[str, tuple[float, int, float]]:
    """One cold server through JOURNEY; seconds to drawn, script runs and seconds of script for each step."""
    results = {}
    started = time.perf_counter()
    with server_for(script) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        from ui.page_style import SCROLL_FOCUS_ATTRIBUTES

        context.add_init_script(LAST_CHANGE_JS.replace("SCROLL_FOCUS_ATTRIBUTES",
                                                       json.dumps(list(SCROLL_FOCUS_ATTRIBUTES))))
        page = context.new_page()
        runs = ScriptRuns(page)
        for name, (action, *args) in JOURNEY:
            if action == "cold":
                since = started
                page.goto(url)
            elif action == "click":
                since = time.perf_counter()
                page.locator('.st-key-page_menu a', has_text=args[0]).first.click()
            elif action == "chip":
                chip = page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"] button').filter(
                    has_text=re.compile(f"^{re.escape(args[0])}$")).first
                chip.scroll_into_view_if_needed()
                box = chip.bounding_box()
                since = time.perf_counter()  # from the press itself, not Playwright's checks before a click()
                page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            elif action == "button":
                button = page.locator(f".st-key-{args[0]} button")
                button.scroll_into_view_if_needed()
                since = time.perf_counter()
                button.click()
            elif action == "play":
                plot = page.locator(".js-plotly-plot", has=page.locator(".slider-container"))
                plot.scroll_into_view_if_needed()
                since = time.perf_counter()
                plot.get_by_text("▶ Play").click()
                page.wait_for_function(f"() => ({WALKTHROUGH_HEADING_JS})().includes('({args[0]}/')",
                                       polling=30, timeout=60_000)
                seconds = time.perf_counter() - since
                plot.get_by_text("❚❚ Pause").click()
                page.wait_for_timeout(300)
                results[name] = (seconds, runs.runs_since(since), 0.0)
                continue
            elif action == "flip":  # the multi-head page's slider: the frame's title changes, in the browser
                plot = page.locator(".js-plotly-plot", has=page.locator(".slider-container"))
                plot.scroll_into_view_if_needed()
                rail = plot.locator(".slider-rail-touch-rect").bounding_box()
                tick = plot.locator(".slider-tick-rect").nth(args[0]).bounding_box()
                before = page.evaluate(FLIP_TITLE_JS)
                since = time.perf_counter()
                page.mouse.click(tick["x"] + tick["width"] / 2, rail["y"] + rail["height"] / 2)
                page.wait_for_function(f"() => ({FLIP_TITLE_JS})() !== {json.dumps(before)}", polling="raf",
                                       timeout=60_000)
                seconds = time.perf_counter() - since
                page.wait_for_timeout(300)
                results[name] = (seconds, runs.runs_since(since), 0.0)
                continue
            elif action == "type":
                box = page.locator('[data-testid="stSidebar"] textarea').first
                box.fill(args[0])
                since = time.perf_counter()
                box.press("Control+Enter")
            else:  # a new tab on the same server
                page = context.new_page()
                runs = ScriptRuns(page)
                since = time.perf_counter()
                page.goto(f"{url}/{args[0]}")
            runs.wait_done(page, since)
            page.wait_for_function(DRAWN_JS, polling="raf", timeout=120_000)  # checked every frame the browser draws
            seconds = seconds_to_settled(page, time.perf_counter() - since)
            if action == "chip" and (script.name == "app.py" or "start page" in name):  # the page follows the chip
                # (the floor's step pages name no token: their figures are random arrays with fixed titles)
                assert f"“{args[0]}”" in page.locator('[data-testid="stMain"]').inner_text() + page.evaluate(
                    "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')].map(t => t.textContent)"
                    ".join(' ')"), f"{script.name}: the page does not follow the chip"
            if action == "type":  # the figure shows the new sentence, not the old one
                ticks = page.locator(".js-plotly-plot >> visible=true").first.locator(".ytick text")
                assert args[1] in ticks.all_text_contents(), f"{script.name}: {args[1]!r} not drawn"
            results[name] = (seconds, runs.runs_since(since), runs.script_seconds(since))
        context.close()
    return results


def bench_floor(pairs: int = 5, cache: str = "kept"):
    import os
    import tempfile

    from devtools.browser import chromium
    from serving.diskcache import CACHE_ENV

    print(f"\n# the app against its floor (bench/floor_app.py: same pages, sidebar and figures from random arrays, "
          f"no model), {pairs} pairs alternated, seconds from the action to the page drawn in Chromium")
    print(f"file watcher: {watcher_setting()} for both (same project folder, same .streamlit/config.toml)")
    print("the app's disk cache (serving/diskcache.py): " + (
        "one new folder for the whole bench, filled by the first app server (pair 1 is a first start ever, the "
        "later pairs a restart)" if cache == "kept" else
        "an empty folder for every app server (--cache cold: every pair is a first start ever)"))
    app, floor = [], []
    saved = os.environ.get(CACHE_ENV)
    try:
        with chromium() as browser, tempfile.TemporaryDirectory(prefix="bench-cache-") as kept:
            for pair in range(pairs):
                order = [(ROOT / "app.py", app), (FLOOR_APP, floor)]
                for script, results in order if pair % 2 == 0 else order[::-1]:
                    # the servers inherit this process's environment
                    os.environ[CACHE_ENV] = kept if cache == "kept" else tempfile.mkdtemp(dir=kept)
                    results.append(journey(browser, script))
    finally:
        if saved is None:
            os.environ.pop(CACHE_ENV, None)
        else:
            os.environ[CACHE_ENV] = saved
    print(f"{'interaction':<46} {'app s':>6} {'script':>6} {'floor s':>7} {'script':>6} {'ratio':>6} {'spread':>11} "
          f"{'runs':>4}  target")
    for name, _ in JOURNEY:
        ratios = [a[name][0] / f[name][0] for a, f in zip(app, floor)]
        ratio = float(np.median(ratios))
        low, high = np.percentile(ratios, [25, 75])
        app_s = float(np.median([a[name][0] for a in app]))
        floor_s = float(np.median([f[name][0] for f in floor]))
        runs = max(a[name][1] for a in app)
        app_script = float(np.median([a[name][2] for a in app]))
        floor_script = float(np.median([f[name][2] for f in floor]))
        ok = ratio <= 1.2 and app_s <= TARGETS.get(name, float("inf")) and (name not in NO_SCRIPT_RUNS or runs == 0)
        target = "≤ 1.2×" + (f", ≤ {TARGETS[name]:g} s" if name in TARGETS else "") + \
            (", 0 runs" if name in NO_SCRIPT_RUNS else "")
        print(f"{name:<46} {app_s:>6.2f} {app_script:>6.2f} {floor_s:>7.2f} {floor_script:>6.2f} {ratio:>5.2f}× "
              f"{low:>4.2f}–{high:<4.2f}× {runs:>4}  {target}"
              f"{'  ok' if ok else '  MISSED'}")
    print("ratio: median of the pairs' app/floor ratios; spread: the middle half of the pairs' ratios (25th to 75th "
          "percentile), the noise a ratio is read against; runs: most script runs the app made for the action; "
          "script: seconds from the first script run's start to the last one's end, as the browser hears them")


if __name__ == "__main__":
    main()
