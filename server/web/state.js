// The page's state (one object, shared by app.js, which changes it, and render.js, which draws
// it) and what the server says it serves.

import {seedsOf, SOUTH} from "./position.js";

/**
 * How long the server may search a position above its tables, in ms, on the first request: a
 * few seconds prove most positions a few seeds above the tables and keep the page answering
 * quickly (the server's own cap, `--max-search-ms`, is 10 s by default).
 */
export const kSearchMs = 3000;

/**
 * The budgets of "Search longer", one step per click (the server searches at most its cap; what
 * a search proves is kept in its proof store, so each request starts from the last one's proofs).
 */
export const kSearchLongerMs = [10000, 30000, 60000];

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
  hover: null,          // the mover's pit under the pointer
  tool: 1,              // editor: a click adds (1) or removes (-1) a seed
  notice: null,         // a message that is not an error of the request: {text, kind}
  lineAll: false,       // the whole principal line, not its first plies
  searchMs: kSearchMs,  // the search budget of the next request of pos (above the tables)
  searching: 0,         // the budget of the search running now (ms), 0 when none runs
  searchCapMs: 0,       // the server's longest search, once an answer has shown it (ms)
};
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

/** "kalah" or "oware": which family's words (store or taken) the board uses. */
export function familyOf(variant) {
  const f = factsOf(variant);
  return f && f.family === "kalah" ? "kalah" : "oware";
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

/** The budget after `ms` for "Search longer": the next step of kSearchLongerMs. */
export function longerThan(ms) {
  return kSearchLongerMs.find((x) => x > ms) || kSearchLongerMs[kSearchLongerMs.length - 1];
}
