"""Ctrl-C in the long calls that are not jobs: a bulk lookup and a probe's search stop at a real
SIGINT, sent by a timer thread once the call is running, and raise KeyboardInterrupt before
they would have returned; the table set goes on answering after."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import sowdb


def interrupted(call: Callable[[], object]) -> list:
    """Runs call() while a timer thread sends this process SIGINT; returns what the call
    returned (nothing when it was interrupted). Fails unless the SIGINT handler ran and
    KeyboardInterrupt came out of the call."""
    handled = threading.Event()

    def on_sigint(signum, frame):  # Python's own handler, plus a note that it ran
        handled.set()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    # The call holds no GIL while it works: the timer thread runs whatever the load, and the
    # main thread sees the signal at its next check.
    timer = threading.Timer(0.2, os.kill, args=(os.getpid(), signal.SIGINT))
    results: list = []
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            results.append(call())
    finally:
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert handled.is_set()
    return results


def test_ctrl_c_stops_a_long_bulk_lookup(table_dirs):
    # Without a block cache every lookup decodes blocks again: best moves of 2 M positions take
    # minutes, the interrupt comes after 0.2 s.
    with sowdb.open(table_dirs["oware/6x4"], cache_bytes=0) as tb:
        boards = tb.variant.random_positions(2_000_000, tb.max_stones, min_stones=tb.max_stones,
                                             seed=3)
        for call in (tb.best_moves, tb.values):
            assert interrupted(lambda: call(boards)) == []  # nothing came back
        few = tb.best_moves(boards[:100])
        assert len(few) == 100 and few.ok.all()


def test_ctrl_c_stops_a_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SOWDB_CACHE_DIR", str(tmp_path / "cache"))
    sowdb.generate("kalah/6x4", 4, str(tmp_path / "k"))
    with sowdb.open(tmp_path / "k") as tb:
        # Kalah(6,4)'s start above layers 0..4: a search of up to an hour.
        assert interrupted(lambda: tb.probe((4,) * 12, search=3600)) == []
        assert tb.value((1,) + (0,) * 11) == tb.probe((1,) + (0,) * 11).value


def test_a_bulk_lookup_in_many_slices_gives_the_answers_of_one(table_dirs):
    # The slices between the checks for Ctrl-C cover every row once: an uncached set's answers
    # (many small slices) equal the cached set's.
    with sowdb.open(table_dirs["oware/6x4"], cache_bytes=0) as cold, \
            sowdb.open(table_dirs["oware/6x4"]) as warm:
        boards = cold.variant.random_positions(60_000, cold.max_stones + 1, seed=8)
        a, b = cold.best_moves(boards, threads=2), warm.best_moves(boards, threads=2)
        for field in ("value", "status", "depth", "best"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
