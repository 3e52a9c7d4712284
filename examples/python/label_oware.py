#!/usr/bin/env python3
"""Labels random Oware positions with their exact values and plots the distribution.

    python3 examples/python/label_oware.py --tables DIR [--positions 1000000] [--png values.png]

Draws positions uniformly from every position of the tables' layers 1..N (so mostly from the
largest layers), looks them up in bulk (sowdb.TableSet.values, over every core) and writes a
histogram of the values, one bar chart per seed count, with matplotlib's Agg backend (no
display needed). Without --tables it first builds Oware's layers 0..--max-stones into a
temporary directory (sowdb.generate; 0..12 takes a few seconds).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import sowdb  # noqa: E402


def label(tables: str, positions: int, png: str, seed: int) -> None:
    with sowdb.open(tables) as tb:
        variant = tb.variant
        n_max = tb.max_stones
        t0 = time.perf_counter()
        boards = variant.random_positions(positions, n_max, min_stones=1, seed=seed)
        t1 = time.perf_counter()
        labels = tb.values(boards)
        t2 = time.perf_counter()
    ok = labels.ok
    if not ok.all():
        sys.exit(f"{int((~ok).sum())} positions could not be labelled")
    values = labels.value.astype(np.int64)
    stones = boards.sum(axis=1, dtype=np.int64)
    print(f"{positions} positions of {variant.name}, layers 1..{n_max}: drawn in {t1 - t0:.2f} s,"
          f" labelled in {t2 - t1:.2f} s ({positions / (t2 - t1) / 1e6:.2f} M/s)")
    wins, draws = (values > 0).mean(), (values == 0).mean()
    print(f"mover wins {wins:.1%}, draws {draws:.1%}, loses {1 - wins - draws:.1%}; "
          f"mean value {values.mean():+.3f} seeds")

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    bins = np.arange(-n_max, n_max + 2) - 0.5
    left.hist(values, bins=bins, color="#3b6ea5", edgecolor="white", linewidth=0.5)
    left.set_yscale("log")
    left.set_xlabel("value: seeds the mover nets under perfect play")
    left.set_ylabel("positions (log scale)")
    left.set_title(f"{positions:,} random positions of {variant.name}, 1..{n_max} seeds")
    # Per seed count: the share of wins, draws and losses for the mover.
    layers = np.arange(1, n_max + 1)
    share = np.array([[np.mean(values[stones == n] > 0), np.mean(values[stones == n] == 0),
                       np.mean(values[stones == n] < 0)] if (stones == n).any() else [0, 0, 0]
                      for n in layers])
    right.bar(layers, share[:, 0], color="#2e8b57", label="mover wins")
    right.bar(layers, share[:, 1], bottom=share[:, 0], color="#c0c0c0", label="draw")
    right.bar(layers, share[:, 2], bottom=share[:, 0] + share[:, 1], color="#b22222",
              label="mover loses")
    right.set_xlabel("seeds on the board")
    right.set_ylabel("share of positions")
    right.set_title("result for the player to move, by seed count")
    right.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    print(f"wrote {png}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", help="an Oware table directory (default: build one)")
    parser.add_argument("--max-stones", type=int, default=12,
                        help="layers to build without --tables (default 12)")
    parser.add_argument("--positions", type=int, default=1_000_000)
    parser.add_argument("--png", default="oware-values.png")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.tables:
        label(args.tables, args.positions, args.png, args.seed)
        return
    with tempfile.TemporaryDirectory(prefix="sowdb-oware-") as d:
        t0 = time.perf_counter()
        summary = sowdb.generate("oware", args.max_stones, d)
        print(f"built {summary['positions']:,} positions (layers 0..{args.max_stones}) in "
              f"{time.perf_counter() - t0:.1f} s")
        label(d, args.positions, args.png, args.seed)


if __name__ == "__main__":
    try:
        main()
    except sowdb.Error as e:  # a missing or damaged table: one line, not a traceback
        sys.exit(f"label_oware: {e}")
