// The analysis board of `sowdb serve`: state, navigation, the URL, the editor, the game mode and
// the keyboard. The position on show is always in the URL (history.pushState), with the moves
// played to reach it in the history entry's state so that back and forward work across reloads.

import {ApiError, fetchPosition, fetchVariants} from "./api.js";
import {drawBoard} from "./board.js";
import {
  NORTH,
  SOUTH,
  absolute,
  afterMove,
  clonePosition,
  defaultPosition,
  fromAbsolute,
  lineBefores,
  other,
  parseQuery,
  parseVariant,
  positionKey,
  seedsOf,
  sideName,
  signed,
  toQuery,
  score
} from "./position.js";
import {moveAt, moveNotes} from "./text.js";
import {
  h,
  renderCoopSummary,
  renderRecord,
  renderHoverInfo,
  renderLine,
  renderMoves,
  renderShare,
  renderVerdict
} from "./view.js";

const $ = (id) => document.getElementById(id);

const st = {
  tables: [],    // /api/v1/variants
  pos: null,     // the position on show
  report: null,  // its report, once it arrives
  coop: null,    // its co-operative report (competitive view, co-operative tables served)
  error: null,   // the ApiError of its request
  record: [],    // the positions of the game so far; pos is record[cursor]
  cursor: 0,
  mode: "analyse",  // analyse, play or edit
  you: SOUTH,       // game mode: the player's side
  hints: false,     // game mode: show the values
  flip: false,      // North at the bottom
  hover: null,      // the mover's pit under the pointer
  tool: 1,          // editor: a click adds (1) or removes (-1) a seed
  notice: null,     // a message that is not an error of the request: {text, kind}
  lineAll: false,   // the whole principal line, not its first plies
};
let requestSerial = 0;
let editTimer = 0;
let moveTimer = 0;

// ---- tables served -------------------------------------------------------------------------

function tableFor(variant, objective) {
  return st.tables.find(
      (t) => t.variant === variant && (t.objective || "competitive") === objective);
}

function maxStones(variant, objective) {
  const t = tableFor(variant, objective) || tableFor(variant, "competitive") ||
      tableFor(variant, "cooperative");
  if (!t) return 0;
  if (t.layers && typeof t.layers.max === "number") return t.layers.max;
  return typeof t.max_stones === "number" ? t.max_stones : 0;
}

function variants() {
  const seen = [];
  for (const t of st.tables)
    if (!seen.includes(t.variant)) seen.push(t.variant);
  return seen;
}

function familyOf(variant) {
  const t = st.tables.find((x) => x.variant === variant);
  const rules = t && typeof t.rules === "string" ? t.rules : "";
  return rules.startsWith("kalah") || variant.startsWith("kalah") ? "kalah" : "oware";
}

function gameSeeds(variant) {
  const v = parseVariant(variant);
  return 2 * v.pits * v.seeds;
}

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
  st.notice = null;
  st.lineAll = false;
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

