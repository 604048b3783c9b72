// Attention by hand, drawn and recomputed in the browser: dragging the query, the keyboard, the presets and the
// divisor run no Python (nothing is sent back). The arithmetic is lessons/by_hand.py's, step for step.
const NS = "http://www.w3.org/2000/svg";
const COLOURS = ["#1d4ed8", "#7e22ce", "#047857", "#b45309", "#be123c"];
const QUERY = "#dc2626", OUTPUT = "#111827", INK = "#1f2937", FAINT = "#6b7280", GRIDLINE = "#e5e7eb";
const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

function attend(q, keys, values, divisor) {
  const scores = keys.map((k) => k[0] * q[0] + k[1] * q[1]);
  const scaled = scores.map((s) => s / divisor);
  const top = Math.max(...scaled);
  const exp = scaled.map((s) => Math.exp(s - top));  // minus the largest: the same weights, no overflow
  const total = exp.reduce((a, b) => a + b, 0);
  const weights = exp.map((e) => e / total);
  const output = [0, 1].map((d) => weights.reduce((a, w, i) => a + w * values[i][d], 0));
  return { scores, scaled, weights, output };
}

// One word leads, two tie, or none stands out: the same thresholds as lessons/by_hand.py shape_of.
function shapeOf(weights) {
  const order = weights.map((w, i) => i).sort((a, b) => weights[b] - weights[a]);
  if (Math.max(...weights) - Math.min(...weights) < 0.15) return ["even", order];
  if (weights[order[0]] - weights[order[1]] < 0.05) return ["tie", order];
  return ["leads", order];
}

// The drawing's words come from Python in the page's language (d.text); a {name} in one is filled in here.
const fill = (template, values) => template.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));
const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const pct = (w) => (100 * w).toFixed(w < 0.01 && w > 0 ? 1 : 0) + "%";
const num = (x) => (Math.abs(x) < 0.005 ? 0 : x).toFixed(2).replace("-", "−");

function el(name, attrs, parent, text) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function story(d, n, q) {
  const [shape, order] = shapeOf(n.weights);
  const w = d.words, a = order[0], b = order[1], t = d.text;
  const said = { a: w[a], b: w[b], share_a: pct(n.weights[a]), share_b: pct(n.weights[b]) };
  let text = fill(shape === "even" ? t.storyEven : shape === "tie" ? t.storyTie : t.storyLeads, said);
  if (Math.max(...n.scores) < 0) text += " " + t.storyNegative;
  const list = w.map((word, i) => `${word} ${pct(n.weights[i])}`).join(", ");
  return { text, full: fill(t.storyNumbers, { x: num(q[0]), y: num(q[1]), list, ox: num(n.output[0]), oy: num(n.output[1]) }) };
}

