// The analysis board of `sowdb serve`: navigation, the URL, the editor, the game mode, the
// events and the keyboard. The position on show is always in the URL (history.pushState), with
// the moves played to reach it in the history entry's state so that back and forward work across
// reloads. state.js holds the state, render.js draws it.

import {
  ApiError,
  cancelJob,
  cancelJobOnLeave,
  fetchPosition,
  fetchVariant,
  fetchVariants,
  followPosition,
  pollJob
} from "./api.js";
import {
  absolute,
  afterMove,
  clonePosition,
  fromAbsolute,
  lineBefores,
  NORTH,
  parseQuery,
  pitLabel,
  positionKey,
  SOUTH,
  startPosition,
  toQuery,
} from "./position.js";
import {
  flash,
  hooks,
  render,
  renderBoard,
  renderEditor,
  setHover,
  setStatus,
  showError
} from "./render.js";
import {
  $,
  aboveTables,
  factsOf,
  gameSeeds,
  kFollowMs,
  kPollMs,
  kSearchMs,
  maxStones,
  shownReport,
  st,
  tableFor,
  touchScreen,
  variants
} from "./state.js";
import {boundsText, moveAt} from "./text.js";
import {h, renderHoverInfo, renderLine, renderMoves} from "./view.js";

let requestSerial = 0;
let urlSerial = 0;
let editTimer = 0;
let moveTimer = 0;

// ---- navigation ----------------------------------------------------------------------------

function historyState() {
  return {
    pos: st.pos,
    record: st.record,
    cursor: st.cursor,
    mode: st.mode,
    you: st.you,
    flip: st.flip,
    hints: st.hints
  };
}

function writeUrl(how) {
  if (how === "none") return;
  const url = location.pathname + toQuery(st.pos, {mode: st.mode, you: st.you, flip: st.flip});
  if (how === "push")
    history.pushState(historyState(), "", url);
  else
    history.replaceState(historyState(), "", url);
}

/** Shows `pos`: draws it at once, then asks the server for its report. */
function show(pos, how = "push") {
  st.pos = pos;
  st.report = null;
  st.coop = null;
  st.error = null;
  st.hover = null;
  st.selected = null;
  st.notice = null;
  st.lineAll = false;
  st.progress = null;
  clearTimeout(moveTimer);
  writeUrl(how);
  render();
  request();
}

/** Starts a new record at `pos` (a new game, an edited position, a link). */
function showNew(pos, how = "push") {
  st.record = [pos];
  st.cursor = 0;
  show(pos, how);
}

/**
 * The position after `move` of `pos`, marked with the move that led to it (the record's list)
 * and, for a move the page chose, how it knew it: "proved" (the tables, or a search that proved
 * it best) or "found" (the best a search found in its budget, not proved best).
 */
function played(pos, move, how) {
  const via = {pit: move.pit, side: pos.side, gain: move.gain};
  if (how) via.how = how;
  return {...afterMove(pos, move), via};
}

/** Goes to record[index]. */
function goTo(index) {
  if (index < 0 || index >= st.record.length || index === st.cursor) return;
  st.cursor = index;
  show(st.record[index]);
}

/** Adds positions after the cursor (dropping what followed it) and shows the last. */
function extend(positions) {
  st.record = st.record.slice(0, st.cursor + 1).concat(positions);
  st.cursor = st.record.length - 1;
  show(st.record[st.cursor]);
}

/**
 * The page's first requests of a search still running (their promises), and the DELETEs of the
 * jobs it left: a search slot the page holds until they end.
 */
const searchesInFlight = new Set();

function inFlight(promise) {
  searchesInFlight.add(promise);
  promise.catch(() => null).finally(() => searchesInFlight.delete(promise));
}

/** The search job the page follows: {poll, serial} (the request that follows it), or null. */
let job = null;

/** Stops following the job of the position on show and DELETEs it, so that its slot frees. */
function dropJob() {
  if (!job) return;
  inFlight(cancelJob(job.poll));
  job = null;
  st.progress = null;
}

const delay = (ms) => new Promise((ok) => setTimeout(ok, ms));

/**
 * "Searching… −2…+6, 1.2 M positions, 3.4 s": a job's progress in one line. Until the job's
 * first count arrives (positions 0, no figure of the search) it names none: "Searching… −24…+24,
 * 0.5 s".
 */
