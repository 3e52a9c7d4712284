"""Every refusal is a sowdb.Error: arguments out of any range (which pybind11 or numpy would
refuse with their own exceptions), seeds named as given, GAME_OVER where the game is over; and
the default block caches stay within their budget."""

from __future__ import annotations

import numpy as np
import pytest

import sowdb

BOARD = (1, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0)
HUGE = 10**20


@pytest.mark.parametrize("call, error, words", [
    (lambda tb: tb.probe(BOARD, stores=(HUGE, 3)), sowdb.BadPositionError, "stores"),
    (lambda tb: tb.get(BOARD, stores=(1, 2, 3)), sowdb.BadPositionError, "stores"),
    (lambda tb: tb.probe(BOARD, stores="ab"), sowdb.BadPositionError, "stores"),
    (lambda tb: tb.probe(BOARD, max_plies=10**12), sowdb.InvalidRequestError, "max_plies"),
    (lambda tb: tb.probe(BOARD, max_plies=-1), sowdb.InvalidRequestError, "max_plies"),
    (lambda tb: tb.probe(BOARD, max_plies=2.5), sowdb.InvalidRequestError, "max_plies"),
    (lambda tb: tb.probe(BOARD, search="long"), sowdb.InvalidRequestError, "search"),
    (lambda tb: tb.probe(BOARD, search=10**400), sowdb.InvalidRequestError, "search"),
    (lambda tb: tb.values([BOARD], threads=HUGE), sowdb.BadArrayError, "threads"),
    (lambda tb: next(tb.layer(HUGE)), sowdb.Error, "seeds"),
    (lambda tb: tb.variant.layer_size(HUGE), sowdb.BadPositionError, "0..127"),
    (lambda tb: tb.variant.positions(HUGE, [0]), sowdb.BadPositionError, "0..127"),
    (lambda tb: tb.variant.positions(5, [0], threads=-3), sowdb.BadArrayError, "threads"),
    (lambda tb: tb.variant.play(BOARD, HUGE), sowdb.IllegalMoveError, str(HUGE)),
    (lambda tb: tb.variant.play(BOARD, 0, stores=(HUGE, 0)), sowdb.BadPositionError, "stores"),
    (lambda tb: tb.variant.outcome(BOARD, HUGE), sowdb.BadPositionError, "value"),
    (lambda tb: sowdb.Variant("kalah", pits=HUGE), sowdb.BadVariantError, ""),
    (lambda tb: sowdb.Variant("kalah", seeds="four"), sowdb.BadVariantError, "seeds"),
    (lambda tb: sowdb.open(tb.directory, cache_bytes=-1), sowdb.InvalidRequestError,
     "cache_bytes"),
    (lambda tb: sowdb.generate("oware", HUGE, "/nonexistent/x"), sowdb.InvalidRequestError,
     "max_stones"),
    (lambda tb: sowdb.solve("kalah/3x2", hash_mib=HUGE), sowdb.InvalidRequestError, "hash_mib"),
    (lambda tb: sowdb.solve("kalah/3x2", time_limit="1s"), sowdb.InvalidRequestError,
     "time_limit"),
    (lambda tb: sowdb.solve("kalah/3x2", board=(1,) * 6, stores=(HUGE, 0)),
     sowdb.BadPositionError, "stores"),
])
def test_arguments_out_of_range_raise_sowdb_errors(oware, call, error, words):
    with pytest.raises(error) as e:
        call(oware)
    assert isinstance(e.value, sowdb.Error)
    assert words in str(e.value)
    assert "\n" not in str(e.value)  # one line, not pybind11's list of signatures


def test_random_positions_beyond_memory_raise_bad_array():
    v = sowdb.Variant("oware")
    with pytest.raises(sowdb.BadArrayError, match="memory") as e:
        v.random_positions(10**12, 16)
    assert "1,000,000,000,000 positions" in str(e.value)
    with pytest.raises(sowdb.BadArrayError, match="whole numbers"):
        v.random_positions(2.5, 16)


def test_seeds_beyond_int64_are_named_as_given(oware):
    boards = np.zeros((3, 12), dtype=np.uint64)
    boards[2, 5] = 2**63
    with pytest.raises(sowdb.BadPositionError, match="row 2, pit 5 holds 9223372036854775808 "):
        oware.values(boards)
    with pytest.raises(sowdb.BadPositionError, match="pit 5 holds 9223372036854775808 "):
        oware.value(boards[2])
    with pytest.raises(sowdb.BadPositionError, match=f"pit 0 holds {HUGE} "):
        oware.probe((HUGE,) + (0,) * 11)


def test_bulk_calls_say_game_over_where_the_game_is_over(oware):
    v = oware.variant
    over = [(0,) * 12, (0,) * 6 + (3, 0, 0, 0, 0, 1), (1,) + (0,) * 11]  # no legal move
    playing = [BOARD]
    assert all(v.is_game_over(b) for b in over) and not v.is_game_over(BOARD)
    labels = oware.best_moves(np.array(over + playing))
    assert list(labels.status) == [sowdb.Status.GAME_OVER] * 3 + [sowdb.Status.OK]
    assert list(labels.value[:3]) == [v.final_value(b) for b in over]
    assert list(labels.depth[:3]) == [0, 0, 0]
    assert list(labels.best) == [-1, -1, -1, oware.best_move(BOARD)]
    assert labels.ok.all()  # a finished game has its value
    for call in (oware.values, oware.depths):  # the same statuses, whatever was asked
        np.testing.assert_array_equal(call(np.array(over + playing)).status, labels.status)


def test_the_default_caches_keep_oware_0_to_20_values_whole_within_256_mib():
    v = sowdb.Variant("oware")
    budget = sowdb.DEFAULT_CACHE_BUDGET
    assert budget == 256 << 20
    sizes = [v.layer_size(n) for n in range(21)]
    value_bytes, depth_bytes, whole = sowdb._sowdb._plan_caches(sizes, budget)
    assert whole and value_bytes >= max(sizes)
    # Values 1 byte a position, depths 2 plus the value frame each holds: 3.
    assert sum(sizes) + sum(min(3 * s, 3 * depth_bytes // 2) for s in sizes) <= budget
    # Layers 0..24 do not fit: one cap, the small layers whole, nothing left for depths.
    sizes = [v.layer_size(n) for n in range(25)]
    value_bytes, depth_bytes, whole = sowdb._sowdb._plan_caches(sizes, budget)
    assert not whole and depth_bytes == 0
    assert sizes[17] < value_bytes < sizes[18]
    assert sum(min(s, value_bytes) for s in sizes) <= budget


def test_a_default_table_set_splits_its_budget_and_a_given_size_is_per_layer(table_dirs):
    with sowdb.open(table_dirs["oware/6x4"]) as tb:
        value_bytes, depth_bytes, whole = tb._cache
        assert whole and value_bytes == sowdb.DEFAULT_CACHE_BUDGET and depth_bytes > 0
    with sowdb.open(table_dirs["oware/6x4"], cache_bytes=1 << 20) as tb:
        assert tb._cache == (1 << 20, None, False)
