"""Load test: N students at once against one `streamlit run app.py`, through Streamlit's own websocket protocol.

Each simulated student opens a deep link (a page and a sentence), then types a new sentence several times;
a step is timed from the request to the server's "script finished". Then the worst case of the reliability
issue: every student sends a 256-token text to step 3, the multi-head page and the pronoun page, and the
server is left idle. Prints p50/p95 latency, server CPU and server memory (peak and idle).

    python bench/load.py                      # 1, 4, 8 and 16 students, 3 sentence changes each
    python bench/load.py --students 12 --changes 5 --idle 60
    python bench/load.py --students 10,20,30,40 --think 15 --worst 0   # a class: students read between edits
    python bench/load.py --students 0 --worst 0 --hostile 5 --ordinary 8   # a public demo pushed by a class
    (add --pytorch to start the server with ATTENTION_PYTORCH=on and have the hostile visitors press its button)
    python bench/load.py --url http://127.0.0.1:8080 --pids 1234,1235 --students 30 --worst 0
    (against servers already running, e.g. deploy/replicas.py's balancer; --pids: the servers whose CPU and
    memory are measured, as deploy/replicas.py prints them)

No browser is involved, so the numbers are the server's alone (the students' browsers run elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
# After a hostile class, a minute idle: back within this much of the tree before it (issue 57).
IDLE_OVER_BEFORE_TARGET_MB = 50
HOSTILE_PEAK_TARGET_MB, HOSTILE_P95_TARGET_S = 650, 3.0  # the whole process tree; an ordinary visitor's page


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


def process_tree_rss_mb(pid: int | list[int]) -> float:
    """The resident memory of a process and all its descendants (the server and its warm-up worker), in MB; of
    several processes' trees together when given a list (replicas)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    roots = [pid] if isinstance(pid, int) else list(pid)
    tree, frontier = set(roots), list(roots)
    while frontier:
        member = frontier.pop()
        children = [child for child, parent in parents.items() if parent == member and child not in tree]
        tree.update(children)
        frontier.extend(children)
    total_kb = 0
    for member in tree:
        try:
            status = Path(f"/proc/{member}/status").read_text()
            total_kb += int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])
        except (OSError, StopIteration, ValueError):
            pass  # gone meanwhile, or a zombie
    return total_kb / 1024


class TreeMemory:
    """Samples the process tree's RSS every interval in a thread: the peak, and every sample with its time."""

    def __init__(self, pid: int | list[int], interval: float = 0.1):
        import threading

        self.pid, self.interval, self.samples = pid, interval, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.samples.append((time.perf_counter(), process_tree_rss_mb(self.pid)))
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def peak(self, since: float = 0.0) -> float:
        return max((mb for t, mb in self.samples if t >= since), default=0.0)


class Student:
    """One browser tab, spoken for in Streamlit's protocol: rerun requests out, deltas back."""

    def __init__(self, url: str, page: str):
        self.url, self.page = url, page
        self.sentence_widget: str | None = None
        self.pytorch_button: str | None = None
        self.exceptions: list[str] = []

    async def __aenter__(self):
        import websockets

        ws_url = self.url.replace("http://", "ws://") + "/_stcore/stream"
        # No keepalive pings: a server busy importing PyTorch answers them late, and a browser would wait too.
        self.socket = await websockets.connect(ws_url, subprotocols=["streamlit"], max_size=2**27,
                                               ping_interval=None, open_timeout=120)
        # Behind deploy/replicas.py's nginx: the replica that holds this session (None on a server of its own).
        self.replica = self.socket.response.headers.get("X-Replica")
        return self

    async def __aexit__(self, *exc):
        await self.socket.close()

    async def run(self, query: dict, widget_value: str | None = None, click: str | None = None) -> float:
        """One rerun: the time from the request until the script has finished (click: a button's widget id)."""
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
        if click:
            widget = state.widget_states.widgets.add()
            widget.id = click
            widget.trigger_value = True
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
                elif which == "button" and element.button.id.endswith("pytorch-check"):
                    self.pytorch_button = element.button.id
                elif which == "exception":
                    self.exceptions.append(element.exception.message[:200])
            elif kind == "script_finished" and forward.script_finished in (
                    ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR):
                return time.perf_counter() - started


