"""Speed, size and memory of the explainer, each printed beside its target. Not a pass/fail test.

    python bench/run.py            # everything: also cold start, memory, a visitor's journey and the load test
    python bench/run.py --quick    # core, pipeline, payload and the Training lab only (no server, no browser)
    python bench/run.py --journey  # only a visitor's journey in Chromium (--journeys N, default 3)
    python bench/run.py --by-hand  # only the by-hand page's drag → redraw in Chromium
    python bench/load.py           # only the classroom load test (concurrent students, worst-case memory)
    python bench/training.py       # only the Training lab's speed
    python bench/page_times.py --base REV   # each page's script time against commit REV, in the same run
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
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
    verdict = "" if ok is None else ("  met" if ok else "  MISSED")
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
            # about a millisecond, which no user sees); what users feel is timed in Chromium (bench_journey).
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
        # visitor waits for is held by the journey's targets and the 256-token line below).
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
    from ui.sections import head_flip
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
            line(f"cold start to first heatmap, start page (healthy after {healthy:.1f} s)", f"{cold:.1f}",
                 str(COLD_START), "s", ok=COLD_START.met(cold, 0))
        # A shared link straight to a step page: a heavier page comes on top.
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


# --- what a visitor feels: one journey through the app in Chromium, each step against an absolute target ----------

@dataclasses.dataclass(frozen=True)
class Target:
    seconds: float | None = None  # at most, from the action to the page drawn (the median of the journeys)
    runs: int | None = None       # script runs the action may cost, at most (the most any journey made)

    def met(self, seconds: float, runs: int) -> bool:
        return (self.seconds is None or seconds <= self.seconds) and (self.runs is None or runs <= self.runs)

    def __str__(self) -> str:
        return ", ".join(([f"≤ {self.seconds:g} s"] if self.seconds is not None else [])
                         + ([f"{self.runs} runs"] if self.runs is not None else []))


COLD_START = Target(seconds=8.0)      # `streamlit run app.py` to the start page's first heatmap
TOKEN_CLICK = Target(seconds=0.3)     # a token chip pressed to its page redrawn
NEW_SENTENCE = Target(seconds=1.0)    # a 14-token sentence sent to its page redrawn
IN_THE_BROWSER = Target(runs=0)       # plotly's own Play, slider clicks and drags: no script run at all

# (name, what the user does, its target or None for information); every step is timed from the action until the
# page is drawn and has stopped changing.
JOURNEY = [
    ("cold start → first heatmap, start page", ("cold",), COLD_START),
    ("click a token chip on the start page", ("chip", "good"), TOKEN_CLICK),
    ("show the walk-through (drawn once asked for)", ("button", "walkthrough-show"), None),
    ("play the walk-through (to its 3rd frame)", ("play", 2), IN_THE_BROWSER),
    ("drag the walk-through's slider to its end (s per frame passed)", ("drag", -1), IN_THE_BROWSER),
    ("click a token chip on the start page, walk-through shown", ("chip", "am"), TOKEN_CLICK),
    ("switch to step 3 (first visit)", ("click", "3 · Softmax → weights"), None),
    ("new sentence on step 3, 14 tokens", ("type", "The animal didn't cross the street because it was too tired.",
                                           "tired"), NEW_SENTENCE),
    ("new sentence on step 3, 4 tokens", ("type", "You are kind.", "kind"), None),
    ("switch to step 1", ("click", "1 · Query·Key scores"), None),
    ("switch to step 4", ("click", "4 · Output = weights·V"), None),
    ("back to step 3", ("click", "3 · Softmax → weights"), None),
    ("click a token chip on step 3", ("chip", "are"), TOKEN_CLICK),
    ("switch to multi-head", ("click", "Multi-head attention"), None),
    ("flip through the 72 heads (slider to the last head)", ("flip", 71), IN_THE_BROWSER),
    ("drag the heads' slider back to head 1 (s per head passed)", ("drag", 0), IN_THE_BROWSER),
    ("switch to the pronoun page (first visit)", ("click", "Does “it” find its noun?"), None),
    ("switch to step 3 again", ("click", "3 · Softmax → weights"), None),
    ("pronoun page revisit", ("click", "Does “it” find its noun?"), None),
    ("switch to compare two sentences", ("click", "Compare two sentences"), None),
    ("switch to the Training lab (first visit)", ("click", "Training lab"), None),
    ("switch to the meaning page (first visit)", ("click", "A word's meaning comes from its sentence"), None),
    ("new tab on the warm server, link to step 3", ("tab", "step3_softmax?sentence=Cats+chase+mice"), None),
]
# The figure with a slider on the page: the walk-through (ui/sections/walkthrough.py) or the multi-head flip-through
# (ui/figures/head_flip.py). Its slider's position, and the text a frame changes: the walk-through's step heading
# ("Step 1 of 4 · … (3/11)"), the flip-through's title ("Layer 1, head 8: next token, 59%").
SLIDER_JS = """() => {
  const plot = [...document.querySelectorAll('.js-plotly-plot')].find(p => p.querySelector('.slider-container'));
  if (!plot) return {active: -1, steps: 0, text: ''};
  const heading = plot.querySelector('.annotation-text'), title = plot.querySelector('.gtitle');
  return {active: plot._fullLayout.sliders[0].active, steps: plot._fullLayout.sliders[0].steps.length,
          text: (title ? title.textContent : '') + ' | ' + (heading ? heading.textContent : '')};
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
# early has its last figures' second draw still to come when DRAWN_JS holds (the pronoun page: four of its twelve
# draws came after), and the visitor's next action waits for it. Not counted: the attributes the pages' own
# scripts set once a page is quiet (ui/widgets/page_style.py's keyboard-reachable boxes, ui/figures/show.py's class on a
# figure whose cells are too small for their numbers).
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
"""  # SCROLL_FOCUS_ATTRIBUTES: ui/widgets/page_style.py's, filled in by journey()
QUIET_MS = 300  # no change for this long: the page has stopped changing


def seconds_to_settled(page, drawn_seconds: float) -> float:
    """Seconds to drawn, plus how long after DRAWN_JS held the page still changed (waited for until quiet)."""
    now = page.evaluate("performance.now()")
    page.wait_for_function(f"() => performance.now() - window.__lastChange > {QUIET_MS}", polling=20,
                           timeout=60_000)
    return drawn_seconds + max(0.0, page.evaluate("window.__lastChange") - now) / 1000


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


def in_the_browser(page, runs: ScriptRuns, action: str, frame: int) -> tuple[float, int, float]:
    """A slider figure's own controls: Play to `frame`, a click on tick `frame`, or the grip dragged to it (counted
    from 0; -1: the last); seconds until that frame is drawn (for a drag, per frame passed: the browser draws each
    one on the way), and the script runs it cost (none expected)."""
    plot = page.locator(".js-plotly-plot", has=page.locator(".slider-container"))
    plot.scroll_into_view_if_needed()
    before = page.evaluate(SLIDER_JS)
    frame = frame % before["steps"]
    rail = plot.locator(".slider-rail-touch-rect").bounding_box()
    tick = plot.locator(".slider-tick-rect").nth(frame).bounding_box()
    since = time.perf_counter()
    if action == "play":
        plot.get_by_text("▶ Play").click()
    elif action == "flip":
        page.mouse.click(tick["x"] + tick["width"] / 2, rail["y"] + rail["height"] / 2)
    else:  # drag: press the grip, move across every tick in between, release on the target
        grip = plot.locator(".slider-grip-rect").bounding_box()
        page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2)
        page.mouse.down()
        page.mouse.move(tick["x"] + tick["width"] / 2, rail["y"] + rail["height"] / 2,
                        steps=max(2, abs(frame - before["active"])))
        page.mouse.up()
    page.wait_for_function(f"() => {{ const now = ({SLIDER_JS})(); return now.active === {frame} && "
                           f"now.text !== {json.dumps(before['text'])}; }}", polling="raf", timeout=60_000)
    seconds = time.perf_counter() - since
    if action == "drag":
        seconds /= max(1, abs(frame - before["active"]))
    if action == "play":
        plot.get_by_text("❚❚ Pause").click()
    page.wait_for_timeout(300)  # a run the action set off would have started by now
    return seconds, runs.runs_since(since), 0.0


def journey(browser) -> dict[str, tuple[float, int, float]]:
    """One cold server through JOURNEY; seconds to drawn, script runs and seconds of script for each step."""
    from devtools.browser import streamlit_server
    from ui.widgets.page_style import SCROLL_FOCUS_ATTRIBUTES

    results = {}
    started = time.perf_counter()
    with streamlit_server() as (url, _process, _seconds):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.add_init_script(LAST_CHANGE_JS.replace("SCROLL_FOCUS_ATTRIBUTES",
                                                       json.dumps(list(SCROLL_FOCUS_ATTRIBUTES))))
        page = context.new_page()
        runs = ScriptRuns(page)
        for name, (action, *args), _target in JOURNEY:
            try:
                page, runs, results[name] = step(page, runs, context, url, started, action, args)
            except Exception as error:
                raise RuntimeError(f"the journey stopped at {name!r}") from error
        context.close()
    return results


def step(page, runs: ScriptRuns, context, url: str, started: float, action: str, args: list):
    """One action of JOURNEY; the page and its run counter afterwards (a new tab brings new ones), and the seconds
    to drawn, script runs and seconds of script it took."""
    if action in ("play", "flip", "drag"):
        return page, runs, in_the_browser(page, runs, action, args[0])
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
    if action == "chip":  # the page follows the chip: a time for a page that did not would mean nothing
        assert f"“{args[0]}”" in page.locator('[data-testid="stMain"]').inner_text() + page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')].map(t => t.textContent)"
            ".join(' ')"), f"the page does not follow the chip {args[0]!r}"
    if action == "type":  # the figure shows the new sentence, not the old one
        ticks = page.locator(".js-plotly-plot >> visible=true").first.locator(".ytick text")
        assert args[1] in ticks.all_text_contents(), f"{args[1]!r} not drawn"
    return page, runs, (seconds, runs.runs_since(since), runs.script_seconds(since))


def bench_journey(journeys: int = 3):
    from devtools.browser import chromium

    print(f"\n# a visitor's journey in Chromium: {journeys} journey{'s' * (journeys != 1)}, each on a new `streamlit run app.py` (the app "
          f"as shipped, its own caches included); seconds from the action to the page drawn and quiet")
    load_before = os.getloadavg()[0]
    with chromium() as browser:
        done = [journey(browser) for _ in range(journeys)]
    # Seconds read on a busy machine are the machine's: say how busy it was.
    print(f"load average (1 min) {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
    width = max(len(name) for name, _, _ in JOURNEY)
    print(f"{'interaction':<{width}} {'s':>6} {'range':>11} {'script':>6} {'runs':>4}  target")
    for name, _, target in JOURNEY:
        seconds = [one[name][0] for one in done]
        median = float(np.median(seconds))
        runs = max(one[name][1] for one in done)
        script = float(np.median([one[name][2] for one in done]))
        verdict = "(info)" if target is None else f"{target}  {'met' if target.met(median, runs) else 'MISSED'}"
        print(f"{name:<{width}} {median:>6.2f} {min(seconds):>5.2f}–{max(seconds):<5.2f} {script:>6.2f} {runs:>4}  "
              f"{verdict}")
    print("s: median of the journeys; range: fastest–slowest journey; script: seconds from the first script run's "
          "start to the last one's end, as the browser hears them; runs: most script runs any journey made for the "
          "action (counted on the page's websocket)")


def bench_by_hand():
    """Attention by hand (app_pages/by_hand.py): the query dragged round the plane in Chromium (bench/by_hand.py)."""
    from bench import by_hand
    from devtools.browser import chromium, streamlit_server

    print("\n# attention by hand: the query dragged in Chromium, 120 pointer moves")
    with chromium() as browser, streamlit_server() as (url, _process, _seconds):
        result = by_hand.measure(browser, url)
    line(f"drag → redraw, median of {result['n']} moves (95th percentile {result['p95_ms']:.0f} ms)",
         f"{result['median_ms']:.1f}", f"≤ {by_hand.REDRAW_MS} ms", "ms", ok=result["median_ms"] <= by_hand.REDRAW_MS)
    line("  messages the browser sent during the drag (a script run is one)", str(result["frames_sent"]),
         str(IN_THE_BROWSER), "", ok=result["frames_sent"] == 0 and result["weights_changed"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the server and browser measurements")
    parser.add_argument("--journey", action="store_true", help="only the visitor's journey in Chromium")
    parser.add_argument("--journeys", type=int, default=3, help="journeys in Chromium, each on a new server")
    parser.add_argument("--by-hand", action="store_true", help="only the by-hand page's drag in Chromium")
    args = parser.parse_args()
    if args.by_hand:
        bench_by_hand()
        return
    if args.journey:
        bench_journey(args.journeys)
        return
    from bench import load
    from bench.training import bench_task, bench_training

    bench_core()
    bench_pipeline()
    bench_training(line)
    bench_task(line)
    if not args.quick:
        bench_server()
        bench_journey(args.journeys)
        bench_by_hand()
        load.main(["--students", "1,4,8,16", "--worst", "12", "--idle", "150"])


if __name__ == "__main__":
    main()
