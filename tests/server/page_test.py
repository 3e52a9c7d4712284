#!/usr/bin/python3
"""The analysis page of `sowdb serve` in a real browser (headless Chromium driven by Selenium).

Starts `sowdb serve` on a free port over the tables of make_tables.sh and checks what the page
shows against `sowdb probe --json`: the value and every move's worth of 200 random positions
(Oware and Kalah, fixed seed), the seeds in every pit, a click on a pit (the new position and its
URL), the browser's back and forward, the editor, the keyboard, the game mode (the tables answer
with a best move; undo), the co-operative view, variant texts that only the server reads (`oware`,
a variant with options in another order: the page shows the canonical text), and the messages for
a position outside the tables, a malformed link and a server that is gone; above the tables
(kalah/4x3 served with layers 0..18): New game shows the real start, answered exactly by search,
a whole game played by best moves and one against the page's opponent; on a server that searches
1 ms at most, live bounds, Stop searching, Search again and a busy answer; a search that outlasts
the page's first wait, live, then exact. Saves screenshots (desktop 1280x800, phone
390x844).

Usage: page_test.py SOWDB TABLES_DIR OUT_DIR [--url URL]
  --url: use a server that is already running instead of starting one (development).
Exit: 0 when every check passes, 1 otherwise.
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

SEED = 31
# The variant with an option of make_tables.sh (abapa's grand slam captures nothing; here it
# captures), its tables' directory and its most seeds.
OPTIONS_VARIANT = "abapa/4x3/grand_slam=capture"
OPTIONS_TABLES = "abapa-gs"
OPTIONS_MAX = 12
POSITIONS_PER_VARIANT = int(os.environ.get("SOWDB_PAGE_POSITIONS", "100"))
# Of each variant's positions, the first FULL_LOADS are opened by loading the page, the others
# through the page's own reading of its URL (follow_url): the whole run's CPU time is mostly
# Chromium's, and a full load costs three times as much.
FULL_LOADS = int(os.environ.get("SOWDB_PAGE_FULL_LOADS", "10"))
WAIT = 20  # seconds any one page state may take to appear (a bound, not a sleep)

checks = 0
failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print(f"FAIL: {what}", file=sys.stderr)
    return ok


def signed(x):
    return f"+{x}" if x > 0 else str(x)


def norm(text):
    """The page's text with its real minus signs as ASCII."""
    return text.replace("\u2212", "-").strip()


# ---- the server --------------------------------------------------------------------------------

SERVED = ("oware", "kalah", "wari-kc", "wari-kc-coop", "abapa-gs", "kalah-4x3")


# Where start_server keeps each server's output (main sets it), and (process, log file) of each.
LOG_DIR = tempfile.gettempdir()
SERVER_LOGS = []


def server_logs():
    """What each server started so far printed last, and whether it still runs: for a failure
    that a server may have caused (a connection closed without an answer)."""
    for proc, name in SERVER_LOGS:
        state = "running" if proc.poll() is None else f"ended with {proc.returncode}"
        with open(name, "rb") as f:
            tail = f.read()[-3000:].decode(errors="replace")
        print(f"--- server {proc.pid} ({state}), {name}:\n{tail}", file=sys.stderr)


def start_server(sowdb, tables, names=SERVED, extra=()):
    """Starts `sowdb serve --port 0` over the table directories `names` (with the flags `extra`);
    returns (process, base URL) once it prints its URL. Its proof store is in SOWDB_CACHE_DIR,
    which main() points at a directory of this run."""
    args = [sowdb, "serve", "--port", "0", *extra]
    for name in names:
        args += ["--tables", os.path.join(tables, name)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=0)
    deadline = time.monotonic() + 60
    seen = b""
    # Raw reads: a buffered reader could hold the URL line while select() waits on the pipe.
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
        if not ready:
            break
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        seen += chunk
        m = re.search(rb"listening on (http://[0-9.]+:[0-9]+)", seen)
        if m:
            # The server logs on: drain its output so that a full pipe never blocks it, into a
            # file that a failure shows (server_logs).
            log = open(os.path.join(LOG_DIR, f"server-{proc.pid}.log"), "wb", buffering=0)
            log.write(seen)
            SERVER_LOGS.append((proc, log.name))
            threading.Thread(target=lambda: [log.write(b) for b in iter(
                lambda: os.read(proc.stdout.fileno(), 65536), b"")], daemon=True).start()
            return proc, m.group(1).decode()
    proc.kill()
    raise SystemExit(f"sowdb serve printed no URL within 60 s: {seen.decode(errors='replace')}")


def wait_api(base):
    """Polls /api/v1/variants until it answers (bounded: 100 tries, 0.1 s apart)."""
    for _ in range(100):
        try:
            with urllib.request.urlopen(base + "/api/v1/variants", timeout=5) as r:
                return json.load(r)
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{base}/api/v1/variants does not answer")


# ---- expected answers ----------------------------------------------------------------------------

def probe_bulk(sowdb, tables, stores, boards):
    """`sowdb probe --json -` over boards with the same stores: one report per board."""
    text = "".join(" ".join(map(str, b)) + "\n" for b in boards)
    out = subprocess.run([sowdb, "probe", "--tables", tables, "--json", "--stores",
                          f"{stores[0]},{stores[1]}", "-"], input=text, capture_output=True,
                         text=True, check=True).stdout
    reports = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(reports) == len(boards)
    return reports


def probe(sowdb, tables, board, stores):
    return probe_bulk(sowdb, tables, stores, [board])[0]


def api_position(base, pos, search_ms):
    """The server's answer for pos with search_ms: (HTTP status, JSON body)."""
    url = (f"{base}/api/v1/position?variant={urllib.parse.quote(pos['variant'])}"
           f"&board={','.join(map(str, pos['board']))}"
           f"&stores={','.join(map(str, pos['stores']))}&search_ms={search_ms}")
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def shown_position(driver):
    """The position the page shows, read from <body data-key> (as key() writes it)."""
    variant, objective, side, board, stores = driver.execute_script(
        "return document.body.dataset.key").split("|")
    return {"variant": variant, "objective": objective, "side": side,
            "board": [int(x) for x in board.split(",")],
            "stores": [int(x) for x in stores.split(",")]}


def after(pos, move):
    """The position after a move, as the page keeps it (board from the next mover's side)."""
    gained = [pos["stores"][0] + move["gain"], pos["stores"][1]]
    if move["extra_turn"]:
        return dict(pos, board=move["after"], stores=gained)
    return dict(pos, board=move["after"], stores=[gained[1], gained[0]],
                side="north" if pos["side"] == "south" else "south")


def key(pos):
    return (f"{pos['variant']}|{pos.get('objective', 'competitive')}|{pos['side']}|"
            f"{','.join(map(str, pos['board']))}|{','.join(map(str, pos['stores']))}")


def query(pos):
    q = (f"?variant={pos['variant']}&board={','.join(map(str, pos['board']))}"
         f"&stores={','.join(map(str, pos['stores']))}&side={pos['side']}")
    if pos.get("objective") == "cooperative":
        q += "&objective=cooperative"
    return q


def random_positions(rng, variant, count):
    """Positions of 0..20 seeds with stores the game can hold: four in five with the game's other
    seeds shared at random between the stores (they add up to the game's 48, the result is
    decided), the fifth with stores that leave seeds out (an edited board: undecided, unless a
    store holds a majority)."""
    pits = 12
    pairs = [(0, 0), (14, 14), (3, 10), (20, 2), (25, 1)]
    out = []
    for i in range(count):
        n = rng.randint(0, 20)
        board = [0] * pits
        for _ in range(n):
            board[rng.randrange(pits)] += 1
        rest = 48 - n
        mine = rng.randint(0, rest)
        stores = list(pairs[(i // 5) % len(pairs)]) if i % 5 == 4 else [mine, rest - mine]
        out.append({"variant": variant, "board": board, "stores": stores,
                    "side": rng.choice(["south", "north"])})
    return out


# ---- the browser ---------------------------------------------------------------------------------

def browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-dev-shm-usage", "--hide-scrollbars", f"--user-data-dir={profile}"]:
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # get() returns at DOMContentLoaded: the checks wait for the page's own "ready" anyway.
    options.page_load_strategy = "eager"
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


def viewport(driver, width, height, mobile=False):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1,
                            "mobile": mobile})


def page_state(driver):
    return driver.execute_script("return [document.body.dataset.state, document.body.dataset.key,"
                                 " document.getElementById('status').textContent]")


def wait_for(driver, what, condition):
    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.02).until(condition)
    except TimeoutException:
        check(False, f"{what}: not within {WAIT} s (page state {page_state(driver)})")
        return None


# Resolves once <body> says the page shows the position (data-key) in the state (data-state): one
# round trip, the browser watching the attributes, instead of polling from here. With `prefix`
# true, a key that starts with `want` will do (a page that picks the position itself).
WAIT_KEY = """
const [want, state, prefix, done] = arguments;
const ok = () => (prefix ? (document.body.dataset.key || "").startsWith(want)
                         : document.body.dataset.key === want) &&
    document.body.dataset.state === state;
if (ok()) return done(true);
const watch = new MutationObserver(() => {
  if (ok()) {
    watch.disconnect();
    done(true);
  }
});
watch.observe(document.body, {attributes: true});
"""