async def one_student(url: str, index: int, changes: int, latencies: list[float], exceptions: list[str],
                      think: float = 0.0, replicas: list | None = None) -> None:
    """A deep link, then `changes` new sentences; with `think` seconds, a student reads for a random 0.5–1.5 ×
    think between requests (and arrives at a random moment within the first think), as in a class."""
    page = PAGE_ROTATION[index % len(PAGE_ROTATION)]
    pause = random.Random(index)
    await asyncio.sleep(pause.uniform(0, think))
    async with Student(url, page) as student:
        if replicas is not None:
            replicas.append(student.replica)
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


HOSTILE_PAGES = ["", "step1_scores", "step2_scaling", "step3_softmax", "step4_output", "compare", "pronoun",
                 "multihead", "whatif", "training", "quiz", "glossary", "meaning"]


def meaning_groups(visitor: int, chars: int) -> dict:
    """The meaning page's two boxes as full as they accept (8 sentences of "bank" each, at most `chars`
    characters a box): 16 model passes and their knockouts, different for every visitor."""
    def group(kind: int) -> str:
        line_chars = chars // 8 - 1
        lines = [f"The bank {kind}{k} " + longest_text(visitor * 16 + kind * 8 + k, line_chars)[:line_chars - 12]
                 for k in range(8)]
        return "\n".join(line[:line_chars] for line in lines)

    return {"word": "bank", "meaning_a": group(0), "meaning_b": group(1)}


