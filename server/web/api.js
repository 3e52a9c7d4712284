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

async function getJson(url, method = "GET") {
  return (await callJson(url, method)).body;
}

/** {status, body} of a call whose answer is 2xx JSON; an ApiError for any other. */
async function callJson(url, method = "GET") {
  let response;
  try {
    response = await fetch(url, {method, headers: {Accept: "application/json"}});
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
  return {status: response.status, body};
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
export function positionUrl(pos, searchMs = 0, follow = false, valueOnly = false) {
  let url = `/api/v1/position?variant=${encodeURIComponent(pos.variant)}` +
      `&board=${pos.board.join(",")}&stores=${pos.stores.join(",")}`;
  if (pos.objective === "cooperative") url += "&objective=cooperative";
  if (searchMs > 0) url += `&search_ms=${Math.round(searchMs)}`;
  if (follow) url += "&follow=1";
  // The value and a proved best move only: what an opponent plays, and what an opening book
  // (`sowdb book`) holds, so that the server answers it from its proof store at once.
  if (valueOnly && searchMs > 0) url += "&worths=0";
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

function checkedReport(report) {
  if (!report || !Array.isArray(report.pits)) {
    throw new ApiError("format", "the server's report of the position has no \"pits\"");
  }
  return report;
}

function checkedProgress(body) {
  if (!body || typeof body.poll !== "string" || typeof body.lower !== "number" ||
      typeof body.upper !== "number") {
    throw new ApiError("format", "the server's search job answer has no \"poll\" or bounds");
  }
  return body;
}

/**
 * A position above the tables asked with `follow=1`: {report} when the search ended within
 * `searchMs` (or the answer was cached), else {job}: the job's progress ({job, state, lower,
 * upper, positions, seconds, poll}) to follow with pollJob. `valueOnly`: the value and a proved
 * best move only (`worths=0`), for the game's opponent. Throws an ApiError (503: busy).
 */
export async function followPosition(pos, searchMs, valueOnly = false) {
  const key = positionKey(pos);
  if (cache.has(key)) return {report: cache.get(key)};
  const {status, body} = await callJson(positionUrl(pos, searchMs, true, valueOnly));
  if (status === 202) return {job: checkedProgress(body)};
  const report = checkedReport(body);
  if (isFinal(report)) {
    cache.set(key, report);
    if (cache.size > kCacheLimit) cache.delete(cache.keys().next().value);
  }
  return {report};
}

/**
 * One look at a search job (its `poll` path): {job} (its progress) while it runs, {report} (the
 * position's answer, exact or bounds) once it has ended. Throws an ApiError (404: forgotten).
 */
export async function pollJob(poll) {
  const {status, body} = await callJson(poll);
  if (status === 202) return {job: checkedProgress(body)};
  return {report: checkedReport(body)};
}

/**
 * Stops a search job (DELETE on its `poll` path) and resolves once it has ended, its search slot
 * free (the search stops at its next check of the clock); its bounds so far stay for pollJob.
 * Never throws: a job that is gone needs no stopping.
 */
export async function cancelJob(poll) {
  try {
    await callJson(poll, "DELETE");
    for (let i = 0; i < 40; ++i) {
      if ((await callJson(poll)).status !== 202) return;
      await new Promise((ok) => setTimeout(ok, 25));
    }
  } catch (e) {
    // Gone (404) or unreachable: nothing left to stop.
  }
}

/** Stops a search job as the page is left (a request that outlives the page). */
export function cancelJobOnLeave(poll) {
  try {
    fetch(poll, {method: "DELETE", keepalive: true}).catch(() => null);
  } catch (e) {
    // The page is going away: nothing more to do.
  }
}
