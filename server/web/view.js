// The panels beside the board: the verdict (value and result in words), the moves best first,
// the principal line, the co-operative summary, what a hovered move does, and the permalink.
// Each function redraws one container from the page's state; app.js owns the state and events.

import {lineBefores, other, pitLabel, plies, seedsOf, sideName, signed} from "./position.js";
import {gameSeeds, maxStones, shownReport, touchScreen} from "./state.js";
import {
  boundsText,
  boundsVerdict,
  count,
  cooperativeVerdict,
  lineEndWords,
  moveAt,
  moveNotes,
  moveOutcome,
  movesBestFirst,
  moveWord,
  outcomeOf,
  outcomeWord,
  ranges,
  scoreText,
  searchNote,
  verdict
} from "./text.js";

/** A DOM element: h("li", {class: "x", dataset: {pit: 3}}, "text", child...). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset")
      Object.assign(node.dataset, v);
    else if (k === "class")
      node.className = v;
    else
      node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** The verdict panel: the value in large type, the result, and what they mean. */
export function renderVerdict(box, st) {
  box.replaceChildren();
  const pos = st.pos;
  const hidden = st.mode === "play" && !st.hints && !(st.report && st.report.game_over);
  box.append(
      h("p", {class: "to-move"}, `${sideName(pos.side)} to move`,
        h("span", {class: "muted"}, ` \u00b7 ${st.pos.variant}`,
          pos.objective === "cooperative" ? " \u00b7 co-operative" : "")));
  // A job running: its live bounds, even over the answer of an earlier search (Search again).
  if (st.progress && !st.error && pos.objective === "competitive") {
    renderProgress(box, st, hidden);
    return;
  }
  if (!st.report) {
    if (st.searching && !st.error) {
      box.append(
          h("p", {id: "value", class: "value pending searching", dataset: {value: ""}},
            "searching\u2026"),
          h("p", {class: "detail"}, searchingWords(st)));
      return;
    }
    box.append(
        h("p", {id: "value", class: "value pending", dataset: {value: ""}},
          st.error ? "\u2014" : "\u2026"));
    return;
  }
  if (pos.objective === "cooperative") {
    const v = cooperativeVerdict(pos, st.report);
    box.append(
        h("p", {
          id: "value",
          class: `value coop ${st.report.balanced ? "win" : "loss"}`,
          dataset: {balanced: String(st.report.balanced)}
        },
          st.report.balanced ? "balanced \u2713" : "unbalanced \u2717"));
    box.append(h("p", {class: "headline"}, v.headline));
    for (const d of v.detail) box.append(h("p", {class: "detail"}, d));
    return;
  }
  if (hidden) {
    box.append(h("p", {id: "value", class: "value pending", dataset: {value: ""}}, "?"));
    box.append(
        h("p", {class: "detail muted"},
          "Hints are off: the value and the moves' worths are hidden."));
    return;
  }
  const r = st.report;
  const exact = typeof r.value === "number";
  const game = gameSeeds(pos.variant);
  const o = outcomeOf(pos, r, game);
  const v = exact ? verdict(pos, r, game) : boundsVerdict(pos, r, game);
  box.append(
      st.mode === "play" && r.game_over ? gameOverFigure(o, pos.side, st.you) :
                                          outcomeFigure(o, pos.side));
  // The value, the seeds netted from now on: secondary, in ink (its sign need not be the result's:
  // the stores count too). Its class names the result for scripts; only #outcome is coloured.
  const me = sideName(pos.side);
  box.append(
      h("p", {class: "value-line"},
        h("span", {
          id: "value",
          class: `value ${o.kind}${exact ? "" : " bounds"}`,
          dataset: {
            value: exact ? r.value : "",
            result: r.result || "",
            method: r.method || "table",
            lower: typeof r.lower === "number" ? r.lower : "",
            upper: typeof r.upper === "number" ? r.upper : ""
          },
          title: exact ? `the value of the position for ${me}: seeds netted from now on` :
                         `bounds on the value for ${me}, in seeds (not proved yet)`
        },
          exact ? signed(r.value) : boundsText(r.lower, r.upper)),
        h("span", {class: "value-unit muted"},
          exact ? ` seeds ${me} nets from now on (the value)` :
                  ` seeds ${me} nets from now on (bounds, not proved yet)`)));
  box.append(h("p", {id: "headline", class: "headline"}, v.headline));
  for (const d of v.detail) box.append(h("p", {class: "detail"}, d));
  if (r.method === "search") renderSearchBox(box, st);
}