function build(host, d) {
  host.querySelectorAll(":scope > .bh").forEach((old) => old.remove());
  const root = document.createElement("div");
  root.className = "bh" + (d.teaching ? " teach" : "");
  host.appendChild(root);
  const state = { q: d.presets[0].query.slice(), divisor: d.sqrtDk, root, d, timer: null, redraws: [] };
  const t = d.text;

  const presets = document.createElement("div");
  presets.className = "bh-row";
  presets.setAttribute("role", "group");
  presets.setAttribute("aria-label", t.examplesLabel);
  presets.innerHTML = `<span class='bh-lead'>${esc(t.startFrom)}</span>`;
  d.presets.forEach((p, i) => {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = p.name; b.dataset.preset = i; b.title = p.title;
    b.onclick = () => { state.q = p.query.slice(); update(state, null); };
    presets.appendChild(b);
  });
  root.appendChild(presets);

  const control = document.createElement("div");
  control.className = "bh-row";
  const [lo, hi] = d.divisorRange;
  control.innerHTML = `<label>${esc(t.divideBy)} <input type="range" class="bh-divisor" min="${lo}" max="${hi}"
    step="0.01" value="${d.sqrtDk}"> <output class="bh-divisor-out"></output></label>
    <button type="button" class="bh-reset">${esc(t.reset)}</button>
    <span class="bh-hint">${esc(t.hint)}</span>`;
  control.querySelector(".bh-divisor").oninput = (e) => { state.divisor = Number(e.target.value); update(state, e); };
  control.querySelector(".bh-reset").onclick = () => { state.divisor = d.sqrtDk; update(state, null); };
  root.appendChild(control);

  const svg = el("svg", { xmlns: NS, role: "group", "font-family": FONT, class: "bh-svg" }, null);
  el("title", {}, svg, t.svgTitle);
  root.appendChild(svg);
  state.svg = svg;

  const live = document.createElement("p");
  live.className = "bh-live";
  live.setAttribute("aria-live", "polite");
  root.appendChild(live);
  state.live = live;

  const details = document.createElement("details");
  const cells = d.words.map((w, i) => `<tr><th scope="row">${esc(w)}</th><td data-kind="score" data-i="${i}"></td>
    <td data-kind="scaled" data-i="${i}"></td><td data-kind="weight" data-i="${i}"></td></tr>`).join("");
  details.innerHTML = `<summary>${esc(t.tableSummary)}</summary><table class="bh-table"><thead><tr><th scope="col">${esc(t.tableWord)}</th>
    <th scope="col">${esc(t.tableScore)}</th><th scope="col">${esc(t.tableScaled)}</th><th scope="col">${esc(t.tableWeight)}</th></tr></thead>
    <tbody>${cells}</tbody></table><p class="bh-out"></p>`;
  root.appendChild(details);
  state.details = details;

  const downloads = document.createElement("div");
  downloads.className = "bh-row";
  downloads.innerHTML = `<button type="button" class="bh-svg-dl">${esc(t.downloadSvg)}</button>
    <button type="button" class="bh-png-dl">${esc(t.downloadPng)}</button>`;
  downloads.querySelector(".bh-svg-dl").onclick = () => save(state, "svg");
  downloads.querySelector(".bh-png-dl").onclick = () => save(state, "png");
  root.appendChild(downloads);

  state.wide = null;
  const resize = () => {
    const width = root.getBoundingClientRect().width;
    const wide = width >= 640 || !width;
    if (wide !== state.wide) { state.wide = wide; layout(state); update(state, null); }
  };
  state.observer = new ResizeObserver(resize);
  state.observer.observe(root);
  resize();
  return state;
}

// The three panels: side by side when there is room, stacked on a phone.
function layout(state) {
  const { svg, d, wide } = state;
  const big = d.teaching ? 1.2 : 1;
  [...svg.querySelectorAll(":scope > g")].forEach((g) => g.remove());
  const rowH = 64;
  const barsH = 90 + rowH * d.words.length + 40 + 60 * big;  // + the score's rule, two lines
  const panel = 410;
  const places = wide ? [[0, 0], [panel, 0], [2 * panel, 0]] : [[0, 0], [0, panel + 30], [0, 2 * (panel + 30)]];
  const width = wide ? 3 * panel : panel, height = wide ? Math.max(panel + 40, barsH) : 2 * (panel + 30) + barsH;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width); svg.setAttribute("height", height);
  svg.classList.toggle("stacked", !wide);
  const bg = el("g", {}, svg);
  el("rect", { x: 0, y: 0, width, height, fill: "#ffffff" }, bg);
  state.parts = {
    keys: plane(state, places[0], d.text.keysTitle, d.text.keyAxes, big, true),
    values: plane(state, places[1], d.text.valuesTitle, d.text.valueAxes, big, false),
    bars: el("g", { transform: `translate(${places[2][0]},${places[2][1]})` }, svg),
  };
  state.big = big; state.rowH = rowH;
}

