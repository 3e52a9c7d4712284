// The page's state (one object, shared by app.js, which changes it, and render.js, which draws
// it) and what the server says it serves.

import {seedsOf, SOUTH} from "./position.js";
import {searchingReport} from "./text.js";

/**
 * How long the first request of a position above the tables waits for the search (`search_ms`
 * with `follow=1`): a position proved that quickly answers at once; else the search goes on as a
 * job whose bounds the page shows narrowing live.
 */
export const kFollowMs = 500;

/** How often the page asks a running search job for its progress, in ms. */
export const kPollMs = 400;

/**
 * The game mode's budget: how long the tables search their move before they stop the job and
 * play the best move found (said to be found, not proved).
 */
export const kSearchMs = 3000;

/**
 * Whether the page is used by touch (its primary pointer is coarse: a finger): a tap on a pit then
 * chooses its move, and a second tap (or the Play button) plays it, so that a mis-tap plays
 * nothing. (Not "hover: none": a browser without any pointer, headless, reports that too.)
 */
export function touchScreen() {
  return matchMedia("(pointer: coarse)").matches;
}

/** The element of an id. */
export const $ = (id) => document.getElementById(id);

/** The page's state: app.js changes it, render.js draws it. */
export const st = {
  tables: [],           // /api/v1/variants
  resolved: new Map(),  // variant text -> the facts /api/v1/variant gave for it
  pos: null,            // the position on show
  report: null,         // its report, once it arrives
  coop: null,           // its co-operative report (competitive view, co-operative tables served)
  error: null,          // the ApiError of its request
  record: [],           // the positions of the game so far; pos is record[cursor]
  cursor: 0,
  mode: "analyse",      // analyse, play or edit
  you: SOUTH,           // game mode: the player's side
  hints: false,         // game mode: show the values
  flip: false,          // North at the bottom
  hover: null,          // the mover's pit under the pointer, or chosen by a first tap
  selected: null,       // touch screens: the pit a first tap chose (a second tap plays it)
  tool: 1,              // editor: a click adds (1) or removes (-1) a seed
  notice: null,         // a message that is not an error of the request: {text, kind}
  lineAll: false,       // the whole principal line, not its first plies
  searching: 0,         // the first wait (ms) of the search running now, 0 when none runs
  progress: null,       // the running search job's progress (lower, upper, positions, seconds)
  stopping: false,      // "Stop searching" was clicked: the job is being stopped
};
/**
 * The report whose moves the page shows and plays: the position's report, or while its search
 * job runs before any answer, the job's legal moves, none proved (searchingReport); null.
 */
export function shownReport() {
  return st.report || searchingReport(st.progress);
}

// ---- tables served -------------------------------------------------------------------------

/** The served table set of a variant and objective, or undefined. */
export function tableFor(variant, objective) {
  return st.tables.find(
      (t) => t.variant === variant && (t.objective || "competitive") === objective);
}

/** The most seeds on the board the tables of a variant hold (0 when none is served). */
export function maxStones(variant, objective) {
  const t = tableFor(variant, objective) || tableFor(variant, "competitive") ||
      tableFor(variant, "cooperative");
  if (!t) return 0;
  if (t.layers && typeof t.layers.max === "number") return t.layers.max;
  return typeof t.max_stones === "number" ? t.max_stones : 0;
}

/** The variants served, in the server's order, each once. */
export function variants() {
  const seen = [];
  for (const t of st.tables)
    if (!seen.includes(t.variant)) seen.push(t.variant);
  return seen;
}

/**
 * What the server says of a variant named by its canonical text: {variant, preset, family,
 * pits_per_side, seeds_per_pit, game_seeds, ...} (an entry of /api/v1/variants, or an answer of
 * /api/v1/variant), or undefined for a text the server has not named.
 */
export function factsOf(variant) {
  return st.tables.find((t) => t.variant === variant) ||
      [...st.resolved.values()].find((f) => f.variant === variant);
}

/** The seeds of a whole game of a variant (2PS), or null when the server has not named it. */
export function gameSeeds(variant) {
  const f = factsOf(variant);
  return f && typeof f.game_seeds === "number" ? f.game_seeds : null;
}

/**
 * Whether the server is asked to search `pos`: a competitive position with more seeds on the
 * board than the variant's competitive tables hold (the server searches those only).
 */
export function aboveTables(pos) {
  const t = tableFor(pos.variant, "competitive");
  if (!t || pos.objective !== "competitive") return false;
  return seedsOf(pos) > maxStones(pos.variant, "competitive");
}
