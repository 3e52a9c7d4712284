// The words of the page: what a value, a result, a move and a line mean, from whose side. Pure
// functions of the API's reports; app.js puts them on the page.

import {
  absolute,
  other,
  pitLabel,
  pitsOf,
  plies,
  score,
  seedsOf,
  sideName,
  signed,
} from "./position.js";

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

/**
 * What the page shows of a position while its search job runs and no answer has come yet: a
 * report holding the job's legal moves (its progress's `moves`, API.md), none of them proved (no
 * worth, no bounds, no category), each marked `searching`; nothing else is claimed. Null when the
 * progress names no moves.
 */
export function searchingReport(progress) {
  if (!progress || !Array.isArray(progress.moves)) return null;
  return {
    moves: progress.moves.map((m) => ({...m, worth: null, category: null, searching: true})),
    best: null,
    value: null,
    result: null,
    final: null,
    decided: false,
    game_over: false,
    method: "search",
    searching: true
  };
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
 * Seeds of the game neither on the board nor in the stores: an edited position whose seeds do
 * not add up to the game's `game` (2PS). 0 when they do, or when `game` is not known (null).
 */
export function missingSeeds(pos, game) {
  if (typeof game !== "number") return 0;
  return Math.max(0, game - seedsOf(pos) - pos.stores[0] - pos.stores[1]);
}

/**
 * What the page says of the game for the side to move of `pos`: {kind, mine, theirs, missing}.
 * kind: win, draw or loss (the server's `result`, from the stores plus the value), or
 * undecided: the value is only bounded and the bounds leave the result open, or seeds of the game
 * (`game`, 2PS) are missing from the board and the stores, so that the stores cannot decide it
 * (unless a store already holds a majority: `decided`). mine and theirs: the final score, the
 * mover's first, when known (an exact value) and the kind is decided; else undefined. The sign of
 * mine - theirs is the kind's: the number and the colour say the same thing.
 */
export function outcomeOf(pos, report, game) {
  const missing = missingSeeds(pos, game);
  if (missing > 0 && !report.decided) return {kind: "undecided", missing};
  const kind = report.result || "undecided";
  if (typeof report.value === "number" && Array.isArray(report.final) && kind !== "undecided") {
    return {kind, mine: report.final[0], theirs: report.final[1], missing};
  }
  return {kind, missing};
}

/**
 * The same for one move of the report: the final score its worth leads to (the stores plus the
 * seeds on the board shared as the worth says), its category as the colour, or undecided.
 */
export function moveOutcome(pos, report, move, game) {
  const missing = missingSeeds(pos, game);
  if (missing > 0 && !report.decided) return {kind: "undecided", missing};
  const kind = move.category || "undecided";
  if (typeof move.worth === "number" && kind !== "undecided") {
    const n = seedsOf(pos);
    return {
      kind,
      mine: pos.stores[0] + (n + move.worth) / 2,
      theirs: pos.stores[1] + (n - move.worth) / 2,
      missing
    };
  }
  return {kind, missing};
}

/** A final score, the mover's first: "26–22", "24½–23½". */
export function scoreText(o) {
  return `${score(o.mine)}–${score(o.theirs)}`;
}

/**
 * The result for `side` in words: "South wins", "North loses", "Draw", "undecided". `side` is the
 * side to move, or in the game mode once the game is over the player's side.
 */
export function outcomeWord(kind, side) {
  if (kind === "win") return `${sideName(side)} wins`;
  if (kind === "loss") return `${sideName(side)} loses`;
  if (kind === "draw") return "Draw";
  return "undecided";
}

/** A move's result in one word: "win", "draw", "loss" or "undecided". */
export function moveWord(kind) {
  return kind === "win" || kind === "draw" || kind === "loss" ? kind : "undecided";
}

/** Why the stores cannot decide the result of `pos`: one sentence. */
export function missingWords(pos, game) {
  const total = seedsOf(pos) + pos.stores[0] + pos.stores[1];
  const m = game - total;
  return `The board and the stores hold ${total} of the game's ${game} seeds: where the other ` +
      `${m} ${m === 1 ? "is" : "are"} decides the result, so the page does not claim one ` +
      "(set the stores in the editor to make them add up).";
}

/**
 * The principal line in words that agree with its numbering: how many moves it has and on which
 * the first seeds leave the board ("" without a line).
 */
export function lineWords(report) {
  const steps = Array.isArray(report.line_steps) ? report.line_steps : [];
  if (!steps.length) return "";
  const first = steps.findIndex((s) => s.gain > 0);
  const head = `The principal line below plays ${plies(steps.length)}`;
  if (first < 0) return `${head}; no seeds are taken on it.`;
  return `${head}; the first seeds are taken on its move ${first + 1}.`;
}

/**
 * The verdict of a competitive report for `pos`: {headline, detail: [sentences]}; `headline`
 * names the final score by side (South's first), or why the result is undecided. `game`: the
 * seeds of the whole game (2PS), or null.
 */
export function verdict(pos, report, game) {
  const side = pos.side;
  const n = seedsOf(pos);
  const o = outcomeOf(pos, report, game);
  const [mine, theirs] = report.final;
  const south = side === "south" ? mine : theirs;
  const north = side === "south" ? theirs : mine;
  const headline = o.kind === "undecided" ?
      `Undecided: ${o.missing} of the game's seeds are not on the board or in the stores` :
      `Final score${report.game_over ? "" : " with perfect play"}: South ${score(south)}, North ${
          score(north)}`;
  const detail = [];
  const me = sideName(side);
  const you = sideName(other(side));
  const v = report.value;
  if (report.game_over) {
    // The mover may still hold seeds: the game also ends when the other side is empty (Kalah's
    // end rule) or cannot be fed (the Oware family's).
    const empty = pos.board.slice(0, pitsOf(pos)).every((seeds) => seeds === 0);
    const why = empty ? `${me} has no seeds to sow` : `${you}'s side is empty`;
    detail.push(`${why}: the game is over, and each side takes the seeds on its own side.`);
  } else if (v === 0) {
    detail.push(
        `Value 0: with perfect play from both sides the ${
            n} seeds on the board are shared evenly ` +
        `(${score(n / 2)} each).`);
  } else {
    const a = (n + v) / 2;
    const b = (n - v) / 2;
    detail.push(
        `Value ${signed(v)} for ${me}: with perfect play from both sides ${me} takes ` +
        `${Math.abs(v)} seed${Math.abs(v) === 1 ? "" : "s"} ${v > 0 ? "more" : "fewer"} than ` +
        `${you} of the ${n} on the board (${score(a)} to ${score(b)}).`);
  }
  const abs = absolute(pos);
  if (o.kind === "undecided") {
    detail.push(missingWords(pos, game));
  } else {
    detail.push(
        `The final score adds the stores (South's ${abs.storeSouth}, North's ` +
        `${abs.storeNorth}) to that share: ${resultWords(report.result, side)}.`);
  }
  if (report.decided) {
    const leader = south > north ? "South" : "North";
    detail.push(
        `${leader}'s store already holds more than half of the game's seeds: by the majority ` +
        "rule the game is decided.");
  }
  const line = lineWords(report);
  if (line) detail.push(line);
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
export function boundsVerdict(pos, report, game) {
  const me = sideName(pos.side);
  const n = seedsOf(pos);
  const {lower, upper} = report;
  const headline = `Between ${signed(lower)} and ${signed(upper)} for ${me}`;
  const detail = [];
  detail.push(
      `Not proved yet: with perfect play ${me} nets between ${signed(lower)} and ` +
      `${signed(upper)} of the ${n} seeds on the board; the exact value lies in between.`);
  const abs = absolute(pos);
  const stores = `the stores (South's ${abs.storeSouth}, North's ${abs.storeNorth})`;
  if (outcomeOf(pos, report, game).kind === "undecided" && missingSeeds(pos, game) > 0) {
    detail.push(missingWords(pos, game));
  } else if (report.result) {
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
  const label = (pit) => pitLabel(pos.side, pit);
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
        balancing.length === 1 ?
            `Only pit ${label(balancing[0])} keeps a balanced end possible.` :
            `Pits ${balancing.map(label).join(", ")} keep a balanced end possible.`);
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