/** The position after `move` of `pos`, marked with the move that led to it (the record's list). */
function played(pos, move) {
  return {...afterMove(pos, move), via: {pit: move.pit, side: pos.side, gain: move.gain}};
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

async function request() {
  const pos = st.pos;
  const serial = ++requestSerial;
  document.body.dataset.state = "loading";
  const slow = setTimeout(() => {
    if (serial === requestSerial) setStatus("Asking the tables\u2026", "info");
  }, 300);
  let report = null;
  let coop = null;
  let error = null;
  try {
    report = await fetchPosition(pos);
    if (pos.objective === "competitive" && tableFor(pos.variant, "cooperative")) {
      // The co-operative summary is a bonus: its failure (fewer layers, say) hides it only.
      coop = await fetchPosition({...pos, objective: "cooperative"}).catch(() => null);
    }
  } catch (e) {
    error = e instanceof ApiError ? e : new ApiError("format", String(e));
  }
  clearTimeout(slow);
  if (serial !== requestSerial) return;
  st.report = report;
  st.coop = coop;
  st.error = error;
  render();
  document.body.dataset.key = positionKey(pos);
  document.body.dataset.state = error ? "error" : "ready";
  scheduleReply();
}

// ---- moves ---------------------------------------------------------------------------------

/** Plays `pit` in the position on show (when the report says it is legal). */
function play(pit) {
  if (!st.report || st.pos.objective === undefined) return;
  if (st.report.game_over) {
    flash("The game is over: no move is left.");
    return;
  }
  if (st.mode === "play" && st.report.decided) {
    flash("The game is decided: a store holds more than half of the seeds (the majority rule).");
    return;
  }
  const move = moveAt(st.report, pit);
  if (!move) {
    const seeds = st.pos.board[pit];
    flash(
        seeds === 0 ? `Pit ${pit} is empty.` :
                      `Pit ${pit} is not a legal move here (the opponent must be fed).`);
    return;
  }
  extend([played(st.pos, move)]);
}

/** The move the tables choose: the best one, or in the co-operative view the joint line's. */
function bestPit() {
  const r = st.report;
  if (!r || r.game_over || !r.moves.length) return null;
  if (st.pos.objective === "cooperative") {
    if (r.line && r.line.length) return r.line[0];
    return r.balancing_moves && r.balancing_moves.length ? r.balancing_moves[0] : r.moves[0].pit;
  }
  return r.best;
}

function playBest() {
  const pit = bestPit();
  if (pit !== null && pit !== undefined) play(pit);
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

function newGame() {
  const pos = defaultPosition(
      st.pos.variant, st.pos.objective, maxStones(st.pos.variant, st.pos.objective));
  st.flip = st.you === NORTH;
  showNew(pos);
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
  const n = 1 + Math.floor(Math.random() * Math.max(1, Math.min(limit, gameSeeds(st.pos.variant))));
  const board = new Array(p).fill(0);
  for (let i = 0; i < n; ++i) board[Math.floor(Math.random() * p)] += 1;
  const rest = Math.max(0, gameSeeds(st.pos.variant) - n);
  const south = Math.floor(Math.random() * (rest + 1));
  edited({...st.pos, board, stores: [south, rest - south]});
}

// ---- drawing -------------------------------------------------------------------------------

function setStatus(text, kind, action) {
  const box = $("status");
  box.replaceChildren();
  if (!text) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.className = `status ${kind}`;
  box.append(h("span", {}, text));
  if (action) {
    const b = h("button", {type: "button"}, action.label);
    b.addEventListener("click", action.run);
    box.append(" ", b);
  }
}

function flash(text) {
  st.notice = {text, kind: "info"};
  renderStatus();
}

function showError(e) {
  st.error = e;
  render();
}

function renderStatus() {
  const e = st.error;
  if (!e) {
    if (st.notice)
      setStatus(st.notice.text, st.notice.kind);
    else
      setStatus("");
    return;
  }
  const retry = {label: "Retry", run: () => show(st.pos, "none")};
  if (e.kind === "network") {
    setStatus(
        `The server does not answer: is \`sowdb serve\` still running? (${e.message})`, "error",
        retry);
  } else if (e.kind === "http" && e.status === 422) {
    setStatus(
        `This position is outside the tables: ${e.message}. Take seeds off in the editor ` +
            "(Edit), or serve tables with more layers.",
        "error");
  } else if (e.kind === "http" && e.status === 404) {
    const served = variants().join(", ");
    setStatus(`${e.message}.${served ? ` This server has tables for ${served}.` : ""}`, "error");
  } else if (e.kind === "http" && e.status === 400) {
    setStatus(`The server refused the position: ${e.message}.`, "error");
  } else if (e.kind === "http" && e.status >= 500) {
    setStatus(`The server failed (HTTP ${e.status}): ${e.message}.`, "error", retry);
  } else {
    setStatus(e.message, "error", retry);
  }
}

function badges() {
  const r = st.report;
  const out = new Map();
  if (!r || r.game_over) return out;
  const coop = st.pos.objective === "cooperative";
  if (st.mode === "play" && !st.hints && !coop) return out;
  const p = st.pos.board.length / 2;
  for (let pit = 0; pit < p; ++pit) {
    const m = moveAt(r, pit);
    if (!m) {
      if (st.pos.board[pit] > 0) {
        out.set(pit, {text: "\u00d7", kind: "illegal", label: `pit ${pit}: not a legal move`});
      }
      continue;
    }
    const notes = moveNotes(m);
    if (coop) {
      out.set(pit, {
        text: m.balancing ? "\u2713" : "\u2717",
        kind: m.balancing ? "balanced" : "unbalanced",
        label: `pit ${pit}: ${
                   m.balancing ? "keeps a balanced end possible" : "no balanced end after it"}` +
            (notes ? ` (${notes})` : "")
      });
    } else {
      out.set(pit, {
        text: signed(m.worth),
        kind: m.category,
        best: pit === r.best,
        worth: m.worth,
        label: `pit ${pit}: worth ${signed(m.worth)}, ${m.category}` + (notes ? ` (${notes})` : "")
      });
    }
  }
  return out;
}

/** The board's width on screen, in CSS pixels (the window's before the first layout). */
function boardWidth() {
  const w = $("board").getBoundingClientRect().width;
  return w > 0 ? w : window.innerWidth;
}

function renderBoard() {
  const pos = st.pos;
  const m = st.hover === null ? undefined : moveAt(st.report, st.hover);
  const names = {south: "South", north: "North"};
  if (st.mode === "play") {
    names[st.you] = "You";
    names[other(st.you)] = "Tables";
  }
  drawBoard($("board"), {
    pits: pos.board.length / 2,
    abs: absolute(pos),
    toMove: pos.side,
    flip: st.flip,
    badges: badges(),
    hover: st.hover,
    preview: m ? {abs: absolute(afterMove(pos, m))} : null,
    editing: st.mode === "edit",
    compact: boardWidth() < 560,
    storeLabel: familyOf(pos.variant) === "kalah" ? "store" : "taken",
    names,
  });
  const label = `${pos.variant}, ${sideName(pos.side)} to move`;
  $("board").setAttribute("aria-label", label);
}

function renderControls() {
  const play = st.mode === "play";
  for (const b of $("modes").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", String(b.dataset.mode === st.mode));
  }
  for (const b of $("objective").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", String(b.dataset.objective === st.pos.objective));
    b.disabled =
        !tableFor(st.pos.variant, b.dataset.objective) && b.dataset.objective !== st.pos.objective;
  }
  $("objective").hidden = !tableFor(st.pos.variant, "cooperative");
  const select = $("variant");
  if (![...select.options].some((o) => o.value === st.pos.variant)) {
    select.append(h("option", {value: st.pos.variant}, `${st.pos.variant} (not served)`));
  }
  select.value = st.pos.variant;
  $("first").disabled = play || st.cursor === 0;
  $("back").disabled = play || st.cursor === 0;
  $("last").disabled = play || st.cursor + 1 >= st.record.length;
  const canPlay = st.report && !st.report.game_over && st.mode !== "edit";
  $("forward").disabled = play || !(st.cursor + 1 < st.record.length || canPlay);
  $("best").disabled = !canPlay || (play && st.pos.side !== st.you);
  for (const id of ["first", "back", "forward", "last"]) $(id).hidden = play;
  $("game").hidden = !play;
  const quiet = play && !st.hints;
  $("moves-panel").hidden = quiet;
  $("line-box").hidden = quiet;
  $("editor").hidden = st.mode !== "edit";
  document.body.dataset.mode = st.mode;
  if (play) renderGame();
  if (st.mode === "edit") renderEditor();
}

function renderGame() {
  for (const b of $("you").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", String(b.dataset.you === st.you));
  }
  $("hints").checked = st.hints;
  $("undo").disabled = !st.record.slice(0, st.cursor).some((p) => p.side === st.you);
  const msg = $("game-msg");
  const r = st.report;
  if (!r) {
    msg.textContent = st.error ? "" : "\u2026";
  } else if (r.game_over || r.decided) {
    const [a, b] = r.final;
    const mine = st.pos.side === st.you ? a : b;
    const theirs = st.pos.side === st.you ? b : a;
    const how = r.game_over ? "Game over" : "The game is decided (majority rule)";
    msg.textContent = `${how}: you ${score(mine)}, the tables ${score(theirs)}. ` +
        (mine > theirs     ? "You win!" :
             mine < theirs ? "The tables win." :
                             "A draw.");
  } else if (st.pos.side === st.you) {
    msg.textContent = "Your move: click one of your pits.";
  } else {
    msg.textContent = "The tables are playing\u2026";
  }
  msg.dataset.turn = r && !r.game_over ? (st.pos.side === st.you ? "you" : "tables") : "over";
}

function renderEditor() {
  for (const b of $("tool").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", String(Number(b.dataset.tool) === st.tool));
  }
  for (const b of $("edit-side").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", String(b.dataset.side === st.pos.side));
  }
  const abs = absolute(st.pos);
  for (const [id, v] of [["store-south", abs.storeSouth], ["store-north", abs.storeNorth]]) {
    const input = $(id);
    if (document.activeElement !== input) input.value = String(v);
  }
  const n = seedsOf(st.pos);
  const limit = maxStones(st.pos.variant, st.pos.objective);
  const total = n + st.pos.stores[0] + st.pos.stores[1];
  let info = `${n} seed${n === 1 ? "" : "s"} on the board; the tables hold up to ${limit}. ` +
      `Board and stores: ${total} of the game's ${gameSeeds(st.pos.variant)}.`;
  if (n > limit)
    info += " Too many seeds on the board for these tables.";
  else if (total > gameSeeds(st.pos.variant))
    info += " More seeds than the game holds: lower the stores.";
  $("edit-info").textContent = info;
}

function render() {
  if (!st.pos) return;
  renderBoard();
  renderControls();
  renderStatus();
  renderVerdict($("verdict"), st);
  renderMoves($("moves"), st);
  $("line-title").textContent =
      st.pos.objective === "cooperative" ? "A line to a balanced end" : "Principal line";
  renderLine($("line"), $("line-end"), st);
  renderRecord($("record"), st);
  $("record-box").hidden = st.record.length < 2;
  renderCoopSummary($("coop-panel"), st);
  renderHoverInfo($("hover-info"), st);
  renderShare($("share"), st);
  const r = st.report;
  document.title = `${st.pos.variant}, ${sideName(st.pos.side)} to move` +
      (r && typeof r.value === "number" && st.mode !== "play" ? `: ${signed(r.value)}` : "") +
      " \u2014 sowdb";
}

function setHover(pit) {
  if (pit === st.hover) return;
  st.hover = pit;
  renderBoard();
  renderHoverInfo($("hover-info"), st);
  for (const li of $("moves").children) {
    li.classList.toggle("hovered", Number(li.dataset.pit) === pit && pit !== null);
  }
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
  play(Number(g.dataset.pit));
}

function bindEvents() {
  const board = $("board");
  board.addEventListener("click", (e) => onBoardClick(e));
  board.addEventListener("contextmenu", (e) => {
    if (st.mode !== "edit") return;
    e.preventDefault();
    onBoardClick(e, -1);
  });
  board.addEventListener("mouseover", (e) => {
    const g = pitTarget(e);
    setHover(g && g.dataset.pit !== undefined && st.mode !== "edit" ? Number(g.dataset.pit) : null);
  });
  board.addEventListener("mouseleave", () => setHover(null));
  board.addEventListener("keydown", (e) => {
    if (e.key === "Enter") onBoardClick(e);
  });
  board.addEventListener("focusin", (e) => {
    const g = pitTarget(e);
    if (g && g.dataset.pit !== undefined && st.mode !== "edit") setHover(Number(g.dataset.pit));
  });
  const moves = $("moves");
  moves.addEventListener("click", (e) => {
    const li = e.target.closest("li[data-pit]");
    if (li) play(Number(li.dataset.pit));
  });
  moves.addEventListener("mouseover", (e) => {
    const li = e.target.closest("li[data-pit]");
    setHover(li ? Number(li.dataset.pit) : null);
  });
  moves.addEventListener("mouseleave", () => setHover(null));
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
  $("variant").addEventListener("change", (e) => {
    const variant = e.target.value;
    const objective = tableFor(variant, st.pos.objective) ? st.pos.objective :
        tableFor(variant, "competitive")                  ? "competitive" :
                                                            "cooperative";
    if (st.mode === "play") st.flip = st.you === NORTH;
    showNew(defaultPosition(variant, objective, maxStones(variant, objective)));
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
  $("new-game").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("hints").addEventListener("change", (e) => {
    st.hints = e.target.checked;
    writeUrl("replace");
    render();
  });
  // The editor.
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
    const v = parseVariant(st.pos.variant);
    edited({...st.pos, board: new Array(2 * v.pits).fill(v.seeds), stores: [0, 0]});
  });
  $("swap").addEventListener("click", swapSides);
  $("random").addEventListener("click", randomPosition);
  $("edit-done").addEventListener("click", () => setMode("analyse"));
  $("copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      flash("Link copied.");
    } catch (e) {
      $("permalink").select();
      flash("Press Ctrl+C to copy the selected link.");
    }
  });
  document.addEventListener("keydown", onKey);
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => st.pos && renderBoard(), 100);
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
  st.record = saved.record && saved.record.length ? saved.record : [saved.pos];
  st.cursor = Math.min(saved.cursor || 0, st.record.length - 1);
  st.mode = saved.mode || "analyse";
  st.you = saved.you || SOUTH;
  st.flip = Boolean(saved.flip);
  st.hints = Boolean(saved.hints);
  show(saved.pos, "none");
}

