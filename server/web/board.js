// Draws a mancala board of any size as SVG: two rows of P pits with their fixed names (a..f, A..F),
// the two stores named by owner, the seeds, the side to move, the last move and, on the mover's
// pits, a badge per move (the final score it leads to and its result, coloured win/draw/loss,
// with its seeds-from-now worth beside in neutral ink; or in the co-operative view whether it
// keeps a balanced end). No state: app.js calls drawBoard() with everything to show and listens
// to the events on the <svg>.

import {NORTH, pitLabel, sideName, SOUTH} from "./position.js";

const NS = "http://www.w3.org/2000/svg";
const kPad = 8;
const kStoreW = 84;
const kPitW = 100;
// The band above and below the rows that holds the badges: taller on a small screen, where the
// type is larger.
const kBadgeH = 94;
const kBadgeHCompact = 118;
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

/** The viewBox width and height of a board of P pits per side (`compact`: a small screen's). */
export function boardSize(pits, compact = false) {
  const band = compact ? kBadgeHCompact : kBadgeH;
  return {w: 2 * kPad + 2 * kStoreW + pits * kPitW, h: 2 * band + 2 * kRowH};
}

/**
 * Redraws `svg` for `view`:
 *   pits: P; abs: {south, north, storeSouth, storeNorth} (absolute(pos)); toMove: side;
 *   flip: North at the bottom; badges: Map of the mover's pit (0..P-1) to {fig, word, kind,
 *   best, label, worth, worthText} (kind: win, draw, loss, undecided, balanced, unbalanced,
 *   illegal; fig: the large figure in the coloured badge (a final score, or a mark), word: the
 *   result in a word under it (or null), worthText: the seeds-from-now figure drawn in neutral
 *   ink beside the badge (or null)); hover: the mover's pit under the pointer (or selected by a
 *   tap) or null; last: {side, index} of the pit the last move was played from, or null;
 *   preview: null or {abs} (the board after the hovered move, drawn in place of abs with the
 *   changed pits marked); edit: pits and stores are editable; compact: larger type for a small
 *   screen; names: {south, north} (the side names over the stores). Each pit is a <g
 *   class="pit"> with data-side, data-index (0..P-1 from its owner's left), data-label (its
 *   fixed name) and, on the mover's side, data-pit (the API's pit number); each badge a <g
 *   class="badge"> with data-pit, data-kind and data-worth.
 */
