// The position model of the page: no DOM, no network. A position is what the API takes: the
// board from the side of the player to move (that player's P pits first, left to right as they
// see them), the two stores in the same order, plus which real side (South, at the bottom, or
// North) is to move, which the API does not know and the page keeps.

export const SOUTH = "south";
export const NORTH = "north";

/** The other side. */
export function other(side) {
  return side === SOUTH ? NORTH : SOUTH;
}

/** "South" or "North". */
export function sideName(side) {
  return side === SOUTH ? "South" : "North";
}

/** Pits per side of a position (its board holds two rows). */
export function pitsOf(pos) {
  return pos.board.length / 2;
}

/** Seeds on the board. */
export function seedsOf(pos) {
  return pos.board.reduce((a, b) => a + b, 0);
}

/**
 * The board as the sides own it: {south: [P], north: [P], storeSouth, storeNorth}, each row left
 * to right as its owner sees it.
 */
export function absolute(pos) {
  const p = pitsOf(pos);
  const mover = pos.board.slice(0, p);
  const opponent = pos.board.slice(p);
  const south = pos.side === SOUTH;
  return {
    south: south ? mover : opponent,
    north: south ? opponent : mover,
    storeSouth: south ? pos.stores[0] : pos.stores[1],
    storeNorth: south ? pos.stores[1] : pos.stores[0],
  };
}

/** The inverse of absolute(): a position with `side` to move. */
export function fromAbsolute(abs, side, variant, objective) {
  const south = side === SOUTH;
  return {
    variant,
    objective,
    side,
    board: south ? abs.south.concat(abs.north) : abs.north.concat(abs.south),
    stores: south ? [abs.storeSouth, abs.storeNorth] : [abs.storeNorth, abs.storeSouth],
  };
}

/** A copy of a position. */
export function clonePosition(pos) {
  return {...pos, board: pos.board.slice(), stores: pos.stores.slice()};
}

/** A string naming the position exactly (variant, objective, side, board, stores). */
export function positionKey(pos) {
  return `${pos.variant}|${pos.objective}|${pos.side}|${pos.board.join(",")}|${
      pos.stores.join(",")}`;
}

/**
 * The position after `move` (an entry of the API's moves[]): the API gives the board from the
 * next mover's side; the mover's store grows by the move's gain; the sides swap unless the move
 * earns an extra turn.
 */
export function afterMove(pos, move) {
  const gained = [pos.stores[0] + move.gain, pos.stores[1]];
  if (move.extra_turn) {
    return {...pos, board: move.after.slice(), stores: gained};
  }
  return {...pos, board: move.after.slice(), stores: [gained[1], gained[0]], side: other(pos.side)};
}

/**
 * The positions along a principal line (`line_steps` of the API) from `pos`: element k is the
 * position before step k, for k < steps.length. The position after the last step is not in the
 * report; the caller asks the server for it.
 */
export function lineBefores(pos, steps) {
  const out = [];
  const stores = {[pos.side]: pos.stores[0], [other(pos.side)]: pos.stores[1]};
  for (const step of steps) {
    const side = step.mover === 0 ? pos.side : other(pos.side);
    out.push(
        {...pos, side, board: step.before.slice(), stores: [stores[side], stores[other(side)]]});
    stores[side] += step.gain;
  }
  return out;
}

/**
 * The start position of a variant: every pit holds the variant's seeds per pit, both stores
 * empty, South to move. `facts` is what the server says of the variant (an entry of
 * /api/v1/variants or the answer of /api/v1/variant): its canonical text, pits_per_side and
 * seeds_per_pit. Above the tables the server answers it by search.
 */
export function startPosition(facts, objective) {
  return {
    variant: facts.variant,
    objective,
    side: SOUTH,
    board: new Array(2 * facts.pits_per_side).fill(facts.seeds_per_pit),
    stores: [0, 0]
  };
}

/** Parses a list of whole numbers "1,2,3"; null when malformed. */
export function parseCounts(text) {
  if (typeof text !== "string" || !/^\d{1,3}(,\d{1,3})*$/.test(text)) return null;
  return text.split(",").map(Number);
}