/** The position of the URL, or a default one (with the reason when the URL's is malformed). */
function fromUrl(how) {
  const q = parseQuery(location.search);
  let problem = null;
  if (q.error) problem = q.error;
  const served = variants();
  const variant = !q.error && q.variant ?
      q.variant :
      (st.tables.find((t) => (t.objective || "competitive") === "competitive") || st.tables[0] || {
        variant: "oware/6x4"
      }).variant;
  let objective = !q.error && q.objective ? q.objective :
      tableFor(variant, "competitive")    ? "competitive" :
      tableFor(variant, "cooperative")    ? "cooperative" :
                                            "competitive";
  let pos;
  if (!q.error && q.board) {
    pos = {variant, objective, side: q.side || SOUTH, board: q.board, stores: q.stores || [0, 0]};
  } else {
    pos = defaultPosition(variant, objective, maxStones(variant, objective));
  }
  st.mode = q.mode || "analyse";
  st.you = q.you || SOUTH;
  st.flip = q.mode === "play" ? st.you === NORTH : Boolean(q.flip);
  st.hints = false;
  showNew(pos, problem ? "replace" : how);
  if (problem) {
    flash(
        `The link's position is malformed (${problem}); showing a position of ${variant} instead.`);
  }
  if (served.length && !served.includes(variant)) {
    // The request's 404 names the variant; nothing else to do.
  }
}

async function start() {
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
