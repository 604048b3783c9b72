"""Figures that play in the browser: plotly animation frames, which Play/Pause and a slider step through without
running the page's script, and the offline HTML file a teacher downloads (plotly.js inside, every frame savable
as a picture for slides)."""

from __future__ import annotations

import html
import json

import plotly.graph_objects as go
import plotly.io

from ui.content import words
from ui.text import no_bidi
from ui.figures.show import download_config


class UncheckedFrame:
    """A frame plotly serialises as it is (Figure.to_dict reads each frame's _props). plotly.Figure validates
    frames even when told not to: ~110 ms per walk-through, more than the page's model pass. tests/
    test_walkthrough.py validates the whole spec, frames included."""

    def __init__(self, props: dict):
        self._props = props


def with_frames(fig: go.Figure, frames: list[dict]) -> go.Figure:
    """The figure with its animation frames, unvalidated like every figure here."""
    fig._frame_objs = tuple(UncheckedFrame(frame) for frame in frames)
    return fig


def offline_html(fig: go.Figure, filename: str, title: str, language: str | None = None) -> bytes:
    """The figure as one HTML file that a teacher opens by double-click, offline: plotly.js inside, stopped
    on the first frame until Play is pressed. language: the page's, bound when the button was made (the file is
    built on click, outside the page's run)."""
    spec = fig.to_plotly_json()
    # Outside Streamlit: plotly's own light theme (Streamlit themes the figure in the app).
    spec["layout"]["template"] = plotly.io.templates["plotly_white"].to_plotly_json()
    page = go.Figure(spec, _validate=False).to_html(
        include_plotlyjs=True, full_html=True, auto_play=False, default_width="100%", div_id=HTML_PLOT_ID,
        config=download_config(filename))  # the app's toolbar: a 3× PNG of the frame on screen
    page = page.replace("<head>", f'<head><meta charset="utf-8"><title>{html.escape(no_bidi(title))}</title>', 1)
    saving = (SAVE_EVERY_FRAME_HTML.replace("__PLOT__", HTML_PLOT_ID).replace("__NAME__", json.dumps(filename))
              .replace("__LEAD__", html.escape(words("downloads.save_frames_lead", language=language)))
              .replace("__PNG__", html.escape(words("downloads.save_frames_png", language=language)))
              .replace("__SVG__", html.escape(words("downloads.save_frames_svg", language=language))))
    return page.replace("</body>", saving + "</body>", 1).encode("utf-8")


HTML_PLOT_ID = "walkthrough"
# In the downloaded file only (a page of its own, no sanitizer): every frame saved as its own picture, for slides.
# The browser may ask once whether the page may download several files.
SAVE_EVERY_FRAME_HTML = """
<p style="font-family: sans-serif; font-size: 18px; margin: 8px 14px;">__LEAD__
<button id="save-png" type="button" style="font-size: 18px;">__PNG__</button>
<button id="save-svg" type="button" style="font-size: 18px;">__SVG__</button></p>
<script>
(() => {
  const plot = document.getElementById('__PLOT__');
  const name = __NAME__;
  async function saveEveryFrame(format) {
    const frames = plot._transitionData._frames.map((frame) => frame.name);
    for (const frame of frames) {
      await Plotly.animate(plot, [frame], {mode: 'immediate', frame: {duration: 0, redraw: true},
                                           transition: {duration: 0}});
      const number = String(Number(frame) + 1).padStart(2, '0');
      await Plotly.downloadImage(plot, {format: format, scale: format === 'png' ? 3 : 1,
                                        filename: name + '_frame' + number});
      // Chromium drops downloads beyond about ten a second from one page: space them out.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  document.getElementById('save-png').addEventListener('click', () => saveEveryFrame('png'));
  document.getElementById('save-svg').addEventListener('click', () => saveEveryFrame('svg'));
})();
</script>
"""
