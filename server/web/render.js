// Draws the page from its state (state.js): the board, the panels, the controls, the status
// line. Never changes the position; app.js does, then calls render().

import {drawBoard} from "./board.js";
import {
  absolute,
  afterMove,
  other,
  pitLabel,
  seedsOf,
  sideName,
  signed,
  score
} from "./position.js";
import {
  $,
  aboveTables,
  gameSeeds,
  maxStones,
  shownReport,
  st,
  tableFor,
  touchScreen,
  variants
} from "./state.js";
import {
  boundsText,
  moveAt,
  moveNotes,
  moveOutcome,
  moveWord,
  outcomeOf,
  outcomeWord,
  scoreText
} from "./text.js";
import {
  h,
  renderCoopSummary,
  renderHoverInfo,
  renderLine,
  renderMoves,
  renderRecord,
  renderShare,
  renderVerdict
} from "./view.js";

/**
 * What the status line's buttons do (app.js sets them): Retry asks for the position again with
 * the same search budget.
 */
export const hooks = {
  retry: () => {}
};


/**
 * Shows `text` in the status line (none: hides it), styled by `kind` (info or error), with a
 * button when `action` ({label, run}) is given. A notice on show (st.notice: why the page shows
 * another position than the link's, say) goes before an error's text.
 */
export function setStatus(text, kind, action) {
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

export function flash(text) {
  st.notice = {text, kind: "info"};
  renderStatus();
}

export function showError(e) {
  st.error = e;
  render();
}

export function renderStatus() {
  const e = st.error;
  if (!e) {
    if (st.notice)
      setStatus(st.notice.text, st.notice.kind);
    else
      setStatus("");
    return;
  }
  const {text, action} = errorWords(e);
  // A notice (why the page shows another position than the link's) goes before the error.
  setStatus(st.notice ? `${st.notice.text} ${text}` : text, "error", action);
}

/** What the status line says of an error (an ApiError): {text, action (a button) or null}. */
function errorWords(e) {
  const retry = {label: "Retry", run: () => hooks.retry()};
  if (e.kind === "network") {
    return {
      text: `The server does not answer: is \`sowdb serve\` still running? (${e.message})`,
      action: retry
    };
  }
  if (e.kind === "http" && e.status === 422) {
    return {
      text: `This position is outside the tables: ${e.message}. Take seeds off in the editor ` +
          "(Edit), or serve tables with more layers.",
      action: null
    };
  }
  if (e.kind === "http" && e.status === 404) {
    const served = variants().join(", ");
    return {
      text: `${e.message}.${served ? ` This server has tables for ${served}.` : ""}`,
      action: null
    };
  }
  if (e.kind === "http" && e.status === 503) {
    return {
      text: "The server is busy: it runs only a few searches at once and every search slot is " +
          `taken (${e.message}). Try again in a moment.`,
      action: retry
    };
  }
  if (e.kind === "http" && e.status === 400 && aboveTables(st.pos)) {
    // Above the tables the server searches only some games (not yet the Oware family): its
    // reason, as it gives it.
    return {
      text: `This position is outside the tables (${seedsOf(st.pos)} seeds on the board; they ` +
          `hold up to ${maxStones(st.pos.variant, "competitive")}) and the server cannot ` +
          `search it: ${e.message}.`,
      action: null
    };
  }
  if (e.kind === "http" && e.status === 400) {
    return {text: `The server refused the position: ${e.message}.`, action: null};
  }
  if (e.kind === "http" && e.status >= 500) {
    return {text: `The server failed (HTTP ${e.status}): ${e.message}.`, action: retry};
  }
  return {text: e.message, action: retry};
}

function badges() {
  const r = shownReport();
  const out = new Map();
  if (!r || r.game_over) return out;
  const coop = st.pos.objective === "cooperative";
  if (st.mode === "play" && !st.hints && !coop) return out;
  const p = st.pos.board.length / 2;
  const game = gameSeeds(st.pos.variant);
  for (let pit = 0; pit < p; ++pit) {
    const name = pitLabel(st.pos.side, pit);
    const m = moveAt(r, pit);
    if (!m) {
      if (st.pos.board[pit] > 0) {
        out.set(pit, {fig: "\u00d7", kind: "illegal", label: `${name}: not a legal move`});
      }
      continue;
    }
    const notes = moveNotes(m);
    if (coop) {
      out.set(pit, {
        fig: m.balancing ? "\u2713" : "\u2717",
        kind: m.balancing ? "balanced" : "unbalanced",
        label: `${name}: ${
                   m.balancing ? "keeps a balanced end possible" : "no balanced end after it"}` +
            (notes ? ` (${notes})` : "")
      });
      continue;
    }
    if (m.searching) {
      // A search job just started: the move is legal, nothing about it is proved yet. (On a
      // phone's board the word would be squeezed past reading: an ellipsis says it.)
      out.set(pit, {
        fig: moveWord("undecided"),
        word: null,
        kind: "undecided",
        best: false,
        worthText: boardWidth() < 560 ? "\u2026" : "searching\u2026",
        label: `${name}: searching, nothing proved yet` + (notes ? ` (${notes})` : "")
      });
      continue;
    }
    // The badge says the result (its score when known), in the result's colour; the worth, a
    // count of seeds from now whose sign may differ from the result's, stands beside it in ink.
    const o = moveOutcome(st.pos, r, m, game);
    const exact = typeof m.worth === "number";
    const worthText = exact ? signed(m.worth) : boundsText(m.lower, m.upper);
    const scored = o.mine !== undefined;
    out.set(pit, {
      fig: scored ? scoreText(o) : moveWord(o.kind),
      word: scored ? moveWord(o.kind) : null,
      kind: o.kind,
      best: pit === r.best,
      worth: exact ? m.worth : undefined,
      worthText,
      label: `${name}: ` + (scored ? `ends ${scoreText(o)}, a ${o.kind}` : moveWord(o.kind)) +
          ` for ${sideName(st.pos.side)}; ` +
          (exact ? `nets ${worthText} seeds from now` :
                   `nets between ${signed(m.lower)} and ${signed(m.upper)} seeds from now`) +
          (notes ? ` (${notes})` : "")
    });
  }
  return out;
}

/** The pit the last move on show was played from ({side, index}), or null. */
function lastMove() {
  const via = st.pos && st.pos.via;
  return via ? {side: via.side, index: via.pit} : null;
}

/** The board's width on screen, in CSS pixels (the window's before the first layout). */
function boardWidth() {
  const w = $("board").getBoundingClientRect().width;
  return w > 0 ? w : window.innerWidth;
}

export function renderBoard() {
  const pos = st.pos;
  const m = st.hover === null ? undefined : moveAt(shownReport(), st.hover);
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
    last: lastMove(),
    preview: m ? {abs: absolute(afterMove(pos, m))} : null,
    editing: st.mode === "edit",
    compact: boardWidth() < 560,
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
    msg.textContent = st.error ? "" :
        st.searching           ? "Searching\u2026 (more seeds than the tables hold)" :
                                 "\u2026";
  } else if (r.game_over || r.decided) {
    const how = r.game_over ? "Game over" : "The game is decided (majority rule)";
    if (Array.isArray(r.final)) {
      const [a, b] = r.final;
      const mine = st.pos.side === st.you ? a : b;
      const theirs = st.pos.side === st.you ? b : a;
      msg.textContent = `${how}: you ${score(mine)}, the tables ${score(theirs)}. ` +
          (mine > theirs     ? "You win!" :
               mine < theirs ? "The tables win." :
                               "A draw.");
    } else {
      // Decided by the bounds of a search, the final score not yet proved.
      const youWin = (r.result === "win") === (st.pos.side === st.you);
      msg.textContent = `${how}: ` +
          (r.result === "draw" ? "a draw." :
               youWin          ? "you win!" :
                                 "the tables win.");
    }
  } else if (st.pos.side === st.you) {
    msg.textContent = touchScreen() ?
        "Your move: tap one of your pits, then tap it again to play." :
        "Your move: click one of your pits.";
  } else {
    msg.textContent =
        st.searching ? "The tables are searching\u2026" : "The tables are playing\u2026";
  }
  msg.dataset.turn = r && !r.game_over ? (st.pos.side === st.you ? "you" : "tables") : "over";
  $("game-last").textContent = lastReplyWords();
}