function progressWords(p) {
  const n = p.positions >= 1e6 ? `${(p.positions / 1e6).toFixed(1)} M` :
      p.positions >= 1e3       ? `${(p.positions / 1e3).toFixed(0)} k` :
                                 String(p.positions);
  const counted = p.positions > 0 ? `${n} positions, ` : "";
  return `Searching\u2026 ${boundsText(p.lower, p.upper)}, ${counted}${p.seconds.toFixed(1)} s`;
}

/**
 * Follows the job of `answer` (a followPosition or pollJob answer) until it ends: its progress
 * drawn live, polled every kPollMs. In game mode the job is stopped after kSearchMs (the game's
 * budget, as before jobs): the tables then play the best move found so far, the player sees the
 * bounds. Returns the final report, or null when the page moved on (the job then DELETEd).
 */
async function followJob(answer, serial, began) {
  while (answer.job) {
    if (serial !== requestSerial) return null;
    job = {poll: answer.job.poll, serial};
    st.progress = answer.job;
    render();
    setStatus(progressWords(answer.job), "info");
    document.body.dataset.searchKey = positionKey(st.pos);
    document.body.dataset.state = "searching";
    await delay(kPollMs);
    if (serial !== requestSerial) return null;
    const budgeted = st.mode === "play";
    if ((budgeted && performance.now() - began >= kSearchMs) || st.stopping) {
      st.stopping = false;
      await cancelJob(answer.job.poll);
      if (serial !== requestSerial) return null;
    }
    answer = await pollJob(answer.job.poll);
  }
  if (job && job.serial === serial) job = null;
  st.progress = null;
  return answer.report;
}

/**
 * Asks the server for the position on show and draws its answer. `again`: this is the one
 * retry after a 503 that the page's own earlier search caused.
 */
async function request(again = false) {
  dropJob();
  const pos = st.pos;
  const serial = ++requestSerial;
  document.body.dataset.state = "loading";
  const searchMs = aboveTables(pos) ? kFollowMs : 0;
  // Asked again (Retry, Search again): the bounds on show stay if the new request fails.
  const previous = st.report;
  st.searching = searchMs;
  st.stopping = false;
  document.body.dataset.searchMs = String(searchMs);
  const began = performance.now();
  const earlier = [...searchesInFlight];
  // A search says so at once, with the time it has taken; a lookup only when it is slow.
  const tick = () => {
    if (serial !== requestSerial || st.progress) return;
    const s = ((performance.now() - began) / 1000).toFixed(1);
    setStatus(`Searching\u2026 ${s} s`, "info");
  };
  if (searchMs > 0) {
    render();
    tick();
  }
  const slow = searchMs > 0 ? setInterval(tick, 250) : setTimeout(() => {
    if (serial === requestSerial) setStatus("Asking the tables\u2026", "info");
  }, 300);
  let report = null;
  let coop = null;
  let error = null;
  try {
    if (searchMs > 0) {
      // A job the page has left before its first answer came is stopped at once.
      // The game's opponent needs its move, not every worth (its book holds just that).
      const opponent = st.mode === "play" && pos.side !== st.you;
      const asked = followPosition(pos, searchMs, opponent).then(async (a) => {
        if (a.job && serial !== requestSerial) await cancelJob(a.job.poll);
        return a;
      });
      inFlight(asked);
      report = await followJob(await asked, serial, began);
      if (report === null) {
        clearInterval(slow);
        return;
      }
    } else {
      report = await fetchPosition(pos);
    }
    if (pos.objective === "competitive" && tableFor(pos.variant, "cooperative")) {
      // The co-operative summary is a bonus: its failure (fewer layers, say) hides it only.
      coop = await fetchPosition({...pos, objective: "cooperative"}).catch(() => null);
    }
  } catch (e) {
    error = e instanceof ApiError ? e : new ApiError("format", String(e));
  }
  clearTimeout(slow);
  clearInterval(slow);
  if (serial !== requestSerial) return;
  if (job && job.serial === serial) job = null;
  st.progress = null;
  if (error && error.status === 503 && !again && earlier.length > 0) {
    // Busy with a search this page asked for and no longer needs: asked again once it ends.
    setStatus("Waiting for this page's previous search to end\u2026", "info");
    await Promise.allSettled(earlier);
    if (serial === requestSerial) request(true);
    return;
  }
  st.searching = 0;
  st.report = report || previous;
  st.coop = coop;
  st.error = error;
  render();
  document.body.dataset.key = positionKey(pos);
  document.body.dataset.state = error ? "error" : "ready";
  scheduleReply();
}