export function drawBoard(svg, view) {
  const p = view.pits;
  const {w, h} = boardSize(p, view.compact);
  const band = view.compact ? kBadgeHCompact : kBadgeH;
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
  const rowY = {[top]: band + kRowH / 2 + 4, [bottom]: band + kRowH + kRowH / 2 - 4};

  svg.append(el(
      "rect",
      {x: kPad, y: band - 6, width: w - 2 * kPad, height: 2 * kRowH + 12, rx: 34, class: "frame"}));
  // The mover's row stands out.
  svg.append(el("rect", {
    x: kPad + kStoreW - 4,
    y: view.toMove === top ? band + 2 : band + kRowH - 2,
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
      const last = view.last && view.last.side === side && view.last.index === j;
      if (last) classes.push("last");
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
        "data-label": pitLabel(side, j),
        role: isMover || view.editing ? "button" : null,
        tabindex: isMover || view.editing ? 0 : null,
        "aria-label": `${sideName(side)} pit ${pitLabel(side, j)}: ${row[j]} seeds` +
            (last ? " (the last move)" : "")
      });
      g.append(el("rect", {
        x: cx - kPitW / 2 + 2,
        y: cy - kRowH / 2 + 2,
        width: kPitW - 4,
        height: kRowH - 4,
        rx: 20,
        class: "hit"
      }));
      if (last) g.append(el("circle", {cx, cy, r: kPitR + 8, class: "last-ring"}));
      g.append(el("circle", {cx, cy, r: kPitR, class: "hole"}));
      // The pit's fixed name on a tag in the top left corner of its cell, as a chess board's
      // coordinates (a tag, so that it does not read as a seed count).
      const tw = view.compact ? 30 : 22;
      const tagX = cx - kPitW / 2 + 4;
      const tagY = cy - kRowH / 2 + 4;
      g.append(el("rect", {x: tagX, y: tagY, width: tw, height: tw, rx: 6, class: "pit-tag"}));
      g.append(text(
          tagX + tw / 2, tagY + tw * 0.76, pitLabel(side, j),
          {class: "pit-label", "text-anchor": "middle"}));
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
    const y = band + 8;
    const seeds = storeOf(side, shown);
    const changed = view.preview && seeds !== storeOf(side, view.abs);
    const g = el("g", {
      class: `store${changed ? " grew" : ""}${view.editing ? " editable" : ""}`,
      "data-store": side,
      "data-seeds": seeds,
      role: view.editing ? "button" : null,
      tabindex: view.editing ? 0 : null,
      "aria-label": `${sideName(side)}'s store: ${seeds} seeds`
    });
    g.append(
        el("rect", {x, y, width: kStoreW - 12, height: 2 * kRowH - 16, rx: 30, class: "hole"}));
    g.append(text(
        x + (kStoreW - 12) / 2, y + kRowH, String(seeds),
        {class: "store-count", "text-anchor": "middle", "dominant-baseline": "middle"}));
    // The owner named in the store itself (it stays with its owner when the board is flipped).
    const lines = [`${sideName(side)}'s`, "store"];
    const ly = side === top ? y + 26 : y + 2 * kRowH - 58;
    lines.forEach((line, k) => {
      const t = text(
          x + (kStoreW - 12) / 2, ly + k * (view.compact ? 22 : 18), line,
          {class: "store-label", "text-anchor": "middle"});
      g.append(t);
    });
    svg.append(g);
    for (const t of g.querySelectorAll(".store-label")) squeeze(t, kStoreW - 18);
    // The side's name over its store, in the badge band on its side of the board.
    const ny = side === top ? band - 20 : h - band + 34;
    const nx = x + (kStoreW - 12) / 2;
    const name = text(
        nx, ny, view.names[side],
        {class: `side-name${side === view.toMove ? " to-move" : ""}`, "text-anchor": "middle"});
    svg.append(name);
  }

  // Badges on the mover's pits, in the band outside the mover's row: the coloured badge at the
  // band's outer edge, the neutral worth between it and the row.
  if (view.badges) {
    const side = view.toMove;
    const c = view.compact;
    const bw = 47;
    const bh = c ? 38 : 25;
    for (const [pit, b] of view.badges) {
      const col = side === bottom ? pit : p - 1 - pit;
      const cx = colX(col);
      const y0 = side === top ? 4 : h - 4 - 2 * bh;
      const g = el("g", {
        class: `badge ${b.kind}${b.best ? " best" : ""}${view.hover === pit ? " hovered" : ""}`,
        "data-pit": pit,
        "data-kind": b.kind,
        "data-worth": b.worth === undefined ? null : b.worth
      });
      g.append(el("title", {}, [document.createTextNode(b.label)]));
      g.append(el("rect", {x: cx - bw, y: y0, width: 2 * bw, height: 2 * bh, rx: 12}));
      const room = 2 * bw - 10;
      if (b.word) {
        g.append(text(cx, y0 + (c ? 38 : 26), b.fig, {class: "fig", "text-anchor": "middle"}));
        g.append(text(cx, y0 + (c ? 68 : 44), b.word, {class: "word", "text-anchor": "middle"}));
      } else {
        g.append(text(
            cx, y0 + bh + (c ? 12 : 9), b.fig,
            {class: b.fig.length > 2 ? "fig long" : "fig", "text-anchor": "middle"}));
      }
      if (b.worthText) {
        const wy = side === top ? band - (c ? 8 : 14) : h - band + (c ? 32 : 27);
        g.append(text(cx, wy, b.worthText, {class: "worth", "text-anchor": "middle"}));
      }
      svg.append(g);
      // Measured once drawn (the font is the browser's): squeezed into the badge if wider.
      for (const t of g.querySelectorAll("text")) squeeze(t, room);
    }
  }
}

/** Squeezes an SVG <text> into `room` units when it is wider (measured once drawn). */
function squeeze(t, room) {
  if (t.getComputedTextLength() > room) {
    t.setAttribute("textLength", room);
    t.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
}
