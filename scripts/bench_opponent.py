#!/usr/bin/env python3
"""Times the page's opponent as the page asks it: whole games against `sowdb serve`, a player
who moves at random (seeded) against the opponent, which asks each of its positions with
`search_ms` and `worths=0` (the value and a best move: what the opponent plays, and what
`sowdb book` proves) and plays the proved best move, or the best found when the budget runs out.
Half the games the opponent moves first. Prints each game's moves and the opponent's answer
times: the share within 2 s, the median, the 95th percentile, the largest, and how many came
from the proof store (a book) and how many were proved or only found.

Usage: scripts/bench_opponent.py SOWDB TABLES [--games N] [--seed S] [--search-ms MS]
           [--store-dir DIR] [--json OUT]
The server's proof store is SOWDB_CACHE_DIR=DIR (default: the environment's), where `sowdb
book` writes: a book built there is what the opponent reads.
"""
import argparse
import json
import os
import random
import subprocess
import time
import urllib.request

from local_server import start_server


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))]


def get(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return json.load(r)


def legal_moves(sowdb, variant, board):
    out = subprocess.run([sowdb, "show", "--variant", variant, "--json", *map(str, board)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["moves"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sowdb")
    ap.add_argument("tables")
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--search-ms", type=int, default=10000)
    ap.add_argument("--store-dir", help="SOWDB_CACHE_DIR of the server (its proof store)")
    ap.add_argument("--json", help="write every answer's figures here")
    a = ap.parse_args()
    env = dict(os.environ)
    if a.store_dir:
        env["SOWDB_CACHE_DIR"] = a.store_dir
    proc, base = start_server(a.sowdb, a.tables, env, ["--max-search-ms", "60000"], wait=60)
    try:
        variants = get(base + "/api/v1/variants")["tables"]
        v = variants[0]
        variant, pits, seeds = v["variant"], v["pits_per_side"], v["seeds_per_pit"]
        rng = random.Random(a.seed)
        rows = []
        for game in range(a.games):
            board = [seeds] * (2 * pits)
            stores = [0, 0]  # the mover's, the opponent's
            opponent_moves = game % 2 == 0  # the opponent is to move in this position
            plies = 0
            while True:
                moves = legal_moves(a.sowdb, variant, board)
                if not moves:
                    break
                if opponent_moves:
                    url = (f"{base}/api/v1/position?variant={variant}&board="
                           f"{','.join(map(str, board))}&stores={stores[0]},{stores[1]}"
                           f"&search_ms={a.search_ms}&worths=0")
                    t = time.monotonic()
                    r = get(url)
                    took = time.monotonic() - t
                    search = r.get("search") or {}
                    how = ("tables" if r.get("method") == "table" else
                           "book" if search.get("stored") else
                           "proved" if r.get("best") is not None else "found")
                    pit = r["best"] if r.get("best") is not None else search.get("best_found")
                    rows.append({"game": game, "ply": plies, "seeds": sum(board),
                                 "seconds": took, "how": how})
                    move = next(m for m in moves if m["pit"] == pit)
                else:
                    move = rng.choice(moves)
                board = move["result"]
                stores[0] += move["gain"]
                if move["next_mover"] != "same":
                    stores = [stores[1], stores[0]]
                    opponent_moves = not opponent_moves
                plies += 1
            print(f"game {game}: {plies} plies, the opponent "
                  f"{'first' if game % 2 == 0 else 'second'}", flush=True)
        times = [r["seconds"] for r in rows]
        within = sum(t <= 2.0 for t in times)
        print(f"opponent answers: {len(times)}; within 2 s: {within} "
              f"({100 * within / max(1, len(times)):.1f}%); median {percentile(times, 50):.2f} s, "
              f"95th percentile {percentile(times, 95):.2f} s, largest {max(times):.2f} s")
        for how in ("tables", "book", "proved", "found"):
            print(f"  {how}: {sum(r['how'] == how for r in rows)}")
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f)
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