/**
 * The position's largest figure: the final score (the mover's first) and the result in words, in
 * the result's colour; "undecided" in neutral ink when the stores or the bounds leave it open.
 */
function outcomeFigure(o, side) {
  const scored = o.mine !== undefined;
  return h(
      "p", {
        id: "outcome",
        class: `outcome ${o.kind}`,
        dataset: {kind: o.kind},
        title: scored ? `the final score with perfect play, ${sideName(side)}'s first` :
                        "the result is not decided by what is known"
      },
      scored ? h("span", {class: "score"}, scoreText(o)) : "",
      h("span", {class: "word"}, outcomeWord(o.kind, side)));
}

/**
 * The game mode's result once the game is over, said from the player's side whoever is left to
 * move (the mover, who cannot move, may be either): "Game over: South wins 29–19", the player's
 * score first, green when the player wins, red when the tables do. `o`: outcomeOf for the mover,
 * `side`; `you`: the player's side.
 */
function gameOverFigure(o, side, you) {
  const mover = side === you;
  const flipped = {win: "loss", loss: "win"};
  const kind = mover ? o.kind : flipped[o.kind] || o.kind;
  const scored = o.mine !== undefined;
  const score = mover ? o : {mine: o.theirs, theirs: o.mine};
  return h(
      "p", {
        id: "outcome",
        class: `outcome over ${kind}`,
        dataset: {kind, side: you},
        title: scored ? `the final score, ${sideName(you)}'s (yours) first` :
                        "the result is not decided by what is known"
      },
      h("span", {class: "lead"}, "Game over:"),
      h("span", {class: "word"}, outcomeWord(kind, you)),
      scored ? h("span", {class: "score"}, scoreText(score)) : "");
}

/**
 * A search job running: its bounds so far, neutral (the result is not claimed while it runs),
 * what it has searched, and "Stop searching". In game mode without hints only that it searches.
 */
function renderProgress(box, st, hidden) {
  const p = st.progress;
  const me = sideName(st.pos.side);
  const value = hidden ? "searching\u2026" : boundsText(p.lower, p.upper);
  if (!hidden) box.append(outcomeFigure({kind: "undecided"}, st.pos.side));
  box.append(h("p", {
    id: "value",
    class: "value undecided bounds searching",
    dataset: {
      value: "",
      result: "",
      method: "search",
      state: "searching",
      lower: hidden ? "" : p.lower,
      upper: hidden ? "" : p.upper
    },
    title: `bounds on the value for ${me}, in seeds, narrowing as the search goes on`
  },
    value));
  if (!hidden) {
    box.append(
        h("p", {id: "headline", class: "headline"},
          `Searching: between ${signed(p.lower)} and ${signed(p.upper)} for ${me} so far`),
        h("p", {class: "detail"},
          `${seedsOf(st.pos)} seeds on the board: more than the tables hold (up to ${
              maxStones(st.pos.variant, "competitive")}), so the server searches the position. ` +
              "The bounds narrow as it goes on; the exact value lies in between."));
  }
  // A job's first answers may come before its first count: 0 is no figure of the search.
  box.append(h("p", {id: "search-note", class: "search-note small muted"},
    p.positions > 0 ? `searched ${count(p.positions)} position${
                          p.positions === 1 ? "" : "s"} in ${p.seconds.toFixed(1)} s so far.` :
                      `searching\u2026 for ${
                          p.seconds.toFixed(1)} s so far (no count of positions yet).`));
  if (st.mode === "play" && st.pos.side !== st.you) return;  // the tables' own budget
  box.append(h("p", {class: "row"}, h("button", {
    type: "button",
    id: "search-stop",
    disabled: Boolean(st.stopping),
    title: "stop the search and show the bounds it has proved"
  },
    st.stopping ? "Stopping\u2026" : "Stop searching")));
}

