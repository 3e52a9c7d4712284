// The words of the page: what a value, a result, a move and a line mean, from whose side. Pure
// functions of the API's reports; app.js puts them on the page.

import {absolute, other, plies, score, seedsOf, sideName, signed} from "./position.js";

/** "captures 2 · sows 1 into the store · extra turn", or "" for a quiet move. */
export function moveNotes(move) {
  const notes = [];
  if (move.captured > 0) notes.push(`captures ${move.captured}`);
  if (move.stored > 0) notes.push(`sows ${move.stored} into the store`);
  if (move.extra_turn) notes.push("extra turn");
  return notes.join(" \u00b7 ");
}

/** The move of `report` from pit `pit`, or undefined when that pit is not a legal move. */
export function moveAt(report, pit) {
  return report && Array.isArray(report.moves) ? report.moves.find((m) => m.pit === pit) :
                                                 undefined;
}

/** The moves of a report, best first (the API's moves_best_first, else the order given). */
export function movesBestFirst(report) {
  if (!Array.isArray(report.moves_best_first)) return report.moves.slice();
  return report.moves_best_first.map((pit) => moveAt(report, pit)).filter((m) => m !== undefined);
}

/** Who the result favours, for `side` to move: "South wins", "North wins" or "a draw". */
function resultWords(result, side) {
  if (result === "win") return `${sideName(side)} wins`;
  if (result === "loss") return `${sideName(other(side))} wins`;
  return "a draw";
}

/**
 * The verdict of a competitive report for `pos`: {headline, detail: [sentences]}; `headline`
 * names the result with the final score, South's first.
 */
export function verdict(pos, report) {
  const side = pos.side;
  const n = seedsOf(pos);
  const [mine, theirs] = report.final;
  const south = side === "south" ? mine : theirs;
  const north = side === "south" ? theirs : mine;
  const high = score(Math.max(south, north));
  const low = score(Math.min(south, north));
  const headline = report.result === "draw" ?
      `A draw, ${high}\u2013${low}` :
      `${resultWords(report.result, side)} ${high}\u2013${low}`;
  const detail = [];
  const me = sideName(side);
  const you = sideName(other(side));
  const v = report.value;
  if (report.game_over) {
    detail.push(`${
        me} has no legal move: the game is over, and each side takes the seeds on its own side.`);
  } else if (v === 0) {
    detail.push(
        `Value 0: with perfect play from both sides the ${
            n} seeds on the board are shared evenly ` +
        `(${score(n / 2)} each).`);
  } else {
    const a = (n + v) / 2;
    const b = (n - v) / 2;
    // Only tables know depths: a value proved by search has none.
    const within =
        typeof report.depth === "number" ? `, realised within ${plies(report.depth)}` : "";
    detail.push(
        `Value ${signed(v)} for ${me}: with perfect play from both sides ${me} takes ` +
        `${Math.abs(v)} seed${Math.abs(v) === 1 ? "" : "s"} ${v > 0 ? "more" : "fewer"} than ` +
        `${you} of the ${n} on the board (${score(a)} to ${score(b)})${within}.`);
  }
  const abs = absolute(pos);
  detail.push(
      `With the stores (South ${abs.storeSouth}, North ${abs.storeNorth}) the game ends ` +
      `South ${score(south)}, North ${score(north)}: ${resultWords(report.result, side)}.`);
  if (report.decided) {
    const leader = south > north ? "South" : "North";
    detail.push(
        `${leader}'s store already holds more than half of the game's seeds: by the majority ` +
        "rule the game is decided.");
  }
  return {headline, detail};
}

/** Bounds as the page writes them: "\u22122\u2026+6" (lower, then upper). */
export function boundsText(lower, upper) {
  return `${signed(lower)}\u2026${signed(upper)}`;
}

/** A whole number with thousands separated: "1,234,567". */
export function count(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * The verdict of a search that has not proved the value of `pos` (report.value null): its
 * bounds. {headline, detail}: the headline names the bounds for the side to move, the detail
 * what they decide (the server's `result`, with the stores) and what does not follow yet. The
 * words never claim more than `result`: a result the bounds do not decide is said to be open.
 */
export function boundsVerdict(pos, report) {
  const me = sideName(pos.side);
  const n = seedsOf(pos);
  const {lower, upper} = report;
  const headline = `Between ${signed(lower)} and ${signed(upper)} for ${me}`;
  const detail = [];
  detail.push(
      `Not proved yet: with perfect play ${me} nets between ${signed(lower)} and ` +
      `${signed(upper)} of the ${n} seeds on the board; the exact value lies in between.`);
  const abs = absolute(pos);
  const stores = `the stores (South ${abs.storeSouth}, North ${abs.storeNorth})`;
  if (report.result) {
    detail.push(
        `Whatever the exact value, with ${stores} ${resultWords(report.result, pos.side)}.`);
  } else {
    detail.push(`With ${stores} the result is still open: these bounds allow more than one.`);
  }
  return {headline, detail};
}

/**
 * A note on how a search answered: "proved by search, 12,345 positions in 0.4 s", or
 * "searched 1,234,567 positions in 3.0 s", or from the server's proof store.
 */
export function searchNote(report) {
  const s = report.search;
  if (!s) return "";
  const exact = typeof report.value === "number";
  if (s.stored) {
    return exact ? "proved by search earlier (the server's proof store)" :
                   "bounds from the server's proof store";
  }
  const how =
      `${count(s.positions)} position${s.positions === 1 ? "" : "s"} in ${s.seconds.toFixed(1)} s`;
  return exact ? `proved by search, ${how}` : `searched ${how}`;
}

/** A set of differences as ranges: "-6, -4..-2, 0, 2..4, 6". */
export function ranges(values) {
  const out = [];
  for (let i = 0; i < values.length;) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j] + 1) ++j;
    out.push(j === i ? signed(values[i]) : `${signed(values[i])}..${signed(values[j])}`);
    i = j + 1;
  }
  return out.join(", ");
}

/** The verdict of a co-operative report for `pos`: {headline, detail}. */
export function cooperativeVerdict(pos, report) {
  const me = sideName(pos.side);
  const balancing = report.balancing_moves || [];
  const headline = report.balanced ? "A balanced end is possible" : "No balanced end is possible";
  const detail = [];
  const t = report.target;
  detail.push(
      `Co-operative play: both sides try to end the game with equal seeds. With the stores ` +
      `${pos.stores[0]} (${me}) and ${pos.stores[1]} (${sideName(other(pos.side))}) ` +
      (t === 0 ? "the seeds left must be shared evenly." :
                 `${me} must take ${Math.abs(t)} ${
                     t > 0 ? "more" : "fewer"} than the other side from here.`));
  detail.push(
      `Differences ${me} can still reach (${me}'s takes minus the other's): ` +
      `${report.reachable.length ? ranges(report.reachable) : "none"}.`);
  if (report.balanced && !report.game_over) {
    detail.push(
        balancing.length === 1 ? `Only pit ${balancing[0]} keeps a balanced end possible.` :
                                 `Pits ${balancing.join(", ")} keep a balanced end possible.`);
  }
  return {headline, detail};
}

/** How a principal line ends, in words. */
export function lineEndWords(report, lastSide) {
  switch (report.line_end) {
    case "game_over":
      return `Then ${
          sideName(lastSide)} cannot move: the game is over and each side takes its own seeds.`;
    case "endless":
      return "Then a position repeats: play goes on for ever and the seeds left are shared evenly.";
    case "max_plies":
      return "The line is cut here (the server's ply limit).";
    case "unproved":
      return "The line stops here: the next best move is not proved yet.";
    default:
      return "";
  }
}
