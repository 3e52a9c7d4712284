#!/usr/bin/env python3
"""Compares two table directories entry by entry: every position's value, depth and status, layer
by layer, through the Python module (sowdb.TableSet.layer). For directories whose bytes differ
by design (format version 4 against 6, say), where a byte comparison says nothing.

    scripts/compare_entries.py DIR_A DIR_B

Prints one line per directory pair; exits 1 at the first layer that differs (naming the first
position that does), 2 when the directories are not of the same variant and layers.
Needs numpy and the built module on PYTHONPATH (build/python).
"""
import sys

import numpy as np
import sowdb


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with sowdb.open(sys.argv[1]) as a, sowdb.open(sys.argv[2]) as b:
        if str(a.variant) != str(b.variant) or a.max_stones != b.max_stones:
            print(f"not comparable: {a} against {b}", file=sys.stderr)
            return 2
        positions = 0
        for n in range(a.max_stones + 1):
            for ca, cb in zip(a.layer(n, depths=True), b.layer(n, depths=True)):
                for what in ("values", "depths", "status"):
                    x, y = getattr(ca, what), getattr(cb, what)
                    if not np.array_equal(x, y):
                        i = int(np.flatnonzero(x != y)[0])
                        print(f"DIFFERENT layer {n}, position {ca.first + i} "
                              f"({ca.boards[i].tolist()}): {what} {x[i]} against {y[i]}")
                        return 1
                positions += len(ca.values)
        print(f"same entries: {positions} positions, layers 0..{a.max_stones}, {a.variant}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
