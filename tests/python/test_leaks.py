"""No leak over a long loop: the resident set stays flat over many calls, errors included."""

from __future__ import annotations

import numpy as np
import pytest

import sowdb


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_rss_stays_flat_over_many_calls(oware):
    v = oware.variant
    boards = v.random_positions(10000, oware.max_stones + 2, seed=1)
    bad = boards.astype(np.int64)
    bad[5, 0] = -1
    one = tuple(int(p) for p in boards[0])

    def round_of_calls() -> None:
        oware.best_moves(boards)
        oware.values(boards.astype(np.int32), threads=2)
        for b in boards[:20]:
            oware.get(b)
        oware.probe((1, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0))
        v.play(v.start(), 2)
        v.legal_moves(one)
        for call in (lambda: oware.values(bad), lambda: oware.values(boards[:, :3]),
                     lambda: oware.probe((5, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                     lambda: v.play(one, 9)):
            with pytest.raises(sowdb.Error):
                call()
        next(oware.layer(5, chunk_size=500))

    for _ in range(50):  # warm: caches filled, allocator pools grown
        round_of_calls()
    before = rss_bytes()
    for _ in range(400):
        round_of_calls()
    growth = rss_bytes() - before
    # Each round allocates ~0.6 MB (results, the int32 copy and its conversion, 240 MB in all): a
    # leak of any of its arrays (10 KB or more each, 4 MB over the loop) shows.
    assert growth < 4 << 20, f"RSS grew by {growth / 2**20:.1f} MiB"