def longest_text(visitor: int, chars: int) -> str:
    """A text as long as the sidebar accepts, different for every visitor, with a pronoun near the start (so the
    pronoun page analyses it too)."""
    words = " ".join(f"{WORDS[(visitor * 7 + j) % 10]}{visitor}x{j}" for j in range(chars // 5))
    return f"Visitor {visitor} saw the dog because it was there. {words}"[:chars]


async def hostile_visitor(url: str, index: int, chars: int, pytorch: bool, exceptions: list[str]) -> None:
    """One visitor opening every page at once with the longest accepted text (one tab per page), and clicking
    "Check against PyTorch now" on step 3 when the server shows it."""
    async def tab(page):
        async with Student(url, page) as student:
            extra = meaning_groups(index, min(chars, 3000)) if page == "meaning" else {}
            await student.run({"sentence": longest_text(index, chars), **extra})
            if pytorch and page == "step3_softmax":
                if student.pytorch_button is None:
                    exceptions.append(f"visitor {index}: no PyTorch button on step 3")
                else:
                    await student.run({"sentence": longest_text(index, chars)}, click=student.pytorch_button)
            exceptions.extend(student.exceptions)

    await asyncio.gather(*(tab(page) for page in HOSTILE_PAGES))


async def ordinary_visitor(url: str, index: int, until: float, latencies: list[float], exceptions: list[str],
                           think: float) -> None:
    """A student who opens step 1 (then other pages) with a short sentence, reading think seconds between pages,
    until the hostile visitors are done."""
    pause = random.Random(1000 + index)
    await asyncio.sleep(pause.uniform(0, think))
    request = 0
    while time.perf_counter() < until:
        page = ["step1_scores", "step3_softmax", "step4_output", ""][request % 4] if request else "step1_scores"
        started = time.perf_counter()
        try:
            async with Student(url, page) as student:
                latencies.append(await student.run({"sentence": "I am good." if request % 2 == 0 else
                                                    sentence(index, request)}))
                exceptions.extend(student.exceptions)
        except Exception as error:  # the server did not answer at all: counted as that long, and said
            latencies.append(time.perf_counter() - started)
            exceptions.append(f"ordinary student {index}: {type(error).__name__}: {str(error)[:80]}")
        request += 1
        await asyncio.sleep(pause.uniform(0.5 * think, 1.5 * think))


def run_hostile(url: str, pid: int | list[int], visitors: int, ordinary: int, chars: int, pytorch: bool, idle: float,
                think: float) -> dict:
    """The public demo's worst case: `visitors` send the longest accepted text to every page at once (and press
    the PyTorch button if the server allows it) while `ordinary` students click through short sentences."""
    latencies: list[float] = []
    exceptions: list[str] = []
    async def first_visit():  # a demo that is already up: the model loaded, the warm-up worker done
        async with Student(url, "step1_scores") as student:
            await student.run({"sentence": "I am good."})

    asyncio.run(first_visit())
    time.sleep(15)
    with TreeMemory(pid) as memory:
        before = process_tree_rss_mb(pid)
        started = time.perf_counter()
        hostile_done = [float("inf")]

        async def scenario():
            async def hostile():
                await asyncio.gather(*(hostile_visitor(url, i, chars, pytorch, exceptions) for i in range(visitors)))
                hostile_done[0] = time.perf_counter()

            async def crowd():
                await asyncio.sleep(0.5)  # the long texts are on their way first
                # ordinary visitors keep coming until the long texts are all answered (and at least 20 s)
                await asyncio.gather(*(ordinary_visitor(url, i, started + 20, latencies, exceptions, think)
                                       for i in range(ordinary)))
                while time.perf_counter() < hostile_done[0]:
                    await asyncio.gather(*(ordinary_visitor(url, i, min(hostile_done[0], time.perf_counter() + 5),
                                                            latencies, exceptions, think) for i in range(ordinary)))

            await asyncio.gather(hostile(), crowd())

        asyncio.run(scenario())
        busy = time.perf_counter() - started
        peak = memory.peak()
        idle_started = time.perf_counter()
        time.sleep(idle)
        idle_rss = process_tree_rss_mb(pid)
        under = next((t - idle_started for t, mb in memory.samples if t >= idle_started and mb < IDLE_RSS_TARGET_MB),
                     None)
        curve = {mark: next((mb for t, mb in memory.samples if t >= idle_started + mark), None)
                 for mark in (0, 10, 20, 30, 45, 60, 90, 120, 150, 180) if mark <= idle}
    return {"visitors": visitors, "ordinary": ordinary, "chars": chars, "pytorch": pytorch, "before": before,
            "peak": peak, "idle": idle_rss, "under_idle_target_after": under, "idle_curve": curve, "busy_s": busy,
            "requests": len(latencies), "p50": statistics.median(latencies) if latencies else float("nan"),
            "p95": percentile(latencies, 0.95) if latencies else float("nan"), "exceptions": exceptions}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_level(url: str, pids: list[int], students: int, changes: int, think: float = 0.0) -> dict:
    """One crowd; the servers' CPU (summed over `pids`; with several replicas it may pass 100 %), their RSS now
    and peak since start (summed), and the peak of their process trees during the crowd (with warm-up workers)."""
    latencies: list[float] = []
    exceptions: list[str] = []
    replicas: list[str | None] = []
    load_before = os.getloadavg()[0]
    cpu_before, wall_before = sum(server_cpu_seconds(pid) for pid in pids), time.perf_counter()

    async def crowd():
        await asyncio.gather(*(one_student(url, i, changes, latencies, exceptions, think, replicas)
                               for i in range(students)))

    with contextlib.ExitStack() as samplers:
        trees = samplers.enter_context(TreeMemory(pids))
        each = [samplers.enter_context(TreeMemory(pid)) for pid in pids] if len(pids) > 1 else [trees]
        asyncio.run(crowd())
    wall = time.perf_counter() - wall_before
    cpu = sum(server_cpu_seconds(pid) for pid in pids) - cpu_before
    memory = [server_memory_mb(pid) for pid in pids]
    return {"students": students, "requests": len(latencies), "p50": statistics.median(latencies),
            "p95": percentile(latencies, 0.95), "cpu_s": cpu, "cpu_pct": 100 * cpu / wall,
            "rss": sum(rss for rss, _ in memory), "peak": sum(peak for _, peak in memory),
            "tree_peak": trees.peak(), "tree_peaks": [tree.peak() for tree in each], "exceptions": exceptions,
            "load": (load_before, os.getloadavg()[0]),
            "replicas": {replica: replicas.count(replica) for replica in sorted(set(replicas) - {None})}}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", default="1,4,8,16", help="comma-separated crowd sizes, run in turn")
    parser.add_argument("--changes", type=int, default=3, help="new sentences per student after the deep link")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds a student reads between requests (random 0.5-1.5x; 0: none, the harshest)")
    parser.add_argument("--worst", type=int, default=12, help="students sending 256-token texts (0 to skip)")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle before the idle memory")
    parser.add_argument("--hostile", type=int, default=0,
                        help="visitors sending the longest accepted text to every page at once (0 to skip)")
    parser.add_argument("--ordinary", type=int, default=8, help="ordinary students during the hostile scenario")
    parser.add_argument("--pytorch", action="store_true",
                        help="start the server with ATTENTION_PYTORCH=on; the hostile visitors press its button")
    parser.add_argument("--url", help="run against this running server or balancer instead of starting one")
    parser.add_argument("--pids", default="",
                        help="with --url: comma-separated pids of the servers behind it (on this machine), whose "
                             "CPU and memory (with their warm-up workers) are measured")
    args = parser.parse_args(argv)
    if args.url and (args.pytorch or not args.pids):
        parser.error("--url needs --pids (the servers behind it, as deploy/replicas.py prints them); --pytorch "
                     "starts a server, so with --url start yours with ATTENTION_PYTORCH=on")
    results: dict = {"levels": []}
    if args.pytorch:
        os.environ["ATTENTION_PYTORCH"] = "on"
    # --url: servers already running (deploy/replicas.py's balancer); their pids measure CPU and memory
    server = contextlib.nullcontext((args.url.rstrip("/"), None, 0.0)) if args.url else streamlit_server(timeout=180)
    with server as (url, process, ready):
        pids = [process.pid] if process else [int(pid) for pid in args.pids.split(",") if pid.strip()]
        print((f"server ready in {ready:.1f} s" if process else f"{url} (not started here; servers {args.pids})")
              + f" (shipped .streamlit/config.toml: file watcher {_config_value('fileWatcherType')}); RSS "
              f"{sum(server_memory_mb(pid)[0] for pid in pids):.0f} MB")
        print(f"each student: a deep link, then {args.changes} new sentences, "
              + (f"reading {0.5 * args.think:g}-{1.5 * args.think:g} s between requests" if args.think
                 else "each sent as soon as the last is answered (no reading time: the harshest case)"))
        print("students  requests  p50 s  p95 s  server CPU s  CPU %  RSS MB  peak MB  tree peak MB  exceptions")
        for students in (int(n) for n in args.students.split(",") if int(n) > 0):
            level = run_level(url, pids, students, args.changes, args.think)
            results["levels"].append(level)
            verdict = "ok" if level["p95"] <= LATENCY_TARGET_S else f"over {LATENCY_TARGET_S:g} s"
            print(f"{students:8d}  {level['requests']:8d}  {level['p50']:5.2f}  {level['p95']:5.2f}  "
                  f"{level['cpu_s']:12.1f}  {level['cpu_pct']:5.0f}  {level['rss']:6.0f}  {level['peak']:7.0f}  "
                  f"{level['tree_peak']:12.0f}  {len(level['exceptions'])}  ({verdict})")
            if len(pids) > 1:
                print("          each server's tree at its peak: " + ", ".join(
                    f"{pid}: {mb:.0f} MB" for pid, mb in zip(pids, level["tree_peaks"])))
            if level["replicas"]:
                print("          students per replica: " + ", ".join(
                    f"{replica}: {count}" for replica, count in level["replicas"].items()))
            print(f"          load average (1 min) before {level['load'][0]:.1f}, after {level['load'][1]:.1f} "
                  f"on {os.cpu_count()} cores")
            for message in sorted(set(level["exceptions"]))[:3]:
                print(f"          exception: {message}")
        served = [lv["students"] for lv in results["levels"] if lv["p95"] <= LATENCY_TARGET_S]
        if results["levels"]:
            print(f"largest crowd with p95 <= {LATENCY_TARGET_S:g} s: {max(served) if served else 'none'} students")
        if args.worst:
            exceptions: list[str] = []

            async def worst():
                await asyncio.gather(*(worst_case_student(url, i, exceptions) for i in range(args.worst)))

            started = time.perf_counter()
            asyncio.run(worst())
            peak = sum(server_memory_mb(pid)[1] for pid in pids)
            time.sleep(args.idle)
            idle = sum(server_memory_mb(pid)[0] for pid in pids)
            results.update(worst_peak=peak, worst_idle=idle, worst_exceptions=exceptions)
            print(f"worst case ({args.worst} students × 2,000 characters on step 3, multi-head, pronoun; "
                  f"{time.perf_counter() - started - args.idle:.0f} s): peak RSS {peak:.0f} MB "
                  f"(target ≤ {PEAK_RSS_TARGET_MB}), after {args.idle:g} s idle {idle:.0f} MB "
                  f"(target ≤ {IDLE_RSS_TARGET_MB}), {len(exceptions)} exceptions")
        if args.hostile:
            from ui.settings import MAX_SENTENCE_CHARS

            load_before = os.getloadavg()
            hostile = run_hostile(url, pids, args.hostile, args.ordinary, MAX_SENTENCE_CHARS, args.pytorch,
                                  max(args.idle, 60.0), think=2.0)  # 60 s: the target's idle time
            results["hostile"] = hostile
            under = hostile["under_idle_target_after"]
            print(f"hostile: {args.hostile} visitors × {MAX_SENTENCE_CHARS:,} characters on all "
                  f"{len(HOSTILE_PAGES)} pages at once{' + the PyTorch button' if args.pytorch else ''}, "
                  f"{args.ordinary} ordinary students ({hostile['busy_s']:.0f} s busy)")
            print(f"  process tree (server + worker) RSS: {hostile['before']:.0f} MB before, peak "
                  f"{hostile['peak']:.0f} MB (target ≤ {HOSTILE_PEAK_TARGET_MB}), "
                  f"{hostile['idle']:.0f} MB after {max(args.idle, 60.0):g} s idle (target < {IDLE_RSS_TARGET_MB}; "
                  f"under it {'after %.0f s' % under if under is not None else 'never'})")
            print(f"  after the idle minute: {hostile['idle'] - hostile['before']:+.0f} MB over before "
                  f"(target ≤ +{IDLE_OVER_BEFORE_TARGET_MB} MB)")
            print("  idle: " + ", ".join(f"{mb:.0f} MB at {mark} s" for mark, mb in hostile["idle_curve"].items()
                                         if mb is not None))
            print(f"  ordinary students: {hostile['requests']} pages, p50 {hostile['p50']:.2f} s, p95 "
                  f"{hostile['p95']:.2f} s (target ≤ {HOSTILE_P95_TARGET_S:g} s, server side), "
                  f"{len(hostile['exceptions'])} exceptions")
            for message in sorted(set(hostile["exceptions"]))[:3]:
                print(f"  exception: {message}")
            print(f"  load average (1, 5, 15 min) before: {load_before[0]:.1f} {load_before[1]:.1f} "
                  f"{load_before[2]:.1f}; after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return results


def _config_value(option: str) -> str:
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    return str(config.get("server", {}).get(option, "auto (Streamlit's default)"))


if __name__ == "__main__":
    main()