def wait_key(driver, pos, what, state="ready"):
    """Waits until the page shows `pos` with its report (or its error)."""
    try:
        return driver.execute_async_script(WAIT_KEY, key(pos), state, False)
    except TimeoutException:
        check(False, f"{what}: not within {WAIT} s (page state {page_state(driver)})")
        return None


# What the page shows, read in one round trip.
READ_PAGE = """
const box = (g) => {
  const r = g.getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2];
};
const pits = [...document.querySelectorAll('#board g.pit')].map(g => ({
  side: g.dataset.side, index: Number(g.dataset.index), pit: g.dataset.pit,
  label: (g.querySelector('text.pit-label') || {}).textContent || null,
  seeds: g.querySelector('text.count').textContent, at: box(g)}));
const stores = [...document.querySelectorAll('#board g.store')].map(g => ({
  at: box(g),
  side: g.dataset.store, seeds: g.querySelector('text.store-count').textContent}));
// A badge's text: the worth drawn beside it (a move's seeds from now), else its only figure.
const badges = [...document.querySelectorAll('#board g.badge')].map(g => ({
  pit: Number(g.dataset.pit), kind: g.dataset.kind,
  text: (g.querySelector('text.worth') || g.querySelector('text')).textContent}));
const rows = [...document.querySelectorAll('#moves li.move')].map(li => ({
  pit: Number(li.dataset.pit),
  worth: li.querySelector('.worth') ? li.querySelector('.worth').textContent : null,
  cls: li.className}));
const value = document.getElementById('value');
return {pits, stores, badges, rows, value: value ? value.textContent : null,
        result: value ? value.dataset.result : null,
        headline: (document.getElementById('headline') || {}).textContent || '',
        line: document.querySelectorAll('#line li[data-step]').length,
        more: Number((document.querySelector('#line li[data-more]') ||
                      {dataset: {more: 0}}).dataset.more),
        status: document.getElementById('status').hidden ? ''
                : document.getElementById('status').textContent,
        search: location.search};
"""


def check_layout(page, what):
    """South's row at the bottom, left to right; North's above it, right to left (counter-clockwise
    sowing); each store on its owner's right."""
    at = {(g["side"], g["index"]): g["at"] for g in page["pits"]}
    store = {s["side"]: s["at"] for s in page["stores"]}
    p = len(at) // 2
    if not p or sorted(store) != ["north", "south"]:
        check(False, f"{what}: no board drawn")
        return
    south = [at[("south", i)] for i in range(p)]
    north = [at[("north", i)] for i in range(p)]
    check(all(a[0] < b[0] for a, b in zip(south, south[1:])) and
          all(a[0] > b[0] for a, b in zip(north, north[1:])) and
          all(n[1] < s[1] for n, s in zip(north, south)) and
          store["south"][0] > south[-1][0] and store["north"][0] < north[-1][0],
          f"{what}: board layout (pit centres {page['pits']}, stores {page['stores']})")


def check_page(driver, pos, report, what):
    """The page's board, value and moves against the probe's report of pos."""
    page = driver.execute_script(READ_PAGE)
    p = len(pos["board"]) // 2
    mover = pos["side"]
    for g in page["pits"]:
        idx = g["index"] if g["side"] == mover else g["index"] + p
        check(g["seeds"] == str(pos["board"][idx]),
              f"{what}: {g['side']} pit {g['index']} shows {g['seeds']} seeds, "
              f"want {pos['board'][idx]}")
        check((g["pit"] is not None) == (g["side"] == mover),
              f"{what}: {g['side']} pit {g['index']} playable?")
    check(len(page["pits"]) == 2 * p, f"{what}: {len(page['pits'])} pits drawn, want {2 * p}")
    check_layout(page, what)
    for s in page["stores"]:
        want = pos["stores"][0] if s["side"] == mover else pos["stores"][1]
        check(s["seeds"] == str(want),
              f"{what}: {s['side']}'s store shows {s['seeds']}, want {want}")
    check(norm(page["value"] or "") == signed(report["value"]),
          f"{what}: value shown {page['value']!r}, probe says {report['value']}")
    check(page["result"] == report["result"],
          f"{what}: result {page['result']}, probe {report['result']}")
    # The colour is the move's category, or undecided where the stores cannot decide it.
    decides = missing_seeds(pos) == 0 or report.get("decided")
    worths = {b["pit"]: b for b in page["badges"] if b["kind"] != "illegal"}
    check(sorted(worths) == sorted(m["pit"] for m in report["moves"]),
          f"{what}: worths shown on pits {sorted(worths)}, "
          f"legal moves {[m['pit'] for m in report['moves']]}")
    for m in report["moves"]:
        b = worths.get(m["pit"])
        if b is None:
            continue
        check(norm(b["text"]) == signed(m["worth"]),
              f"{what}: pit {m['pit']} shows worth {b['text']!r}, probe says {m['worth']}")
        want = m["category"] if decides else "undecided"
        check(b["kind"] == want,
              f"{what}: pit {m['pit']} coloured {b['kind']}, probe {m['category']}, want {want}")
    check([r["pit"] for r in page["rows"]] == report["moves_best_first"],
          f"{what}: moves listed {[r['pit'] for r in page['rows']]}, "
          f"best first {report['moves_best_first']}")
    for r in page["rows"]:
        m = next(x for x in report["moves"] if x["pit"] == r["pit"])
        check(norm(r["worth"] or "") == signed(m["worth"]),
              f"{what}: list row pit {r['pit']} worth {r['worth']!r}")
    # The line shows its first 30 plies and "... N more".
    check(page["line"] == min(30, len(report["line_steps"])) and
          page["line"] + page["more"] == len(report["line_steps"]),
          f"{what}: {page['line']} line steps shown and {page['more']} more, "
          f"probe has {len(report['line_steps'])}")
    check_figures(driver, pos, report, what)
    return page


# The seeds of a whole game (2PS) of each variant served, from /api/v1/variants (main fills it).
GAME_SEEDS = {}


def missing_seeds(pos):
    """Seeds of the game on neither the board nor the stores (0 when they add up)."""
    game = GAME_SEEDS.get(pos["variant"])
    if game is None:
        return 0
    return max(0, game - sum(pos["board"]) - sum(pos["stores"]))


def pit_label(side, index):
    """The page's fixed pit names: South's a, b, c... and North's A, B, C..., each from its
    owner's left (docs/PAGE.md)."""
    letter = "abcdefgh"[index]
    return letter if side == "south" else letter.upper()


# Every figure that says a result, read in one round trip: its kind (data-kind), its final score
# and word, and which result colour it is drawn in ('neutral' for none of the three); and the
# colour of every seeds-from-now figure (the value, each move's worth).
READ_FIGURES = """
const colourOf = (v) => {
  const d = document.createElement('span');
  d.style.color = v;
  document.body.append(d);
  const c = getComputedStyle(d).color;
  d.remove();
  return c;
};
const colours = {win: colourOf('var(--win)'), draw: colourOf('var(--draw)'),
                 loss: colourOf('var(--loss)')};
const named = (c) => Object.keys(colours).find((k) => colours[k] === c) || 'neutral';
const txt = (el, sel) => { const x = el.querySelector(sel); return x ? x.textContent : null; };
const out = {outcome: null, value: null, badges: [], rows: [], line: []};
const o = document.getElementById('outcome');
if (o) out.outcome = {kind: o.dataset.kind, score: txt(o, '.score'), word: txt(o, '.word'),
                      colour: named(getComputedStyle(o).color)};
const v = document.getElementById('value');
if (v) out.value = named(getComputedStyle(v).color);
for (const g of document.querySelectorAll('#board g.badge:not(.illegal)')) {
  const fig = txt(g, 'text.fig');
  const word = txt(g, 'text.word');
  out.badges.push({pit: Number(g.dataset.pit), kind: g.dataset.kind,
                   score: word === null ? null : fig, word: word === null ? fig : word,
                   colour: named(getComputedStyle(g.querySelector('rect')).fill),
                   worth: g.querySelector('text.worth') ?
                       named(getComputedStyle(g.querySelector('text.worth')).fill) : null});
}
for (const li of document.querySelectorAll('#moves li.move')) {
  const chip = li.querySelector('.chip');
  out.rows.push({pit: Number(li.dataset.pit), label: txt(li, '.pit-no'),
                 kind: chip.dataset.kind, score: txt(chip, '.score'), word: txt(chip, '.word'),
                 colour: named(getComputedStyle(chip).backgroundColor),
                 worth: named(getComputedStyle(li.querySelector('.worth')).color)});
}
for (const li of document.querySelectorAll('#line li[data-step]'))
  out.line.push([txt(li, '.who'), txt(li, '.pit-no')]);
return out;
"""

SIGN = {"win": 1, "draw": 0, "loss": -1}


