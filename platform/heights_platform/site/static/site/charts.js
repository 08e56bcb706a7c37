// Line charts of ratings, drawn from JSON the page embeds (charts.py): no requests.
// Each <svg data-chart="ID"> is drawn from <script id="ID" type="application/json">.
"use strict";

(function () {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const PALETTE = ["#d1495b", "#2e6fd8", "#2a9d55", "#d99a00", "#7b3fb0", "#0f9bb0",
    "#c2188f", "#6b7a1f", "#8b5a2b", "#444"];
  const W = 900;
  const H = 320;
  // The y axis' title stands turned along the left edge, left of the tick labels, and
  // the x axis' title sits below the tick labels: no two labels share a place.
  const PAD = { left: 72, right: 16, top: 14, bottom: 44 };
  const FONT = 12;

  function svg(tag, attrs, ...children) {
    const n = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") n.textContent = v;
      else n.setAttribute(k, v);
    }
    n.append(...children);
    return n;
  }

  function niceTicks(lo, hi, count) {
    const span = hi - lo || 1;
    const raw = span / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= count) || mag * 10;
    const ticks = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) ticks.push(t);
    return ticks;
  }

  function label(attrs) {
    return svg("text", { "font-size": FONT, fill: "#5b6270", class: "label", ...attrs });
  }

  function axes(target, sx, sy, x0, x1, y0, y1, chart) {
    for (const t of niceTicks(y0, y1, 6)) {
      target.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: sy(t), y2: sy(t),
        stroke: "#e5e3dc" }));
      target.append(label({ x: PAD.left - 6, y: sy(t) + 4, "text-anchor": "end",
        text: String(Math.round(t * 100) / 100) }));
    }
    const xStep = Math.max(1, Math.ceil((x1 - x0) / 12)); // matches are whole numbers
    for (let t = Math.ceil(x0); t <= x1; t += xStep) {
      target.append(label({ x: sx(t), y: H - PAD.bottom + 16, "text-anchor": "middle",
        text: String(t) }));
    }
    target.append(label({ x: (PAD.left + W - PAD.right) / 2, y: H - 6, "text-anchor": "middle",
      text: chart.x_label }));
    const midY = (PAD.top + H - PAD.bottom) / 2;
    target.append(label({ x: 14, y: midY, "text-anchor": "middle",
      transform: `rotate(-90 14 ${midY})`, text: chart.y_label }));
  }

  function draw(target, chart) {
    const series = chart.series.map((s, i) => ({ ...s, colour: PALETTE[i % PALETTE.length] }));
    const xs = series.flatMap((s) => s.points.map((p) => p[0]));
    const ys = series.flatMap((s) => [...s.points.map((p) => p[1]),
      ...(s.band || []).flatMap((b) => [b[1], b[2]])]);
    target.setAttribute("viewBox", `0 0 ${W} ${H}`);
    target.replaceChildren();
    if (xs.length === 0) {
      target.append(label({ x: W / 2, y: H / 2, "text-anchor": "middle",
        text: "No rated matches yet" }));
      return series;
    }
    const [x0, x1] = [Math.min(...xs), Math.max(...xs, Math.min(...xs) + 1)];
    let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    const pad = Math.max((y1 - y0) * 0.08, 1);
    [y0, y1] = [y0 - pad, y1 + pad];
    const sx = (x) => PAD.left + ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
    const sy = (y) => H - PAD.bottom - ((y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
    axes(target, sx, sy, x0, x1, y0, y1, chart);
    for (const s of series) {
      if (s.band && s.band.length) {
        const upper = s.band.map((b) => `${sx(b[0])},${sy(b[2])}`);
        const lower = s.band.map((b) => `${sx(b[0])},${sy(b[1])}`).reverse();
        target.append(svg("polygon", { points: [...upper, ...lower].join(" "), fill: s.colour,
          "fill-opacity": 0.15, stroke: "none", class: "band" }));
      }
      const pts = s.points.map((p) => `${sx(p[0])},${sy(p[1])}`).join(" ");
      target.append(svg("polyline", { points: pts, fill: "none", stroke: s.colour,
        "stroke-width": 2, class: "series" }, svg("title", { text: s.label })));
      for (const p of s.points) {
        target.append(svg("circle", { cx: sx(p[0]), cy: sy(p[1]), r: 2.5, fill: s.colour },
          svg("title", { text: `${s.label}: ${p[1].toFixed(1)} after match ${p[0]}` })));
      }
    }
    return series;
  }

  for (const target of document.querySelectorAll("svg[data-chart]")) {
    const id = target.dataset.chart;
    const data = document.getElementById(id);
    if (!data) continue;
    const series = draw(target, JSON.parse(data.textContent));
    const legend = document.querySelector(`[data-legend="${id}"]`);
    if (legend) {
      legend.replaceChildren(...series.map((s) => {
        const item = document.createElement("span");
        const swatch = document.createElement("i");
        swatch.style.background = s.colour;
        item.append(swatch, s.label);
        return item;
      }));
    }
    target.dataset.drawn = "true";
  }
})();
