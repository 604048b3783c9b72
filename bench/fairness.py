"""Fairness between visitors (serving/queue.py), measured on one `streamlit run app.py` with raw websocket clients.

Every tab of a simulated browser sends its browser's cookie (Streamlit's `_streamlit_xsrf`, as a real browser's tabs
do), so the server sees visitors, not connections. Four parts, each printed:

1. alone: the ordinary visitor's short sentences on an idle server (what a cheap run costs);
2. tabs: 10 visitors × 13 tabs typing short sentences without pause, beside one ordinary visitor who types a short
   sentence every ~2 s: the ordinary visitor's p50/p95 (target ≤ 2 s) and the process tree's peak (≤ 650 MB);
3. costly: 10 visitors each submitting a maximal meaning set (8 + 8 lines) and the longest text on three pages,
   beside a student who pastes a 700-character paragraph and types short sentences: the paragraph's wait and the
   short sentences' p95;
4. idle: the process tree every 10 s for 60 s after part 3, against its fresh idle (target: within 50 MB in 60 s).

    python bench/fairness.py                 # all four, port 8621
    python bench/fairness.py --seconds 20 --visitors 5 --tabs 13 --skip-costly
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import (PAGE_ROTATION, Student, TreeMemory, longest_text, meaning_groups,  # noqa: E402
                        percentile, process_tree_rss_mb)
from devtools.browser import streamlit_server  # noqa: E402

P95_TARGET_S, PEAK_TARGET_MB, IDLE_MARGIN_MB = 2.0, 650, 50
WORDS = "teacher student table window river garden music number paper morning".split()
_STEPS = itertools.count(1)  # every sentence the ordinary visitor types is new (never read back from a cache)


def cookie(visitor: int) -> str:
    """The browser's cookie as Streamlit sets it: the visitor's token under a fresh random mask each time."""
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    return "_streamlit_xsrf=" + generate_xsrf_token_string(visitor.to_bytes(16, "big"), int(time.time()))


class Tab(Student):
    """A tab of one browser: Student's protocol with the browser's cookie on its connection."""

    def __init__(self, url: str, page: str, visitor: int):
        super().__init__(url, page)
        self.visitor = visitor

    async def __aenter__(self):
        import websockets

        self.socket = await websockets.connect(self.url.replace("http://", "ws://") + "/_stcore/stream",
                                               subprotocols=["streamlit"], max_size=2**27, ping_interval=None,
                                               open_timeout=120, additional_headers={"Cookie": cookie(self.visitor)})
        return self


def short(visitor: int, step: int) -> str:
    return f"Visitor {visitor} typed {step}: the {WORDS[(visitor + step) % 10]} saw it."


async def typing_tab(url: str, visitor: int, tab: int, seconds: float, counts: list[int], opened: dict) -> None:
    """One tab: opened (its first visit), then, once every tab is open, a new short sentence as soon as the last is
    answered, for `seconds`."""
    page = PAGE_ROTATION[tab % len(PAGE_ROTATION)]
    async with Tab(url, page, visitor) as student:
        await student.run({"sentence": short(visitor, tab * 1000)})
        opened["count"] += 1
        await opened["all"].wait()
        until = opened["since"] + seconds
        step = 0
        while time.perf_counter() < until:
            step += 1
            text = short(visitor, tab * 1000 + step)
            await student.run({"sentence": text}, widget_value=text)
            counts[0] += 1


async def ordinary(url: str, until: float, latencies: list[float], think: float, paragraph: bool = False,
                   waits: list[float] | None = None) -> None:
    """The ordinary visitor (its own browser): a short sentence on step 1 every ~think seconds; with paragraph,
    every third one is a pasted 700-character paragraph (timed apart, in waits)."""
    pause = random.Random(7)
    async with Tab(url, "step1_scores", 10_000) as student:
        await student.run({"sentence": "I am good."})
        while time.perf_counter() < until:
            await asyncio.sleep(pause.uniform(0.5 * think, 1.5 * think))
            step = next(_STEPS)
            long_one = paragraph and step % 3 == 0
            text = longest_text(10_000 + step, 700) if long_one else short(10_000, step)
            took = await student.run({"sentence": text}, widget_value=text)
            (waits if long_one else latencies).append(took)


async def costly_visitor(url: str, visitor: int) -> None:
    """A maximal meaning set, then the longest accepted text on three pages, each in its own tab at once."""
    async def tab(page, query):
        async with Tab(url, page, visitor) as student:
            await student.run(query)

    text = longest_text(visitor, 3000)
    await asyncio.gather(tab("meaning", {"sentence": "I am good.", **meaning_groups(visitor, 3000)}),
                         *(tab(page, {"sentence": text}) for page in ("step3_softmax", "multihead", "pronoun")))


def summary(latencies: list[float]) -> str:
    if not latencies:
        return "no requests"
    return (f"{len(latencies)} requests, p50 {statistics.median(latencies):.2f} s, "
            f"p95 {percentile(latencies, 0.95):.2f} s, max {max(latencies):.2f} s")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8621)
    parser.add_argument("--visitors", type=int, default=10)
    parser.add_argument("--costly-visitors", type=int, default=10, help="visitors in part 3")
    parser.add_argument("--tabs", type=int, default=13)
    parser.add_argument("--seconds", type=float, default=40.0, help="how long the tabs type")
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--skip-costly", action="store_true")
    args = parser.parse_args(argv)
    results: dict = {}
    with streamlit_server(port=args.port, timeout=180) as (url, process, ready):
        pid = process.pid
        asyncio.run(ordinary(url, time.perf_counter() + 3, [], 1.0))   # the model loaded, the warm-up started
        time.sleep(20)                                                     # and done
        fresh_idle = process_tree_rss_mb(pid)
        alone: list[float] = []
        asyncio.run(ordinary(url, time.perf_counter() + 12, alone, 1.0))
        print(f"server ready in {ready:.0f} s; fresh idle {fresh_idle:.0f} MB (server + worker)")
        print(f"1. alone: the ordinary visitor's short sentences on step 1: {summary(alone)}")
        results.update(fresh_idle=fresh_idle, alone=alone)

        latencies: list[float] = []
        counts = [0]
        with TreeMemory(pid) as memory:
            async def tabs_scenario():
                opened = {"count": 0, "all": asyncio.Event(), "since": 0.0}

                async def when_open():  # every tab's first visit done: the typing (and the timing) starts
                    while opened["count"] < args.visitors * args.tabs:
                        await asyncio.sleep(0.2)
                    opened["since"] = time.perf_counter()
                    print(f"   all {opened['count']} tabs open after {opened['since'] - started:.0f} s")
                    opened["all"].set()
                    await ordinary(url, opened["since"] + args.seconds, latencies, 2.0)

                await asyncio.gather(*(typing_tab(url, v, t, args.seconds, counts, opened)
                                       for v in range(args.visitors) for t in range(args.tabs)), when_open())

            started = time.perf_counter()
            asyncio.run(tabs_scenario())
            took = time.perf_counter() - started
        p95 = percentile(latencies, 0.95) if latencies else float("nan")
        print(f"2. tabs: {args.visitors} visitors × {args.tabs} tabs typing short sentences ({counts[0]} typed runs, "
              f"{took:.0f} s in all), the ordinary visitor: {summary(latencies)} "
              f"({'ok' if p95 <= P95_TARGET_S else 'over'} the {P95_TARGET_S:g} s target); process tree peak "
              f"{memory.peak():.0f} MB ({'ok' if memory.peak() <= PEAK_TARGET_MB else 'over'} {PEAK_TARGET_MB})")
        results.update(tabs_p95=p95, tabs_peak=memory.peak(), tabs_latencies=latencies)
        if args.skip_costly:
            return results

        short_ones: list[float] = []
        paragraphs: list[float] = []
        with TreeMemory(pid, interval=0.2) as memory:
            async def costly_scenario():
                done = [False]

                async def hostile():
                    await asyncio.gather(*(costly_visitor(url, v) for v in range(args.costly_visitors)))
                    done[0] = True

                async def student():
                    await asyncio.sleep(0.5)
                    while not done[0]:
                        await ordinary(url, time.perf_counter() + 10, short_ones, 1.5, paragraph=True,
                                       waits=paragraphs)

                await asyncio.gather(hostile(), student())

            started = time.perf_counter()
            asyncio.run(costly_scenario())
            busy = time.perf_counter() - started
            idle_started = time.perf_counter()
            time.sleep(args.idle)
        peak = memory.peak()
        curve = {mark: next((mb for t, mb in memory.samples if t >= idle_started + mark), None)
                 for mark in range(0, int(args.idle) + 1, 10)}
        print(f"3. costly: {args.costly_visitors} visitors × (a maximal meaning set + 3,000 characters on step 3, "
              f"multi-head and pronoun), {busy:.0f} s busy; the student's 700-character paragraphs: {summary(paragraphs)}; "
              f"short sentences: {summary(short_ones)}; process tree peak {peak:.0f} MB")
        last = [mb for mb in curve.values() if mb is not None][-1]
        print("4. idle after it: " + ", ".join(f"{mb:.0f} MB at {mark} s" for mark, mb in curve.items()
                                                if mb is not None)
              + f"; fresh idle {fresh_idle:.0f} MB, {last - fresh_idle:+.0f} MB after {args.idle:g} s "
              f"({'ok' if last - fresh_idle <= IDLE_MARGIN_MB else 'over'} the {IDLE_MARGIN_MB} MB margin)")
        results.update(costly_peak=peak, paragraphs=paragraphs, costly_short=short_ones, idle_curve=curve)
        print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return results


if __name__ == "__main__":
    main()
