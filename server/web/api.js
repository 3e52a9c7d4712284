// The page's calls to the JSON API of `sowdb serve` (/api/v1/...), with a small cache of the
// answers: stepping back and forth through a game asks for each position once.

import {positionKey} from "./position.js";

/**
 * A failed call. `kind` is "network" (no answer: the server is down or unreachable), "http" (an
 * answer with an error status; `status` and the server's `message`) or "format" (an answer that
 * is not the JSON the page expects).
 */
export class ApiError extends Error {
  constructor(kind, message, status = 0) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

const kCacheLimit = 400;
const cache = new Map();

async function getJson(url) {
  let response;
  try {
    response = await fetch(url, {headers: {Accept: "application/json"}});
  } catch (e) {
    throw new ApiError("network", `no answer from the server (${e.message})`);
  }
  let body;
  try {
    body = await response.json();
  } catch (e) {
    throw new ApiError(
        "format", `the server's answer to ${url} is not JSON (HTTP ${response.status})`,
        response.status);
  }
  if (!response.ok) {
    const message = body && typeof body.error === "string" ? body.error : `HTTP ${response.status}`;
    throw new ApiError("http", message, response.status);
  }
  return body;
}

/** The table sets the server serves: the `tables` array of /api/v1/variants. */
export async function fetchVariants() {
  const body = await getJson("/api/v1/variants");
  if (!body || !Array.isArray(body.tables)) {
    throw new ApiError("format", "the server's list of tables has no \"tables\" array");
  }
  return body.tables;
}

/**
 * What the server makes of a variant text (GET /api/v1/variant): its canonical text and facts
 * ({variant, preset, family, pits_per_side, seeds_per_pit, game_seeds, rules, tables}). Throws
 * an ApiError (404 for a text the server does not know or does not serve).
 */
export async function fetchVariant(text) {
  const body = await getJson(`/api/v1/variant?variant=${encodeURIComponent(text)}`);
  if (!body || typeof body.variant !== "string" || typeof body.pits_per_side !== "number" ||
      typeof body.seeds_per_pit !== "number") {
    throw new ApiError("format", "the server's answer on a variant has no \"variant\" or board");
  }
  return body;
}

/**
 * The URL of the API's answer for a position; `searchMs` > 0 lets the server search a position
 * above its tables for that long (`search_ms`).
 */
export function positionUrl(pos, searchMs = 0) {
  let url = `/api/v1/position?variant=${encodeURIComponent(pos.variant)}` +
      `&board=${pos.board.join(",")}&stores=${pos.stores.join(",")}`;
  if (pos.objective === "cooperative") url += "&objective=cooperative";
  if (searchMs > 0) url += `&search_ms=${Math.round(searchMs)}`;
  return url;
}

/**
 * Whether a report is final: the tables' answer, or a search that proved every figure. Only
 * those are kept in the cache; bounds (and a value proved with some moves' worths not) are
 * asked again, as the server sends them no-store.
 */
export function isFinal(report) {
  return report.method !== "search" || Boolean(report.search && report.search.complete);
}

/**
 * The API's report of a position (cached when final; an error is not). `searchMs` > 0: a
 * position above the tables is searched for up to that long (a bounds answer is not cached, so
 * asking again searches again, the proved parts coming back from the server's proof store).
 */
export async function fetchPosition(pos, searchMs = 0) {
  const key = positionKey(pos);
  if (cache.has(key)) {
    const hit = cache.get(key);
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const report = await getJson(positionUrl(pos, searchMs));
  if (!report || !Array.isArray(report.pits)) {
    throw new ApiError("format", "the server's report of the position has no \"pits\"");
  }
  if (isFinal(report)) {
    cache.set(key, report);
    if (cache.size > kCacheLimit) cache.delete(cache.keys().next().value);
  }
  return report;
}