/** "Stop searching": the job on show is DELETEd; its bounds so far are then shown. */
function stopSearch() {
  if (!job || job.serial !== requestSerial) return;
  st.stopping = true;
  render();
}

/** "Search again": the position on show asked again (a new job, from the proofs kept so far). */
function searchAgain() {
  if (!aboveTables(st.pos) || st.searching) return;
  st.error = null;
  request();
}

// ---- moves ---------------------------------------------------------------------------------

/** Plays `pit` in the position on show (when the report says it is legal). */
function play(pit, how) {
  // While a search job runs before its first answer, its legal moves may be played too.
  const r = shownReport();
  if (!r || st.pos.objective === undefined) return;
  if (r.game_over) {
    flash("The game is over: no move is left.");
    return;
  }
  if (st.mode === "play" && r.decided) {
    flash("The game is decided: a store holds more than half of the seeds (the majority rule).");
    return;
  }
  if (!how && st.mode === "play" && st.pos.side !== st.you) {
    // A click in the moves list (hints on) while the tables search their move.
    flash("Wait for the tables' move.");
    return;
  }
  const move = moveAt(r, pit);
  if (!move) {
    const seeds = st.pos.board[pit];
    const name = pitLabel(st.pos.side, pit);
    flash(
        seeds === 0 ? `Pit ${name} is empty.` :
                      `Pit ${name} is not a legal move here (the opponent must be fed).`);
    return;
  }
  extend([played(st.pos, move, how)]);
}

/**
 * The move the page chooses: {pit, how}. The best one ("proved": by the tables or a search),
 * else the best a search found within its budget ("found"); in the co-operative view the joint
 * line's. Null when there is none.
 */
function bestChoice() {
  const r = st.report;
  if (!r || r.game_over || !r.moves.length) return null;
  if (st.pos.objective === "cooperative") {
    if (r.line && r.line.length) return {pit: r.line[0], how: "proved"};
    return {
      pit: r.balancing_moves && r.balancing_moves.length ? r.balancing_moves[0] : r.moves[0].pit,
      how: "proved"
    };
  }
  if (r.best !== null && r.best !== undefined) return {pit: r.best, how: "proved"};
  const found = r.search ? r.search.best_found : null;
  if (found !== null && found !== undefined && moveAt(r, found)) return {pit: found, how: "found"};
  return null;
}

/**
 * A click or a tap on the mover's pit (or its row in the list). With a mouse it plays the move;
 * on a touch screen the first tap only chooses it (its preview and what it does, with a Play
 * button) and a second tap on the same pit plays it, so that a mis-tap plays nothing.
 */
function choose(pit) {
  if (!touchScreen() || st.selected === pit) {
    play(pit);
    return;
  }
  st.selected = pit;
  st.hover = pit;
  renderBoard();
  renderHoverInfo($("hover-info"), st);
  renderMoves($("moves"), st);
}

function playBest() {
  const c = bestChoice();
  if (c) play(c.pit, c.how);
}

function forward() {
  if (st.cursor + 1 < st.record.length)
    goTo(st.cursor + 1);
  else
    playBest();
}

/** Goes along the principal line to the position after its step k. */
async function followLine(k) {
  const r = st.report;
  if (!r || !r.line_steps || k >= r.line_steps.length) return;
  const steps = r.line_steps;
  const plain = lineBefores(st.pos, steps);
  const key = positionKey(st.pos);
  const befores = plain.map((p, j) => j === 0 ? p : {
    ...p,
    via: {pit: steps[j - 1].pit, side: plain[j - 1].side, gain: steps[j - 1].gain},
  });
  const positions = befores.slice(1, k + 1);
  if (k + 1 < befores.length) {
    positions.push(befores[k + 1]);
  } else {
    const from = befores[k];
    try {
      const rep = await fetchPosition(from);
      const move = moveAt(rep, r.line_steps[k].pit);
      if (!move)
        throw new ApiError("format", "the line's last move is not legal in the server's report");
      positions.push(played(from, move));
    } catch (e) {
      showError(e);
      return;
    }
    if (positionKey(st.pos) !== key) return;  // the page moved on meanwhile
  }
  extend(positions);
}

// ---- game mode -----------------------------------------------------------------------------