/**
 * How the tables chose their last moves (their turn, extra turns included), when they were found
 * by search: proved best, or only the best a search found in its time.
 */
function lastReplyWords() {
  const found = [];
  const proved = [];
  for (let i = st.cursor; i > 0; --i) {
    const via = st.record[i].via;
    if (!via || via.side === st.you || !via.how) break;
    if (via.how === "found")
      found.unshift(via.pit);
    else if (aboveTables(st.record[i - 1]))
      proved.unshift(via.pit);
  }
  const side = other(st.you);
  const pits = (list) => list.map((pit) => pitLabel(side, pit)).join(", then ");
  const words = [];
  if (proved.length) {
    words.push(
        `The tables played ${pits(proved)}: proved best by a search or by the opening book.`);
  }
  if (found.length) {
    words.push(
        `The tables played ${pits(found)}: the best their search found in its time, not proved ` +
        "best.");
  }
  return words.join(" ");
}

export function renderEditor() {
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
  const game = gameSeeds(st.pos.variant);
  let info = `${n} seed${n === 1 ? "" : "s"} on the board; the tables hold up to ${limit}. ` +
      (game === null ? `Board and stores: ${total}.` :
                       `Board and stores: ${total} of the game's ${game}.`);
  if (n > limit && aboveTables(st.pos))
    info += " More seeds than the tables hold: the server searches the position.";
  else if (n > limit)
    info += " Too many seeds on the board for these tables.";
  else if (game !== null && total > game)
    info += " More seeds than the game holds: lower the stores.";
  $("edit-info").textContent = info;
}

export function render() {
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
  let said = "";
  if (r && typeof r.value === "number" && st.mode !== "play" &&
      st.pos.objective === "competitive") {
    const o = outcomeOf(st.pos, r, gameSeeds(st.pos.variant));
    said =
        `: ${outcomeWord(o.kind, st.pos.side)}` + (o.mine !== undefined ? ` ${scoreText(o)}` : "");
  }
  document.title = `${st.pos.variant}, ${sideName(st.pos.side)} to move${said} \u2014 sowdb`;
}

export function setHover(pit) {
  if (pit === st.hover) return;
  st.hover = pit;
  renderBoard();
  renderHoverInfo($("hover-info"), st);
  for (const li of $("moves").children) {
    li.classList.toggle("hovered", Number(li.dataset.pit) === pit && pit !== null);
  }
}