/** What the page says while a search runs and nothing is known yet. */
function searchingWords(st) {
  const n = seedsOf(st.pos);
  return `${n} seeds on the board: more than the tables hold (up to ${
      maxStones(st.pos.variant, "competitive")}), so the server searches the position.`;
}

/**
 * Under a search's answer: how it was found (positions, time, or the proof store), the best move
 * found when none is proved, and "Search again" while some figure is not proved.
 */
function renderSearchBox(box, st) {
  const r = st.report;
  const s = r.search || {};
  const note = h("p", {id: "search-note", class: "search-note small muted"}, searchNote(r));
  if (typeof r.value === "number" && !s.complete) {
    note.append(". Some moves' worths are not proved yet");
  }
  if (r.best === null && typeof s.best_found === "number" && !r.game_over) {
    note.append(
        `. Best move found so far: pit ${pitLabel(st.pos.side, s.best_found)} (not proved best)`);
  }
  note.append(".");
  box.append(note);
  if (s.complete) return;
  box.append(h(
      "p", {class: "row"},
      h("button", {
        type: "button",
        id: "search-longer",
        disabled: Boolean(st.searching),
        title: "search again; what the server proved so far comes back at once"
      },
        st.searching ? "Searching\u2026" : "Search again")));
}

/** The moves list, best first; each row plays its move on click and previews it on hover. */
export function renderMoves(list, st) {
  list.replaceChildren();
  const r = shownReport();
  if (!r || (st.mode === "play" && !st.hints)) return;
  if (r.game_over) {
    list.append(h("li", {class: "none"}, "The game is over: no move is left to play."));
    return;
  }
  const coop = st.pos.objective === "cooperative";
  const game = gameSeeds(st.pos.variant);
  const selected = touchScreen() ? st.selected : null;
  for (const m of movesBestFirst(r)) {
    const notes = moveNotes(m);
    const o = coop ? null : moveOutcome(st.pos, r, m, game);
    const kind = coop ? (m.balancing ? "balanced" : "unbalanced") : o.kind;
    const name = pitLabel(st.pos.side, m.pit);
    const row =
        h("li", {
          class: `move ${kind}${st.hover === m.pit ? " hovered" : ""}`,
          dataset: {pit: m.pit, worth: coop ? "" : m.worth},
          tabindex: 0,
          role: "button",
          title: `${sideName(st.pos.side)} plays ${name}`
        },
          h("span", {class: "pit-no"}, name));
    if (coop) {
      row.append(
          h("span", {class: "chip"}, m.balancing ? "\u2713" : "\u2717"),
          h("span", {class: "reach"}, m.reachable.length ? ranges(m.reachable) : "\u2014"));
    } else if (m.searching) {
      // A search job just started: the move is legal, nothing about it is proved yet.
      row.classList.add("bounds", "searching");
      row.append(
          h("span", {class: "chip outcome", dataset: {kind}},
            h("span", {class: "word"}, "undecided")),
          h("span", {class: "worth bounds searching", title: "not proved yet: the search goes on"},
            "searching\u2026"));
    } else {
      // The result (its score when known) in its colour, then the worth in ink.
      const scored = o.mine !== undefined;
      row.append(
          h("span", {class: "chip outcome", dataset: {kind}},
            scored ? h("b", {class: "score"}, scoreText(o)) : "",
            h("span", {class: "word"}, moveWord(kind))),
          typeof m.worth === "number" ?
              h("span", {class: "worth", title: "seeds the move nets from now on (its worth)"},
                signed(m.worth)) :
              h("span", {class: "worth bounds", title: "bounds on the worth (not proved yet)"},
                boundsText(m.lower, m.upper)));
      if (typeof m.worth !== "number") row.classList.add("bounds");
    }
    row.append(h("span", {class: "notes"}, notes));
    if (!coop && m.pit === r.best) {
      row.append(h("span", {class: "best-mark", title: "best move"}, "best"));
    } else if (!coop && r.best === null && r.search && m.pit === r.search.best_found) {
      row.append(
          h("span",
            {class: "best-mark found", title: "the best move the search found, not proved best"},
            "found"));
    }
    if (selected === m.pit) {
      row.append(
          h("button", {type: "button", class: "primary play-selected", dataset: {play: m.pit}},
            `Play ${name}`));
    }
    list.append(row);
  }
}