function plane(state, [x0, y0], title, axes, big, draggable) {
  const { svg, d } = state;
  const g = el("g", { transform: `translate(${x0},${y0})` }, svg);
  const size = 320, left = 70, top = 45, lim = d.limit, unit = size / (2 * lim);
  const toX = (x) => left + (x + lim) * unit, toY = (y) => top + (lim - y) * unit;
  el("text", { x: 8, y: 24, "font-size": 17 * big, "font-weight": 600, fill: INK }, g, title);
  for (let t = -lim; t <= lim; t += 1) {
    el("line", { x1: toX(t), x2: toX(t), y1: toY(-lim), y2: toY(lim), stroke: GRIDLINE }, g);
    el("line", { y1: toY(t), y2: toY(t), x1: toX(-lim), x2: toX(lim), stroke: GRIDLINE }, g);
    el("text", { x: toX(t), y: toY(-lim) + 16 * big, "font-size": 12 * big, fill: FAINT, "text-anchor": "middle" }, g, num(t).replace(".00", ""));
    el("text", { x: toX(-lim) - 6, y: toY(t) + 4, "font-size": 12 * big, fill: FAINT, "text-anchor": "end" }, g, num(t).replace(".00", ""));
  }
  el("line", { x1: toX(0), x2: toX(0), y1: toY(-lim), y2: toY(lim), stroke: "#9ca3af" }, g);
  el("line", { y1: toY(0), y2: toY(0), x1: toX(-lim), x2: toX(lim), stroke: "#9ca3af" }, g);
  el("text", { x: toX(0), y: toY(-lim) + 34 * big, "font-size": 14 * big, fill: INK, "text-anchor": "middle" }, g, axes[0] + " →");
  el("text", { x: 0, y: 0, transform: `translate(${toX(-lim) - 34 * big - 8},${toY(0)}) rotate(-90)`, "font-size": 14 * big,
               fill: INK, "text-anchor": "middle" }, g, axes[1] + " →");
  const arrows = el("g", {}, g);
  const part = { g, arrows, toX, toY, unit, lim, right: toX(lim) + 18, left: 4 };
  if (draggable) {
    const pad = el("rect", { x: toX(-lim), y: toY(lim), width: size, height: size, fill: "transparent", class: "bh-pad" }, g);
    const handle = el("g", { tabindex: 0, role: "button", "aria-roledescription": d.text.handleRole, class: "bh-handle" }, g);
    part.handle = handle;
    part.queryLine = el("g", {}, g);
    g.appendChild(handle);
    const moveTo = (e) => {
      const m = svg.getScreenCTM().inverse();
      const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m);
      const snap = (v) => Math.max(-lim, Math.min(lim, Math.round(v / d.grid) * d.grid));
      state.q = [snap((p.x - x0 - left) / unit - lim), snap(lim - (p.y - y0 - top) / unit)];
      update(state, e);
    };
    for (const target of [pad, handle]) {
      target.addEventListener("pointerdown", (e) => { e.preventDefault(); target.setPointerCapture(e.pointerId); state.dragging = true; handle.focus(); moveTo(e); });
      target.addEventListener("pointermove", (e) => { if (state.dragging) moveTo(e); });
      target.addEventListener("pointerup", () => { state.dragging = false; });
    }
    handle.addEventListener("keydown", (e) => {
      const step = (e.shiftKey ? 10 : 2) * d.grid;
      const move = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] }[e.key];
      if (!move) return;
      e.preventDefault();
      const clamp = (v) => Math.max(-lim, Math.min(lim, Math.round(v / d.grid) * d.grid));
      state.q = [clamp(state.q[0] + move[0]), clamp(state.q[1] + move[1])];
      update(state, e);
    });
  }
  return part;
}

