#!/usr/bin/env python3
"""The Python side of scripts/bench_python.sh: sowdb.TableSet.values() on the boards of a file
(rows of 2P bytes), as uint8 and as int64 (numpy's default integer, converted by the module).
One untimed pass fills the caches; then REPEAT timed passes per thread count and dtype, the
fastest printed as a JSON line (as bench/bulk_values.cpp does).

    python3 bench/python_values.py TABLES BOARDS_FILE CACHE_BYTES REPEAT THREADS...
"""

import json
import sys
import time

import numpy as np

import sowdb


def main() -> None:
    tables, boards_file, cache_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    repeat = max(1, int(sys.argv[4]))
    thread_counts = [int(t) for t in sys.argv[5:]]
    with sowdb.open(tables, cache_bytes=cache_bytes) as tb:
        boards = np.fromfile(boards_file, dtype=np.uint8).reshape(-1, tb.variant.board_pits)
        wide = boards.astype(np.int64)
        labels = tb.values(boards)  # warm
        unanswered = int((~labels.ok).sum())
        for threads in thread_counts:
            for name, array in (("uint8", boards), ("int64", wide)):
                times = []
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    tb.values(array, threads=threads)
                    times.append(time.perf_counter() - t0)
                s = min(times)
                print(json.dumps({"side": "python", "dtype": name, "threads": threads,
                                  "positions": len(array), "unanswered": unanswered,
                                  "repeat": repeat, "seconds": round(s, 3),
                                  "positions_per_s": round(len(array) / s)}), flush=True)


if __name__ == "__main__":
    main()
