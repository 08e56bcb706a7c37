// Rolling Heights replay viewer: reads only the public replay API (or the same documents
// inlined in the page by `heights view --html`), draws with SVG.
// Plain JS, no dependencies, no build step.
"use strict";

(function () {
  const CUBE_COLOURS = { wood: "#a0703c", concrete: "#8d949c", glass: "#7fd3e6", steel: "#3b5a85" };
  const MEEPLE_COLOURS = {
    brown: "#8b5a2b", navy: "#1f2f5c", clear: "#e9f4f8", blue: "#2f7de1", yellow: "#f2c531",
    magenta: "#c2188f", purple: "#7b3fb0", black: "#222", green: "#2f9a45",
  };
  const PLAY_INTERVAL_MS = 400;
  const SLIDER_DEBOUNCE_MS = 120; // dragging asks for the step it settles on, not every one

  const seatColour = HeightsBoard.seatColour;
  const root = document.getElementById("replay-viewer");
  const $ = (id) => document.getElementById(id);
  const state = {
    meta: null, steps: 0, step: 0, shown: -1, cache: new Map(), timer: null, seq: 0, drag: null,
    mayor: null,  // a solo game's Mayor's seat, from the observation (it has no bot, no name)
  };

  // --- small DOM helpers ------------------------------------------------------------------

  const el = (tag, attrs, ...children) =>
    HeightsBoard.filled(document.createElement(tag), attrs, children);

  function setStatus(message, isError) {
    const status = $("status");
    status.textContent = message || "";
    status.classList.toggle("error", Boolean(isError));
  }

  function seatInfo(seat) {
    return state.meta ? state.meta.seats.find((s) => s.seat === seat) : undefined;
  }

  function seatName(seat) {
    const info = seatInfo(seat);
    if (info) return info.name;
    return seat === state.mayor ? "the Mayor" : `seat ${seat}`;
  }

  // From its forfeit step on, a seat's moves are the stand-in's, not its bot's.
  function standsIn(seat, step) {
    const info = seatInfo(seat);
    return Boolean(info && info.forfeit && info.forfeit.step !== null && step >= info.forfeit.step);
  }

  function forfeitText(forfeit) {
    const where = forfeit.step === null ? "" : ` at step ${forfeit.step}`;
    const detail = forfeit.detail ? ` (${forfeit.detail})` : "";
    return `forfeited${where}: ${forfeit.reason}${detail}`;
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

  // Where documents come from: the API, or the page itself (gzip, base64) when it was
  // written to be opened from disk with no server.
  function makeSource() {
    const inline = document.getElementById("replay-data");
    if (inline === null) {
      return {
        meta: () => getJson(root.dataset.replayUrl),
        step: (step) => getJson(`${root.dataset.replayUrl}steps/${step}/`),
      };
    }
    const loaded = inflate(inline.textContent.trim());
    return {
      meta: async () => (await loaded).meta,
      step: async (step) => {
        const doc = (await loaded).steps[step];
        if (doc === undefined) throw new Error(`no step ${step} in this page`);
        return doc;
      },
    };
  }

  async function inflate(base64) {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  const source = makeSource();

  function fetchStep(step) {
    if (!state.cache.has(step)) {
      const pending = source.step(step).catch((err) => {
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
    $("step-label").setAttribute("href", `#step=${step}`);
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
      if (location.hash !== `#step=${step}`) history.replaceState(null, "", `#step=${step}`);
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
    // A link to a step followed within the page (or a hash typed in) goes there.
    window.addEventListener("hashchange", () => {
      const step = hashStep();
      if (step !== null && step !== state.step) goTo(step);
    });
  }

  function hashStep() {
    const match = /^#step=(\d+)$/.exec(location.hash);
    return match ? Number(match[1]) : null;
  }

  // --- metadata ---------------------------------------------------------------------------

  function renderMeta(meta) {
    const parts = [meta.kind];
    if (meta.ladder) parts.push(`ladder ${meta.ladder}`);
    if (meta.tournament) parts.push(`tournament ${meta.tournament}`);
    // seed_text: JSON numbers become doubles here, which round seeds above 2**53.
    parts.push(`${meta.steps} steps`, `seed ${meta.seed_text ?? meta.seed}`);
    if (meta.created_at) parts.push(new Date(meta.created_at).toLocaleString());
    $("match-info").textContent = parts.join(" · ");
    const seats = $("seats");
    seats.replaceChildren();
    for (const seat of [...meta.seats].sort((a, b) => a.seat - b.seat)) {
      const rank = seat.rank === null ? "unranked" : `rank ${seat.rank}`;
      const score = seat.score === null ? "" : `, ${seat.score} VP`;
      const forfeit = seat.forfeit ? ` — ${forfeitText(seat.forfeit)}` : "";
      seats.append(el("li", { style: `--c: ${seatColour(seat.seat)}`, "data-seat": seat.seat },
        el("b", { text: `Seat ${seat.seat}: ${seat.name}` }), ` (${rank}${score})${forfeit}`));
    }
  }

  // --- one step ---------------------------------------------------------------------------

  function render(data) {
    const obs = data.observation;
    state.shown = data.step;
    const mayor = obs.players.find((p) => p.mayor);
    if ((mayor ? mayor.player : null) !== state.mayor) {
      state.mayor = mayor ? mayor.player : null;
      renderLegend();
    }
    const round = obs.final_round ? `${obs.round} of ${obs.final_round}` : String(obs.round);
    $("game-info").textContent =
      `Phase ${obs.phase} · round ${round} · turn: ${seatName(obs.turn_seat)} · ` +
      `boards ${obs.map.boards.join(" ")} · draw piles ${obs.draw_piles.join(" / ")}`;
    HeightsBoard.render($("board"), obs.map, seatName);
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
      const standIn = actor !== "chance" && standsIn(actor, data.step);
      let who = actor === "chance" ? "chance" : seatName(actor);
      if (standIn) who = `stand-in for ${who}`;
      const colour = actor === "chance" ? "#555" : seatColour(actor);
      action.append(el("b", { text: who, style: `--c: ${colour}` }), ": ",
        el("code", { text: data.action.text }));
      action.dataset.standIn = String(standIn);
    }
    const note = data.action ? data.action.debug : "";
    $("debug").textContent = note ? `note: ${note}` : "";
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

  function renderLegend() {
    const legend = $("legend");
    legend.replaceChildren();
    for (const seat of state.meta.seats) {
      legend.append(el("span", {}, el("i", { style: `background:${seatColour(seat.seat)}` }),
        seat.name));
    }
    if (state.mayor !== null) {
      legend.append(el("span", {}, el("i", { style: `background:${seatColour(state.mayor)}` }),
        seatName(state.mayor)));
    }
    legend.append(el("span", {}, el("i", { style: `background:${HeightsBoard.WATER}` }), "water"),
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
      const title = `Seat ${p.player}: ${seatName(p.player)}`;
      const turn = obs.to_move === p.player;
      const info = seatInfo(p.player);
      const forfeit = info && info.forfeit
        ? el("p", { class: "forfeit", text: forfeitText(info.forfeit) }) : null;
      const played = standsIn(p.player, state.shown) ? " (stand-in)" : "";
      const label = `${title}${played}`;
      box.append(el("article", { class: `player${turn ? " turn" : ""}${forfeit ? " forfeited" : ""}`,
        style: `--c: ${colour}`, "data-seat": p.player },
        el("header", {}, el("h3", {}, el("span", { text: turn ? `${label} ◀ to move` : label }),
          el("span", { class: "score", text: `${p.score} VP` })), forfeit), dl));
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
      state.meta = await source.meta();
    } catch (err) {
      setStatus(`Could not load replay ${root.dataset.replayId}: ${err.message}`, true);
      root.classList.add("failed");
      return;
    }
    state.steps = state.meta.steps;
    $("slider").max = String(state.steps);
    renderMeta(state.meta);
    renderLegend();
    await goTo(hashStep() ?? 0);
  }

  start();
})();
