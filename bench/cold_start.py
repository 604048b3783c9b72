"""A cold start: `streamlit run app.py` to the start page's first heatmap in Chromium, and the background
warm-up's work (every shared result the pages read: the pronoun test set, the built-in sentences, the meaning
page's word sets, the Training lab's default runs) in a process of its own.

    python bench/cold_start.py            # 3 cold starts and 3 warm-ups (--runs N)
    python bench/cold_start.py --port 8641

The warm-up is timed in a fresh process at normal priority, in CPU-seconds: in the server it runs at the
lowest priority (serving/warmup.py), so its wall-clock time there is the machine's load, not its own work.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The warm-up's whole work, as the worker does it (serving/warmup.py without its lowest priority): model load
# included, imports not (the server has them already).
WARMUP = """
import json, time
from attention.model import AttentionModel
from serving.shared import warm_items
cpu, wall = time.process_time(), time.perf_counter()
items = sum(1 for _ in warm_items(AttentionModel()))
print(json.dumps([time.process_time() - cpu, time.perf_counter() - wall, items]))
"""


def first_heatmap(browser, port: int | None) -> float:
    """Seconds from `streamlit run app.py` to the start page's first heatmap on screen."""
    from devtools.browser import streamlit_server

    started = time.perf_counter()
    with streamlit_server(port) as (url, _process, _healthy):
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector(".js-plotly-plot .main-svg >> visible=true", timeout=120_000)
        seconds = time.perf_counter() - started
        page.close()
    return seconds


def warmup_seconds() -> tuple[float, float, int]:
    """CPU-seconds and wall-clock seconds of the warm-up's work in a new process, and the results it made."""
    import json

    done = subprocess.run([sys.executable, "-c", WARMUP], cwd=ROOT, capture_output=True, text=True, check=True,
                          env=dict(os.environ, HF_HUB_OFFLINE="1"))
    return tuple(json.loads(done.stdout.strip().splitlines()[-1]))


def main(argv=None) -> None:
    from devtools.browser import chromium

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=None)
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    with chromium() as browser:
        heatmaps = [first_heatmap(browser, args.port) for _ in range(args.runs)]
    warmups = [warmup_seconds() for _ in range(args.runs)]
    print(f"# cold start: {args.runs} runs each; load average (1 min) {load_before:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
    rows = [("start page, first heatmap (s)", heatmaps),
            (f"warm-up, {warmups[0][2]} results (CPU-s)", [w[0] for w in warmups]),
            ("warm-up, wall clock (s)", [w[1] for w in warmups])]
    for name, seconds in rows:
        print(f"{name:<32} median {np.median(seconds):5.1f}   runs: " + ", ".join(f"{s:.1f}" for s in seconds))


if __name__ == "__main__":
    main()