/** Plies of a line shown before "... N more". */
const kLineShown = 30;

/**
 * The principal line (competitive) or the joint line to a balanced end (co-operative): one row
 * per move, from who moves; a click goes to the position after it.
 */
export function renderLine(list, endBox, st) {
  list.replaceChildren();
  endBox.textContent = "";
  const r = st.report;
  if (!r || !Array.isArray(r.line_steps) || (st.mode === "play" && !st.hints)) return;
  const steps = r.line_steps;
  const befores = lineBefores(st.pos, steps);
  const shown = st.lineAll ? steps.length : Math.min(steps.length, kLineShown);
  steps.slice(0, shown).forEach((step, k) => {
    const side = befores[k].side;
    list.append(
        h("li", {
          class: `step ${side}`,
          dataset: {step: k},
          tabindex: 0,
          role: "button",
          title: `the position after this move`
        },
          h("span", {class: "who"}, sideName(side)),
          h("span", {class: "pit-no"}, pitLabel(side, step.pit)),
          step.gain > 0 ? h("span", {class: "gain"}, `+${step.gain}`) : "",
          step.extra_turn ? h("span", {class: "extra", title: "extra turn"}, "\u21bb") : ""));
  });
  if (shown < steps.length) {
    list.append(
        h("li", {
          class: "more",
          dataset: {more: steps.length - shown},
          tabindex: 0,
          role: "button",
          title: "show the whole line"
        },
          `\u2026 ${steps.length - shown} more`));
  }
  let last = st.pos.side;
  if (steps.length) {
    const s = steps[steps.length - 1];
    last = s.extra_turn ? befores[steps.length - 1].side : other(befores[steps.length - 1].side);
  }
  if (r.line_end === "unproved" && !steps.length) {
    endBox.textContent = "No move is proved best yet: the line starts once one is.";
  } else if (st.pos.objective === "cooperative" && !r.balanced) {
    endBox.textContent = "No line of play ends balanced from here.";
  } else if (steps.length || r.game_over) {
    endBox.textContent = lineEndWords(r, last);
  }
}

/**
 * The moves played from the first position of the record to its last (each position knows the
 * move that led to it: `via`), the current one marked; a click goes there.
 */
export function renderRecord(list, st) {
  list.replaceChildren();
  if (st.record.length < 2) return;
  list.append(
      h("li", {
        class: st.cursor === 0 ? "current start" : "start",
        dataset: {index: 0},
        role: "button",
        tabindex: 0
      },
        "start"));
  st.record.forEach((p, i) => {
    if (i === 0) return;
    const via = p.via;
    const who = via ?
        (st.mode === "play" ? (via.side === st.you ? "You" : "Tables") : sideName(via.side)) :
        "?";
    list.append(
        h("li", {
          class: `${via ? via.side : ""}${i === st.cursor ? " current" : ""}`,
          dataset: {index: i},
          role: "button",
          tabindex: 0
        },
          h("span", {class: "who"}, who),
          via ? h("span", {class: "pit-no"}, pitLabel(via.side, via.pit)) : "",
          via && via.gain > 0 ? h("span", {class: "gain"}, `+${via.gain}`) : ""));
  });
}