def parse_score(text):
    """'26\u201322' or '24\u00bd\u201323\u00bd' as (26, 22) or (24.5, 23.5); None if malformed."""
    m = re.fullmatch(r"(\d+)(\u00bd?)\u2013(\d+)(\u00bd?)", (text or "").strip())
    if not m:
        return None
    return (int(m.group(1)) + (0.5 if m.group(2) else 0),
            int(m.group(3)) + (0.5 if m.group(4) else 0))


def check_figure(fig, want_kind, want_score, what):
    """One figure that says a result: the word, the colour and the sign of its score agree with
    each other and with the expected kind and score (None: no score shown)."""
    kind = fig["kind"]
    check(kind == want_kind, f"{what}: kind {kind}, want {want_kind}")
    word = (fig["word"] or "").lower()
    if kind == "undecided":
        check("undecided" in word and fig["colour"] == "neutral" and fig["score"] is None,
              f"{what}: undecided must say so in ink, without a score: {fig}")
        return
    check(fig["colour"] == kind, f"{what}: drawn in {fig['colour']}, says {kind}: {fig}")
    said = ("win" if re.search(r"\bwins?\b", word) else
            "loss" if re.search(r"\b(loss|loses)\b", word) else
            "draw" if "draw" in word else None)
    check(said == kind, f"{what}: the word {fig['word']!r} says {said}, the colour {kind}")
    if want_score is None:
        check(fig["score"] is None, f"{what}: a score {fig['score']!r} where none is known")
        return
    score = parse_score(fig["score"])
    if not check(score is not None, f"{what}: score {fig['score']!r} is not a final score"):
        return
    diff = score[0] - score[1]
    check((diff > 0) - (diff < 0) == SIGN[kind],
          f"{what}: score {fig['score']} has the sign of a {kind}? word {fig['word']!r}")
    check(score == tuple(want_score), f"{what}: score {score}, probe gives {want_score}")


def check_figures(driver, pos, report, what):
    """Every figure on show against the probe's report: the position's result and each move's
    (word, colour, sign of the final score; undecided where the stores cannot decide it), the
    seeds-from-now figures in ink, and the pits named by their fixed labels on the board, in the
    moves list and in the principal line."""
    if pos.get("objective") == "cooperative":
        return
    f = driver.execute_script(READ_FIGURES)
    decides = missing_seeds(pos) == 0 or report.get("decided")
    n = sum(pos["board"])
    exact = report.get("value") is not None
    kind = report["result"] if decides and report.get("result") else "undecided"
    if check(f["outcome"] is not None, f"{what}: no result figure (#outcome)"):
        check_figure(f["outcome"], kind,
                     report["final"] if exact and kind != "undecided" else None,
                     f"{what}: the position's result")
    check(f["value"] == "neutral", f"{what}: the value drawn in {f['value']}, want ink")
    moves = {m["pit"]: m for m in report["moves"]}
    for where in ("badges", "rows"):
        for fig in f[where]:
            m = moves.get(fig["pit"])
            if not check(m is not None, f"{what}: {where} pit {fig['pit']} is not a move"):
                continue
            mk = m["category"] if decides and m.get("category") else "undecided"
            score = None
            if m.get("worth") is not None and mk != "undecided":
                score = (pos["stores"][0] + (n + m["worth"]) / 2,
                         pos["stores"][1] + (n - m["worth"]) / 2)
            check_figure(fig, mk, score, f"{what}: {where} pit {fig['pit']}")
            check(fig["worth"] == "neutral",
                  f"{what}: {where} pit {fig['pit']}: the worth drawn in {fig['worth']}")
            if where == "rows":
                check(fig["label"] == pit_label(pos["side"], fig["pit"]),
                      f"{what}: list row of pit {fig['pit']} named {fig['label']!r}")
    page_pits = driver.execute_script(READ_PAGE)["pits"]
    check(all(g["label"] == pit_label(g["side"], g["index"]) for g in page_pits) and page_pits,
          f"{what}: pit labels {[(g['side'], g['index'], g['label']) for g in page_pits]}")
    other = "north" if pos["side"] == "south" else "south"
    want_line = [["South" if (pos["side"] if s["mover"] == 0 else other) == "south" else "North",
                  pit_label(pos["side"] if s["mover"] == 0 else other, s["pit"])]
                 for s in report["line_steps"][:len(f["line"])]]
    check(f["line"] == want_line, f"{what}: the line reads {f['line']}, want {want_line}")


def open_position(driver, base, pos):
    driver.get(base + "/" + query(pos))
    return wait_key(driver, pos, f"open {query(pos)}")


def follow_url(driver, pos):
    """Opens the position's URL in the page already loaded: the URL goes onto the history and a
    popstate makes the page read it, as the browser's back button does (a third of a full load's
    time)."""
    driver.execute_script("history.pushState(null, '', arguments[0]);"
                          "dispatchEvent(new PopStateEvent('popstate'))", "/" + query(pos))
    return wait_key(driver, pos, f"follow {query(pos)}")


# ---- the scenarios -------------------------------------------------------------------------------

def random_positions_test(driver, base, sowdb, tables):
    rng = random.Random(SEED)
    shown = 0
    for variant, name in (("oware/6x4", "oware"), ("kalah/6x4", "kalah")):
        positions = random_positions(rng, variant, POSITIONS_PER_VARIANT)
        by_stores = {}
        for pos in positions:
            by_stores.setdefault(tuple(pos["stores"]), []).append(pos)
        reports = {}
        # One probe per pair of stores (most positions have their own, to add up to the game's
        # seeds): a few at once, their start-up being most of their time.
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            answers = pool.map(lambda item: (item[1], probe_bulk(
                sowdb, os.path.join(tables, name), item[0], [p["board"] for p in item[1]])),
                by_stores.items())
            for group, reps in answers:
                for pos, rep in zip(group, reps):
                    reports[key(pos)] = rep
        for i, pos in enumerate(positions):
            opened = open_position(driver, base, pos) if i < FULL_LOADS else follow_url(driver, pos)
            if opened:
                check_page(driver, pos, reports[key(pos)], f"{variant} {query(pos)}")
                shown += 1
    check(shown == 2 * POSITIONS_PER_VARIANT, f"{shown} random positions shown")
    return shown


def click_pit(driver, side, index):
    pit_element(driver, side, index).click()


def pit_element(driver, side, index):
    return driver.find_element(
        By.CSS_SELECTOR, f'#board g.pit[data-side="{side}"][data-index="{index}"] .hit')


def click_and_history_test(driver, base, sowdb, tables):
    """A click on a pit plays it; the URL follows; browser back and forward."""
    start = {"variant": "kalah/6x4", "board": [1, 2, 0, 3, 1, 4, 2, 0, 1, 1, 0, 2],
             "stores": [5, 3], "side": "north"}
    rep = probe(sowdb, os.path.join(tables, "kalah"), start["board"], start["stores"])
    open_position(driver, base, start)
    check_page(driver, start, rep, "click start")
    # Every legal move, one after the other from the start: back in between.
    for move in rep["moves"]:
        nxt = after(start, move)
        click_pit(driver, "north", move["pit"])
        if not wait_key(driver, nxt, f"after a click on pit {move['pit']}"):
            continue
        url = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
        check(url.get("board") == [",".join(map(str, nxt["board"]))] and
              url.get("stores") == [",".join(map(str, nxt["stores"]))] and
              url.get("side") == [nxt["side"]],
              f"URL after pit {move['pit']}: {driver.current_url}")
        nrep = probe(sowdb, os.path.join(tables, "kalah"), nxt["board"], nxt["stores"])
        check_page(driver, nxt, nrep, f"after pit {move['pit']}")
        driver.back()
        wait_key(driver, start, f"browser back after pit {move['pit']}")
    driver.forward()
    wait_key(driver, after(start, rep["moves"][-1]), "browser forward")
    # A reload of a permalink shows the same position.
    driver.refresh()
    wait_key(driver, after(start, rep["moves"][-1]), "reload")


def keyboard_test(driver, base, sowdb, tables):
    """Space plays the best move; the arrows go back and forward; a line step jumps along it."""
    start = {"variant": "oware/6x4", "board": [0, 0, 0, 0, 1, 2, 2, 1, 0, 3, 2, 1],
             "stores": [0, 0], "side": "south"}
    t = os.path.join(tables, "oware")
    rep = probe(sowdb, t, start["board"], start["stores"])
    open_position(driver, base, start)
    body = driver.find_element(By.TAG_NAME, "body")
    best = next(m for m in rep["moves"] if m["pit"] == rep["best"])
    one = after(start, best)
    body.send_keys(Keys.SPACE)
    wait_key(driver, one, "space plays the best move")
    body.send_keys(Keys.ARROW_LEFT)
    wait_key(driver, start, "left arrow goes back")
    body.send_keys(Keys.ARROW_RIGHT)
    wait_key(driver, one, "right arrow goes forward")
    # The third step of the principal line: the position after it is the fourth step's before.
    body.send_keys(Keys.ARROW_LEFT)
    wait_key(driver, start, "left arrow again")
    steps = rep["line_steps"]
    driver.find_element(By.CSS_SELECTOR, '#line li[data-step="2"]').click()
    side = "south" if steps[3]["mover"] == 0 else "north"
    stores = {"south": 0, "north": 0}
    for s in steps[:3]:
        stores["south" if s["mover"] == 0 else "north"] += s["gain"]
    other = "north" if side == "south" else "south"
    want = dict(start, board=steps[3]["before"], side=side, stores=[stores[side], stores[other]])
    wait_key(driver, want, "a click on the line's third step")
    wrep = probe(sowdb, t, want["board"], want["stores"])
    check_page(driver, want, wrep, "line step 3")
    driver.find_element(By.ID, "back").click()
    body.send_keys(Keys.HOME)
    wait_key(driver, start, "Home goes to the first position")
    # f turns the board round: North's row below South's, each row read from its owner's side.
    body.send_keys("f")
    flipped = driver.execute_script(READ_PAGE)
    at = {(g["side"], g["index"]): g["at"] for g in flipped["pits"]}
    check(at[("north", 0)][1] > at[("south", 0)][1] and at[("north", 0)][0] < at[("north", 5)][0]
          and at[("south", 0)][0] > at[("south", 5)][0], f"flipped board: {flipped['pits']}")
    check("flip=1" in driver.current_url, f"flipped URL {driver.current_url}")
    body.send_keys("f")