/** In game mode, the tables answer when it is their side's turn. */
function scheduleReply() {
  const r = st.report;
  if (st.mode !== "play" || !r || r.game_over || r.decided || st.pos.side === st.you) return;
  const key = positionKey(st.pos);
  clearTimeout(moveTimer);
  moveTimer = setTimeout(() => {
    if (st.mode === "play" && positionKey(st.pos) === key && st.report) playBest();
  }, 450);
}

/** Takes the player's last move back (and the tables' answers to it). */
function undo() {
  for (let j = st.cursor - 1; j >= 0; --j) {
    if (st.record[j].side === st.you) {
      st.record = st.record.slice(0, j + 1);
      st.cursor = j;
      show(st.record[j]);
      return;
    }
  }
  flash("Nothing to take back.");
}

function setMode(mode) {
  if (mode === st.mode) return;
  const was = st.mode;
  st.mode = mode;
  clearTimeout(moveTimer);
  if (mode === "play") {
    st.you = st.pos.side;
    st.flip = st.you === NORTH;
    st.record = [st.pos];
    st.cursor = 0;
  }
  if (was === "edit") {
    showNew(st.pos);
    return;
  }
  writeUrl("push");
  render();
  scheduleReply();
}

/** What the server says of the variant on show, or null (with a message) when it named none. */
function factsOnShow() {
  const facts = factsOf(st.pos.variant);
  if (!facts) flash(`The server serves no tables of ${st.pos.variant}: pick a game in the menu.`);
  return facts || null;
}

function newGame() {
  const facts = factsOnShow();
  if (!facts) return;
  st.flip = st.you === NORTH;
  showNew(startPosition(facts, st.pos.objective));
}

// ---- the editor ----------------------------------------------------------------------------

/** Shows an edited position at once and asks for its report when the edits pause. */
function edited(pos) {
  st.pos = pos;
  st.record = [pos];
  st.cursor = 0;
  st.report = null;
  st.coop = null;
  st.error = null;
  st.notice = null;
  st.searching = 0;
  // A request still running is for the position before the edit: its answer is dropped.
  dropJob();
  ++requestSerial;
  writeUrl("replace");
  render();
  clearTimeout(editTimer);
  document.body.dataset.state = "loading";
  editTimer = setTimeout(request, 150);
}

function editPit(side, index, delta) {
  const abs = absolute(st.pos);
  const row = side === SOUTH ? abs.south : abs.north;
  row[index] = Math.max(0, Math.min(255, row[index] + delta));
  edited(fromAbsolute(abs, st.pos.side, st.pos.variant, st.pos.objective));
}

function editStore(side, value) {
  const abs = absolute(st.pos);
  const v = Math.max(0, Math.min(255, Math.floor(Number(value) || 0)));
  if (side === SOUTH)
    abs.storeSouth = v;
  else
    abs.storeNorth = v;
  edited(fromAbsolute(abs, st.pos.side, st.pos.variant, st.pos.objective));
}

function editSide(side) {
  if (side === st.pos.side) return;
  edited(fromAbsolute(absolute(st.pos), side, st.pos.variant, st.pos.objective));
}

/** North's seeds and store go to South and the reverse; the side to move stays. */
function swapSides() {
  const abs = absolute(st.pos);
  edited(fromAbsolute(
      {south: abs.north, north: abs.south, storeSouth: abs.storeNorth, storeNorth: abs.storeSouth},
      st.pos.side, st.pos.variant, st.pos.objective));
}

function clearBoard() {
  const pos = clonePosition(st.pos);
  pos.board.fill(0);
  edited(pos);
}

function randomPosition() {
  const limit = maxStones(st.pos.variant, st.pos.objective);
  const p = st.pos.board.length;
  // A variant the server did not name: the seeds on show stand for the game's.
  const game = gameSeeds(st.pos.variant) ??
      st.pos.board.reduce((a, b) => a + b, st.pos.stores[0] + st.pos.stores[1]);
  const n = 1 + Math.floor(Math.random() * Math.max(1, Math.min(limit, game)));
  const board = new Array(p).fill(0);
  for (let i = 0; i < n; ++i) board[Math.floor(Math.random() * p)] += 1;
  const rest = Math.max(0, game - n);
  const south = Math.floor(Math.random() * (rest + 1));
  edited({...st.pos, board, stores: [south, rest - south]});
}

// ---- events --------------------------------------------------------------------------------

