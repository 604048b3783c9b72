"""Load test: N students at once against one `streamlit run app.py`, through Streamlit's own websocket protocol.

Each simulated student opens a deep link (a page and a sentence), then types a new sentence several times;
a step is timed from the request to the server's "script finished". Then the worst case of the reliability
issue: every student sends a 256-token text to step 3, the multi-head page and the pronoun page, and the
server is left idle. Prints p50/p95 latency, server CPU and server memory (peak and idle).

    python bench/load.py                      # 1, 4, 8 and 16 students, 3 sentence changes each
    python bench/load.py --students 12 --changes 5 --idle 60
    python bench/load.py --students 10,20,30,40 --think 15 --worst 0   # a class: students read between edits

No browser is involved, so the numbers are the server's alone (the students' browsers run elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devtools.browser import streamlit_server  # noqa: E402

PAGE_ROTATION = ["step3_softmax", "step1_scores", "multihead", "step4_output", "whatif", "pronoun", "step2_scaling",
                 ""]
WORDS = "teacher student table window river garden music number paper morning".split()
LATENCY_TARGET_S = 2.0
PEAK_RSS_TARGET_MB, IDLE_RSS_TARGET_MB = 600, 450


def sentence(student: int, step: int) -> str:
    return f"Student {student} wrote sentence {step}: the {WORDS[(student + step) % 10]} saw it because it was there."


def long_text(student: int) -> str:
    """About 2,000 characters: well over the model's 256 tokens, different for every student."""
    return " ".join(f"{WORDS[(student * 7 + j) % 10]}{student}x{j}" for j in range(220))[:2000]


def server_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def server_memory_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS since start) in MB."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024