function arrow(parent, part, from, to, colour, width, label, opacity) {
  const [x1, y1, x2, y2] = [part.toX(from[0]), part.toY(from[1]), part.toX(to[0]), part.toY(to[1])];
  const len = Math.hypot(x2 - x1, y2 - y1);
  const g = el("g", {}, parent);
  const line = el("g", { opacity: opacity ?? 1 }, g);
  if (len > 1) {
    const ux = (x2 - x1) / len, uy = (y2 - y1) / len, head = Math.min(14, len * 0.6);
    el("line", { x1, y1, x2: x2 - ux * head * 0.8, y2: y2 - uy * head * 0.8, stroke: colour, "stroke-width": width, "stroke-linecap": "round" }, line);
    el("polygon", { points: `${x2},${y2} ${x2 - ux * head - uy * head * 0.5},${y2 - uy * head + ux * head * 0.5} ${x2 - ux * head + uy * head * 0.5},${y2 - uy * head - ux * head * 0.5}`, fill: colour }, line);
  }
  if (label) {
    // Beside the tip, on the side the arrow points to, unless that would leave the plane: then under or over it.
    const wide = 0.64 * label.size * label.text.length;  // bold text, a little wider than it is on average
    let right = x2 >= x1, dy = y2 > y1 ? 16 : -6;
    if (right && x2 + 6 + wide > part.right) { right = false; dy = y2 > y1 ? 24 : -14; }
    else if (!right && x2 - 6 - wide < part.left) { right = true; dy = y2 > y1 ? 24 : -14; }
    el("text", { x: x2 + (right ? 6 : -6), y: y2 + dy, "text-anchor": right ? "start" : "end", fill: colour,
                 "font-size": label.size, "font-weight": 600, stroke: "#ffffff", "stroke-width": 4, "paint-order": "stroke" }, g, label.text);
  }
  return g;
}

function update(state, event) {
  const { d, parts, big, rowH } = state;
  const q = state.q, n = attend(q, d.keys, d.values, state.divisor);
  const size = 15 * big;
  // The keys, the query and its handle.
  const k = parts.keys;
  k.arrows.replaceChildren();
  d.keys.forEach((key, i) => arrow(k.arrows, k, [0, 0], key, COLOURS[i], 3, { text: d.words[i], size }));
  k.queryLine.replaceChildren();
  const t = d.text, at = { x: num(q[0]), y: num(q[1]) };
  arrow(k.queryLine, k, [0, 0], q, QUERY, 5, { text: fill(t.queryArrow, at), size });
  k.handle.replaceChildren();
  el("circle", { cx: k.toX(q[0]), cy: k.toY(q[1]), r: 13, fill: QUERY, "fill-opacity": 0.25, stroke: QUERY, "stroke-width": 2 }, k.handle);
  k.handle.setAttribute("aria-label", fill(t.handleLabel, at));
  // The values, each as strong as its weight, and the output they mix to.
  const v = parts.values;
  v.arrows.replaceChildren();
  d.values.forEach((value, i) => arrow(v.arrows, v, [0, 0], value, COLOURS[i], 2 + 5 * n.weights[i],
                                        { text: `${d.words[i]} ${pct(n.weights[i])}`, size }, 0.3 + 0.7 * n.weights[i]));
  const out = { x: num(n.output[0]), y: num(n.output[1]) };
  arrow(v.arrows, v, [0, 0], n.output, OUTPUT, 5, { text: fill(t.outputArrow, out), size });
  // Scores, scaled scores and weights as bars.
  const b = parts.bars;
  b.replaceChildren();
  const col = { score: 150, scaled: 235, bar: 250, barW: 100 };
  el("text", { x: 8, y: 24, "font-size": 17 * big, "font-weight": 600, fill: INK }, b, t.barsTitle);
  const head = { "font-size": 13 * big, fill: FAINT, "text-anchor": "end" };
  el("text", { ...head, x: col.score, y: 62 }, b, t.barsScore);
  el("text", { ...head, x: col.scaled, y: 62 }, b, `÷ ${state.divisor.toFixed(2)}`);
  el("text", { ...head, x: col.bar + col.barW + 48, y: 62 }, b, t.barsWeight);
  d.words.forEach((word, i) => {
    const y = 95 + i * rowH;
    el("text", { x: 8, y, "font-size": size, "font-weight": 600, fill: COLOURS[i] }, b, word);
    el("text", { x: col.score, y, "font-size": size, fill: INK, "text-anchor": "end" }, b, num(n.scores[i]));
    el("text", { x: col.scaled, y, "font-size": size, fill: INK, "text-anchor": "end" }, b, num(n.scaled[i]));
    el("rect", { x: col.bar, y: y - 14, width: col.barW, height: 18, fill: "#f3f4f6" }, b);
    el("rect", { x: col.bar, y: y - 14, width: col.barW * n.weights[i], height: 18, fill: COLOURS[i] }, b);
    el("text", { x: col.bar + col.barW + 48, y, "font-size": size, fill: INK, "text-anchor": "end", "font-weight": 600 }, b, pct(n.weights[i]));
  });
  el("text", { x: 8, y: 95 + d.words.length * rowH, "font-size": 13 * big, fill: FAINT }, b, t.barsTotal);
  // How a score is made, with the top word's own numbers: the query's and the key's numbers pair by pair, added.
  const top = n.weights.indexOf(Math.max(...n.weights));
  const signed = (x) => (x < 0 ? `(${num(x)})` : num(x));
  const rule = { a: d.words[top], qx: signed(q[0]), qy: signed(q[1]), kx: signed(d.keys[top][0]),
                 ky: signed(d.keys[top][1]), score: num(n.scores[top]) };
  el("text", { x: 8, y: 95 + d.words.length * rowH + 26 * big, "font-size": 13 * big, fill: INK }, b, t.barsRule);
  el("text", { x: 8, y: 95 + d.words.length * rowH + 48 * big, "font-size": 13 * big, fill: INK }, b,
     fill(t.barsRuleNumbers, rule));
  // The numbers as text: the table at once, the spoken summary once the query rests.
  const values = { score: n.scores, scaled: n.scaled, weight: n.weights };
  state.details.querySelectorAll("td").forEach((td) => {
    const x = values[td.dataset.kind][Number(td.dataset.i)];
    td.dataset.value = x;
    td.textContent = td.dataset.kind === "weight" ? pct(x) : num(x);
  });
  const said = story(d, n, q);
  const line = state.details.querySelector(".bh-out");
  line.textContent = fill(t.outputLine, out);
  line.dataset.x = n.output[0]; line.dataset.y = n.output[1];
  state.root.dataset.q = JSON.stringify(q);
  state.root.dataset.divisor = state.divisor;
  state.root.querySelector(".bh-divisor").value = state.divisor;
  state.root.querySelector(".bh-divisor-out").textContent = state.divisor.toFixed(2);
  state.live.dataset.story = said.text;
  clearTimeout(state.timer);
  state.timer = setTimeout(() => { state.live.textContent = `${said.text} ${said.full}`; }, event ? 250 : 0);
  if (event) {
    // Drag to redraw, as a visitor sees it: from the event to the frame after the new drawing was put in.
    const start = event.timeStamp;
    requestAnimationFrame(() => setTimeout(() => {
      state.redraws.push(performance.now() - start);
      state.root.dataset.redraws = JSON.stringify(state.redraws.slice(-200));
    }, 0));
  }
}

