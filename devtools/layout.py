"""Measure, in the browser, whether every plotly figure's words are readable: none clipped, none overlapping.

`figure_texts(page)` reads the bounding boxes of each visible figure's title, subtitle, axis titles, tick
labels, annotations (subplot titles), colour-bar labels and cell values from the DOM; `layout_problems`
turns them into plain sentences (an empty list means the layout holds).
"""

from __future__ import annotations

from itertools import combinations

# Words in a figure, by what they are. Cell values are only compared with each other (they sit on the
# coloured cells, which is where they belong); everything else must not touch anything else.
MEASURE_JS = r"""
() => {
  const rect = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    for (let node = el; node && node.nodeType === 1; node = node.parentNode) {
      const style = getComputedStyle(node);
      if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') return false;
    }
    return true;
  };
  const groups = [
    ['title', '.g-gtitle .gtitle'], ['subtitle', '.g-gtitle .gtitle-subtitle'],
    ['axis title', '.infolayer [class*="title"] > text:not(.gtitle):not(.gtitle-subtitle)'],
    ['x tick', '.xaxislayer-above text'], ['y tick', '.yaxislayer-above text'],
    ['annotation', '.annotation-text'], ['colour bar', '.colorbar text'],
    ['cell value', '.heatmaplayer text, .textpoint text'],
  ];
  return [...document.querySelectorAll('.js-plotly-plot')].filter((plot) => plot.offsetParent !== null)
    .map((plot, index) => {
      const svg = plot.querySelector('.main-svg');
      const texts = [];
      const seen = new Set();
      for (const [kind, selector] of groups) {
        for (const el of plot.querySelectorAll(selector)) {
          if (seen.has(el) || !el.textContent.trim() || !shown(el)) continue;
          seen.add(el);
          const upright = /rotate\(-?90/.test(el.getAttribute('transform') || '');
          texts.push({kind, text: el.textContent, box: rect(el), upright});
        }
      }
      const bar = plot.querySelector('.modebar');
      const title = plot.querySelector('.g-gtitle .gtitle');
      return {index, figure: rect(svg), toolbar: bar ? rect(bar) : null, texts,
              title: title ? title.textContent : ''};
    });
}
"""

TOLERANCE = 1.0  # px: anti-aliasing and sub-pixel layout
# A text's box is its line box: across the line it includes the font's leading above and below the letters.
# Two upright tick labels whose line boxes touch by a pixel still have a clear gap between their letters, so
# that side of each box is inset by this share of its thickness before comparing (lengthwise boxes are exact).
LEADING = 0.12


def _ink(text: dict) -> list[float]:
    left, top, right, bottom = text["box"]
    if not text.get("upright"):
        inset = LEADING * (bottom - top)
        return [left, top + inset, right, bottom - inset]
    inset = LEADING * (right - left)
    return [left + inset, top, right - inset, bottom]


def _overlap(a, b, tolerance: float = TOLERANCE) -> bool:
    return (min(a[2], b[2]) - max(a[0], b[0]) > tolerance) and (min(a[3], b[3]) - max(a[1], b[1]) > tolerance)


def _inside(inner, outer, tolerance: float = TOLERANCE) -> bool:
    return (inner[0] >= outer[0] - tolerance and inner[1] >= outer[1] - tolerance
            and inner[2] <= outer[2] + tolerance and inner[3] <= outer[3] + tolerance)


def figure_texts(page) -> list[dict]:
    return page.evaluate(MEASURE_JS)


def layout_problems(figures: list[dict]) -> list[str]:
    """Every clipped or overlapping piece of text, and a toolbar over a title, said in words."""
    problems = []
    for figure in figures:
        name = f"figure {figure['index']} ({figure['title'][:40]!r})"
        texts = figure["texts"]
        for text in texts:
            if not _inside(text["box"], figure["figure"]):
                problems.append(f"{name}: {text['kind']} {text['text'][:30]!r} is clipped by the figure's edge")
        for a, b in combinations(texts, 2):
            cells = (a["kind"] == "cell value") + (b["kind"] == "cell value")
            if cells == 1:
                continue
            if _overlap(_ink(a), _ink(b)):
                problems.append(f"{name}: {a['kind']} {a['text'][:30]!r} overlaps {b['kind']} {b['text'][:30]!r}")
        toolbar = figure["toolbar"]
        if toolbar and toolbar[2] - toolbar[0] > 1:
            for text in texts:
                if text["kind"] in ("title", "subtitle") and _overlap(_ink(text), toolbar):
                    problems.append(f"{name}: the toolbar covers the {text['kind']}")
    return problems