function pitTarget(event) {
  return event.target.closest ? event.target.closest(".pit, .store, .badge") : null;
}

function onBoardClick(event, delta) {
  const g = pitTarget(event);
  if (!g) return;
  if (st.mode === "edit") {
    const d = delta !== undefined ? delta : event.shiftKey ? -1 : st.tool;
    if (g.dataset.store) {
      const abs = absolute(st.pos);
      const now = g.dataset.store === SOUTH ? abs.storeSouth : abs.storeNorth;
      editStore(g.dataset.store, now + d);
    } else if (g.dataset.side) {
      editPit(g.dataset.side, Number(g.dataset.index), d);
    }
    return;
  }
  if (g.dataset.pit === undefined) return;
  if (st.mode === "play" && st.pos.side !== st.you) {
    flash("Wait for the tables' move.");
    return;
  }
  choose(Number(g.dataset.pit));
}

/** The board and the lists beside it: clicks, hovers and Enter. */
function bindBoardAndLists() {
  const board = $("board");
  board.addEventListener("click", (e) => onBoardClick(e));
  board.addEventListener("contextmenu", (e) => {
    if (st.mode !== "edit") return;
    e.preventDefault();
    onBoardClick(e, -1);
  });
  board.addEventListener("mouseover", (e) => {
    if (touchScreen()) return;  // a tap chooses the move (choose), a hover does not
    const g = pitTarget(e);
    setHover(g && g.dataset.pit !== undefined && st.mode !== "edit" ? Number(g.dataset.pit) : null);
  });
  board.addEventListener("mouseleave", () => touchScreen() || setHover(null));
  board.addEventListener("keydown", (e) => {
    if (e.key === "Enter") onBoardClick(e);
  });
  board.addEventListener("focusin", (e) => {
    // A tap focuses the pit on its way to the click: a redraw now would replace the element
    // under the finger and the click would be lost. The tap chooses the move (choose) instead.
    if (touchScreen()) return;
    const g = pitTarget(e);
    if (g && g.dataset.pit !== undefined && st.mode !== "edit") setHover(Number(g.dataset.pit));
  });
  const moves = $("moves");
  moves.addEventListener("click", (e) => {
    const button = e.target.closest("button[data-play]");
    if (button) {
      play(Number(button.dataset.play));
      return;
    }
    const li = e.target.closest("li[data-pit]");
    if (li) choose(Number(li.dataset.pit));
  });
  $("hover-info").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-play]");
    if (button) play(Number(button.dataset.play));
  });
  moves.addEventListener("mouseover", (e) => {
    if (touchScreen()) return;
    const li = e.target.closest("li[data-pit]");
    setHover(li ? Number(li.dataset.pit) : null);
  });
  moves.addEventListener("mouseleave", () => touchScreen() || setHover(null));
  moves.addEventListener("keydown", (e) => {
    const li = e.target.closest("li[data-pit]");
    if (li && e.key === "Enter") play(Number(li.dataset.pit));
  });
  $("record").addEventListener("click", (e) => {
    const li = e.target.closest("li[data-index]");
    if (li && st.mode !== "play") goTo(Number(li.dataset.index));
  });
  const line = $("line");
  line.addEventListener("click", (e) => {
    if (e.target.closest("li[data-more]")) {
      st.lineAll = true;
      renderLine($("line"), $("line-end"), st);
      return;
    }
    const li = e.target.closest("li[data-step]");
    if (li) followLine(Number(li.dataset.step));
  });
  line.addEventListener("keydown", (e) => {
    const li = e.target.closest("li[data-step]");
    if (li && e.key === "Enter") followLine(Number(li.dataset.step));
  });
}

