// Rating-history charts of a ladder and of one bot: reads only the public ladder API.
"use strict";

(function () {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const PALETTE = ["#d1495b", "#2e6fd8", "#2a9d55", "#d99a00", "#7b3fb0", "#0f9bb0",
    "#c2188f", "#6b7a1f", "#8b5a2b", "#444"];
  const MAX_BOTS_CHARTED = 10;
  const W = 900;
  const H = 320;
  const PAD = { left: 56, right: 16, top: 14, bottom: 34 };

  const root = document.querySelector("[data-page]");
  const $ = (id) => document.getElementById(id);

  function node(ns, tag, attrs, ...children) {
    const n = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") n.textContent = v;
      else n.setAttribute(k, v);
    }
    n.append(...children);
    return n;
  }
  const el = (tag, attrs, ...c) => node(null, tag, attrs, ...c);
  const svg = (tag, attrs, ...c) => node(SVG_NS, tag, attrs, ...c);

  function setStatus(message, isError) {
    $("status").textContent = message || "";
    $("status").classList.toggle("error", Boolean(isError));
  }

  async function getJson(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    let body = null;
    try {
      body = await response.json();
    } catch (err) {
      body = null;
    }
    if (!response.ok) {
      const detail = body && body.message ? `${body.message} (${body.code})` : response.statusText;
      throw new Error(`HTTP ${response.status}: ${detail}`);
    }
    return body;
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

  // series: [{label, colour, points: [[x, y]], band: [[x, lo, hi]] | undefined}]
  function lineChart(target, series, yLabel) {
    const xs = series.flatMap((s) => s.points.map((p) => p[0]));
    const ys = series.flatMap((s) => [...s.points.map((p) => p[1]),
      ...(s.band || []).flatMap((b) => [b[1], b[2]])]);
    target.setAttribute("viewBox", `0 0 ${W} ${H}`);
    target.replaceChildren();
    if (xs.length === 0) {
      target.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle", fill: "#667",
        text: "No rated matches yet" }));
      return;
    }
    const [x0, x1] = [Math.min(...xs), Math.max(...xs, Math.min(...xs) + 1)];
    let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    const pad = Math.max((y1 - y0) * 0.08, 1);
    [y0, y1] = [y0 - pad, y1 + pad];
    const sx = (x) => PAD.left + ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
    const sy = (y) => H - PAD.bottom - ((y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
    for (const t of niceTicks(y0, y1, 6)) {
      target.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: sy(t), y2: sy(t),
        stroke: "#e5e3dc" }));
      target.append(svg("text", { x: PAD.left - 6, y: sy(t) + 4, "text-anchor": "end",
        "font-size": 11, fill: "#667", text: String(Math.round(t * 100) / 100) }));
    }
    const xStep = Math.max(1, Math.ceil((x1 - x0) / 12)); // matches are whole numbers
    for (let t = Math.ceil(x0); t <= x1; t += xStep) {
      target.append(svg("text", { x: sx(t), y: H - PAD.bottom + 16, "text-anchor": "middle",
        "font-size": 11, fill: "#667", text: String(t) }));
    }
    target.append(svg("text", { x: W / 2, y: H - 4, "text-anchor": "middle", "font-size": 11,
      fill: "#667", text: "match" }));
    target.append(svg("text", { x: 12, y: PAD.top + 8, "font-size": 11, fill: "#667",
      text: yLabel }));
    for (const s of series) {
      if (s.band && s.band.length) {
        const upper = s.band.map((b) => `${sx(b[0])},${sy(b[2])}`);
        const lower = s.band.map((b) => `${sx(b[0])},${sy(b[1])}`).reverse();
        target.append(svg("polygon", { points: [...upper, ...lower].join(" "), fill: s.colour,
          "fill-opacity": 0.15, stroke: "none", class: "band" }));
      }
      const pts = s.points.map((p) => `${sx(p[0])},${sy(p[1])}`).join(" ");
      target.append(svg("polyline", { points: pts, fill: "none", stroke: s.colour,
        "stroke-width": 2, class: "series", "data-label": s.label },
        svg("title", { text: s.label })));
      for (const p of s.points) {
        target.append(svg("circle", { cx: sx(p[0]), cy: sy(p[1]), r: 2.5, fill: s.colour },
          svg("title", { text: `${s.label}: ${p[1].toFixed(1)} after match ${p[0]}` })));
      }
    }
  }

  function table(target, headers, rows) {
    target.replaceChildren(el("tr", {}, ...headers.map((h) => el("th", { text: h }))));
    for (const row of rows) {
      target.append(el("tr", {}, ...row.map((cell) =>
        cell instanceof Node ? el("td", {}, cell) : el("td", { text: String(cell) }))));
    }
  }

  async function ladderPage() {
    const base = root.dataset.ladderUrl;
    const [ladder, board] = await Promise.all([getJson(base), getJson(`${base}leaderboard/`)]);
    $("ladder-name").textContent = `${ladder.name} (${ladder.slug}, ${ladder.players} players)`;
    // A provisional entry (too few games to be settled) is marked, as the API says.
    table($("leaderboard"), ["#", "bot", "owner", "Elo", "mu ± 2σ", "games", "win rate"],
      board.map((r) => [r.rank,
        el("a", { href: `bots/${r.bot}/`, text: r.bot_name }), r.owner,
        `${r.elo.toFixed(1)}${r.provisional ? " (provisional)" : ""}`,
        `${r.mu.toFixed(2)} ± ${r.uncertainty.toFixed(2)}`, r.games,
        `${(r.win_rate * 100).toFixed(0)}%`]));
    const charted = board.slice(0, MAX_BOTS_CHARTED);
    const histories = await Promise.all(
      charted.map((r) => getJson(`${base}bots/${r.bot}/history/`)));
    // A shared x axis: the ladder's matches in finishing order, numbered from 1.
    const seqs = [...new Set(histories.flat().map((c) => c.finished_seq))].sort((a, b) => a - b);
    const index = new Map(seqs.map((s, i) => [s, i + 1]));
    const series = charted.map((r, i) => {
      const changes = histories[i];
      const points = changes.length ? [[index.get(changes[0].finished_seq) - 1,
        changes[0].elo_before]] : [];
      for (const c of changes) points.push([index.get(c.finished_seq), c.elo_after]);
      return { label: r.bot_name, colour: PALETTE[i % PALETTE.length], points };
    });
    lineChart($("elo-chart"), series, "Elo");
    $("chart-legend").replaceChildren(...series.map((s) => el("span", {},
      el("i", { style: `background:${s.colour}` }), s.label)));
    if (board.length > MAX_BOTS_CHARTED) {
      setStatus(`Charting the top ${MAX_BOTS_CHARTED} of ${board.length} bots.`);
    }
  }

  async function botPage() {
    const base = root.dataset.ladderUrl;
    const botId = Number(root.dataset.botId);
    const [board, changes] = await Promise.all([getJson(`${base}leaderboard/`),
      getJson(`${base}bots/${botId}/history/`)]);
    const row = board.find((r) => r.bot === botId);
    if (row) $("bot-name").textContent = `${row.bot_name} (${row.owner})`;
    const colour = PALETTE[1];
    const elo = changes.length ? [[0, changes[0].elo_before]] : [];
    const mu = changes.length ? [[0, changes[0].mu_before]] : [];
    const band = changes.length ? [[0, changes[0].mu_before - changes[0].sigma_before,
      changes[0].mu_before + changes[0].sigma_before]] : [];
    changes.forEach((c, i) => {
      elo.push([i + 1, c.elo_after]);
      mu.push([i + 1, c.mu_after]);
      band.push([i + 1, c.mu_after - c.sigma_after, c.mu_after + c.sigma_after]);
    });
    lineChart($("elo-chart"), [{ label: "Elo", colour, points: elo }], "Elo");
    lineChart($("mu-chart"), [{ label: "mu", colour: PALETTE[2], points: mu, band }], "mu ± σ");
    table($("history"), ["#", "match", "rank", "Elo", "mu", "sigma", "when"],
      changes.map((c, i) => [i + 1, c.match.slice(0, 8), c.rank,
        `${c.elo_before.toFixed(1)} → ${c.elo_after.toFixed(1)}`,
        `${c.mu_before.toFixed(2)} → ${c.mu_after.toFixed(2)}`,
        `${c.sigma_before.toFixed(2)} → ${c.sigma_after.toFixed(2)}`,
        new Date(c.created_at).toLocaleString()]));
  }

  async function start() {
    setStatus("Loading…");
    try {
      await (root.dataset.page === "bot" ? botPage() : ladderPage());
      if ($("status").textContent === "Loading…") setStatus("");
    } catch (err) {
      setStatus(`Could not load the ratings: ${err.message}`, true);
    }
  }

  start();
})();
