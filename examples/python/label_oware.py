#!/usr/bin/env python3
"""Labels random Oware positions with their exact values and plots the distribution.

    python3 examples/python/label_oware.py --tables DIR [--positions 1000000] [--png values.png]

Draws positions uniformly from every position of the tables' layers 1..N (so mostly from the
largest layers; N: --max-stones, default every layer the tables hold), looks them up in bulk
(sowdb.TableSet.values, over every core, with the default block caches) and writes a histogram
of the values and the results by seed count, each bar with the number of positions behind it
(bars of fewer than MIN_SAMPLES hatched), with matplotlib's Agg backend (no display needed).
Without --tables it first builds Oware's layers 0..--max-stones (default 12) into a temporary
directory (sowdb.generate; 0..12 takes a few seconds).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from typing import Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

import sowdb  # noqa: E402

# A bar of the results by seed count drawn from fewer positions than this is hatched: its shares
# say little.
MIN_SAMPLES = 100


def label(tables: str, positions: int, png: str, seed: int, max_stones: Optional[int]) -> None:
    with sowdb.open(tables) as tb:
        variant = tb.variant
        n_max = tb.max_stones if max_stones is None else min(max_stones, tb.max_stones)
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

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
    bins = np.arange(-n_max, n_max + 2) - 0.5
    left.hist(values, bins=bins, color="#3b6ea5", edgecolor="white", linewidth=0.5)
    left.set_yscale("log")
    left.set_xlabel("value: seeds the mover nets under perfect play")
    left.set_ylabel("positions (log scale)")
    left.set_title(f"{positions:,} random positions of {variant.name}, 1..{n_max} seeds")
    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    # Per seed count: the share of wins, draws and losses for the mover, and how many positions
    # each share comes from (uniform draws give the small layers only a few).
    layers = np.arange(1, n_max + 1)
    counts = np.bincount(stones, minlength=n_max + 1)[1:n_max + 1]
    share = np.array([[np.mean(values[stones == n] > 0), np.mean(values[stones == n] == 0),
                       np.mean(values[stones == n] < 0)] if c else [0, 0, 0]
                      for n, c in zip(layers, counts)])
    hatch = ["///" if c < MIN_SAMPLES else "" for c in counts]
    bottom = np.zeros(len(layers))
    kinds = [("#2e8b57", "mover wins"), ("#c0c0c0", "draw"), ("#b22222", "mover loses")]
    for k, (color, _) in enumerate(kinds):
        right.bar(layers, share[:, k], bottom=bottom, color=color, hatch=hatch,
                  edgecolor="white", linewidth=0.5)
        bottom += share[:, k]
    for n, c in zip(layers, counts):
        right.annotate(f"{c:,}", (n, 1.0), xytext=(0, 3), textcoords="offset points",
                       ha="center", va="bottom", rotation=90, fontsize=7,
                       color="#b22222" if c < MIN_SAMPLES else "#404040")
    right.set_ylim(0, 1.22)
    right.set_yticks(np.linspace(0, 1, 6))
    if n_max <= 24:
        right.set_xticks(layers)
    else:
        right.xaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_xlim(0.4, n_max + 0.6)
    right.set_xlabel("seeds on the board")
    right.set_ylabel("share of positions")
    right.set_title("result for the player to move, by seed count\n(above each bar: positions "
                    f"drawn; hatched: fewer than {MIN_SAMPLES})", fontsize=10)
    handles = [Patch(facecolor=color, label=name) for color, name in kinds]
    handles.append(Patch(facecolor="white", edgecolor="#404040", hatch="///",
                         label=f"fewer than {MIN_SAMPLES} positions"))
    right.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=4,
                 fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    print(f"wrote {png}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", help="an Oware table directory (default: build one)")
    parser.add_argument("--max-stones", type=int, default=None,
                        help="draw from layers 1..N (default: all the tables hold); without "
                             "--tables, the layers to build (default 12)")
    parser.add_argument("--positions", type=int, default=1_000_000)
    parser.add_argument("--png", default="oware-values.png")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.tables:
        label(args.tables, args.positions, args.png, args.seed, args.max_stones)
        return
    max_stones = 12 if args.max_stones is None else args.max_stones
    with tempfile.TemporaryDirectory(prefix="sowdb-oware-") as d:
        t0 = time.perf_counter()
        summary = sowdb.generate("oware", max_stones, d)
        print(f"built {summary['positions']:,} positions (layers 0..{max_stones}) in "
              f"{time.perf_counter() - t0:.1f} s")
        label(d, args.positions, args.png, args.seed, None)


if __name__ == "__main__":
    try:
        main()
    except sowdb.Error as e:  # a missing or damaged table: one line, not a traceback
        sys.exit(f"label_oware: {e}")
