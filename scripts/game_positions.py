#!/usr/bin/env python3
"""Writes the positions of games from the start of a variant, for the search benchmark
(scripts/bench_game_positions.py): every position of `--games` random games (uniform random
legal moves from the start, seeded) and, with --perfect TABLES, of the game the tables and the
search play perfectly (the proved best move each ply: `sowdb.solve` of the position for its
value and a best move over TABLES, for up to --search-time seconds).

Usage: PYTHONPATH=build/python /usr/bin/python3 scripts/game_positions.py --variant kalah-irving/6x4
           [--games 20] [--seed 1] [--perfect TABLES [--search-time S]] [--min-seeds N]
           [--max-plies K] > bench/positions/FILE.tsv
Output: one line per position, tab-separated: game (perfect or random-N), ply, the board's 2P
counts mover first (space-separated), the stores mover first (A,B). A position where the game is
over is not written.
"""
import argparse
import random
import sys

import sowdb


def play_out(variant, pick, min_seeds=0, max_plies=None):
    """The positions of one game from the start, each move chosen by pick(board, stores), while
    the board holds at least min_seeds seeds and for at most max_plies plies (random play in the
    Oware family can go round for ever)."""
    board = variant.start()
    stores = (0, 0)
    ply = 0
    while not variant.is_game_over(board) and sum(board) >= min_seeds and (
            max_plies is None or ply < max_plies):
        yield ply, board, stores
        r = variant.play(board, pick(board, stores), stores)
        board, stores = r.board, r.stores
        ply += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--perfect", help="table directory: add the perfect-play game")
    ap.add_argument("--search-time", type=float, default=120.0)
    ap.add_argument("--min-seeds", type=int, default=0,
                    help="end each game's positions when fewer seeds are left on the board")
    ap.add_argument("--max-plies", type=int, default=1000, help="the longest game written")
    ap.add_argument("--per-seeds", type=int, default=0,
                    help="of the random games, at most this many positions of each seed count, "
                         "evenly spaced in the games' order (0: all)")
    a = ap.parse_args()
    variant = sowdb.Variant(a.variant)
    out = sys.stdout
    if a.perfect:
        def best(board, stores):
            r = sowdb.solve(a.variant, tables=a.perfect, board=list(board), stores=tuple(stores),
                            worths=False, time_limit=a.search_time)
            if r.get("best") is None or not r.get("complete"):
                sys.exit(f"no proved best move at {board} within {a.search_time} s")
            return r["best"]
        for ply, board, stores in play_out(variant, best):
            out.write(f"perfect\t{ply}\t{' '.join(map(str, board))}\t{stores[0]},{stores[1]}\n")
            out.flush()
    rng = random.Random(a.seed)
    lines = []
    for g in range(a.games):
        pick = lambda board, stores: rng.choice(variant.legal_moves(board))
        for ply, board, stores in play_out(variant, pick, a.min_seeds, a.max_plies):
            lines.append((sum(board), f"random-{g + 1}\t{ply}\t{' '.join(map(str, board))}\t"
                                      f"{stores[0]},{stores[1]}\n"))
    if a.per_seeds > 0:
        by_seeds = {}
        for seeds, line in lines:
            by_seeds.setdefault(seeds, []).append(line)
        lines = []
        for seeds in sorted(by_seeds):
            xs = by_seeds[seeds]
            k = min(a.per_seeds, len(xs))
            lines += [(seeds, xs[i * len(xs) // k]) for i in range(k)]
    out.writelines(line for _, line in lines)


if __name__ == "__main__":
    main()
