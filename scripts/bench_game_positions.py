#!/usr/bin/env python3
"""Times `sowdb probe` on every position of a positions file (scripts/game_positions.py), as a
user runs it: one process per position, the budget --search-time, a proof store of this run's
own (empty at the start unless --keep-store), and prints what was proved how fast.

Usage: scripts/bench_game_positions.py SOWDB TABLES POSITIONS.tsv [--search-time S]
           [--store-dir DIR] [--keep-store] [--json OUT]
Prints: positions in all, answered by the tables and by search; for the searched ones the
share with the value proved, with a best move proved, with every move's worth proved; the
median, 95th percentile and largest wall time; the total CPU time (user + system). Then, over
every position, the time until the value and a best move were proved (the process's wall time
less the search's seconds after `search.best_seconds`) and the share with every worth proved
within --worth-budget seconds.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sowdb")
    ap.add_argument("tables")
    ap.add_argument("positions")
    ap.add_argument("--search-time", type=float, default=10.0)
    ap.add_argument("--store-dir", help="the cache root of the proof store (default: a new one)")
    ap.add_argument("--keep-store", action="store_true", help="do not empty the store first")
    ap.add_argument("--json", help="write every position's figures here")
    ap.add_argument("--worth-budget", type=float, default=10.0,
                    help="the budget for the share with every worth proved (default 10 s)")
    a = ap.parse_args()
    store = a.store_dir or tempfile.mkdtemp(prefix="sowdb-bench-store-")
    if not a.keep_store:
        shutil.rmtree(os.path.join(store, "proofs"), ignore_errors=True)
    env = dict(os.environ, SOWDB_CACHE_DIR=store)
    rows = []
    start_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    for line in open(a.positions):
        game, ply, board, stores = line.rstrip("\n").split("\t")
        cmd = [a.sowdb, "probe", "--tables", a.tables, "--json", "--max-plies", "0",
               "--search-time", str(a.search_time), "--stores", stores, *board.split()]
        t = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.monotonic() - t
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        j = json.loads(p.stdout)
        s = j["search"] or {}
        # What the user waits for: the process, less what the search spent after the fact.
        overhead = wall - s.get("seconds", 0.0) if s else wall
        best_at = (overhead + s["best_seconds"] if s.get("best_seconds") is not None
                   else (wall if not s and (j["best"] is not None or j["game_over"]) else None))
        worths_at = wall if all(m["worth"] is not None for m in j["moves"]) else None
        rows.append({
            "best_wall": best_at, "worths_wall": worths_at,
            "game": game, "ply": int(ply), "stones": j["stones"], "method": j["method"],
            "wall": wall, "value_proved": j["value"] is not None,
            "best_proved": j["best"] is not None or j["game_over"],
            "worths_proved": all(m["worth"] is not None for m in j["moves"]),
            "positions": (j["search"] or {}).get("positions", 0),
            "width": j["upper"] - j["lower"],
        })
        print(f"{game} ply {ply}: {j['stones']} seeds, {j['method']}, {wall:.2f} s, "
              f"[{j['lower']}, {j['upper']}]", file=sys.stderr)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (cpu.ru_utime - start_cpu.ru_utime) + (cpu.ru_stime - start_cpu.ru_stime)
    searched = [r for r in rows if r["method"] == "search"]
    walls = [r["wall"] for r in searched]
    share = lambda key: sum(r[key] for r in searched) / max(1, len(searched))
    print(f"positions {len(rows)}: {len(rows) - len(searched)} by the tables, "
          f"{len(searched)} by search (budget {a.search_time:g} s each)")
    if searched:
        print(f"searched: value proved {share('value_proved'):.1%}, best move proved "
              f"{share('best_proved'):.1%}, every worth proved {share('worths_proved'):.1%}")
        print(f"searched wall: median {percentile(walls, 50):.2f} s, 95th percentile "
              f"{percentile(walls, 95):.2f} s, max {max(walls):.2f} s")
    print(f"CPU (user + system) of every probe: {cpu_s:.1f} s")
    best = [r["best_wall"] for r in rows]
    proved = [b for b in best if b is not None]
    inf = float("inf")
    ranked = [b if b is not None else inf for b in best]
    print(f"every position, the value and a best move: proved {len(proved)} of {len(rows)}, "
          f"median {percentile(ranked, 50):.2f} s, 95th percentile {percentile(ranked, 95):.2f} s"
          f" (unproved counted as infinite)")
    within = sum(1 for r in rows if r["worths_wall"] is not None
                 and r["worths_wall"] <= a.worth_budget)
    print(f"every position, every worth proved within {a.worth_budget:g} s: {within} of "
          f"{len(rows)} ({within / max(1, len(rows)):.1%})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
