// Rolling Heights replay viewer: the map, drawn with SVG from an observation's `map`.
// Plain JS, no dependencies; viewer.js (loaded after it) uses window.HeightsBoard (the board,
// a seat's colour, and `filled`, how both build an element).
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
  const ZONING_LETTERS = { RESIDENTIAL: "R", PARK: "P", COMMERCIAL: "C", CIVIC: "V", INDUSTRY: "I" };

  let seatName = (seat) => `seat ${seat}`;

  // A new node with its attributes (`text` and `style` set as such) and children (null
  // and undefined left out): the one way both scripts build SVG and HTML elements.
  function filled(node, attrs, children) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "style") node.style.cssText = value;
      else node.setAttribute(key, value);
    }
    node.append(...children.filter((c) => c !== null && c !== undefined));
    return node;
  }

  const svg = (tag, attrs, ...children) =>
    filled(document.createElementNS(SVG_NS, tag), attrs, children);

  function seatColour(seat) {
    return SEAT_COLOURS[seat % SEAT_COLOURS.length];
  }

  function renderBoard(board, map) {
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

  // names: seat -> the name to show in tooltips
  function render(board, map, names) {
    seatName = names;
    renderBoard(board, map);
  }

  window.HeightsBoard = { render, seatColour, filled, WATER };
})();