def editor_test(driver, base, sowdb, tables):
    """The board editor: a seed added and removed, stores, side to move, swap, clear."""
    start = {"variant": "oware/6x4", "board": [1, 0, 2, 0, 0, 1, 0, 3, 0, 1, 0, 0],
             "stores": [10, 12], "side": "south"}
    t = os.path.join(tables, "oware")
    open_position(driver, base, start)
    driver.find_element(By.CSS_SELECTOR, '#modes button[data-mode="edit"]').click()
    click_pit(driver, "north", 2)  # North's pit 2 is board index 8 with South to move
    pos = dict(start, board=start["board"][:8] + [1] + start["board"][9:])
    wait_key(driver, pos, "a seed added in the editor")
    check(urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query).get("board") ==
          [",".join(map(str, pos["board"]))], f"URL after an edit: {driver.current_url}")
    check_page(driver, pos, probe(sowdb, t, pos["board"], pos["stores"]), "edited board")
    ActionChains(driver).key_down(Keys.SHIFT).click(pit_element(driver, "south", 0)).key_up(
        Keys.SHIFT).perform()
    pos = dict(pos, board=[0] + pos["board"][1:])
    wait_key(driver, pos, "a seed removed with shift-click")
    store = driver.find_element(By.ID, "store-north")
    store.send_keys(Keys.CONTROL, "a")
    store.send_keys("7")
    pos = dict(pos, stores=[pos["stores"][0], 7])
    wait_key(driver, pos, "North's store set to 7")
    driver.find_element(By.CSS_SELECTOR, '#edit-side button[data-side="north"]').click()
    pos = dict(pos, side="north", board=pos["board"][6:] + pos["board"][:6],
               stores=pos["stores"][::-1])
    wait_key(driver, pos, "North to move")
    check_page(driver, pos, probe(sowdb, t, pos["board"], pos["stores"]),
               "North to move after editing")
    driver.find_element(By.ID, "swap").click()
    pos = dict(pos, board=pos["board"][6:] + pos["board"][:6], stores=pos["stores"][::-1])
    wait_key(driver, pos, "sides swapped")
    driver.find_element(By.ID, "clear").click()
    cleared = dict(pos, board=[0] * 12)
    wait_key(driver, cleared, "board cleared")
    rep = probe(sowdb, t, cleared["board"], cleared["stores"])
    check(rep["game_over"], "an empty board is a finished game")
    check_page(driver, cleared, rep, "cleared board")
    driver.find_element(By.ID, "edit-done").click()
    wait_for(driver, "the editor closes",
             lambda d: d.find_element(By.ID, "editor").get_attribute("hidden") is not None)
    # Too many seeds for the tables: the page searches above them (48 seeds of Oware over tables
    # 0..20: bounds, or a value where the search proves one), as the API answers with search_ms.
    driver.find_element(By.CSS_SELECTOR, '#modes button[data-mode="edit"]').click()
    driver.find_element(By.ID, "start-pos").click()
    wait_for(driver, "the start position (48 seeds) is searched", lambda d: d.execute_script(
        "return document.body.dataset.state === 'ready' && "
        "document.body.dataset.key.indexOf('4,4,4,4,4,4,4,4,4,4,4,4') >= 0"))
    code, body = api_position(base, {"variant": "oware/6x4", "board": [4] * 12,
                                     "stores": [0, 0]}, 3000)
    check(code == 200 and body.get("method") == "search" and
          -48 <= body["lower"] <= body["upper"] <= 48,
          f"48 seeds: the server answers {code} {body}")
    driver.find_element(By.ID, "edit-done").click()


