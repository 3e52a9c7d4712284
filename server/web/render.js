// Draws the page from its state (state.js): the board, the panels, the controls, the status
// line. Never changes the position; app.js does, then calls render().

import {drawBoard} from "./board.js";
import {absolute, afterMove, other, seedsOf, sideName, signed, score} from "./position.js";
import {$, familyOf, gameSeeds, maxStones, st, tableFor, variants} from "./state.js";
import {moveAt, moveNotes} from "./text.js";
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

/** What the status line's Retry button does (app.js sets it: ask for the position again). */
export const hooks = {
  retry: () => {}
};


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
  const retry = {label: "Retry", run: () => hooks.retry()};
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

export function renderBoard() {
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
  if (n > limit)
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
  document.title = `${st.pos.variant}, ${sideName(st.pos.side)} to move` +
      (r && typeof r.value === "number" && st.mode !== "play" ? `: ${signed(r.value)}` : "") +
      " \u2014 sowdb";
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