class Student:
    """One browser tab, spoken for in Streamlit's protocol: rerun requests out, deltas back."""

    def __init__(self, url: str, page: str):
        self.url, self.page = url, page
        self.sentence_widget: str | None = None
        self.exceptions: list[str] = []

    async def __aenter__(self):
        import websockets

        ws_url = self.url.replace("http://", "ws://") + "/_stcore/stream"
        self.socket = await websockets.connect(ws_url, subprotocols=["streamlit"], max_size=2**27)
        return self

    async def __aexit__(self, *exc):
        await self.socket.close()

    async def run(self, query: dict, widget_value: str | None = None) -> float:
        """One rerun: the time from the request until the script has finished."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        message = BackMsg()
        state = message.rerun_script
        state.query_string = urllib.parse.urlencode(query)
        state.page_name = self.page
        if widget_value is not None and self.sentence_widget:
            widget = state.widget_states.widgets.add()
            widget.id = self.sentence_widget
            widget.string_value = widget_value
        started = time.perf_counter()
        await self.socket.send(message.SerializeToString())
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(self.socket.recv(), timeout=600))
            kind = forward.WhichOneof("type")
            if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                which = element.WhichOneof("type")
                if which == "text_area" and element.text_area.id.endswith("sentence"):
                    self.sentence_widget = element.text_area.id
                elif which == "exception":
                    self.exceptions.append(element.exception.message[:200])
            elif kind == "script_finished" and forward.script_finished in (
                    ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR):
                return time.perf_counter() - started


async def one_student(url: str, index: int, changes: int, latencies: list[float], exceptions: list[str],
                      think: float = 0.0) -> None:
    """A deep link, then `changes` new sentences; with `think` seconds, a student reads for a random 0.5–1.5 ×
    think between requests (and arrives at a random moment within the first think), as in a class."""
    page = PAGE_ROTATION[index % len(PAGE_ROTATION)]
    pause = random.Random(index)
    await asyncio.sleep(pause.uniform(0, think))
    async with Student(url, page) as student:
        latencies.append(await student.run({"sentence": sentence(index, 0)}))  # the deep link
        for step in range(1, changes + 1):
            await asyncio.sleep(pause.uniform(0.5 * think, 1.5 * think))
            new = sentence(index, step)
            latencies.append(await student.run({"sentence": new}, widget_value=new))
        exceptions.extend(student.exceptions)
        if student.sentence_widget is None:  # then the "changes" were plain reruns: say so, do not mislead
            exceptions.append(f"student {index}: no sentence box found on {page or 'home'}")


async def worst_case_student(url: str, index: int, exceptions: list[str]) -> None:
    for page in ("step3_softmax", "multihead", "pronoun"):
        async with Student(url, page) as student:
            await student.run({"sentence": long_text(index)})
            exceptions.extend(student.exceptions)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_level(url: str, pid: int, students: int, changes: int, think: float = 0.0) -> dict:
    latencies: list[float] = []
    exceptions: list[str] = []
    cpu_before, wall_before = server_cpu_seconds(pid), time.perf_counter()

    async def crowd():
        await asyncio.gather(*(one_student(url, i, changes, latencies, exceptions, think) for i in range(students)))

    asyncio.run(crowd())
    wall = time.perf_counter() - wall_before
    cpu = server_cpu_seconds(pid) - cpu_before
    rss, peak = server_memory_mb(pid)
    return {"students": students, "requests": len(latencies), "p50": statistics.median(latencies),
            "p95": percentile(latencies, 0.95), "cpu_s": cpu, "cpu_pct": 100 * cpu / wall, "rss": rss,
            "peak": peak, "exceptions": exceptions}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", default="1,4,8,16", help="comma-separated crowd sizes, run in turn")
    parser.add_argument("--changes", type=int, default=3, help="new sentences per student after the deep link")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds a student reads between requests (random 0.5-1.5x; 0: none, the harshest)")
    parser.add_argument("--worst", type=int, default=12, help="students sending 256-token texts (0 to skip)")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle before the idle memory")
    args = parser.parse_args(argv)
    results: dict = {"levels": []}
    with streamlit_server(timeout=180) as (url, process, ready):
        pid = process.pid
        print(f"server ready in {ready:.1f} s (shipped .streamlit/config.toml: file watcher "
              f"{_config_value('fileWatcherType')}); RSS {server_memory_mb(pid)[0]:.0f} MB")
        print(f"each student: a deep link, then {args.changes} new sentences, "
              + (f"reading {0.5 * args.think:g}-{1.5 * args.think:g} s between requests" if args.think
                 else "each sent as soon as the last is answered (no reading time: the harshest case)"))
        print("students  requests  p50 s  p95 s  server CPU s  CPU %  RSS MB  peak MB  exceptions")
        for students in (int(n) for n in args.students.split(",")):
            level = run_level(url, pid, students, args.changes, args.think)
            results["levels"].append(level)
            verdict = "ok" if level["p95"] <= LATENCY_TARGET_S else f"over {LATENCY_TARGET_S:g} s"
            print(f"{students:8d}  {level['requests']:8d}  {level['p50']:5.2f}  {level['p95']:5.2f}  "
                  f"{level['cpu_s']:12.1f}  {level['cpu_pct']:5.0f}  {level['rss']:6.0f}  {level['peak']:7.0f}  "
                  f"{len(level['exceptions'])}  ({verdict})")
            for message in sorted(set(level["exceptions"]))[:3]:
                print(f"          exception: {message}")
        served = [lv["students"] for lv in results["levels"] if lv["p95"] <= LATENCY_TARGET_S]
        print(f"largest crowd with p95 <= {LATENCY_TARGET_S:g} s: {max(served) if served else 'none'} students")
        if args.worst:
            exceptions: list[str] = []

            async def worst():
                await asyncio.gather(*(worst_case_student(url, i, exceptions) for i in range(args.worst)))

            started = time.perf_counter()
            asyncio.run(worst())
            _, peak = server_memory_mb(pid)
            time.sleep(args.idle)
            idle, _ = server_memory_mb(pid)
            results.update(worst_peak=peak, worst_idle=idle, worst_exceptions=exceptions)
            print(f"worst case ({args.worst} students × 2,000 characters on step 3, multi-head, pronoun; "
                  f"{time.perf_counter() - started - args.idle:.0f} s): peak RSS {peak:.0f} MB "
                  f"(target ≤ {PEAK_RSS_TARGET_MB}), after {args.idle:g} s idle {idle:.0f} MB "
                  f"(target ≤ {IDLE_RSS_TARGET_MB}), {len(exceptions)} exceptions")
    return results


def _config_value(option: str) -> str:
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    return str(config.get("server", {}).get(option, "auto (Streamlit's default)"))


if __name__ == "__main__":
    main()
