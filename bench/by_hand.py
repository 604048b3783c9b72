"""Attention by hand in Chromium: drag the query, time each redraw, count what the browser sends (a script run is
a message from the browser: none may go). Used by bench/run.py and tests/test_by_hand.py.

    python bench/by_hand.py      # its own server and Chromium; prints drag → redraw beside its target
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lessons import by_hand  # noqa: E402

REDRAW_MS = 50  # drag to redraw, at most (issue 54)

# The numbers the drawing shows, as it holds them: the table's cells keep the full value beside the rounded text.
DISPLAYED_JS = """(root) => {
  const cells = (kind) => [...root.querySelectorAll(`td[data-kind="${kind}"]`)]
      .map((td) => ({value: Number(td.dataset.value), text: td.textContent}));
  const out = root.querySelector('.bh-out');
  return {q: JSON.parse(root.dataset.q), divisor: Number(root.dataset.divisor), scores: cells('score'),
          scaled: cells('scaled'), weights: cells('weight'), output: [Number(out.dataset.x), Number(out.dataset.y)],
          redraws: JSON.parse(root.dataset.redraws || '[]'), live: root.querySelector('.bh-live').textContent,
          story: root.querySelector('.bh-live').dataset.story};
}"""


class SentFrames:
    """Every websocket frame the browser sends from now on: a rerun, a widget's value, anything bound for Python."""

    def __init__(self, page):
        self.frames: list[int] = []
        page.on("websocket", lambda socket: socket.on("framesent", self._sent))

    def _sent(self, payload) -> None:
        self.frames.append(len(payload) if payload else 0)


def open_page(page, url: str, query: str = "") -> None:
    """The by-hand page drawn and the script done (the handle is the drawing's last part made)."""
    page.goto(f"{url}/by_hand{query}")
    page.wait_for_selector(".bh-handle", timeout=120_000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120_000)
    page.wait_for_timeout(500)


def displayed(page) -> dict:
    return page.locator(".bh").evaluate(DISPLAYED_JS)  # Playwright's locators reach into the component's shadow root


def plane_point(page, x: float, y: float) -> tuple[float, float]:
    """Where a query position is on screen: the drag pad spans the plane, ±limit on both axes."""
    pad = page.locator(".bh-pad").bounding_box()
    lim = by_hand.PLANE_LIMIT
    return pad["x"] + (x + lim) / (2 * lim) * pad["width"], pad["y"] + (lim - y) / (2 * lim) * pad["height"]


def drag_query(page, to: tuple[float, float], steps: int = 30) -> None:
    """Press the query's handle, move in `steps` pointer moves to the plane position `to`, release."""
    page.locator(".bh-handle").scroll_into_view_if_needed()
    handle = page.locator(".bh-handle circle").bounding_box()
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(*plane_point(page, *to), steps=steps)
    page.mouse.up()
    page.wait_for_timeout(400)  # the last frame's time recorded, the spoken summary written


def numpy_numbers(shown: dict) -> by_hand.Numbers:
    """lessons/by_hand.py at the query and divisor the drawing shows."""
    return by_hand.attend(shown["q"], divisor=shown["divisor"])


def measure(browser, url: str, moves: int = 120) -> dict:
    """Drag the query round the plane in `moves` pointer moves: each move's redraw time (event to the frame after
    the new drawing), and the frames the browser sent meanwhile."""
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    sent = SentFrames(page)
    open_page(page, url)
    before = len(sent.frames)
    first = displayed(page)["weights"]
    for target in ((-2.0, 2.0), (2.5, -1.0), (0.4, 2.4)):
        drag_query(page, target, steps=moves // 3)
    shown = displayed(page)
    page.close()
    times = np.array(shown["redraws"])
    return {"median_ms": float(np.median(times)), "p95_ms": float(np.percentile(times, 95)), "n": len(times),
            "frames_sent": len(sent.frames) - before, "weights_changed": shown["weights"] != first}


def main() -> None:
    from devtools.browser import chromium, streamlit_server

    with chromium() as browser, streamlit_server() as (url, _process, _seconds):
        result = measure(browser, url)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