# --- issue 32: slide sizes, thinned labels, a phone's width ---------------------------------------------------

# Every word drawn in each visible figure (title to cell values), its rendered font size and colour; and each
# category axis's categories against the labels plotly drew (plotly thins labels that do not fit).
SLIDE_TEXT_JS = r"""
() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
  .filter((plot) => plot.offsetParent !== null)
  .map((plot, index) => {
    const shown = (el) => {
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) return false;
      for (let node = el; node && node.nodeType === 1; node = node.parentNode) {
        const style = getComputedStyle(node);
        if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') return false;
      }
      return true;
    };
    const texts = [...plot.querySelectorAll('.main-svg text, .main-svg tspan')]
      .filter((t) => !t.closest('.modebar') && t.textContent.trim() && shown(t))
      .map((t) => ({text: t.textContent.slice(0, 30), size: parseFloat(getComputedStyle(t).fontSize),
                    fill: getComputedStyle(t).fill,
                    onCell: !!t.closest('.heatmaplayer, .textpoint, .trace.bars, .table')}));
    const thinned = [];
    const layout = plot._fullLayout || {};
    for (const name of Object.keys(layout)) {
      const axis = layout[name];
      if (!/^[xy]axis\d*$/.test(name) || !axis || axis.type !== 'category' || !axis.showticklabels || !axis.visible)
        continue;
      const categories = (axis._categories || []).length;
      const drawn = new Set([...plot.querySelectorAll(`.${axis._id}tick text`)].filter(shown)
        .map((t) => t.textContent)).size;
      if (drawn < categories) thinned.push(`${name}: ${drawn} of ${categories} labels`);
    }
    const title = plot.querySelector('.g-gtitle .gtitle');
    return {index, title: title ? title.textContent : '', texts, thinned};
  })
"""

# Anything in the page's main area reaching past the right edge of the screen, unless a box that scrolls (or
# clips) holds it inside the screen.
OVERFLOW_JS = r"""
() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const el of document.querySelectorAll('[data-testid="stMain"] *')) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.right <= width + 1) continue;
    let held = false;
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (/(auto|scroll|hidden|clip)/.test(style.overflowX) && node.getBoundingClientRect().right <= width + 1) {
        held = true;
        break;
      }
    }
    const name = String(el.className.baseVal ?? el.className).split(' ')[0];
    if (!held) wide.push(`${el.tagName.toLowerCase()}${el.dataset.testid ? '[' + el.dataset.testid + ']' : ''}`
                         + `.${name} right=${Math.round(r.right)}`);
  }
  return {width, scrollWidth: document.documentElement.scrollWidth, wide};
}
"""


def _channels(fill: str) -> list[int]:
    return [int(float(c)) for c in fill[fill.index("(") + 1:-1].split(",")[:3]] if "(" in fill else [0, 0, 0]


def slide_problems(figures: list[dict], min_px: float = 18, darkest_channel: int = 120) -> list[str]:
    """Text smaller than min_px, light text off the cells (any channel above darkest_channel: grey on white),
    and category labels plotly thinned away, said in words."""
    problems = []
    for figure in figures:
        name = f"figure {figure['index']} ({figure['title'][:40]!r})"
        texts = figure["texts"]
        if texts:
            smallest = min(texts, key=lambda t: t["size"])
            if smallest["size"] < min_px - 0.01:
                problems.append(f"{name}: {smallest['text']!r} is {smallest['size']:.1f} px")
        for text in texts:
            if not text["onCell"] and max(_channels(text["fill"])) > darkest_channel:
                problems.append(f"{name}: {text['text']!r} is light ({text['fill']})")
                break
        problems += [f"{name}: {thinned}" for thinned in figure["thinned"]]
    return problems


def slide_texts(page) -> list[dict]:
    return page.evaluate(SLIDE_TEXT_JS)


def too_wide(page) -> dict:
    return page.evaluate(OVERFLOW_JS)