/**
 * Reads the page's query string: {variant, objective, board, stores, side, mode, you, flip} or
 * {error} naming what is wrong. Absent fields are left out (the caller picks defaults). The
 * variant is the text as given: only the server reads it (GET /api/v1/variant), so the board's
 * pit count is checked against the variant by the caller, once the server has named its board.
 */
export function parseQuery(search) {
  const q = new URLSearchParams(search);
  const out = {};
  const variant = q.get("variant");
  if (variant !== null) out.variant = variant;
  const objective = q.get("objective");
  if (objective !== null) {
    if (objective !== "competitive" && objective !== "cooperative") {
      return {error: `objective "${objective}" is neither competitive nor cooperative`};
    }
    out.objective = objective;
  }
  const board = q.get("board");
  if (board !== null) {
    const counts = parseCounts(board);
    if (!counts) return {error: `board "${board}" is not a list of seed counts such as 4,4,0,1`};
    if (counts.length % 2 !== 0 || counts.length > 16) {
      return {error: `board has ${counts.length} pits; a board has an even number, at most 16`};
    }
    out.board = counts;
  }
  const stores = q.get("stores");
  if (stores !== null) {
    const counts = parseCounts(stores);
    if (!counts || counts.length !== 2)
      return {error: `stores "${stores}" is not two counts such as 3,5`};
    out.stores = counts;
  }
  const side = q.get("side");
  if (side !== null) {
    if (side !== SOUTH && side !== NORTH)
      return {error: `side "${side}" is neither south nor north`};
    out.side = side;
  }
  const mode = q.get("mode");
  if (mode === "play" || mode === "edit") out.mode = mode;
  const you = q.get("you");
  if (you === SOUTH || you === NORTH) out.you = you;
  if (q.get("flip") === "1") out.flip = true;
  return out;
}

/**
 * A variant text as a query value: escaped, but with the "/", "," and "=" of a variant's options
 * left readable (a query value may hold them).
 */
export function variantParam(text) {
  return encodeURIComponent(text).replace(/%2F/gi, "/").replace(/%2C/gi, ",").replace(/%3D/gi, "=");
}

/** The query string of a position (and the page's mode), as the URL of a permalink. */
export function toQuery(pos, extra = {}) {
  const parts = [
    `variant=${variantParam(pos.variant)}`,
    `board=${pos.board.join(",")}`,
    `stores=${pos.stores.join(",")}`,
    `side=${pos.side}`,
  ];
  if (pos.objective === "cooperative") parts.push("objective=cooperative");
  if (extra.mode === "play") parts.push("mode=play", `you=${extra.you}`);
  if (extra.mode === "edit") parts.push("mode=edit");
  if (extra.flip) parts.push("flip=1");
  return "?" + parts.join("&");
}

/** A worth or value with its sign: "+4", "0", "\u22124" (a real minus sign). */
export function signed(x) {
  if (x > 0) return `+${x}`;
  if (x < 0) return `\u2212${- x}`;
  return "0";
}

/** A score that may hold a half seed (after endless play): "12" or "12\u00bd". */
export function score(x) {
  const whole = Math.floor(x);
  return x === whole ? String(whole) : `${whole}\u00bd`;
}

/**
 * Plies in words: "1 move", "5 moves", each side's moves counted, as the principal line numbers
 * them (1., 2., ...) and as "What do the numbers mean?" says.
 */
export function plies(n) {
  return n === 1 ? "1 move" : `${n} moves`;
}

/**
 * The fixed name of a pit: South's pits a, b, c, ... and North's A, B, C, ..., each side's from
 * its own left, so in the order of sowing (counter-clockwise): a..f, then A..F. They do not
 * change with the side to move or with Flip. `index` is the pit's place in its owner's row (the
 * API's pit number when that side is to move).
 */
export function pitLabel(side, index) {
  const letter = "abcdefgh"[index] || "?";
  return side === SOUTH ? letter : letter.toUpperCase();
}
