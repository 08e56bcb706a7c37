// Rolling Heights replay viewer: reads only the public replay API, draws with SVG.
// Plain JS, no dependencies, no build step.
"use strict";

(function () {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const ROWS = "ABCDEFGH";
  const COLS = 15;
  const BOARD_ROWS = 4;
  const BOARD_COLS = 5;
  const CELL = 56;
  const MARGIN = 22;
  const SEAT_COLOURS = ["#d1495b", "#2e6fd8", "#2a9d55", "#d99a00"];
  const NEIGHBORHOOD_COLOURS = [
    "#efe2c4", "#d5e8c6", "#f2d6d2", "#d6def2", "#e6dbf0", "#d3ebe7", "#f0e9c0", "#e4e4e4",
  ];
  const WATER = "#a9cfe8";
  const CUBE_COLOURS = { wood: "#a0703c", concrete: "#8d949c", glass: "#7fd3e6", steel: "#3b5a85" };
  const MEEPLE_COLOURS = {
    brown: "#8b5a2b", navy: "#1f2f5c", clear: "#e9f4f8", blue: "#2f7de1", yellow: "#f2c531",
    magenta: "#c2188f", purple: "#7b3fb0", black: "#222", green: "#2f9a45",
  };
  const ZONING_LETTERS = { RESIDENTIAL: "R", PARK: "P", COMMERCIAL: "C", CIVIC: "V", INDUSTRY: "I" };
  const PLAY_INTERVAL_MS = 400;
  const SLIDER_DEBOUNCE_MS = 120; // dragging asks for the step it settles on, not every one

  const root = document.getElementById("replay-viewer");
  const $ = (id) => document.getElementById(id);
  const state = {
    meta: null, steps: 0, step: 0, shown: -1, cache: new Map(), timer: null, seq: 0, drag: null,
  };

  // --- small DOM helpers ------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttrs(node, attrs);
    node.append(...children.filter((c) => c !== null && c !== undefined));
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    setAttrs(node, attrs);
    node.append(...children.filter((c) => c !== null && c !== undefined));
    return node;
  }

  function setAttrs(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "style") node.style.cssText = value;
      else node.setAttribute(key, value);
    }
  }

  function setStatus(message, isError) {
    const status = $("status");
    status.textContent = message || "";
    status.classList.toggle("error", Boolean(isError));
  }

  function seatColour(seat) {
    return SEAT_COLOURS[seat % SEAT_COLOURS.length];
  }

  function seatName(seat) {
    const info = state.meta && state.meta.seats.find((s) => s.seat === seat);
    return info ? info.name : `seat ${seat}`;
  }

  // --- API --------------------------------------------------------------------------------

  async function getJson(url) {
    let response;
    try {
      response = await fetch(url, { headers: { Accept: "application/json" } });
    } catch (err) {
      throw new Error(`network error: ${err.message}`);
    }
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

  function fetchStep(step) {
    if (!state.cache.has(step)) {
      const url = `${root.dataset.replayUrl}steps/${step}/`;
      const pending = getJson(url).catch((err) => {
        state.cache.delete(step);
        throw err;
      });
      state.cache.set(step, pending);
    }
    return state.cache.get(step);
  }

  // --- navigation -------------------------------------------------------------------------

  function showPosition(step) {
    step = Math.max(0, Math.min(state.steps, step));
    state.step = step;
    $("slider").value = String(step);
    $("step-label").textContent = `Step ${step} / ${state.steps}`;
    return step;
  }

  async function goTo(step) {
    clearTimeout(state.drag);
    step = showPosition(step);
    const seq = ++state.seq;
    try {
      const data = await fetchStep(step);
      if (seq !== state.seq) return; // a later request superseded this one
      render(data);
      setStatus("");
      history.replaceState(null, "", `#step=${step}`);
      if (step < state.steps) fetchStep(step + 1).catch(() => {}); // warm the next one
    } catch (err) {
      if (seq !== state.seq) return;
      stopPlaying();
      setStatus(`Could not load step ${step}: ${err.message}`, true);
    }
  }

  function togglePlay() {
    if (state.timer !== null) {
      stopPlaying();
      return;
    }
    if (state.step >= state.steps) goTo(0);
    $("play").textContent = "⏸ Pause";
    state.timer = setInterval(() => {
      if (state.step >= state.steps) stopPlaying();
      else if (state.shown === state.step) goTo(state.step + 1);
    }, PLAY_INTERVAL_MS);
  }

  function stopPlaying() {
    if (state.timer !== null) clearInterval(state.timer);
    state.timer = null;
    $("play").textContent = "▶ Play";
  }

  function bindControls() {
    $("first").addEventListener("click", () => goTo(0));
    $("prev").addEventListener("click", () => goTo(state.step - 1));
    $("next").addEventListener("click", () => goTo(state.step + 1));
    $("last").addEventListener("click", () => goTo(state.steps));
    $("play").addEventListener("click", togglePlay);
    $("slider").addEventListener("input", (e) => {
      const step = showPosition(Number(e.target.value));
      clearTimeout(state.drag);
      state.drag = setTimeout(() => goTo(step), SLIDER_DEBOUNCE_MS);
    });
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement && e.target.type !== "range") return;
      if (e.target instanceof HTMLButtonElement && (e.key === " " || e.key === "Enter")) return;
      const moves = { ArrowLeft: -1, ArrowRight: 1 };
      if (e.key in moves) goTo(state.step + moves[e.key]);
      else if (e.key === "Home") goTo(0);
      else if (e.key === "End") goTo(state.steps);
      else if (e.key === " ") togglePlay();
      else return;
      e.preventDefault();
    });
  }

  // --- metadata ---------------------------------------------------------------------------

  function renderMeta(meta) {
    const parts = [meta.kind];
    if (meta.ladder) parts.push(`ladder ${meta.ladder}`);
    if (meta.tournament) parts.push(`tournament ${meta.tournament}`);
    parts.push(`${meta.steps} steps`, `seed ${meta.seed}`);
    parts.push(new Date(meta.created_at).toLocaleString());
    $("match-info").textContent = parts.join(" · ");
    const seats = $("seats");
    seats.replaceChildren();
    for (const seat of [...meta.seats].sort((a, b) => a.seat - b.seat)) {
      const rank = seat.rank === null ? "unranked" : `rank ${seat.rank}`;
      const score = seat.score === null ? "" : `, ${seat.score} VP`;
      const forfeit = seat.forfeit ? ` — forfeit: ${seat.forfeit.reason}` : "";
      seats.append(el("li", { style: `--c: ${seatColour(seat.seat)}` },
        el("b", { text: `Seat ${seat.seat}: ${seat.name}` }), ` (${rank}${score})${forfeit}`));
    }
  }

  // --- one step ---------------------------------------------------------------------------

  function render(data) {
    const obs = data.observation;
    state.shown = data.step;
    const round = obs.final_round ? `${obs.round} of ${obs.final_round}` : String(obs.round);
    $("game-info").textContent =
      `Phase ${obs.phase} · round ${round} · turn: ${seatName(obs.turn_seat)} · ` +
      `boards ${obs.map.boards.join(" ")} · draw piles ${obs.draw_piles.join(" / ")}`;
    renderBoard(obs.map);
    renderAction(data);
    renderMarkets(obs.markets);
    renderPlayers(obs);
    root.dataset.shown = String(data.step); // for tests and for anyone scripting the page
  }

  function renderAction(data) {
    const action = $("action");
    action.replaceChildren();
    if (data.action === null) {
      action.append(el("b", { text: "Game over" }), " — final state");
    } else {
      const actor = data.action.actor;
      const who = actor === "chance" ? "chance" : seatName(actor);
      const colour = actor === "chance" ? "#555" : seatColour(actor);
      action.append(el("b", { text: who, style: `--c: ${colour}` }), ": ",
        el("code", { text: data.action.text }));
    }
    $("decision").textContent = data.observation.decision || "";
    const events = $("events");
    events.replaceChildren();
    if (data.events.length === 0) events.append(el("li", { class: "none", text: "no events" }));
    for (const event of data.events) {
      const details = Object.entries(event.data).map(([k, v]) => `${k}=${formatValue(v)}`);
      const who = event.player >= 0 ? `${seatName(event.player)}: ` : "";
      events.append(el("li", { text: `${who}${event.kind} ${details.join(" ")}` }));
    }
  }

  function formatValue(value) {
    return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
  }

  // --- the map ----------------------------------------------------------------------------

  function renderBoard(map) {
    const board = $("board");
    const width = MARGIN + COLS * CELL + 4;
    const height = MARGIN + ROWS.length * CELL + 4;
    board.setAttribute("viewBox", `0 0 ${width} ${height}`);
    const land = new Map(map.land.map((cell) => [cell.space, cell]));
    const layer = svg("g", {});
    for (let c = 0; c < COLS; c++) {
      layer.append(svg("text", { x: MARGIN + (c + 0.5) * CELL, y: 15, class: "axis",
        "text-anchor": "middle", "font-size": 12, fill: "#667", text: String(c + 1) }));
    }
    for (let r = 0; r < ROWS.length; r++) {
      layer.append(svg("text", { x: 8, y: MARGIN + (r + 0.5) * CELL + 4, "text-anchor": "middle",
        "font-size": 12, fill: "#667", text: ROWS[r] }));
      for (let c = 0; c < COLS; c++) {
        const name = `${ROWS[r]}${c + 1}`;
        const cell = land.get(name);
        layer.append(cell ? landCell(cell, r, c) : waterCell(name, r, c));
      }
    }
    for (let c = 0; c <= COLS; c += BOARD_COLS) { // seams between the six board sides
      const x = MARGIN + c * CELL;
      layer.append(svg("line", { x1: x, x2: x, y1: MARGIN, y2: MARGIN + ROWS.length * CELL,
        stroke: "#4a4a4a", "stroke-width": 2 }));
    }
    for (let r = 0; r <= ROWS.length; r += BOARD_ROWS) {
      const y = MARGIN + r * CELL;
      layer.append(svg("line", { x1: MARGIN, x2: MARGIN + COLS * CELL, y1: y, y2: y,
        stroke: "#4a4a4a", "stroke-width": 2 }));
    }
    board.replaceChildren(layer);
  }

  function waterCell(name, r, c) {
    return svg("rect", { x: MARGIN + c * CELL, y: MARGIN + r * CELL, width: CELL, height: CELL,
      fill: WATER, stroke: "#8fbcd9", "stroke-width": 0.5, class: "water", "data-space": name },
      svg("title", { text: `${name}: water` }));
  }

  function landCell(cell, r, c) {
    const x = MARGIN + c * CELL;
    const y = MARGIN + r * CELL;
    const colour = NEIGHBORHOOD_COLOURS[cell.neighborhood % NEIGHBORHOOD_COLOURS.length];
    const tip = [`${cell.space}: neighborhood ${cell.neighborhood}`];
    const group = svg("g", { class: "cell", "data-space": cell.space });
    group.append(svg("rect", { x, y, width: CELL, height: CELL, fill: colour, stroke: "#b3ab98",
      "stroke-width": 0.7 }));
    group.append(svg("text", { x: x + 3, y: y + 10, "font-size": 8.5, fill: "#8a826f",
      text: cell.space }));
    if (cell.prime) {
      tip.push(`prime ${cell.prime}`);
      group.append(svg("path", { d: star(x + CELL - 9, y + 9, 6.5, 2.8), fill: "#f2b705",
        stroke: "#9a7300", "stroke-width": 0.6, class: "prime" }));
      group.append(svg("text", { x: x + CELL - 9, y: y + 11.5, "font-size": 7, "font-weight": 700,
        "text-anchor": "middle", fill: "#4a3800", text: String(cell.prime) }));
    }
    if (cell.zoning) {
      const letters = cell.zoning.types.map((t) => ZONING_LETTERS[t] || t[0]).join("");
      tip.push(`zoning ${cell.zoning.types.join("/")} +${cell.zoning.vp} VP`);
      group.append(svg("text", { x: x + 3, y: y + CELL - 3, "font-size": 9, "font-weight": 600,
        fill: "#5d5540", class: "zoning", text: `${letters}+${cell.zoning.vp}` }));
    }
    if (cell.building) {
      group.append(buildingMark(cell.building, x, y));
      const b = cell.building;
      tip.push(`${b.tile} (${seatName(b.owner)}), stacks ${b.fill.join("/")}` +
        (b.complete ? ", complete" : ""));
    }
    group.append(svg("title", { text: tip.join("\n") }));
    return group;
  }

  function buildingMark(building, x, y) {
    const colour = seatColour(building.owner);
    const g = svg("g", { class: "building", "data-owner": building.owner });
    const inset = 10;
    const w = CELL - 2 * inset;
    g.append(svg("rect", { x: x + inset, y: y + 12, width: w, height: CELL - 26, rx: 3,
      fill: colour, "fill-opacity": building.complete ? 0.95 : 0.55, stroke: colour,
      "stroke-width": 1.5 }));
    const stacks = building.fill.length;
    const slot = w / Math.max(stacks, 1);
    building.fill.forEach((cubes, i) => { // one bar per stack, one notch per cube
      const barH = Math.min(cubes * 4, CELL - 42);
      if (barH > 0) {
        g.append(svg("rect", { x: x + inset + i * slot + slot * 0.2, y: y + CELL - 16 - barH,
          width: slot * 0.6, height: barH, fill: "#fff", "fill-opacity": 0.85 }));
      }
    });
    g.append(svg("text", { x: x + CELL / 2, y: y + 22, "text-anchor": "middle", "font-size": 8,
      "font-weight": 700, fill: "#fff", text: initials(building.tile) }));
    if (building.complete) {
      g.append(svg("circle", { cx: x + inset + w, cy: y + 12, r: 6, fill: "#fff",
        stroke: colour, "stroke-width": 1.5, class: "complete" }));
      g.append(svg("path", { d: `M${x + inset + w - 3},${y + 12} l2,2.5 l4,-5`, fill: "none",
        stroke: colour, "stroke-width": 1.8 }));
    }
    return g;
  }

  function initials(tile) {
    return tile.split("-").filter((w) => w.length > 2 || tile.indexOf("-") < 0)
      .map((w) => w[0].toUpperCase()).join("").slice(0, 4);
  }

  function star(cx, cy, outer, inner) {
    const points = [];
    for (let i = 0; i < 10; i++) {
      const radius = i % 2 ? inner : outer;
      const angle = (Math.PI / 5) * i - Math.PI / 2;
      points.push(`${(cx + radius * Math.cos(angle)).toFixed(1)},` +
        `${(cy + radius * Math.sin(angle)).toFixed(1)}`);
    }
    return `M${points.join("L")}Z`;
  }

  function renderLegend() {
    const legend = $("legend");
    legend.replaceChildren();
    for (const seat of state.meta.seats) {
      legend.append(el("span", {}, el("i", { style: `background:${seatColour(seat.seat)}` }),
        seat.name));
    }
    legend.append(el("span", {}, el("i", { style: `background:${WATER}` }), "water"),
      el("span", { text: "★ prime (value)" }),
      el("span", { text: "R/P/C/V/I+n zoning" }),
      el("span", { text: "white bars: cubes per stack · ✓ complete" }));
  }

  // --- markets and players ----------------------------------------------------------------

  function renderMarkets(markets) {
    const box = $("markets");
    box.replaceChildren();
    markets.forEach((row, level) => {
      const table = el("table", {}, el("caption", { text: `Level ${level + 1}` }),
        el("tr", {}, el("th", { text: "#" }), el("th", { text: "tile" }),
          el("th", { class: "num", text: "cost" }), el("th", { class: "num", text: "wild" })));
      for (const slot of row) {
        table.append(el("tr", {}, el("td", { text: String(slot.position) }),
          el("td", { text: slot.tile || "—" }), el("td", { class: "num", text: String(slot.cost) }),
          el("td", { class: "num", text: slot.wild_tokens ? String(slot.wild_tokens) : "" })));
      }
      box.append(table);
    });
  }

  function renderPlayers(obs) {
    const box = $("players");
    box.replaceChildren();
    for (const p of obs.players) {
      const colour = seatColour(p.player);
      const categories = Object.entries(p.score_by_category).filter(([, v]) => v !== 0)
        .map(([k, v]) => chip(`${k.toLowerCase().replace("_", " ")} ${v}`));
      const rows = [
        ["score", categories.length ? categories : "—"],
        ["cubes", cubeChips(p.cubes)],
        ["misc cubes", cubeChips(p.misc_cubes)],
        ["meeples", meepleChips(p.meeples)],
        ["wild tokens", String(p.wild_tokens)],
        [`tiles (${p.tiles.length})`, p.tiles.length ? p.tiles.map((t) => chip(t)) : "—"],
      ];
      if (p.chosen_target) rows.push(["target", p.chosen_target]);
      if (p.targets) rows.push(["targets", p.targets.join(", ")]);
      const dl = el("dl", {});
      for (const [label, value] of rows) {
        dl.append(el("dt", { text: label }), el("dd", {}, ...[].concat(value)));
      }
      const title = `Seat ${p.player}: ${seatName(p.player)}${p.mayor ? " (Mayor)" : ""}`;
      const turn = obs.to_move === p.player;
      box.append(el("article", { class: `player${turn ? " turn" : ""}`, style: `--c: ${colour}`,
        "data-seat": p.player },
        el("h3", {}, el("span", { text: turn ? `${title} ◀ to move` : title }),
          el("span", { class: "score", text: `${p.score} VP` })), dl));
    }
  }

  function chip(text, swatch) {
    const node = el("span", { class: "chip" });
    if (swatch) node.append(el("span", { class: "swatch", style: `background:${swatch}` }));
    node.append(text);
    return node;
  }

  function cubeChips(cubes) {
    const chips = Object.entries(cubes).filter(([, n]) => n > 0)
      .map(([colour, n]) => chip(`${colour} ${n}`, CUBE_COLOURS[colour]));
    return chips.length ? chips : "—";
  }

  function meepleChips(meeples) {
    const chips = Object.entries(meeples).map(([colour, buckets]) => {
      const where = Object.entries(buckets).map(([bucket, n]) => `${n} ${bucket}`).join(", ");
      return chip(`${colour}: ${where}`, MEEPLE_COLOURS[colour]);
    });
    return chips.length ? chips : "—";
  }

  // --- start ------------------------------------------------------------------------------

  async function start() {
    bindControls();
    setStatus(`Loading replay ${root.dataset.replayId}…`);
    try {
      state.meta = await getJson(root.dataset.replayUrl);
    } catch (err) {
      setStatus(`Could not load replay ${root.dataset.replayId}: ${err.message}`, true);
      root.classList.add("failed");
      return;
    }
    state.steps = state.meta.steps;
    $("slider").max = String(state.steps);
    renderMeta(state.meta);
    renderLegend();
    const match = /step=(\d+)/.exec(location.hash);
    await goTo(match ? Number(match[1]) : 0);
  }

  start();
})();
