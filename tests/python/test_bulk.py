"""The bulk calls: values/depths/best_moves against the single calls, at several thread counts,
with positions the tables cannot answer mixed in; every bad input; a layer in chunks."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import sowdb


def mixed_boards(tb, count: int, seed: int) -> np.ndarray:
    """Random boards of layers 0..max_stones + 3: some hold more seeds than the tables."""
    return tb.variant.random_positions(count, tb.max_stones + 3, seed=seed)


def test_bulk_calls_agree_with_single_calls(tables):
    boards = mixed_boards(tables, 3000, seed=11)
    labels = tables.best_moves(boards, threads=2)
    assert len(labels) == len(boards)
    assert labels.value.dtype == np.int8 and labels.status.dtype == np.uint8
    assert labels.depth.dtype == np.uint16 and labels.best.dtype == np.int8
    too_many = 0
    for i, board in enumerate(boards):
        r = tables.get(board)
        if r is None:
            too_many += 1
            assert labels.status[i] == sowdb.Status.TOO_MANY_STONES
            assert not labels.ok[i]
            assert labels.value[i] == sowdb.UNKNOWN_VALUE
            assert labels.depth[i] == sowdb.UNKNOWN_DEPTH
            assert labels.best[i] == -1
            continue
        assert labels.ok[i]
        assert (labels.value[i], labels.depth[i]) == (r.value, r.depth)
        assert labels.best[i] == (-1 if r.best is None else r.best)
    assert 0 < too_many < len(boards)
    values = tables.values(boards)
    assert values.depth is None and values.best is None
    np.testing.assert_array_equal(values.value, labels.value)
    np.testing.assert_array_equal(values.status, labels.status)
    depths = tables.depths(boards)
    assert depths.best is None
    np.testing.assert_array_equal(depths.depth, labels.depth)


@pytest.mark.parametrize("threads", [0, 1, 2, 3, 8])
def test_thread_counts_give_the_same_answers(oware, threads):
    boards = mixed_boards(oware, 50000, seed=5)
    reference = oware.depths(boards, threads=1)
    labels = oware.depths(boards, threads=threads)
    np.testing.assert_array_equal(labels.value, reference.value)
    np.testing.assert_array_equal(labels.depth, reference.depth)
    np.testing.assert_array_equal(labels.status, reference.status)


def test_python_threads_share_a_table_set(oware):
    boards = mixed_boards(oware, 20000, seed=9)
    reference = oware.values(boards, threads=1).value
    results = [None] * 4

    def work(k: int) -> None:
        results[k] = oware.values(boards, threads=2).value

    workers = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for r in results:
        np.testing.assert_array_equal(r, reference)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64])
def test_every_integer_dtype(oware, dtype):
    boards = mixed_boards(oware, 500, seed=2)
    reference = oware.values(boards)
    labels = oware.values(boards.astype(dtype))
    np.testing.assert_array_equal(labels.value, reference.value)
    np.testing.assert_array_equal(labels.status, reference.status)


def test_lists_and_empty_arrays(oware):
    boards = mixed_boards(oware, 5, seed=4)
    np.testing.assert_array_equal(oware.values(boards.tolist()).value, oware.values(boards).value)
    empty = oware.values(np.zeros((0, 12), dtype=np.uint8))
    assert len(empty) == 0 and empty.value.shape == (0,)


@pytest.mark.parametrize("make, words", [
    (lambda b: b[0], "shape (N, 12)"),                          # one board, 1-D
    (lambda b: b[:, :6], "shape (N, 12)"),                      # wrong width
    (lambda b: b.reshape(2, 5, 12), "shape (N, 12)"),           # 3-D
    (lambda b: b.astype(np.float64), "integer array"),          # float
    (lambda b: b.astype(bool), "integer array"),                # bool
    (lambda b: b.astype(object), "integer array"),              # object
    (lambda b: np.asfortranarray(b), "C-contiguous"),           # column-major
    (lambda b: np.hstack([b, b])[:, ::2], "C-contiguous"),      # strided view
    (lambda b: b.astype(">i4"), "byte order"),                  # big-endian
    (lambda b: "boards", "numpy array"),                        # not an array
    (lambda b: 7, "numpy array"),
])
def test_bad_arrays_raise_bad_array(oware, make, words):
    boards = mixed_boards(oware, 10, seed=1)
    bad = make(boards)
    for call in (oware.values, oware.depths, oware.best_moves):
        with pytest.raises(sowdb.BadArrayError) as e:
            call(bad)
        assert isinstance(e.value, ValueError) and isinstance(e.value, sowdb.Error)
        assert words in str(e.value)


def test_a_ragged_list_raises_bad_array_naming_the_row(oware):
    for call in (oware.values, oware.depths, oware.best_moves):
        with pytest.raises(sowdb.BadArrayError, match=r"shape \(N, 12\).*row 1 has 11 pits"):
            call([[1] * 12, [1] * 11])
        with pytest.raises(sowdb.BadArrayError, match=r"row 0 has 13 pits"):
            call(([1] * 13, [1] * 12))


def test_bad_seeds_raise_bad_position_naming_the_row(oware):
    boards = mixed_boards(oware, 10, seed=1).astype(np.int64)
    negative = boards.copy()
    negative[7, 3] = -2
    with pytest.raises(sowdb.BadPositionError, match="row 7, pit 3 holds -2"):
        oware.values(negative)
    big = boards.copy()
    big[4, 0] = 300
    with pytest.raises(sowdb.BadPositionError, match="row 4, pit 0 holds 300"):
        oware.depths(big)
    too_many = boards.astype(np.uint8)
    too_many[6, :2] = 200  # 400 seeds in a row
    with pytest.raises(sowdb.BadPositionError, match="row 6 holds"):
        oware.best_moves(too_many)
    with pytest.raises(sowdb.BadArrayError, match="threads"):
        oware.values(boards, threads=-1)


def test_a_layer_in_chunks(oware):
    n = 6
    size = oware.variant.layer_size(n)
    chunks = list(oware.layer(n, chunk_size=1000, depths=True))
    assert [c.first for c in chunks] == list(range(0, size, 1000))
    boards = np.concatenate([c.boards for c in chunks])
    assert boards.shape == (size, 12)
    assert (boards.sum(axis=1) == n).all()
    assert [oware.variant.index(b) for b in boards[:50]] == list(range(50))
    assert oware.variant.index(boards[-1]) == size - 1
    values = np.concatenate([c.values for c in chunks])
    depths = np.concatenate([c.depths for c in chunks])
    assert all((c.status == 0).all() for c in chunks)
    reference = oware.depths(boards)
    np.testing.assert_array_equal(values, reference.value)
    np.testing.assert_array_equal(depths, reference.depth)
    assert next(oware.layer(n)).depths is None
    with pytest.raises(sowdb.MissingTableError):
        next(oware.layer(oware.max_stones + 1))


def test_positions_and_index_round_trip():
    v = sowdb.Variant("kalah/4x3")
    indices = np.array([0, 5, 17, v.layer_size(7) - 1])
    boards = v.positions(7, indices)
    assert boards.shape == (4, 8) and boards.dtype == np.uint8
    assert [v.index(b) for b in boards] == list(indices)
    with pytest.raises(sowdb.BadArrayError, match="not below"):
        v.positions(7, [v.layer_size(7)])
    with pytest.raises(sowdb.BadArrayError):
        v.positions(7, [-1])
    with pytest.raises(sowdb.BadArrayError):
        v.positions(7, [0.5])
    with pytest.raises(sowdb.BadPositionError):
        v.positions(200, [0])


def test_random_positions_cover_the_layers():
    v = sowdb.Variant("oware")
    boards = v.random_positions(20000, 8, min_stones=2, seed=1)
    stones = boards.sum(axis=1)
    assert stones.min() >= 2 and stones.max() == 8
    # Uniform over the positions: each layer in proportion to its size.
    share = (stones == 8).mean()
    expected = v.layer_size(8) / sum(v.layer_size(n) for n in range(2, 9))
    assert abs(share - expected) < 0.02
    np.testing.assert_array_equal(v.random_positions(10, 8, seed=3), v.random_positions(10, 8, seed=3))


def test_random_positions_names_the_max_stones_given():
    v = sowdb.Variant("oware")
    with pytest.raises(sowdb.BadArrayError, match="max_stones=300") as e:
        v.random_positions(3, 300)
    assert "128" not in str(e.value)
    with pytest.raises(sowdb.BadArrayError, match="0..127"):
        v.random_positions(3, 128)


def test_status_codes_mirror_the_library():
    names = {"OK": "Ok", "BAD_POSITION": "BadPosition", "TOO_MANY_STONES": "TooManyStones",
             "MISSING_TABLE": "MissingTable", "CORRUPT_TABLE": "CorruptTable",
             "GAME_OVER": "GameOver", "WRONG_OBJECTIVE": "WrongObjective"}
    for status in sowdb.Status:
        assert sowdb._sowdb.status_name(int(status)) == names[status.name]


def test_version_is_the_programs(sowdb_bin):
    import subprocess
    out = subprocess.run([sowdb_bin, "--version"], capture_output=True, text=True).stdout
    assert sowdb.__version__ in out
