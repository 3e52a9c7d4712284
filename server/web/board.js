// Draws a mancala board of any size as SVG: two rows of P pits, the two stores, the seeds, the
// side to move and, on the mover's pits, a badge per move (its worth, coloured win/draw/loss, or
// in the co-operative view whether it keeps a balanced end). No state: app.js calls
// drawBoard() with everything to show and listens to the events on the <svg>.

import {NORTH, sideName, SOUTH} from "./position.js";

const NS = "http://www.w3.org/2000/svg";
const kPad = 8;
const kStoreW = 84;
const kPitW = 100;
const kBadgeH = 58;
const kRowH = 130;
const kPitR = 40;

function el(tag, attrs = {}, children = []) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null && v !== false) node.setAttribute(k, String(v));
  }
  for (const c of children) node.append(c);
  return node;
}

function text(x, y, content, attrs = {}) {
  return el("text", {x, y, ...attrs}, [document.createTextNode(content)]);
}

// Seeds as dots on a sunflower spiral inside a circle of radius r (deterministic: the same count
// always looks the same). Past 30 seeds the count alone says it.
function seedDots(cx, cy, r, count, cls) {
  const g = el("g", {class: cls, "aria-hidden": "true"});
  if (count > 30) return g;
  const dot = count <= 4 ? 8 : count <= 9 ? 6.8 : count <= 18 ? 5.4 : 4.3;
  const spread = count <= 1 ? 0 : Math.min(dot * 1.85, (r - dot - 3) / Math.sqrt(count - 0.5));
  for (let k = 0; k < count; ++k) {
    const rho = spread * Math.sqrt(k + 0.5);
    const theta = k * 2.39996 + 0.6;
    g.append(el("circle", {
      cx: (cx + rho * Math.cos(theta)).toFixed(1),
      cy: (cy + rho * Math.sin(theta)).toFixed(1),
      r: dot,
      class: k % 3 === 1 ? "seed seed-b" : "seed"
    }));
  }
  return g;
}

/** The viewBox width and height of a board of P pits per side. */
export function boardSize(pits) {
  return {w: 2 * kPad + 2 * kStoreW + pits * kPitW, h: 2 * kBadgeH + 2 * kRowH};
}

/**
 * Redraws `svg` for `view`:
 *   pits: P; abs: {south, north, storeSouth, storeNorth} (absolute(pos)); toMove: side;
 *   flip: North at the bottom; badges: Map of the mover's pit (0..P-1) to {text, kind, best,
 *   label, bounds} (kind: win, draw, loss, undecided, balanced, unbalanced, illegal; bounds: the
 *   text is a search's bounds, not a worth); hover: the mover's pit under
 *   the pointer or null; preview: null or {abs, gainSide, gain} (the board after the hovered
 *   move, drawn in place of abs with the changed pits marked); edit: pits and stores are
 *   editable; compact: larger type for a small screen; storeLabel: "store" (Kalah) or "captured"
 * (Oware); names: {south, north}. Each pit is a <g class="pit"> with data-side, data-index (0..P-1
 * from its owner's left) and, on the mover's side, data-pit (the API's pit number); each badge a <g
 * class="badge"> with data-pit, data-kind and data-worth.
 */