/** The buttons and switches of the header, the navigation, the game and the share panel. */
function bindControls() {
  $("first").addEventListener("click", () => goTo(0));
  $("back").addEventListener("click", () => goTo(st.cursor - 1));
  $("forward").addEventListener("click", forward);
  $("last").addEventListener("click", () => goTo(st.record.length - 1));
  $("best").addEventListener("click", playBest);
  $("flip").addEventListener("click", () => {
    st.flip = !st.flip;
    writeUrl("replace");
    renderBoard();
  });
  $("variant").addEventListener("change", async (e) => {
    const serial = ++urlSerial;
    let facts;
    try {
      facts = await resolveVariant(e.target.value);
    } catch (err) {
      showError(err instanceof ApiError ? err : new ApiError("format", String(err)));
      return;
    }
    if (serial !== urlSerial) return;
    const variant = facts.variant;
    const objective = tableFor(variant, st.pos.objective) ? st.pos.objective :
        tableFor(variant, "competitive")                  ? "competitive" :
                                                            "cooperative";
    if (st.mode === "play") st.flip = st.you === NORTH;
    showNew(startPosition(facts, objective));
  });
  $("objective").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-objective]");
    if (b && b.dataset.objective !== st.pos.objective) {
      showNew({...st.pos, objective: b.dataset.objective});
    }
  });
  $("coop-panel").addEventListener("click", (e) => {
    if (e.target.id !== "coop-open") return;
    e.preventDefault();
    showNew({...st.pos, objective: "cooperative"});
  });
  $("modes").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-mode]");
    if (b) setMode(b.dataset.mode);
  });
  $("copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      flash("Link copied.");
    } catch (e) {
      $("permalink").select();
      flash("Press Ctrl+C to copy the selected link.");
    }
  });
  // Game mode.
  $("you").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-you]");
    if (!b || b.dataset.you === st.you) return;
    st.you = b.dataset.you;
    st.flip = st.you === NORTH;
    writeUrl("replace");
    render();
    scheduleReply();
  });
  $("verdict").addEventListener("click", (e) => {
    if (e.target.closest("#search-longer")) searchAgain();
    if (e.target.closest("#search-stop")) stopSearch();
  });
  $("new-game").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("hints").addEventListener("change", (e) => {
    st.hints = e.target.checked;
    writeUrl("replace");
    render();
  });
}

/** The editor's tools. */
function bindEditor() {
  $("tool").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-tool]");
    if (b) {
      st.tool = Number(b.dataset.tool);
      renderEditor();
    }
  });
  $("edit-side").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-side]");
    if (b) editSide(b.dataset.side);
  });
  $("store-south").addEventListener("input", (e) => editStore(SOUTH, e.target.value));
  $("store-north").addEventListener("input", (e) => editStore(NORTH, e.target.value));
  $("clear").addEventListener("click", clearBoard);
  $("start-pos").addEventListener("click", () => {
    const facts = factsOnShow();
    if (!facts) return;
    edited({
      ...st.pos,
      board: new Array(2 * facts.pits_per_side).fill(facts.seeds_per_pit),
      stores: [0, 0]
    });
  });
  $("swap").addEventListener("click", swapSides);
  $("random").addEventListener("click", randomPosition);
  $("edit-done").addEventListener("click", () => setMode("analyse"));
}

function bindEvents() {
  bindBoardAndLists();
  bindControls();
  bindEditor();
  document.addEventListener("keydown", onKey);
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => st.pos && renderBoard(), 100);
  });
  window.addEventListener("pagehide", () => {
    if (job) cancelJobOnLeave(job.poll);
  });
  window.addEventListener("popstate", (e) => {
    if (e.state && e.state.pos)
      restore(e.state);
    else
      fromUrl("none");
  });
}

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  if (t && t.tagName === "BUTTON" && (e.key === " " || e.key === "Enter")) return;
  if (t && t.closest && t.closest("li[role=button], g[role=button]") && e.key === "Enter") return;
  let handled = true;
  switch (e.key) {
    case " ":
      if (st.mode === "play" && st.pos.side !== st.you) break;
      if (st.mode !== "edit") playBest();
      break;
    case "ArrowLeft":
      if (st.mode === "play")
        undo();
      else
        goTo(st.cursor - 1);
      break;
    case "ArrowRight":
      if (st.mode !== "play") forward();
      break;
    case "Home":
      if (st.mode !== "play") goTo(0);
      break;
    case "End":
      if (st.mode !== "play") goTo(st.record.length - 1);
      break;
    case "f":
      $("flip").click();
      break;
    case "e":
      setMode(st.mode === "edit" ? "analyse" : "edit");
      break;
    case "Escape":
      if (st.mode === "edit")
        setMode("analyse");
      else
        setHover(null);
      break;
    default:
      handled = false;
  }
  if (handled) e.preventDefault();
}

// ---- start ---------------------------------------------------------------------------------

