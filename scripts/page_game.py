#!/usr/bin/python3
"""One whole game played on the analysis page of `sowdb serve`, in headless Chromium, against the
page's own opponent: the benchmark of issue 41's "a full game played on the page against the book
and the search".

Starts `SOWDB serve --tables TABLES` on 127.0.0.1 (a free port) with SOWDB_CACHE_DIR=DIR, so that
the server's proof store (DIR/proofs/..., an opening book built by `sowdb book`) is what the
opponent reads; opens the page at the variant's start position in Play mode (you=south, Hints
ticked) and plays from the first move to the end. South (the user, moving first) plays by clicking
its pit as a user would: with `--player best` the move the page marks best (ringed best once
proved, else the search's `found` move, else the first of the moves list); with `--player random`
a seeded uniform choice among the pits with seeds. North is the page's opponent, which moves by
itself.

Timing is read inside the page (performance.now()): a capturing click listener marks the user's
click, a wrapper of history.pushState marks each move drawn on the board (the page draws a
position as it pushes its URL). For each opponent move: its ply, the seconds from the user's click
(or from the opponent's previous move, after an extra turn) until the move is on the board (this
includes the page's own 450 ms pause before it plays), how the page chose it (`proved` or `found`,
the page's record), what the page said before it (the search note of the position: tables, proved
by search, proved by search earlier = the proof store) and after it (#game-last).

Usage: scripts/page_game.py SOWDB TABLES --store-dir DIR --out OUTDIR [--seed N]
           [--player best|random] [--wait SECONDS]
Output: per-move lines and a summary on stdout (plies, opponent moves, the share within 2 s,
median / 95th percentile / largest seconds, how each move was chosen, the final score as the page
shows it, and `SOWDB probe --json` of every position the tables hold: the perfect-play final
score from South's side, which only a South move may change, against the page's final score);
OUTDIR/page-game-{start,first-reply,middle,near-end,final}.png (1280x800, taken at rest with
South to move or the game over, the pointer moved off the board) and OUTDIR/page-game.json (every
move's figures). Exit 0 when the game ended and every check held, 1 otherwise.
"""

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from local_server import start_server

# Installed before the page's own scripts: the moves drawn (pushState, with the page's record of
# how each was chosen), the user's clicks and every answer the page finished drawing.
HOOKS = """
window.__log = [];
const log = (e) => window.__log.push({t: performance.now(), ...e});
const push = history.pushState.bind(history);
history.pushState = function(state, title, url) {
  push(state, title, url);
  log({kind: 'push', pos: state && state.pos ? state.pos : null});
};
document.addEventListener('click', () => log({kind: 'click'}), true);
const text = (id) => { const e = document.getElementById(id); return e ? e.textContent : null; };
let last = '';
const watch = () => {
  const b = document.body.dataset;
  const now = (b.state || '') + '|' + (b.key || '');
  if (now === last) return;
  last = now;
  if (b.state !== 'ready' && b.state !== 'error') return;
  const v = document.getElementById('value');
  log({kind: b.state, key: b.key, note: text('search-note'), status: text('status'),
       msg: text('game-msg'), lastReply: text('game-last'),
       value: v ? {...v.dataset, text: v.textContent} : null});
};
document.addEventListener('DOMContentLoaded', () => {
  new MutationObserver(watch).observe(document.body, {attributes: true});
});
"""

# The page at rest: an answer drawn and the opponent not about to move.
SETTLED = ("return ['ready', 'error'].includes(document.body.dataset.state) &&"
           " document.getElementById('game-msg').dataset.turn !== 'tables'")


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))]


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-dev-shm-usage", "--hide-scrollbars", f"--user-data-dir={profile}"]:
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.page_load_strategy = "eager"
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1280, "height": 800, "deviceScaleFactor": 1,
                            "mobile": False})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOKS})
    return driver


