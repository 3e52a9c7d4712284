"""One position at a time: TableSet.probe/get/value/depth/best_move against `sowdb probe --json`
and the errors of the single calls."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import sowdb


def cli_reports(sowdb_bin: str, directory: str, boards: np.ndarray) -> list:
    text = "\n".join(" ".join(str(int(p)) for p in b) for b in boards) + "\n"
    out = subprocess.run([sowdb_bin, "probe", "--tables", directory, "--json", "-"],
                         input=text, capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_probe_agrees_with_the_cli_on_random_positions(tables, sowdb_bin):
    boards = tables.variant.random_positions(150, tables.max_stones, seed=7)
    for board, cli in zip(boards, cli_reports(sowdb_bin, tables.directory, boards)):
        r = tables.probe(board)
        assert list(r.board) == cli["pits"]
        assert r.variant == cli["variant"]
        assert r.stones == cli["stones"]
        assert list(r.stores) == cli["stores"]
        assert r.value == cli["value"]
        assert r.depth == cli["depth"]
        assert r.result == cli["result"]
        assert list(r.final) == cli["final"]
        assert r.decided == cli["decided"]
        assert r.game_over == cli["game_over"]
        assert r.best == cli["best"]
        assert [m.pit for m in r.moves] == cli["moves_best_first"]
        assert r.line == cli["line"]
        assert r.line_end == cli["line_end"]
        by_pit = {m["pit"]: m for m in cli["moves"]}
        for m in r.moves:
            c = by_pit[m.pit]
            assert (m.worth, m.depth, m.gain, m.stored, m.captured, m.extra_turn, m.category,
                    list(m.after)) == (c["worth"], c["depth"], c["gain"], c["stored"],
                                       c["captured"], c["extra_turn"], c["category"], c["after"])
        assert [(s.mover, s.pit, s.gain, s.extra_turn, list(s.before)) for s in r.line_steps] == [
            (s["mover"], s["pit"], s["gain"], s["extra_turn"], s["before"])
            for s in cli["line_steps"]]
        # The single calls say the same.
        assert tables.value(board) == r.value
        assert tables.depth(board) == r.depth
        assert tables.best_move(board) == r.best
        assert tables.get(board).value == r.value


def test_stores_change_the_result_and_agree_with_the_cli(oware, sowdb_bin):
    board = (0, 1, 2, 0, 0, 3, 1, 0, 0, 2, 0, 0)
    for stores in ((20, 17), (10, 25), (25, 10)):
        r = oware.probe(board, stores=stores)
        out = subprocess.run([sowdb_bin, "probe", "--tables", oware.directory, "--stores",
                              "%d,%d" % stores, "--json"] + [str(p) for p in board],
                             capture_output=True, text=True, check=True).stdout
        cli = json.loads(out)
        assert (r.result, list(r.final), r.decided) == (cli["result"], cli["final"],
                                                        cli["decided"])
        assert r.stores == stores
        # More than 24 of the 48 seeds in a store decide the game (the majority rule).
        assert r.decided == (max(stores) > 24)


def test_max_plies_cuts_the_line(oware):
    board = oware.variant.random_positions(1, 9, min_stones=9, seed=3)[0]
    full = oware.probe(board)
    if len(full.line) < 2:
        pytest.skip("line too short")
    cut = oware.probe(board, max_plies=1)
    assert cut.line == full.line[:1]
    assert cut.line_end == "max_plies"


def test_too_many_seeds_is_a_missing_table(oware):
    board = (5, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)  # 10 seeds; the tables hold 0..9
    with pytest.raises(sowdb.MissingTableError) as e:
        oware.probe(board)
    assert isinstance(e.value, KeyError) and isinstance(e.value, sowdb.Error)
    assert "10 seeds" in str(e.value)
    assert oware.get(board) is None
    with pytest.raises(KeyError):
        oware.value(board)
    with pytest.raises(sowdb.MissingTableError):
        oware.depth(board)
    with pytest.raises(sowdb.MissingTableError):
        oware.best_move(board)


@pytest.mark.parametrize("board, words", [
    ((1, 2, 3), "12 pits"),
    ((1,) * 13, "12 pits"),
    ((-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), "holds -1"),
    ((256, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), "holds 256"),
    ((200, 56, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), "at most 255"),
    ((1.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), "not a whole number"),
    ((True, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), "not a whole number"),
    ("abcdefghijkl", "not a whole number"),
    (12, "sequence"),
])
def test_bad_boards_raise_bad_position(oware, board, words):
    for call in (oware.probe, oware.get, oware.value, oware.depth, oware.best_move):
        with pytest.raises(sowdb.BadPositionError) as e:
            call(board)
        assert isinstance(e.value, ValueError)
        assert words in str(e.value)


def test_impossible_stores_raise_bad_position(oware):
    board = (1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    with pytest.raises(sowdb.BadPositionError, match="48"):
        oware.probe(board, stores=(40, 40))
    with pytest.raises(sowdb.BadPositionError):
        oware.probe(board, stores=(-1, 0))


def test_numpy_boards_and_numpy_integers(oware):
    board = np.array([1, 0, 2, 0, 1, 0, 0, 1, 0, 1, 1, 0], dtype=np.int64)
    assert oware.value(board) == oware.value(tuple(int(x) for x in board))
    assert oware.value(list(board)) == oware.value(board)  # numpy scalars as items


def test_open_errors(tmp_path, table_dirs):
    with pytest.raises(sowdb.OpenError) as e:
        sowdb.open(tmp_path / "missing")
    assert isinstance(e.value, OSError) and "missing" in str(e.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(sowdb.OpenError):
        sowdb.open(tmp_path / "empty")


def test_corrupt_layer_raises_corrupt_table(tmp_path, table_dirs):
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(table_dirs["kalah/4x3"], copy)
    layer = copy / "layer-012.sdb"
    data = bytearray(layer.read_bytes())
    middle = len(data) // 2
    for i in range(middle, middle + 64):
        data[i] ^= 0xFF
    layer.write_bytes(bytes(data))
    with sowdb.open(copy) as tb:
        board = tb.variant.random_positions(1, 12, min_stones=12, seed=1)[0]
        with pytest.raises(sowdb.CorruptTableError) as e:
            tb.probe(board)
        assert "layer-012.sdb" in str(e.value)
        with pytest.raises(sowdb.CorruptTableError):
            tb.get(board)  # get returns None for missing tables only
        labels = tb.values(board.reshape(1, -1))
        assert labels.status[0] == sowdb.Status.CORRUPT_TABLE
        assert labels.value[0] == sowdb.UNKNOWN_VALUE


def test_closed_table_set_raises_closed(table_dirs):
    tb = sowdb.open(table_dirs["oware/6x4"])
    board = (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)
    tb.value(board)
    assert not tb.closed
    tb.close()
    assert tb.closed
    assert "closed" in repr(tb)
    boards = np.zeros((3, 12), dtype=np.uint8)
    for call in (lambda: tb.probe(board), lambda: tb.get(board), lambda: tb.value(board),
                 lambda: tb.best_move(board), lambda: tb.values(boards),
                 lambda: tb.depths(boards), lambda: tb.best_moves(boards),
                 lambda: next(tb.layer(3))):
        with pytest.raises(sowdb.ClosedError, match="closed"):
            call()
    tb.close()  # twice is fine
    assert tb.variant.name == "oware/6x4" and tb.max_stones == 9  # what open read stays


def test_context_manager_closes(table_dirs):
    with sowdb.open(table_dirs["oware/6x4"]) as tb:
        assert tb.value((0,) * 12) == 0
    assert tb.closed


def test_cooperative_tables_raise_wrong_objective(tmp_path, sowdb_bin):
    subprocess.run([sowdb_bin, "gen", "--variant", "wari-kc/3x2", "--max-stones", "6",
                    "--objective", "cooperative", "--out", str(tmp_path / "coop")],
                   check=True, capture_output=True)
    with sowdb.open(tmp_path / "coop") as tb:
        board = (1, 0, 1, 0, 1, 0)
        with pytest.raises(sowdb.WrongObjectiveError):
            tb.probe(board)
        with pytest.raises(sowdb.WrongObjectiveError):
            tb.value(board)
        labels = tb.values(np.array([board]))
        assert labels.status[0] == sowdb.Status.WRONG_OBJECTIVE