/** The co-operative summary shown beside a competitive report, when such tables are served. */
export function renderCoopSummary(box, st) {
  box.replaceChildren();
  box.hidden = !st.coop;
  if (!st.coop) return;
  const c = st.coop;
  const moves = c.balancing_moves || [];
  box.append(
      h("h2", {}, "Co-operative"),
      h("p", {id: "coop-summary", dataset: {balanced: String(c.balanced)}},
        c.balanced ? `A balanced end is still possible` : "No balanced end is possible any more",
        c.balanced && !c.game_over ?
            ` (by ${moves.map((pit) => pitLabel(st.pos.side, pit)).join(", ")}).` :
            ".",
        " ", h("a", {href: "#", id: "coop-open"}, "Co-operative view")));
}

/**
 * What the hovered (or, on a touch screen, tapped) move does, or a hint when there is none; on a
 * touch screen with the button that plays the chosen move.
 */
export function renderHoverInfo(box, st) {
  box.replaceChildren();
  const shown = shownReport();
  const m = st.hover === null ? undefined : moveAt(shown, st.hover);
  const touch = touchScreen();
  if (!m) {
    let hint = "";
    if (st.mode === "edit") {
      hint = touch ?
          "Tap a pit or a store to add a seed; with \u22121 seed chosen, a tap takes " +
              "one away." :
          "Click a pit or a store to add a seed; shift-click or right-click to remove one.";
    } else if (shown && !shown.game_over) {
      hint = touch ? "Tap a pit to see its move, then tap it again (or Play) to play it." :
                     "Hover over a move to see what it does; click a pit to play it.";
    }
    box.append(h("span", {class: "muted"}, hint));
    return;
  }
  const me = sideName(st.pos.side);
  const name = pitLabel(st.pos.side, m.pit);
  const seeds = st.pos.board[m.pit];
  const parts = [`${me} ${name}: sows ${seeds} seed${seeds === 1 ? "" : "s"}`];
  const notes = moveNotes(m);
  if (notes) parts.push(notes);
  if (st.pos.objective === "cooperative") {
    parts.push(
        m.balancing ? "keeps a balanced end possible" : "a balanced end is then out of reach");
  } else if (m.searching) {
    if (!(st.mode === "play" && !st.hints)) parts.push("searching: nothing proved yet");
  } else if (!(st.mode === "play" && !st.hints)) {
    const o = moveOutcome(st.pos, shown, m, gameSeeds(st.pos.variant));
    if (o.mine !== undefined) {
      parts.push(`leads to ${scoreText(o)} (${me}'s first), a ${o.kind} for ${me}`);
    } else {
      parts.push(o.kind === "undecided" ? "result undecided" : `a ${o.kind} for ${me}`);
    }
    if (typeof m.worth === "number") {
      parts.push(
          `nets ${signed(m.worth)} seed${Math.abs(m.worth) === 1 ? "" : "s"} from now on` +
          (m.depth ? ` (the next seeds are taken ${plies(m.depth)} after it)` : ""));
    } else {
      parts.push(`nets between ${signed(m.lower)} and ${signed(m.upper)} seeds (not proved yet)`);
    }
  }
  parts.push(m.extra_turn ? `${me} moves again` : `then ${sideName(other(st.pos.side))} moves`);
  box.append(h("span", {id: "hover-text"}, parts.join(" \u00b7 ")));
  if (touch && st.selected === m.pit && st.mode !== "edit") {
    box.append(
        " ",
        h("button", {
          type: "button",
          id: "play-selected",
          class: "primary play-selected",
          dataset: {play: m.pit}
        },
          `Play ${name}`));
  }
}

/** The permalink and the matching command line. */
export function renderShare(box, st) {
  const link = box.querySelector("#permalink");
  link.value = location.href;
  const cli = box.querySelector("#cli");
  const coop = st.pos.objective === "cooperative" ? " --objective cooperative" : "";
  cli.textContent = `sowdb probe --tables DIR${coop} --stores ${st.pos.stores.join(",")} ${
      st.pos.board.join(" ")}`;
}