def settle(driver, wait, what):
    try:
        WebDriverWait(driver, wait, poll_frequency=0.05).until(
            lambda d: d.execute_script(SETTLED))
    except TimeoutException:
        state = driver.execute_script(
            "return [document.body.dataset.state, document.body.dataset.key,"
            " document.getElementById('status').textContent]")
        sys.exit(f"{what}: the page did not settle within {wait} s ({state})")


def read_turn(driver):
    """The page at rest: whose turn, the game message, its position and what a player sees."""
    return driver.execute_script("""
const b = document.body.dataset;
const m = document.getElementById('game-msg');
const south = [...document.querySelectorAll('#board g.pit[data-side="south"]')].map(g => ({
  pit: Number(g.dataset.pit), seeds: Number(g.querySelector('text.count').textContent)}));
const best = document.querySelector('#board g.badge.best');
const found = document.querySelector('#moves li.move .best-mark.found');
const first = document.querySelector('#moves li.move');
const o = document.getElementById('outcome');
const txt = (el, sel) => { const x = el && el.querySelector(sel); return x ? x.textContent : null; };
return {state: b.state, key: b.key, turn: m.dataset.turn, msg: m.textContent,
        last: document.getElementById('game-last').textContent, south,
        best: best ? Number(best.dataset.pit) : null,
        found: found ? Number(found.closest('li').dataset.pit) : null,
        first: first ? Number(first.dataset.pit) : null,
        outcome: o ? {kind: o.dataset.kind, score: txt(o, '.score'), word: txt(o, '.word')} : null,
        status: document.getElementById('status').hidden ? ''
                : document.getElementById('status').textContent};
""")


def parse_key(k):
    variant, objective, side, board, stores = k.split("|")
    return {"side": side, "board": [int(x) for x in board.split(",")],
            "stores": [int(x) for x in stores.split(",")]}


