"""Memory a long text's page run frees goes back to the system, in the thread heaps where Streamlit's runs allocate
(issue 57: after a hostile class the idle server stayed 120-200 MB above its fresh size)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A process as a server runs pages: each run in a thread of its own; one frees a large array (glibc, left to itself,
# then raises its thresholds), the next runs build and free tens of MB of arrays. Prints the MB kept afterwards.
RUNS = r"""
import json, sys, threading
import numpy as np
from serving.memory import release_free_memory, tune_malloc

if sys.argv[1] == "tuned":
    tune_malloc()

def rss_mb():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20

def page_run(sizes_mb):
    arrays = [np.ones(size * 2**20 // 8) for size in sizes_mb]
    del arrays

before = rss_mb()
for sizes in ([24], [6, 5, 4, 3, 2, 8], [10, 9, 8, 7], [3] * 9):
    run = threading.Thread(target=page_run, args=(sizes,))
    run.start()
    run.join()
release_free_memory()  # what the server's trimmer does every 10 s
print(json.dumps(rss_mb() - before))
"""


def kept_mb(mode: str) -> float:
    done = subprocess.run([sys.executable, "-c", RUNS, mode], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_freed_arrays_leave_the_thread_heaps():
    untuned = kept_mb("untuned")
    if untuned < 4:
        pytest.skip(f"this C library kept only {untuned:.1f} MB untuned: nothing for the tuning to show")
    tuned = kept_mb("tuned")
    assert tuned < 2, f"kept {tuned:.1f} MB after the runs freed their arrays (untuned: {untuned:.1f} MB)"
