#!/usr/bin/env python3
"""Writes the positions of games from the start of a variant, for the search benchmark
(scripts/bench_game_positions.py): every position of `--games` random games (uniform random
legal moves from the start, seeded) and, with --perfect TABLES, of the game the tables and the
search play perfectly (the proved best move each ply, searched for up to --search-time seconds).

Usage: PYTHONPATH=build/python /usr/bin/python3 scripts/game_positions.py --variant kalah-irving/6x4
           [--games 20] [--seed 1] [--perfect TABLES [--search-time S]] > bench/positions/FILE.tsv
Output: one line per position, tab-separated: game (perfect or random-N), ply, the board's 2P
counts mover first (space-separated), the stores mover first (A,B). A position where the game is
over is not written.
"""
import argparse
import random
import sys

import sowdb


def play_out(variant, pick):
    """The positions of one game from the start, each move chosen by pick(board, stores)."""
    board = variant.start()
    stores = (0, 0)
    ply = 0
    while not variant.is_game_over(board):
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
    a = ap.parse_args()
    variant = sowdb.Variant(a.variant)
    out = sys.stdout
    if a.perfect:
        with sowdb.open(a.perfect) as tb:
            def best(board, stores):
                r = tb.probe(board, stores=stores, max_plies=0, search=a.search_time)
                if r.best is None:
                    sys.exit(f"no proved best move at {board} within {a.search_time} s")
                return r.best
            for ply, board, stores in play_out(variant, best):
                out.write(f"perfect\t{ply}\t{' '.join(map(str, board))}\t{stores[0]},{stores[1]}\n")
                out.flush()
    rng = random.Random(a.seed)
    for g in range(a.games):
        pick = lambda board, stores: rng.choice(variant.legal_moves(board))
        for ply, board, stores in play_out(variant, pick):
            out.write(f"random-{g + 1}\t{ply}\t{' '.join(map(str, board))}\t{stores[0]},{stores[1]}\n")


if __name__ == "__main__":
    main()
