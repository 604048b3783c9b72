"""Each page's script time, this tree against another commit, measured in the same run (issue 52's speed rule: the
words moved to text files must not show, each page within 5% of its time before).

    python bench/page_times.py --base 91d2e14              # every page, 14-token sentence, 7 rounds
    python bench/page_times.py --base 91d2e14 --rounds 11 --pages step3_softmax,multihead

The other commit is checked out into a temporary git worktree. Each round runs every page once in each tree, in
alternating order, each tree in its own long-lived process (AppTest: app.py then the page, as a server does), so
both see the same machine load; a page's time is the median over the rounds of its second run of a round (the
first run of a round fills the process's caches for a new sentence). Not a pass/fail test: it prints the ratio
beside the 1.05 target, and the machine's load average. Beside it, each tree's least CPU time of the script
thread over the rounds and their ratio ("least"): on a machine others share, wall time mostly measures their load
(a 15-round run at load 10-20 gave ratios from 0.72 to 1.32 for the same code), the thread's CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "The animal didn't cross the street because it was too tired."
TARGET = 1.05

# Run inside each tree: reads page names on stdin, answers each with its script seconds (app.py + the page).
WORKER = r"""
import json, sys, time
sys.path.insert(0, ".")
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import local_script_runner
cpu = []
_run_thread = local_script_runner.LocalScriptRunner._run_script_thread
def _timed_run_thread(self):  # the script thread's own CPU seconds: what other processes' load does not add
    started = time.thread_time()
    try:
        return _run_thread(self)
    finally:
        cpu.append(time.thread_time() - started)
local_script_runner.LocalScriptRunner._run_script_thread = _timed_run_thread
sentence = sys.argv[1]
for line in sys.stdin:
    page = line.strip()
    times = []
    for _ in range(2):
        at = AppTest.from_file("app.py", default_timeout=300)
        at.session_state["sentence"] = sentence
        if page != "home":
            at.run()
            at.switch_page(f"app_pages/{page}.py")
        cpu.clear()
        started = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - started)
    failed = bool(at.exception)
    print(json.dumps({"page": page, "seconds": times[-1], "cpu": sum(cpu), "failed": failed}), flush=True)
"""


def pages_of(tree: Path) -> list[str]:
    return sorted(p.stem for p in (tree / "app_pages").glob("*.py") if not p.name.startswith("_"))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True, help="the commit to compare against (e.g. the one before a change)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--pages", default="", help="comma-separated page names (default: every page)")
    parser.add_argument("--sentence", default=SENTENCE)
    args = parser.parse_args(argv)
    pages = [p for p in args.pages.split(",") if p] or pages_of(ROOT)
    with tempfile.TemporaryDirectory() as scratch:
        base_tree = Path(scratch) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base_tree), args.base],
                       check=True)
        try:
            trees = {"base": base_tree, "now": ROOT}
            workers = {name: subprocess.Popen([sys.executable, "-c", WORKER, args.sentence], cwd=tree, text=True,
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              stderr=subprocess.DEVNULL)
                       for name, tree in trees.items()}
            seconds: dict[str, dict[str, list[float]]] = {name: {p: [] for p in pages} for name in trees}
            cpu: dict[str, dict[str, list[float]]] = {name: {p: [] for p in pages} for name in trees}
            for round_number in range(args.rounds):
                order = list(trees) if round_number % 2 == 0 else list(reversed(trees))
                for page in pages:
                    for name in order:
                        workers[name].stdin.write(page + "\n")
                        workers[name].stdin.flush()
                        answer = json.loads(workers[name].stdout.readline())
                        if answer["failed"]:
                            print(f"  {name}: {page} raised an exception", file=sys.stderr)
                        seconds[name][page].append(answer["seconds"])
                        cpu[name][page].append(answer["cpu"])
            for worker in workers.values():
                worker.stdin.close()
                worker.wait(timeout=60)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_tree)], check=False)
    print(f"page script time, median of {args.rounds} rounds, {args.base} against this tree "
          f"(“{args.sentence}”), target now/base ≤ {TARGET}; load average {os.getloadavg()[0]:.1f}")
    # Wall time is what a visitor waits, but on a shared machine it is mostly other processes' load; the script
    # thread's CPU time (its least over the rounds) is what the code itself costs.
    print(f"{'page':<16} {'base ms':>8} {'now ms':>8} {'now/base':>9}    {'cpu base':>8} {'cpu now':>8} {'least':>6}")
    results = {}
    for page in pages:
        base, now = statistics.median(seconds["base"][page]), statistics.median(seconds["now"][page])
        # the paired ratio, round by round: both trees ran back to back under the same load
        paired = statistics.median(n / b for n, b in zip(seconds["now"][page], seconds["base"][page]))
        cpu_base, cpu_now = min(cpu["base"][page]), min(cpu["now"][page])
        results[page] = {"base": base, "now": now, "ratio": paired, "cpu_ratio": cpu_now / cpu_base}
        print(f"{page:<16} {base * 1e3:8.0f} {now * 1e3:8.0f} {paired:9.3f}  {'met' if paired <= TARGET else 'MISSED'}"
              f" {cpu_base * 1e3:8.1f} {cpu_now * 1e3:8.1f} {cpu_now / cpu_base:6.3f}")
    overall = statistics.median(r["ratio"] for r in results.values())
    print(f"{'all pages':<16} {'':>8} {'':>8} {overall:9.3f}  (median of the pages' ratios)")
    return results


if __name__ == "__main__":
    main()