function restore(saved) {
  ++urlSerial;  // a URL still being read gives way to the history entry
  st.record = saved.record && saved.record.length ? saved.record : [saved.pos];
  st.cursor = Math.min(saved.cursor || 0, st.record.length - 1);
  st.mode = saved.mode || "analyse";
  st.you = saved.you || SOUTH;
  st.flip = Boolean(saved.flip);
  st.hints = Boolean(saved.hints);
  show(saved.pos, "none");
}

/**
 * What the server makes of a variant text: the facts of the served variant it names (canonical
 * text, board, family). A canonical text the server listed needs no question; another (`oware`,
 * options in another order) is asked once (GET /api/v1/variant). Throws the ApiError of the
 * answer (404: unknown or not served).
 */
async function resolveVariant(text) {
  const listed = st.tables.find((t) => t.variant === text);
  if (listed) return listed;
  if (st.resolved.has(text)) return st.resolved.get(text);
  const facts = await fetchVariant(text);
  st.resolved.set(text, facts);
  return facts;
}

/** The variant shown when the URL names none (or one that cannot be shown): the first served. */
function defaultFacts() {
  return st.tables.find((t) => (t.objective || "competitive") === "competitive") || st.tables[0] ||
      kNoServer;
}

// What the page draws when the server named no variant at all (it did not answer): a board to
// show beside the error, of the README's first variant.
const kNoServer = {
  variant: "oware/6x4",
  pits_per_side: 6,
  seeds_per_pit: 4,
  game_seeds: 48
};

/**
 * The position of the URL, or a default one (with the reason when the URL's is malformed). The
 * URL's variant text goes to the server, which names the canonical variant and its board; the
 * position shown (and so the URL, rewritten) carries the canonical text.
 */
async function fromUrl(how) {
  const serial = ++urlSerial;
  const q = parseQuery(location.search);
  let problem = q.error || null;
  let facts = null;
  let refused = null;  // the server's refusal of the URL's variant text
  if (!problem && q.variant !== undefined) {
    document.body.dataset.state = "loading";
    try {
      facts = await resolveVariant(q.variant);
    } catch (e) {
      refused = e instanceof ApiError ? e : new ApiError("format", String(e));
    }
    if (serial !== urlSerial) return;  // another URL (or the menu) came meanwhile
  }
  if (facts && q.board && q.board.length !== 2 * facts.pits_per_side) {
    const p = facts.pits_per_side;
    problem = `board has ${q.board.length} pits; ${facts.variant} has ${2 * p} (2 x ${p})`;
  }
  if (!facts && !(refused && q.board)) facts = defaultFacts();
  // A variant the server refused, with a board: shown as given, so that the position's own
  // request says why (its 404 names the text and the variants served).
  const variant = facts ? facts.variant : q.variant;
  const objective = !problem && q.objective ? q.objective :
      tableFor(variant, "competitive")      ? "competitive" :
      tableFor(variant, "cooperative")      ? "cooperative" :
                                              "competitive";
  let pos;
  if (!problem && q.board) {
    pos = {variant, objective, side: q.side || SOUTH, board: q.board, stores: q.stores || [0, 0]};
  } else {
    pos = startPosition(facts, objective);
  }
  st.mode = q.mode || "analyse";
  st.you = q.you || SOUTH;
  st.flip = q.mode === "play" ? st.you === NORTH : Boolean(q.flip);
  st.hints = false;
  const canonical = !problem && !refused && q.variant !== undefined && q.variant !== variant;
  showNew(pos, problem || refused || canonical ? "replace" : how);
  if (problem) {
    flash(
        `The link's position is malformed (${problem}); showing a position of ${variant} instead.`);
  } else if (refused && variant !== q.variant) {
    flash(`The link's game cannot be shown (${refused.message}); showing ${variant} instead.`);
  }
}

async function start() {
  // The same request again (the same search budget), the position's report kept meanwhile.
  hooks.retry = () => {
    st.error = null;
    render();
    request();
  };
  bindEvents();
  try {
    st.tables = await fetchVariants();
  } catch (e) {
    st.tables = [];
    st.error = e instanceof ApiError ? e : new ApiError("format", String(e));
  }
  const select = $("variant");
  for (const v of variants()) {
    const t = st.tables.find((x) => x.variant === v);
    const limit = maxStones(v, "competitive") || maxStones(v, "cooperative");
    select.append(h("option", {value: v, title: t.rules || ""}, `${v} (up to ${limit} seeds)`));
  }
  if (history.state && history.state.pos)
    restore(history.state);
  else
    fromUrl("replace");
}

start();