def probe(sowdb, tables, pos, env, search_time=0):
    """`sowdb probe --json` of pos (None when refused): no search unless search_time > 0."""
    out = subprocess.run([sowdb, "probe", "--tables", tables, "--json", "--search-time",
                          str(search_time),
                          "--stores", f"{pos['stores'][0]},{pos['stores'][1]}",
                          *map(str, pos["board"])], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def how_chosen(move, before):
    """Where the opponent's move came from, from what the page recorded and said."""
    if move["how"] == "found":
        return "found"
    note = (before or {}).get("note") or ""
    if "earlier" in note:
        return "book"  # the server's proof store
    if note.startswith("proved by search"):
        return "search"
    return "tables"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sowdb")
    ap.add_argument("tables")
    ap.add_argument("--store-dir", required=True, help="SOWDB_CACHE_DIR of the server")
    ap.add_argument("--out", required=True, help="directory for the screenshots and the JSON")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--player", choices=["best", "random"], default="best")
    ap.add_argument("--wait", type=float, default=180,
                    help="seconds the page may take to settle after a move (a bound)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    env = dict(os.environ, SOWDB_CACHE_DIR=a.store_dir)
    rng = random.Random(a.seed)
    print(f"uptime at the start: {uptime()}", flush=True)
    proc, base = start_server(a.sowdb, a.tables, env)
    profile = tempfile.mkdtemp(prefix="sowdb-page-game-")
    driver = None
    problems = []
    try:
        with urllib.request.urlopen(base + "/api/v1/variants", timeout=60) as r:
            table = json.load(r)["tables"][0]
        variant, tables_max = table["variant"], table["layers"]["max"]
        driver = browser(profile)
        driver.set_page_load_timeout(60)
        driver.get(f"{base}/?variant={variant}&mode=play&you=south")
        settle(driver, a.wait, "the start")
        driver.find_element(By.ID, "hints").click()
        settle(driver, a.wait, "hints")
        shots = []  # (label, png) at every rest: South to move, or the game over
        moves = []  # every move drawn: {ply, side, pit, how, t}
        replies = []
        clicks = 0
        t_game = time.monotonic()
        while True:
            settle(driver, a.wait, f"ply {len(moves)}")
            page = read_turn(driver)
            # The pointer rests where the user clicked; over a pit the page previews that move
            # (the board after it), so it is moved to the game's message before the picture.
            ActionChains(driver).move_to_element(driver.find_element(By.ID, "game-msg")).perform()
            shots.append((len(moves), driver.get_screenshot_as_png()))
            if page["turn"] == "over" or page["msg"].startswith("The game is decided"):
                break
            if page["turn"] != "you" or page["state"] != "ready":
                problems.append(f"ply {len(moves)}: the page rests on {page}")
                break
            legal = [p["pit"] for p in page["south"] if p["seeds"] > 0]
            if a.player == "random":
                pit, why = rng.choice(legal), "random"
            elif page["best"] is not None:
                pit, why = page["best"], "best"
            elif page["found"] is not None:
                pit, why = page["found"], "found"
            else:
                pit, why = page["first"], "first listed"
            mark = len(driver.execute_script("return window.__log"))
            ActionChains(driver).move_to_element(driver.find_element(
                By.CSS_SELECTOR,
                f'#board g.pit[data-side="south"][data-index="{pit}"] .hit')).click().perform()
            clicks += 1
            settle(driver, a.wait, f"after South {'abcdefgh'[pit]}")
            log = driver.execute_script("return window.__log")[mark:]
            click_t = next((e["t"] for e in log if e["kind"] == "click"), None)
            prev_t, before = click_t, None
            for e in log:
                if e["kind"] in ("ready", "error"):
                    before = e
                if e["kind"] != "push" or not e["pos"] or not e["pos"].get("via"):
                    continue
                via = e["pos"]["via"]
                move = {"ply": len(moves), "side": via["side"], "pit": via["pit"],
                        "how": via.get("how"), "t": e["t"], "pos": e["pos"]}
                if via["side"] == "south":
                    move["chosen"] = why
                else:
                    move["seconds"] = (e["t"] - prev_t) / 1000
                    move["since_click"] = (e["t"] - click_t) / 1000
                    move["said_before"] = (before or {}).get("note") or ""
                    move["from"] = how_chosen(move, before)
                    move["seeds"] = sum(before_board(moves, e))
                    replies.append(move)
                prev_t = e["t"]
                moves.append(move)
            rest = read_turn(driver)
            for m in moves[-len([e for e in log if e["kind"] == "push"]):]:
                if m["side"] == "north":
                    m["said_after"] = rest["last"]
                    print(f"  ply {m['ply']:3d}  North {'ABCDEFGH'[m['pit']]}  "
                          f"{m['seconds']:6.2f} s  {m['from']:6s} ({m['how']}; "
                          f"{m['seeds']} seeds; {m['said_before'] or 'no search note'})",
                          flush=True)
                else:
                    print(f"  ply {m['ply']:3d}  South {'abcdefgh'[m['pit']]}  ({m['chosen']})",
                          flush=True)
        seconds = time.monotonic() - t_game
        final = read_turn(driver)
        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        # Screenshots: the start, after the first reply, the middle, near the end, the end.
        first_reply = next((i for i, (ply, _) in enumerate(shots)
                            if any(m["side"] == "north" and m["ply"] < ply for m in moves)),
                           len(shots) - 1)
        picks = {"start": 0, "first-reply": first_reply, "middle": len(shots) // 2,
                 "near-end": max(0, len(shots) - 2), "final": len(shots) - 1}
        saved = []
        for label, i in picks.items():
            path = os.path.join(a.out, f"page-game-{label}.png")
            with open(path, "wb") as f:
                f.write(shots[i][1])
            saved.append(f"{path} (after {shots[i][0]} plies)")
        # The tables' verdict along the game: South's perfect-play final score.
        verdicts = []
        for i, m in enumerate(moves):
            p = m["pos"]
            # Above the tables only the final position, by search (a finished game: at once).
            last = i == len(moves) - 1
            if sum(p["board"]) > tables_max and not last:
                continue
            r = probe(a.sowdb, a.tables, p, env, 10 if sum(p["board"]) > tables_max else 0)
            if r is None or r.get("final") is None:
                continue
            south = r["final"][0] if p["side"] == "south" else r["final"][1]
            north = r["final"][1] if p["side"] == "south" else r["final"][0]
            verdicts.append({"ply": m["ply"] + 1, "after": m["side"], "south": south,
                             "north": north, "method": r.get("method", "table")})
        for prev, cur in zip(verdicts, verdicts[1:]):
            if (prev["south"], prev["north"]) != (cur["south"], cur["north"]):
                mover = moves[cur["ply"] - 1]["side"]
                line = (f"the perfect-play score went from {prev['south']}-{prev['north']} to "
                        f"{cur['south']}-{cur['north']} (South-North) after {mover}'s move at "
                        f"ply {cur['ply'] - 1}")
                print(f"  {line}")
                if mover == "north":
                    problems.append("the opponent lost ground: " + line)
        m = re.search(r"you (\d+), the tables (\d+)", final["msg"])
        shown = (int(m.group(1)), int(m.group(2))) if m else None
        if verdicts:
            v = verdicts[-1]
            if shown != (v["south"], v["north"]):
                problems.append(f"the page's final score {shown} is not the probe's "
                                f"{v['south']}-{v['north']} (South-North)")
        else:
            problems.append("no position of the game was checked against the probe")
        if final["turn"] != "over":
            problems.append(f"the game did not end: {final['msg']!r}")
        if errors:
            problems.append(f"browser console errors: {errors}")
        times = [r["seconds"] for r in replies]
        within = sum(t <= 2.0 for t in times)
        print(f"uptime at the end: {uptime()}")
        print(f"player {a.player} (seed {a.seed}); {len(moves)} plies in {seconds:.0f} s, "
              f"{clicks} clicks, {len(replies)} opponent moves")
        chosen = [m["chosen"] for m in moves if m["side"] == "south"]
        print("South's moves: " + ", ".join(f"{chosen.count(k)} {k}" for k in sorted(set(chosen))))
        if times:
            print(f"opponent moves within 2 s: {within} of {len(times)} "
                  f"({100 * within / len(times):.0f}%); median {statistics.median(times):.2f} s, "
                  f"95th percentile {percentile(times, 95):.2f} s, largest {max(times):.2f} s "
                  "(each from the click or the opponent's previous move, the page's 450 ms "
                  "pause included)")
        for k in ("book", "search", "tables", "found"):
            sel = [r["seconds"] for r in replies if r["from"] == k]
            if sel:
                print(f"  {k}: {len(sel)} moves, median {statistics.median(sel):.2f} s, "
                      f"largest {max(sel):.2f} s")
        print(f"the page at the end: {final['msg']!r}; result figure {final['outcome']}")
        if verdicts:
            print(f"probe: {len(verdicts)} positions of the game, the first after {verdicts[0]['ply']} plies "
                  f"(those of <= {tables_max} seeds, and the final one; "
                  f"{sum(v['method'] == 'search' for v in verdicts)} by search); perfect play "
                  "from the "
                  f"first gives South-North {verdicts[0]['south']}-{verdicts[0]['north']}, from "
                  f"the last {verdicts[-1]['south']}-{verdicts[-1]['north']}; the page shows "
                  f"{shown[0] if shown else '?'}-{shown[1] if shown else '?'}")
        print("screenshots: " + "; ".join(saved))
        with open(os.path.join(a.out, "page-game.json"), "w") as f:
            json.dump({"player": a.player, "seed": a.seed, "moves": moves, "replies": replies,
                       "verdicts": verdicts, "final": final, "problems": problems}, f, indent=1)
        for p in problems:
            print(f"PROBLEM: {p}")
        return 1 if problems else 0
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        proc.terminate()
        proc.wait()


def before_board(moves, push):
    """The board before the move of `push`: the position of the previous move drawn, or the
    start (48 seeds; Kalah sows none into the board)."""
    if moves:
        return moves[-1]["pos"]["board"]
    return push["pos"]["board"]


if __name__ == "__main__":
    sys.exit(main())