export function drawBoard(svg, view) {
  const p = view.pits;
  const {w, h} = boardSize(p);
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  // A small board is not blown up past the size of a large one's pits.
  svg.style.maxWidth = `${Math.round(w * 0.95)}px`;
  svg.replaceChildren();
  svg.classList.toggle("compact", Boolean(view.compact));
  const bottom = view.flip ? NORTH : SOUTH;
  const top = bottom === SOUTH ? NORTH : SOUTH;
  const shown = view.preview ? view.preview.abs : view.abs;
  const rowOf = (side) => (side === SOUTH ? "south" : "north");
  const storeOf = (side, abs) => (side === SOUTH ? abs.storeSouth : abs.storeNorth);
  const colX = (c) => kPad + kStoreW + c * kPitW + kPitW / 2;
  const rowY = {[top]: kBadgeH + kRowH / 2 + 4, [bottom]: kBadgeH + kRowH + kRowH / 2 - 4};

  svg.append(el("rect", {
    x: kPad,
    y: kBadgeH - 6,
    width: w - 2 * kPad,
    height: 2 * kRowH + 12,
    rx: 34,
    class: "frame"
  }));
  // The mover's row stands out.
  svg.append(el("rect", {
    x: kPad + kStoreW - 4,
    y: view.toMove === top ? kBadgeH + 2 : kBadgeH + kRowH - 2,
    width: p * kPitW + 8,
    height: kRowH,
    rx: 26,
    class: view.editing ? "mover-row editing" : "mover-row"
  }));

  for (const side of [top, bottom]) {
    const row = shown[rowOf(side)];
    const before = view.abs[rowOf(side)];
    const isMover = side === view.toMove;
    for (let j = 0; j < p; ++j) {
      const col = side === bottom ? j : p - 1 - j;
      const cx = colX(col);
      const cy = rowY[side];
      const classes = ["pit"];
      if (isMover && !view.editing) classes.push("playable");
      if (view.editing) classes.push("editable");
      if (isMover && view.hover === j) classes.push("hovered");
      if (view.preview) {
        if (row[j] > before[j]) classes.push("grew");
        if (row[j] < before[j]) classes.push("shrank");
      }
      const g = el("g", {
        class: classes.join(" "),
        "data-side": side,
        "data-index": j,
        "data-pit": isMover ? j : null,
        "data-seeds": row[j],
        role: isMover || view.editing ? "button" : null,
        tabindex: isMover || view.editing ? 0 : null,
        "aria-label": `${sideName(side)} pit ${j}: ${row[j]} seeds`
      });
      g.append(el("rect", {
        x: cx - kPitW / 2 + 2,
        y: cy - kRowH / 2 + 2,
        width: kPitW - 4,
        height: kRowH - 4,
        rx: 20,
        class: "hit"
      }));
      g.append(el("circle", {cx, cy, r: kPitR, class: "hole"}));
      // On a small screen the count alone, large, inside the pit: dots would be specks.
      const inside = view.compact || row[j] > 30;
      if (!inside) g.append(seedDots(cx, cy, kPitR, row[j], "seeds"));
      const ty = side === top ? cy - kPitR - 10 : cy + kPitR + 24;
      g.append(text(
          cx, inside ? cy + (view.compact ? 16 : 12) : ty, String(row[j]),
          {class: inside ? "count big" : "count", "text-anchor": "middle"}));
      svg.append(g);
    }
  }

  // Stores: the bottom side's on the right (its sowing runs left to right, then into it).
  for (const side of [top, bottom]) {
    const x = side === bottom ? w - kPad - kStoreW + 6 : kPad + 6;
    const y = kBadgeH + 8;
    const seeds = storeOf(side, shown);
    const changed = view.preview && seeds !== storeOf(side, view.abs);
    const g = el("g", {
      class: `store${changed ? " grew" : ""}${view.editing ? " editable" : ""}`,
      "data-store": side,
      "data-seeds": seeds,
      role: view.editing ? "button" : null,
      tabindex: view.editing ? 0 : null,
      "aria-label": `${sideName(side)}'s ${view.storeLabel}: ${seeds} seeds`
    });
    g.append(
        el("rect", {x, y, width: kStoreW - 12, height: 2 * kRowH - 16, rx: 30, class: "hole"}));
    g.append(text(
        x + (kStoreW - 12) / 2, y + kRowH, String(seeds),
        {class: "store-count", "text-anchor": "middle", "dominant-baseline": "middle"}));
    g.append(text(
        x + (kStoreW - 12) / 2, side === top ? y + 26 : y + 2 * kRowH - 38, view.storeLabel,
        {class: "store-label", "text-anchor": "middle"}));
    svg.append(g);
    // The side's name over its store, in the badge band on its side of the board.
    const ny = side === top ? kBadgeH - 20 : h - kBadgeH + 34;
    const nx = x + (kStoreW - 12) / 2;
    const name = text(
        nx, ny, view.names[side],
        {class: `side-name${side === view.toMove ? " to-move" : ""}`, "text-anchor": "middle"});
    svg.append(name);
  }

  // Badges on the mover's pits, in the band outside the mover's row.
  if (view.badges) {
    const side = view.toMove;
    for (const [pit, b] of view.badges) {
      const col = side === bottom ? pit : p - 1 - pit;
      const cx = colX(col);
      const cy = side === top ? kBadgeH / 2 - 2 : h - kBadgeH / 2 + 2;
      const g = el("g", {
        class: `badge ${b.kind}${b.bounds ? " bounds" : ""}${b.best ? " best" : ""}${
            view.hover === pit ? " hovered" : ""}`,
        "data-pit": pit,
        "data-kind": b.kind,
        "data-worth": b.worth === undefined ? null : b.worth
      });
      g.append(el("title", {}, [document.createTextNode(b.label)]));
      // Bounds ("-2…+6") are longer than a worth: a wider badge, smaller type, squeezed to fit.
      const bw = b.bounds ? 47 : view.compact ? 47 : 38;
      const bh = view.compact ? 27 : 21;
      g.append(el("rect", {x: cx - bw, y: cy - bh, width: 2 * bw, height: 2 * bh, rx: 12}));
      const label = text(
          cx, cy + (view.compact ? (b.bounds ? 10 : 13) : (b.bounds ? 7 : 9)), b.text,
          {"text-anchor": "middle"});
      g.append(label);
      svg.append(g);
      // Measured once drawn (the font is the browser's): squeezed into the badge if wider.
      const room = 2 * bw - 10;
      if (b.bounds && label.getComputedTextLength() > room) {
        label.setAttribute("textLength", room);
        label.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }
  }
}
