"""A figure on the page: its download options and file name, its text alternative beside it, the browser scripts."""

from __future__ import annotations

import plotly.graph_objects as go

from ui.text import slug
from ui.figures.alt_text import figure_text_html, figure_text_label
from ui.figures.layout import NARROW_FIGURE_PX
from ui.content import words
from ui.figures.predict import predict_text, predicting, revealed, toggle_reveal, with_numbers_hidden, writes_numbers

SLIDE_EXPORT_HEIGHT = 720


def download_config(filename: str, teaching: bool = False, height: int | None = None) -> dict:
    """Plotly's camera button: a 3× PNG with a name that says what it is (SVG_EXPORT_HTML adds the SVG button).

    In teaching mode a 16:9 slide: the figure drawn at least SLIDE_EXPORT_HEIGHT px high (its own height if taller,
    so no label is squeezed) and 16/9 of that wide, at 2× (1280×720 → 2560×1440)."""
    options = {"format": "png", "filename": filename, "scale": 3}
    if teaching:
        slide_height = -(-max(int(height or 0), SLIDE_EXPORT_HEIGHT) // 9) * 9  # a multiple of 9: exactly 16:9
        options.update(scale=2, height=slide_height, width=slide_height * 16 // 9)
    config = {
        "toImageButtonOptions": options,
        "displaylogo": False,
    }
    # A short toolbar stays inside the band above the title even on a half-width figure.
    config["modeBarButtonsToRemove"] = ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "pan2d"]
    if teaching:
        config["modeBarButtonsToRemove"] += ["zoom2d", "resetScale2d"]
    return config


def figure_filename(step: str, sentence: str, view_code: str) -> str:
    return f"{slug(step, 24)}_{slug(sentence)}_{slug(view_code, 24, lower=False)}"


def show(fig: go.Figure, filename: str, teaching: bool = False, key: str | None = None,
         revealed_with: str | None = None) -> None:
    """The figure, and right under it its text alternative (figure_text_html) in a collapsed expander: a screen
    reader reaches it by the next tab stop, and a student can copy the numbers from it.

    Teaching mode with "Predict first" on (the sidebar's `predict`): the figure's answers (numbers and colours)
    stay hidden until the teacher presses "Reveal the numbers", so the class guesses first. A figure is revealed
    for what it shows (its file name: step, sentence, layer and head): a new sentence or head hides it again.
    revealed_with: the file name of another figure on the page that shows the same numbers (the lines beside a
    matrix): this one is revealed with it, by its button, and has none of its own."""
    import streamlit as st

    # An animation (the walk-through) is itself a reveal, frame by frame: its numbers stay.
    predict = predicting(teaching) and not fig.frames and (bool(revealed_with) or writes_numbers(fig))
    hidden = predict and not revealed(revealed_with or filename)
    if hidden and revealed_with:  # nothing to guess from: a figure of line widths has no neutral drawing
        st.caption(words("figures.hidden_with_other"))
        return
    shown = with_numbers_hidden(fig) if hidden else fig
    st.plotly_chart(shown, config=download_config(filename, teaching, fig._layout.get("height")), key=key)
    if predict and not revealed_with:
        st.button(words("figures.reveal_button") if hidden else words("figures.hide_button"),
                  key=f"reveal-{key or filename}", on_click=toggle_reveal, args=(filename,),
                  type="primary" if hidden else "secondary")
    with st.expander(figure_text_label()):
        st.html(predict_text() if hidden else figure_text_html(fig))


FIT_CELL_TEXT_HTML = """<style>.js-plotly-plot.cells-do-not-fit .heatmaplayer text {visibility: hidden;}</style>
<script>
(() => {
  if (window.__fitCellText) return;
  window.__fitCellText = true;
  const GAP = 2;
  const NARROW_PX = NARROW_FIGURE_PX;
  function crowded(texts) {
    const boxes = texts.map((t) => t.getBoundingClientRect()).filter((r) => r.width > 0);
    const rows = new Map();
    for (const box of boxes) {
      const key = Math.round((box.top + box.bottom) / 2);
      if (!rows.has(key)) rows.set(key, []);
      rows.get(key).push(box);
    }
    for (const row of rows.values()) {
      row.sort((a, b) => a.left - b.left);
      for (let i = 1; i !== row.length; i += 1) {
        if (row[i - 1].right + GAP > row[i].left) return true;
      }
    }
    const keys = [...rows.keys()].sort((a, b) => a - b);
    for (let i = 1; i !== keys.length; i += 1) {
      const above = rows.get(keys[i - 1])[0], below = rows.get(keys[i])[0];
      if (above.bottom > below.top + 0.25 * (below.bottom - below.top)) return true;
    }
    return false;
  }
  // The layout a figure's place asks for ('narrow' or 'wide') when it is not the one the figure has, else null.
  function wanted(plot, meta) {
    if (!meta || !meta.narrow || !plot || !plot.clientWidth) return null;
    const want = plot.clientWidth >= NARROW_PX ? 'wide' : 'narrow';
    return (meta.applied || 'wide') === want ? null : want;
  }
  function relayout(plot) {  // layout.meta.narrow on a narrow figure, meta.wide again when it widens
    const meta = plot.layout && plot.layout.meta;
    const want = window.Plotly && wanted(plot, meta);
    if (!want) return false;
    window.Plotly.relayout(plot, {...meta[want], 'meta.applied': want});
    return true;
  }
  // Only the figures that changed are measured again (a flip-through frame redraws one figure, and measuring
  // every figure of the page at each frame made flipping slower); anything else changing measures them all.
  const changed = new Set();
  let everything = false;
  function fit() {
    queued = false;
    const plots = everything ? [...document.querySelectorAll('.js-plotly-plot')] : [...changed];
    everything = false;
    changed.clear();
    plots.forEach((plot) => {
      if (!plot.isConnected) return;
      if (relayout(plot)) return;  // measured again after plotly has redrawn it
      const texts = [...plot.querySelectorAll('.heatmaplayer text')];
      if (!texts.length) return;
      plot.classList.toggle('cells-do-not-fit', crowded(texts));
    });
  }
  let queued = false;
  const later = () => { if (!queued) { queued = true; requestAnimationFrame(fit); } };
  new MutationObserver((mutations) => {
    for (const mutation of mutations) {
      const node = mutation.target.nodeType === 1 ? mutation.target : mutation.target.parentElement;
      const plot = node && node.closest('.js-plotly-plot');
      if (plot && plot !== node) changed.add(plot); else everything = true;
    }
    later();
  }).observe(document.body, {childList: true, subtree: true});
  window.addEventListener('resize', () => { everything = true; later(); });
  everything = true;
  later();
  // A figure whose place is narrow is drawn narrow at once: its meta.narrow is applied to the layout plotly is
  // given, so relayout() above finds nothing to do. Relaid out after the draw, such a figure was drawn twice on
  // every rerun at laptop widths, where half a wide page is under NARROW_PX (a token click waited for it).
  function setPath(target, keys, value) {
    const [key, ...rest] = keys;
    if (rest.length === 0) { target[key] = value; return; }
    target[key] = {...(target[key] || {})};
    setPath(target[key], rest, value);
  }
  function placed(gd, layout) {
    const meta = layout && layout.meta;
    const want = wanted(typeof gd === 'string' ? document.getElementById(gd) : gd, meta);
    if (!want) return layout;
    const fitted = {...layout, meta: {...meta, applied: want}};
    Object.entries(meta[want] || {}).forEach(([path, value]) => setPath(fitted, path.split('.'), value));
    return fitted;
  }
  function drawPlaced(plotly) {
    if (!plotly || plotly.__drawsPlaced) return plotly;
    const react = plotly.react;
    plotly.react = function (gd, data, layout, config) {
      if (data && !Array.isArray(data) && typeof data === 'object' && data.layout) {  // react(gd, figure)
        return react.call(this, gd, {...data, layout: placed(gd, data.layout)}, layout, config);
      }
      return react.call(this, gd, data, placed(gd, layout), config);
    };
    plotly.__drawsPlaced = true;
    return plotly;
  }
  if (window.Plotly) {
    drawPlaced(window.Plotly);
  } else {  // plotly's bundle loads with the page's first figure and sets window.Plotly then
    let loaded;
    Object.defineProperty(window, 'Plotly', {configurable: true, enumerable: true,
      get: () => loaded, set: (plotly) => { loaded = drawPlaced(plotly); }});
  }
})();
</script>""".replace("NARROW_FIGURE_PX", str(NARROW_FIGURE_PX))


# Plotly's toolbar has one download format per figure, and Streamlit passes its config as JSON, so a
# second button (a JS function) cannot travel in it. This script, run once in the page, adds an "SVG" button
# beside every camera button: it switches that figure's own download options to SVG for one click and lets
# plotly export it, so the file keeps the figure's name (…_L0H3.svg) and is drawn in the browser (no
# server-side renderer, which would need a Chrome on the hosted demo).
SVG_EXPORT_HTML = """<style>.js-plotly-plot .modebar {display: flex; flex-wrap: nowrap;}</style><script>
(() => {
  if (window.__svgExportButtons) return;
  window.__svgExportButtons = true;
  const SVG_NS = 'http://www.w3.org/2000/svg';
  function icon() {  // built node by node: the page's HTML sanitizer drops a script that holds markup text
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', '0 0 30 16');
    svg.setAttribute('width', '30');
    svg.setAttribute('height', '16');
    svg.style.cssText = 'display: block; margin-top: 3px;';
    const label = document.createElementNS(SVG_NS, 'text');
    const attributes = {x: '15', y: '12.5', 'text-anchor': 'middle', 'font-size': '11', 'font-weight': '700',
                        'font-family': 'sans-serif', fill: 'currentColor'};
    for (const name in attributes) label.setAttribute(name, attributes[name]);
    label.textContent = 'SVG';
    svg.appendChild(label);
    return svg;
  }
  function addButton(plot) {
    const camera = plot.querySelector('.modebar-btn[data-title^="Download plot"]');
    if (!camera || camera.parentNode.querySelector('[data-svg-export]')) return;
    const button = document.createElement('a');
    button.className = 'modebar-btn';
    button.setAttribute('rel', 'tooltip');
    button.setAttribute('data-title', 'Download as SVG (vector: sharp at any size)');
    button.setAttribute('data-svg-export', '1');
    button.style.cssText = 'color: rgba(68, 68, 68, 0.6); display: inline-block; height: 22px; line-height: 0;';
    button.appendChild(icon());
    button.addEventListener('click', (event) => {
      event.preventDefault();
      const options = plot._context && plot._context.toImageButtonOptions;
      if (!options) return;
      const format = options.format;
      options.format = 'svg';  // plotly copies the options when clicked, so restoring right after is safe
      try { camera.dispatchEvent(new MouseEvent('click', {bubbles: true})); } finally { options.format = format; }
    });
    camera.parentNode.insertBefore(button, camera.nextSibling);
  }
  let queued = false;
  const scan = () => {
    queued = false;
    document.querySelectorAll('.js-plotly-plot').forEach(addButton);
  };
  new MutationObserver(() => {
    if (!queued) { queued = true; requestAnimationFrame(scan); }
  }).observe(document.body, {childList: true, subtree: true});
  scan();
})();
</script>"""