function save(state, kind) {
  const clone = state.svg.cloneNode(true);
  clone.querySelectorAll("[tabindex]").forEach((node) => node.removeAttribute("tabindex"));
  const text = new XMLSerializer().serializeToString(clone);
  const name = `${state.d.filename}.${kind}`;
  const fetchless = (href) => {
    const a = document.createElement("a");
    a.href = href; a.download = name; document.body.appendChild(a); a.click(); a.remove();
  };
  if (kind === "svg") {
    const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    fetchless(url);
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    return;
  }
  const image = new Image();
  image.onload = () => {
    const canvas = document.createElement("canvas");
    const w = Number(clone.getAttribute("width")), h = Number(clone.getAttribute("height"));
    canvas.width = 2 * w; canvas.height = 2 * h;
    const context = canvas.getContext("2d");
    context.scale(2, 2);
    context.drawImage(image, 0, 0, w, h);
    fetchless(canvas.toDataURL("image/png"));
  };
  image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
}

export default function (component) {
  const { data, parentElement } = component;
  const key = JSON.stringify(data);
  if (!parentElement.__byHand || parentElement.__byHand.key !== key) {
    if (parentElement.__byHand) parentElement.__byHand.observer.disconnect();
    parentElement.__byHand = build(parentElement, data);
    parentElement.__byHand.key = key;
  }
  return () => {};
}