def game_test(driver, base, sowdb, tables):
    """Game mode: the player's move, the tables' best answer, undo."""
    start = {"variant": "kalah/6x4", "board": [2, 1, 3, 0, 2, 1, 1, 2, 0, 3, 1, 2],
             "stores": [8, 6], "side": "south"}
    t = os.path.join(tables, "kalah")
    driver.get(base + "/" + query(start) + "&mode=play&you=south")
    wait_key(driver, start, "game mode opens")
    check(driver.find_elements(By.CSS_SELECTOR, "#board g.badge") == [],
          "game mode hides the worths")
    rep = probe(sowdb, t, start["board"], start["stores"])
    # A move that ends the player's turn, so that the tables answer.
    move = next(m for m in sorted(rep["moves"], key=lambda m: -m["worth"]) if not m["extra_turn"])
    mid = after(start, move)
    click_pit(driver, "south", move["pit"])
    wait_for(driver, "the tables answer", lambda d: d.execute_script(
        "return document.body.dataset.state === 'ready'"
        " && document.body.dataset.key !== arguments[0]"
        " && document.getElementById('game-msg').dataset.turn !== 'tables'", key(mid)))
    mrep = probe(sowdb, t, mid["board"], mid["stores"])
    # The tables play best moves until it is South's turn again (extra turns included).
    pos, r, plies = mid, mrep, 0
    while pos["side"] == "north" and not r["game_over"] and plies < 10:
        best = next(m for m in r["moves"] if m["pit"] == r["best"])
        pos = after(pos, best)
        r = probe(sowdb, t, pos["board"], pos["stores"])
        plies += 1
    shown = driver.execute_script("return document.body.dataset.key")
    check(shown == key(pos), f"the tables' answer: page shows {shown}, best play gives {key(pos)}")
    check(plies >= 1, "the tables played at least one move")
    # The tables' last move is marked on the board: the pit it was played from, on their side.
    last = driver.execute_script(
        "return [...document.querySelectorAll('#board g.pit.last')]"
        ".map(g => [g.dataset.side, Number(g.dataset.index)])")
    check(last == [["north", best["pit"]]],
          f"the tables' last move marked on {last}, they played North {best['pit']}")
    driver.find_element(By.ID, "undo").click()
    wait_key(driver, start, "undo takes the move back")
    hints = driver.find_element(By.ID, "hints")
    hints.click()
    wait_for(driver, "hints show the worths",
             lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board g.badge")) > 0)
    check_page(driver, start, rep, "game mode with hints")
    driver.find_element(By.CSS_SELECTOR, '#modes button[data-mode="analyse"]').click()


def phone_screenshot(driver, path):
    """The page as it is, saved as a phone shows it (390x844, the board redrawn for a small
    screen), then back at 1280x800."""
    viewport(driver, 390, 844, mobile=True)
    wait_for(driver, "the board drawn for a phone", lambda d: d.execute_script(
        "return document.getElementById('board').classList.contains('compact')"))
    driver.save_screenshot(path)
    viewport(driver, 1280, 800)
    wait_for(driver, "the board drawn for a desktop", lambda d: d.execute_script(
        "return !document.getElementById('board').classList.contains('compact')"))


def game_over_test(driver, base, sowdb, tables, out):
    """Game mode: the player's own move ends the game, the tables left to move. The result figure
    says it from the player's side whoever is to move: "Game over", the player's side named in
    the word, the player's score first, its colour the player's result (a win green: issue 42
    found it drawn from the mover's side, a red "19-29 North loses" after South's winning move).
    Once as South winning, once as North losing."""
    t = os.path.join(tables, "kalah")
    # Kalah 6x4: the player's pit a (1 seed) sows into the empty b and captures the opponent's
    # last seeds, opposite: the opponent, to move, has none, and the game is over.
    for you, stores, want in (("south", [22, 20], "win"), ("north", [16, 26], "loss")):
        start = {"variant": "kalah/6x4", "board": [1, 0, 0, 0, 0, 3, 0, 0, 0, 0, 2, 0],
                 "stores": stores, "side": you}
        what = f"the game ended by {you}'s move"
        rep = probe(sowdb, t, start["board"], start["stores"])
        move = next((m for m in rep["moves"] if m["pit"] == 0), None)
        if not check(move is not None and move["captured"] == 3,
                     f"{what}: the probe's moves {rep['moves']}"):
            continue
        end = after(start, move)
        final = probe(sowdb, t, end["board"], end["stores"])
        check(final["game_over"] and end["side"] != you,
              f"{what}: the probe's game over {final['game_over']}, {end['side']} to move")
        driver.get(base + "/" + query(start) + f"&mode=play&you={you}")
        if not wait_key(driver, start, f"{what}: the game opens"):
            continue
        click_pit(driver, you, 0)
        if not wait_key(driver, end, f"{what}: the game over shown"):
            continue
        turn = driver.execute_script("return document.getElementById('game-msg').dataset.turn")
        check(turn == "over", f"{what}: the game message's turn {turn!r}")
        f = driver.execute_script(READ_FIGURES)["outcome"]
        if not check(f is not None, f"{what}: no result figure"):
            continue
        # The probe's final score is the mover's (the tables') first: the player's is second.
        yours = (final["final"][1], final["final"][0])
        check_figure(f, want, yours, f"{what}: the result figure")
        text = norm(driver.find_element(By.ID, "outcome").text)
        name = "South" if you == "south" else "North"
        word = f"{name} wins" if want == "win" else f"{name} loses"
        check(text.startswith("Game over") and word in text,
              f"{what}: the result figure reads {text!r}, want 'Game over' and {word!r}")
        if you == "south":
            driver.save_screenshot(os.path.join(out, "page-game-over-desktop.png"))
            phone_screenshot(driver, os.path.join(out, "page-game-over-phone.png"))
    driver.find_element(By.CSS_SELECTOR, '#modes button[data-mode="analyse"]').click()


# A board whose start (24 seeds) is above its tables (layers 0..18): the first plies of a game are
# answered by search.
SEARCH_VARIANT = "kalah/4x3"
SEARCH_TABLES = "kalah-4x3"
SEARCH_START = {"variant": SEARCH_VARIANT, "board": [3] * 8, "stores": [0, 0], "side": "south"}


def read_value(driver):
    """The verdict's value element: its text, class and data (value, result, method, bounds)."""
    return driver.execute_script(
        "const v = document.getElementById('value');"
        "return {method: '', value: '', result: '', lower: '', upper: '',"
        "        text: v ? v.textContent : '', cls: v ? v.className : '',"
        "        ...(v ? v.dataset : {})};")


def search_start_test(driver, base, sowdb, tables, out):
    """New game shows the real start (24 seeds, more than the tables' 18); its answer comes by
    search, exact, with the note saying so; then a whole game by clicks on "Best move", every
    position against `sowdb probe --json` (a search where the probe searches too)."""
    t = os.path.join(tables, SEARCH_TABLES)
    mid = {"variant": SEARCH_VARIANT, "board": [1, 0, 2, 0, 1, 1, 0, 2], "stores": [9, 8],
           "side": "south"}
    driver.get(base + "/" + query(mid) + "&mode=play&you=south")
    wait_key(driver, mid, "a game of kalah/4x3 opens")
    driver.find_element(By.ID, "new-game").click()
    if not wait_key(driver, SEARCH_START, "New game shows the start"):
        return
    rep = probe(sowdb, t, SEARCH_START["board"], SEARCH_START["stores"])
    check(rep["method"] == "search" and rep["value"] is not None,
          f"the probe proves the start by search: {rep['method']} {rep['value']}")
    driver.find_element(By.CSS_SELECTOR, '#modes button[data-mode="analyse"]').click()
    wait_for(driver, "analyse mode", lambda d: d.execute_script(
        "return document.body.dataset.mode === 'analyse'"))
    value = read_value(driver)
    check(value["method"] == "search" and norm(value["text"]) == signed(rep["value"]) and
          value["result"] == rep["result"] and rep["result"] in value["cls"].split(),
          f"the start: value {value}, probe {rep['value']} {rep['result']}")
    note = driver.find_element(By.ID, "search-note").text
    check(note.startswith("proved by search"), f"the start's search note {note!r}")
    driver.save_screenshot(os.path.join(out, "page-search-desktop.png"))
    # A whole game: "Best move" until no move is left, each position checked.
    pos, searched, plies = SEARCH_START, 0, 0
    while plies < 80:
        r = rep if plies == 0 else probe(sowdb, t, pos["board"], pos["stores"])
        check_page(driver, pos, r, f"best play, ply {plies}")
        searched += r["method"] == "search"
        if r["game_over"]:
            break
        check(r["best"] is not None, f"ply {plies}: the probe proves a best move")
        best = next(m for m in r["moves"] if m["pit"] == r["best"])
        pos = after(pos, best)
        driver.find_element(By.ID, "best").click()
        if not wait_key(driver, pos, f"Best move at ply {plies}"):
            return
        plies += 1
    check(r["game_over"] and searched >= 2 and plies > searched,
          f"a whole game: {plies} plies, {searched} positions answered by search, "
          f"game over {r['game_over']}")
    south = r["final"][0] if pos["side"] == "south" else r["final"][1]
    check(2 * south - sum(SEARCH_START["board"]) == rep["value"],
          f"best play from the start ends with South {south}, value {rep['value']}")


def search_game_test(driver, base, sowdb, tables):
    """A game against the page from the start of kalah/4x3: the player's moves are the probe's
    best, the page answers with its own (proved by search, then the tables'); the game ends with
    the score of perfect play."""
    t = os.path.join(tables, SEARCH_TABLES)
    driver.get(base + "/" + query(SEARCH_START) + "&mode=play&you=north")
    if not wait_key(driver, SEARCH_START, "a game from the start, North to play"):
        return
    rep = probe(sowdb, t, SEARCH_START["board"], SEARCH_START["stores"])
    replies = 0
    for _ in range(80):
        state = driver.execute_script(
            "return [document.body.dataset.state, "
            "document.getElementById('game-msg').dataset.turn]")
        if state[1] == "over":
            break
        if state != ["ready", "you"]:
            # The page's own move: wait until it is North's turn or the game is over.
            wait_for(driver, "the page answers", lambda d: d.execute_script(
                "return document.body.dataset.state === 'ready' &&"
                " document.getElementById('game-msg').dataset.turn !== 'tables'"))
            replies += 1
            continue
        pos = shown_position(driver)
        r = probe(sowdb, t, pos["board"], pos["stores"])
        click_pit(driver, "north", r["best"])
        wait_for(driver, "the move is played", lambda d: d.execute_script(
            "return document.body.dataset.key !== arguments[0]", key(pos)))
    msg = driver.find_element(By.ID, "game-msg").text
    mine, theirs = rep["final"][1], rep["final"][0]  # North is the player; the start's mover South
    check(f"you {mine}, the tables {theirs}" in msg and replies > 0,
          f"the game against the page ends {msg!r}, perfect play gives North {mine}, "
          f"South {theirs} ({replies} replies)")
    driver.find_element(By.CSS_SELECTOR, '#modes button[data-mode="analyse"]').click()


# The page shows a search job's live bounds: the value element marked searching, lower < upper.
SEARCHING = ("const v = document.getElementById('value');"
             "return document.body.dataset.state === 'searching' && v !== null &&"
             " v.dataset.state === 'searching' && v.dataset.lower !== '' &&"
             " Number(v.dataset.lower) < Number(v.dataset.upper) &&"
             " document.body.dataset.searchKey === arguments[0]")


def wait_searching(driver, pos, what):
    """Waits until the page shows `pos` searched live (bounds narrowing, lower < upper)."""
    return wait_for(driver, what, lambda d: d.execute_script(SEARCHING, key(pos)))


def stop_search(driver, pos, what):
    """Clicks "Stop searching" and waits for the bounds the job proved. (A click from the page's
    own script: each progress redraws the button, so that a WebDriver element may be stale.)"""
    check(driver.execute_script("const b = document.getElementById('search-stop');"
                                "if (!b) return false; b.click(); return true;"),
          f"{what}: a Stop searching button")
    return wait_key(driver, pos, what)


# A Kalah position 19 seeds above the tables (layers 0..20) whose search takes seconds (1.9 M
# positions, its value proved after about 1 s, every worth after 4 s from the command line at load
# 5), asked of a server that waits at most 1 ms for a search: the page always follows it as a
# job, and shows it live for a while however fast the machine. (The 42-seed position used before
# took 10.7 M positions, 16 s: past WAIT on a loaded machine.)
LIVE = {"variant": "kalah/6x4", "board": [4] * 3 + [3] * 9, "stores": [5, 4], "side": "south"}


# Holds back the page's polls of its search job (GET /api/v1/job; a DELETE goes through), so that
# the page keeps its first frame of the job; window.firstJob: the job's first answer (202), as
# the server gave it. window.realFetch and window.heldPolls undo it.
HOLD_JOB_POLLS = """
window.realFetch = window.fetch;
window.heldPolls = [];
window.firstJob = null;
window.fetch = (url, o) => {
  const u = String(url);
  if (u.includes('/api/v1/job') && !(o && o.method === 'DELETE'))
    return new Promise((ok, no) => window.heldPolls.push(
        () => window.realFetch(url, o).then(ok, no)));
  const answer = window.realFetch(url, o);
  if (u.includes('/api/v1/position') && u.includes('follow=1'))
    answer.then((r) => r.status === 202 ? r.clone().json() : null)
        .then((j) => { if (j && window.firstJob === null) window.firstJob = j; })
        .catch(() => null);
  return answer;
};
"""


def live_first_frame(driver, pos, rep, out):
    """The first frame of a search followed live (issue 42: it said "0 positions", its moves list
    empty): every legal move listed from the first answer on, by its pit's name, undecided in
    ink with "searching..." for its worth, and on the board; no count of positions claimed
    before one arrives."""
    what = "the live search's first frame"
    first = driver.execute_script("return window.firstJob")
    if not check(first is not None and first.get("state") == "running",
                 f"{what}: the job's first answer {first}"):
        return
    # The job's moves are the position's legal moves, as the probe lists them.
    legal = [m["pit"] for m in rep["moves"]]
    check([m["pit"] for m in first.get("moves", [])] == legal and
          all(m["after"] == p["after"] and m["gain"] == p["gain"] and
              m["extra_turn"] == p["extra_turn"] for m, p in zip(first["moves"], rep["moves"])),
          f"{what}: the job's moves {first.get('moves')}, the probe's {rep['moves']}")
    status = driver.find_element(By.ID, "status").text
    note = driver.find_element(By.ID, "search-note").text
    check(not re.search(r"\b0 positions?\b", status) and
          not re.search(r"\b0 positions?\b", note),
          f"{what}: no count of 0 positions claimed: status {status!r}, note {note!r}")
    if first["positions"] == 0:
        check(re.match(r"Searching\u2026 \S+\u2026\S+, [0-9.]+ s$", status) is not None and
              note.startswith("searching\u2026"),
              f"{what}: before a count, 'searching': status {status!r}, note {note!r}")
    f = driver.execute_script(READ_FIGURES)
    rows = [(r["pit"], r["label"], r["kind"], r["word"], r["colour"], r["worth"])
            for r in f["rows"]]
    want = [(p, pit_label(pos["side"], p), "undecided", "undecided", "neutral", "neutral")
            for p in sorted(legal)]
    check(sorted(rows) == want, f"{what}: the moves list {rows}, want {want}")
    worths = driver.execute_script(
        "return [...document.querySelectorAll('#moves li.move .worth')].map(w => w.textContent)")
    check(len(worths) == len(legal) and all(w == "searching\u2026" for w in worths),
          f"{what}: the moves' worths {worths}")
    badges = [(b["pit"], b["kind"], b["colour"]) for b in f["badges"]]
    check(sorted(badges) == [(p, "undecided", "neutral") for p in sorted(legal)],
          f"{what}: the board's badges {badges}")
    # (Quickly: a job nobody asks about for 10 s stops by itself.)
    driver.save_screenshot(os.path.join(out, "page-live-first-desktop.png"))


def live_search_test(driver, sowdb, tables, out):
    """A position above the tables whose search outlasts the page's first wait: "searching" with
    its bounds (lower < upper) and the positions searched, live, then the exact value, as
    `sowdb probe --json` gives it (a server without a proof store, so that no earlier proof
    answers it at once)."""
    proc, base = start_server(sowdb, tables, ["kalah"], ["--no-proof-store", "--max-search-ms",
                                                         "1"])
    try:
        t = os.path.join(tables, "kalah")
        held = {"variant": "kalah/6x4", "board": [1, 0, 2, 0, 1, 1, 0, 2, 0, 0, 0, 0],
                "stores": [20, 21], "side": "south"}
        # The legal moves, from the command line (a search of a few seconds).
        rep = probe(sowdb, t, LIVE["board"], LIVE["stores"])
        open_position(driver, base, held)
        # The page's first frame of the job, held there: its first answer (202) drawn, its polls
        # held back until the checks below are done.
        driver.execute_script(HOLD_JOB_POLLS)
        driver.execute_script("history.pushState(null, '', arguments[0]);"
                              "dispatchEvent(new PopStateEvent('popstate'))", "/" + query(LIVE))
        if not wait_searching(driver, LIVE, "the position searched live"):
            return
        live_first_frame(driver, LIVE, rep, out)
        driver.execute_script("window.fetch = window.realFetch;"
                              "window.heldPolls.forEach(f => f());")
        # The job's count of positions arrives with a later answer.
        wait_for(driver, "the live search's count of positions", lambda d: d.execute_script(
            "return document.body.dataset.state !== 'searching' ||"
            " / positions, /.test(document.getElementById('status').textContent)"))
        value = read_value(driver)
        status = driver.find_element(By.ID, "status").text
        check(norm(value["text"]) == f"{signed(int(value['lower']))}\u2026"
                                     f"{signed(int(value['upper']))}" and
              "undecided" in value["cls"].split() and
              re.match(r"Searching\u2026 \S+\u2026\S+, [0-9.]+ ?[kM]? positions, [0-9.]+ s$",
                       status) is not None and
              driver.execute_script("return document.getElementById('search-stop') !== null"),
              f"live bounds: value {value}, status {status!r}")
        driver.save_screenshot(os.path.join(out, "page-live-desktop.png"))
        if not wait_key(driver, LIVE, "the live search ends"):
            return
        value = read_value(driver)
        check(rep["value"] is not None and value["method"] == "search" and
              value["value"] != "" and norm(value["text"]) == signed(rep["value"]) and
              value["result"] == rep["result"],
              f"after the live search: value {value}, probe {rep['value']} {rep['result']}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def bounds_test(driver, sowdb, tables, out):
    """A server that may search 1 ms per request only (its jobs go on): the start of kalah/6x4
    shows live bounds; "Stop searching" shows the bounds proved, neutral while they leave the
    result open, each move with its bounds; "Search again" searches on; a busy server (503) says
    so and offers a retry."""
    proc, base = start_server(sowdb, tables, ["kalah"], ["--max-search-ms", "1",
                                                         "--no-proof-store"])
    try:
        start = {"variant": "kalah/6x4", "board": [4] * 12, "stores": [0, 0], "side": "south"}
        driver.get(base + "/" + query(start))
        wait_searching(driver, start, "the start of kalah/6x4 searched live")
        stop_search(driver, start, "Stop searching shows the bounds")
        value = read_value(driver)
        check(value["method"] == "search" and value["value"] == "" and
              norm(value["text"]) == f"{signed(int(value['lower']))}\u2026"
                                     f"{signed(int(value['upper']))}",
              f"bounds shown: {value}")
        kind = value["result"] or "undecided"
        check(kind in value["cls"].split(), f"the bounds' colour {value['cls']}, result "
              f"{value['result']!r}")
        headline = driver.find_element(By.ID, "headline").text
        check(norm(headline) == f"Between {signed(int(value['lower']))} and "
              f"{signed(int(value['upper']))} for South", f"bounds headline {headline!r}")
        page = driver.execute_script(READ_PAGE)
        # Each move: its worth, or its bounds, coloured only when they decide its category; the
        # board and the list agree.
        check(len(page["badges"]) == 6 and all(
            b["kind"] in ("win", "draw", "loss", "undecided") and
            (b["kind"] != "undecided" or "\u2026" in b["text"]) for b in page["badges"]),
            f"moves' bounds: {page['badges']}")
        rows = {r["pit"]: (r["cls"].split()[1], r["worth"]) for r in page["rows"]}
        check(all(rows.get(b["pit"]) == (b["kind"], b["text"]) for b in page["badges"]),
              f"the board's and the list's moves agree: {page['badges']} {page['rows']}")
        button = driver.find_element(By.ID, "search-longer")
        check(button.text == "Search again", f"Search again: {button.text!r}")
        viewport(driver, 1280, 800)
        driver.save_screenshot(os.path.join(out, "page-bounds-desktop.png"))
        button.click()
        wait_searching(driver, start, "Search again searches live")
        stop_search(driver, start, "stopped again")
        check(read_value(driver)["method"] == "search", "Search again: a search's answer")
        # Busy: the page's requests answered 503 (as the server does when every slot is taken).
        driver.execute_script(
            "window.realFetch = window.fetch;"
            "window.fetch = (url, o) => String(url).includes('/api/v1/position') ?"
            "  Promise.resolve(new Response(JSON.stringify({error: 'every search slot is busy "
            "(1 at once); ask again, or without search_ms', status: 503}), {status: 503})) :"
            "  window.realFetch(url, o);")
        driver.find_element(By.ID, "search-longer").click()
        wait_for(driver, "a busy server", page_error)
        status = driver.find_element(By.ID, "status").text
        check("busy" in status and "Retry" in status, f"busy: status {status!r}")
        driver.execute_script("window.fetch = window.realFetch;")
        driver.find_element(By.CSS_SELECTOR, "#status button").click()
        wait_searching(driver, start, "Retry after busy")
        stop_search(driver, start, "stopped after Retry")
        check(read_value(driver)["method"] == "search", "after Retry: the search's answer")
        # While the request runs: "searching…" (the page's position requests held back here).
        driver.execute_script(
            "window.held = [];"
            "window.fetch = (url, o) => String(url).includes('/api/v1/position') ?"
            "  new Promise((ok, no) => window.held.push("
            "      () => window.realFetch(url, o).then(ok, no))) :"
            "  window.realFetch(url, o);")
        other = dict(start, board=[5] + [4] * 10 + [3])
        driver.execute_script("history.pushState(null, '', arguments[0]);"
                              "dispatchEvent(new PopStateEvent('popstate'))", "/" + query(other))
        wait_for(driver, "searching shown", lambda d: d.execute_script(
            "return window.held.length > 0 && document.body.dataset.state === 'loading'"))
        value = read_value(driver)
        status = driver.find_element(By.ID, "status").text
        check(value["text"] == "searching\u2026" and status.startswith("Searching\u2026"),
              f"while searching: value {value}, status {status!r}")
        # Another position meanwhile, answered busy (the held search holds the slot): the page
        # waits for its own earlier search to end, then asks again.
        driver.execute_script(
            "window.fetch = (url, o) => { window.fetch = window.realFetch;"
            "  return Promise.resolve(new Response(JSON.stringify({error: 'every search slot is "
            "busy (1 at once); ask again, or without search_ms', status: 503}),"
            "    {status: 503})); };")
        third = dict(start, board=[4] * 11 + [3], stores=[1, 0])
        driver.execute_script("history.pushState(null, '', arguments[0]);"
                              "dispatchEvent(new PopStateEvent('popstate'))", "/" + query(third))
        wait_for(driver, "waiting for the page's own search", lambda d: d.execute_script(
            "return document.getElementById('status').textContent.startsWith("
            "'Waiting for this page')"))
        check(driver.execute_script("return document.body.dataset.state") == "loading",
              "waiting for the page's own search: still loading, no error")
        driver.execute_script("window.held.forEach(f => f());")
        wait_searching(driver, third, "asked again once the page's own search ended")
        # Its one search slot freed before the next page asks (a page left stops its job too,
        # but the server may not have noticed by the time the next page asks).
        stop_search(driver, third, "the third position stopped")
        viewport(driver, 390, 844, mobile=True)
        driver.get(base + "/" + query(start))
        wait_searching(driver, start, "the start searched live (phone)")
        driver.save_screenshot(os.path.join(out, "page-bounds-phone.png"))
        stop_search(driver, start, "the start stopped (phone)")
        viewport(driver, 1280, 800)
        # The game mode's opponent above the tables: the best move found, said in words.
        driver.get(base + "/" + query(start) + "&mode=play&you=north")
        wait_for(driver, "the opponent moves on bounds", lambda d: d.execute_script(
            "return document.body.dataset.state === 'ready' &&"
            " document.getElementById('game-msg').dataset.turn === 'you'"))
        last = driver.find_element(By.ID, "game-last").text
        check("their search found" in last and "not proved best" in last,
              f"the opponent's move on bounds: {last!r}")
        driver.save_screenshot(os.path.join(out, "page-play-desktop.png"))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def cooperative_test(driver, base, sowdb, tables):
    """The co-operative view: balanced or not, and by which moves, against the probe."""
    pos = {"variant": "wari-kc/3x2", "board": [1, 0, 2, 2, 1, 0], "stores": [2, 4], "side": "south"}
    rep = probe(sowdb, os.path.join(tables, "wari-kc"), pos["board"], pos["stores"])
    coop = probe(sowdb, os.path.join(tables, "wari-kc-coop"), pos["board"], pos["stores"])
    open_position(driver, base, pos)
    check_page(driver, pos, rep, "wari-kc competitive")
    summary = driver.find_element(By.ID, "coop-summary")
    check(summary.get_attribute("data-balanced") == str(coop["balanced"]).lower(),
          f"co-operative summary {summary.text!r}, probe balanced={coop['balanced']}")
    driver.find_element(By.ID, "coop-open").click()
    cpos = dict(pos, objective="cooperative")
    wait_key(driver, cpos, "the co-operative view")
    badges = driver.execute_script(
        "return [...document.querySelectorAll('#board g.badge:not(.illegal)')]"
        ".map(g => [Number(g.dataset.pit), g.dataset.kind])")
    want = sorted([m["pit"], "balanced" if m["balancing"] else "unbalanced"] for m in coop["moves"])
    check(sorted(badges) == want, f"co-operative badges {badges}, probe {want}")
    check("objective=cooperative" in driver.current_url, f"co-operative URL {driver.current_url}")


def shows_variant(driver, canonical, what, refusal=None):
    """The page names `canonical` in its URL, menu and title, with no error banner, or with the
    server's `refusal` of its position (a message) when one is given."""
    page = driver.execute_script(READ_PAGE)
    state, menu, title = driver.execute_script(
        "return [document.body.dataset.state, document.getElementById('variant').value,"
        " document.title]")
    if refusal is None:
        check(state == "ready" and page["status"] == "",
              f"{what}: page state {state}, status {page['status']!r} (want ready, none)")
    else:
        check(state == "error" and refusal in page["status"],
              f"{what}: page state {state}, status {page['status']!r} (want the server's "
              f"refusal {refusal!r})")
    url = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
    check(url.get("variant") == [canonical], f"{what}: URL {driver.current_url}, want {canonical}")
    check(menu == canonical, f"{what}: menu shows {menu!r}, want {canonical}")
    check(title.startswith(canonical + ","), f"{what}: title {title!r}")


def variant_text_test(driver, base, sowdb, tables):
    """Links whose variant text is not canonical: the page sends the text to the server and
    shows the canonical variant it names, its board and its tables' answers."""
    for text, canonical, name, game, board in [
        ("oware", "oware/6x4", "oware", 48, [0, 1, 2, 0, 1, 0, 3, 0, 1, 2, 0, 1]),
        ("kalah", "kalah/6x4", "kalah", 48, [2, 0, 1, 1, 0, 3, 0, 2, 1, 0, 1, 1]),
        ("abapa/4x3/skip_origin=on,grand_slam=capture", OPTIONS_VARIANT, OPTIONS_TABLES, 24,
         [1, 0, 2, 1, 0, 3, 1, 1]),
        (OPTIONS_VARIANT, OPTIONS_VARIANT, OPTIONS_TABLES, 24, [0, 2, 0, 1, 3, 0, 0, 2]),
    ]:
        rest = game - sum(board)
        pos = {"variant": canonical, "board": board, "stores": [rest // 2, rest - rest // 2],
               "side": "north"}
        link = "/" + query(dict(pos, variant=text))
        driver.get(base + link)
        if not wait_key(driver, pos, f"open {link}"):
            continue
        check_page(driver, pos, probe(sowdb, os.path.join(tables, name), pos["board"],
                                      pos["stores"]), f"variant={text}")
        shows_variant(driver, canonical, f"variant={text}")
    # No board: the page shows the start of the variant the server names (3 seeds in each of
    # the 8 pits, more than its tables' 12): searched, or the server's reason why not (the Oware
    # family is not searched yet), whichever the server answers.
    start = {"variant": OPTIONS_VARIANT, "board": [3] * 8, "stores": [0, 0], "side": "south"}
    status, body = api_position(base, start, 3000)
    refusal = None if status == 200 else body["error"]
    driver.get(base + "/?variant=abapa/4x3/grand_slam=capture,skip_origin=on")
    if wait_shown(driver, OPTIONS_VARIANT + "|", "a link with options and no board"):
        shows_variant(driver, OPTIONS_VARIANT, "options, no board", refusal)
        shown = driver.execute_script(READ_PAGE)
        check(len(shown["pits"]) == 8 and all(g["seeds"] == "3" for g in shown["pits"]) and
              sum(int(g["seeds"]) for g in shown["pits"]) > OPTIONS_MAX,
              f"options, no board: pits {shown['pits']}, want the start")
    # The menu: its texts are the server's; choosing one shows a position of it.
    driver.get(base + "/?variant=oware")
    wait_shown(driver, "oware/6x4|", "oware, no board")
    options = driver.execute_script(
        "return [...document.getElementById('variant').options].map(o => o.value)")
    check(OPTIONS_VARIANT in options, f"menu: {options}")
    driver.execute_script("const s = document.getElementById('variant'); s.value = arguments[0];"
                          "s.dispatchEvent(new Event('change'))", OPTIONS_VARIANT)
    if wait_shown(driver, OPTIONS_VARIANT + "|", f"the menu's {OPTIONS_VARIANT}"):
        shows_variant(driver, OPTIONS_VARIANT, "chosen in the menu", refusal)


def wait_shown(driver, prefix, what):
    """Waits until the page shows a position whose key starts with `prefix`, answered or
    refused; False (a failed check) when it does not within WAIT."""
    try:
        return driver.execute_async_script(
            "const [want, done] = arguments;"
            "const ok = () => (document.body.dataset.key || '').startsWith(want) &&"
            "  ['ready', 'error'].includes(document.body.dataset.state);"
            "if (ok()) return done(true);"
            "const w = new MutationObserver(() => { if (ok()) { w.disconnect(); done(true); } });"
            "w.observe(document.body, {attributes: true});", prefix)
    except TimeoutException:
        check(False, f"{what}: not within {WAIT} s (page state {page_state(driver)})")
        return False


def page_error(driver):
    return driver.execute_script("return document.body.dataset.state === 'error'")


# A page that has answered (or been refused: the start of an Oware-family game above its
# tables) and says something in its status line.
SHOWN_WITH_STATUS = ("return ['ready', 'error'].includes(document.body.dataset.state)"
                     " && !document.getElementById('status').hidden")


def bad_link_test(driver, base):
    driver.get(base + "/?variant=oware/6x4&board=1,2,x&stores=0,0")
    wait_for(driver, "a malformed link", lambda d: d.execute_script(SHOWN_WITH_STATUS))
    check("malformed" in driver.find_element(By.ID, "status").text,
          f"malformed link: status {driver.find_element(By.ID, 'status').text!r}")
    driver.get(base + "/?variant=nosuch/6x4&board=" + ",".join(["1"] * 12) + "&stores=0,0")
    wait_for(driver, "an unknown variant", page_error)
    check("nosuch" in driver.find_element(By.ID, "status").text,
          f"unknown variant: status {driver.find_element(By.ID, 'status').text!r}")
    # An unknown variant and no board: a served one instead, saying why.
    driver.get(base + "/?variant=nosuch")
    wait_for(driver, "an unknown variant without a board",
             lambda d: d.execute_script(SHOWN_WITH_STATUS))
    status = driver.find_element(By.ID, "status").text
    check("nosuch" in status and "oware/6x4" in status, f"unknown variant, no board: {status!r}")
    # A board of the wrong size for the variant the server names.
    driver.get(base + "/?variant=oware&board=1,2,3,4&stores=0,0")
    wait_for(driver, "a board of the wrong size", lambda d: d.execute_script(SHOWN_WITH_STATUS))
    status = driver.find_element(By.ID, "status").text
    check("malformed" in status and "oware/6x4 has 12" in status, f"wrong board size: {status!r}")


def server_gone_test(driver, proc):
    """The server stops: a click on a pit says the server does not answer."""
    proc.terminate()
    proc.wait(timeout=30)
    # A position not seen before, so that the page's cache cannot answer.
    driver.find_element(By.CSS_SELECTOR, '#modes button[data-mode="edit"]').click()
    driver.find_element(By.ID, "random").click()
    wait_for(driver, "the server is gone", page_error)
    check("does not answer" in driver.find_element(By.ID, "status").text,
          f"server gone: status {driver.find_element(By.ID, 'status').text!r}")


def screenshots(driver, base, sowdb, tables, out):
    pos = {"variant": "oware/6x4", "board": [3, 0, 2, 1, 4, 2, 1, 0, 2, 3, 1, 1],
           "stores": [13, 15], "side": "south"}
    viewport(driver, 1280, 800)
    open_position(driver, base, pos)
    best = driver.execute_script("return document.querySelector('#board g.badge.best').dataset.pit")
    ActionChains(driver).move_to_element(driver.find_element(
        By.CSS_SELECTOR, f'#board g.pit[data-side="south"][data-index="{best}"] .hit')).perform()
    wait_for(driver, "hover", lambda d: d.find_elements(By.ID, "hover-text"))
    driver.save_screenshot(os.path.join(out, "page-desktop.png"))
    phone_test(driver, base, sowdb, tables, out, pos)
    viewport(driver, 1280, 800)


def tap_pit(driver, side, index):
    """A finger's tap on a pit: touch events at its centre, as a phone sends them (the browser
    makes the click of it)."""
    x, y = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return [r.x + r.width / 2, r.y + r.height / 2];", pit_element(driver, side, index))
    driver.execute_cdp_cmd("Input.dispatchTouchEvent",
                           {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def phone_test(driver, base, sowdb, tables, out, pos):
    """A phone (390x844, touch): the game menu's text fits its box; the editor's help speaks of
    taps; a tap on a pit only chooses its move (nothing played, a Play button shown) and the
    button plays it."""
    viewport(driver, 390, 844, mobile=True)
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True,
                                                                   "maxTouchPoints": 1})
    try:
        open_position(driver, base, pos)
        driver.save_screenshot(os.path.join(out, "page-phone.png"))
        fits = driver.execute_script(
            "const s = document.getElementById('variant');"
            "const c = document.createElement('canvas').getContext('2d');"
            "c.font = getComputedStyle(s).font;"
            "return [c.measureText(s.options[s.selectedIndex].text).width, s.clientWidth];")
        check(fits[0] + 24 <= fits[1], f"phone: the game menu's text ({fits[0]:.0f} px) is cut "
              f"off by its box ({fits[1]} px)")
        rep = probe(sowdb, os.path.join(tables, "oware"), pos["board"], pos["stores"])
        move = next(m for m in rep["moves"] if m["pit"] == rep["best"])
        url = driver.current_url
        tap_pit(driver, pos["side"], move["pit"])
        chosen = driver.execute_script(
            "const b = document.getElementById('play-selected');"
            "return [location.href, b ? b.textContent : null,"
            " (document.getElementById('hover-text') || {}).textContent || '']")
        check(chosen[0] == url and chosen[1] == f"Play {pit_label(pos['side'], move['pit'])}",
              f"phone: a tap only chooses the move: {chosen}")
        driver.save_screenshot(os.path.join(out, "page-phone-tap.png"))
        if chosen[1] is not None:
            driver.find_element(By.ID, "play-selected").click()
            wait_key(driver, after(pos, move), "phone: Play plays the chosen move")
        driver.find_element(By.CSS_SELECTOR, '#modes button[data-mode="edit"]').click()
        hint = driver.find_element(By.ID, "hover-info").text
        check("Tap" in hint and "shift" not in hint and "right-click" not in hint,
              f"phone: the editor's help {hint!r}")
        driver.find_element(By.CSS_SELECTOR, '#modes button[data-mode="analyse"]').click()
    finally:
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sowdb")
    ap.add_argument("tables")
    ap.add_argument("out")
    ap.add_argument("--url")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    global LOG_DIR
    LOG_DIR = a.out
    t0 = time.monotonic()
    # The proof store of the servers and the probes: this run's own (no user cache is touched).
    proofs = tempfile.mkdtemp(prefix="sowdb-page-proofs-")
    os.environ["SOWDB_CACHE_DIR"] = proofs
    proc = None
    base = a.url
    if base is None:
        # Searches at once: each page a test opens may leave a search running on the server (an
        # Oware position above the tables rarely ends), and the next page must not find every
        # slot taken (the busy answer has a test of its own). Jobs end after 3 s (the page
        # follows a search until it ends): a test that waits for an answer above the tables
        # gets one, exact or bounds; live_search_test has a server whose jobs go on.
        proc, base = start_server(a.sowdb, a.tables,
                                  extra=["--search-slots", "4", "--max-job-seconds", "3"])
    base = base.rstrip("/")
    variants = wait_api(base)
    GAME_SEEDS.update({t["variant"]: t["game_seeds"] for t in variants["tables"]})
    served = sorted((t["variant"], t.get("objective", "competitive")) for t in variants["tables"])
    check(("oware/6x4", "competitive") in served and ("kalah/6x4", "competitive") in served,
          f"served tables: {served}")
    profile = tempfile.mkdtemp(prefix="sowdb-page-")
    driver = browser(profile)
    try:
        viewport(driver, 1280, 800)
        timings = []
        tests = [
            ("random positions", lambda: random_positions_test(driver, base, a.sowdb, a.tables)),
            ("click and history", lambda: click_and_history_test(driver, base, a.sowdb, a.tables)),
            ("keyboard and line", lambda: keyboard_test(driver, base, a.sowdb, a.tables)),
            ("editor", lambda: editor_test(driver, base, a.sowdb, a.tables)),
            ("game mode", lambda: game_test(driver, base, a.sowdb, a.tables)),
            ("game over", lambda: game_over_test(driver, base, a.sowdb, a.tables, a.out)),
            ("search from the start", lambda: search_start_test(driver, base, a.sowdb,
                                                                 a.tables, a.out)),
            ("game from the start", lambda: search_game_test(driver, base, a.sowdb, a.tables)),
            ("live search", lambda: live_search_test(driver, a.sowdb, a.tables, a.out)),
            ("bounds", lambda: bounds_test(driver, a.sowdb, a.tables, a.out)),
            ("co-operative", lambda: cooperative_test(driver, base, a.sowdb, a.tables)),
            ("variant texts", lambda: variant_text_test(driver, base, a.sowdb, a.tables)),
            ("bad links", lambda: bad_link_test(driver, base)),
            ("screenshots", lambda: screenshots(driver, base, a.sowdb, a.tables, a.out)),
        ]
        for name, run in tests:
            s = time.monotonic()
            try:
                run()
            except Exception:
                print(f"{name}: an exception; the servers' output follows", file=sys.stderr)
                server_logs()
                raise
            timings.append(f"{name} {time.monotonic() - s:.1f} s")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and
                  "/api/v1/" not in e["message"]]
        check(not errors, f"browser console errors: {errors}")
        if proc is not None:
            server_gone_test(driver, proc)
        print("; ".join(timings))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(proofs, ignore_errors=True)
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
    print(f"screenshots: {os.path.join(a.out, 'page-desktop.png')}, "
          f"{os.path.join(a.out, 'page-phone.png')}")
    if failures:
        server_logs()
        print(f"{failures} of {checks} checks failed ({time.monotonic() - t0:.1f} s)",
              file=sys.stderr)
        return 1
    print(f"all {checks} checks passed ({time.monotonic() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
