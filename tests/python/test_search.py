"""TableSet.probe(search=SECONDS): a position above the tables is searched, and the answer
(value, every move's worth, the result) equals complete tables'; bounds from a budget too small
hold the true value; without search= the refusal stays."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import sowdb


@pytest.fixture(scope="module")
def kalah_pair(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("search")
    sowdb.generate("kalah/3x3", 6, str(root / "part"))
    sowdb.generate("kalah/3x3", 18, str(root / "full"))
    with sowdb.open(root / "part") as part, sowdb.open(root / "full") as full:
        yield part, full


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The proof store lives in the cache: each test's own.
    monkeypatch.setenv("SOWDB_CACHE_DIR", str(tmp_path / "cache"))


def boards(seeds: int, count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        b = [0] * 6
        for _ in range(seeds):
            b[rng.randrange(6)] += 1
        yield tuple(b)


def test_search_answers_as_complete_tables(kalah_pair) -> None:
    part, full = kalah_pair
    for seeds in (8, 11, 14):
        for board in boards(seeds, 5, seeds):
            got = part.probe(board, stores=(1, 2), search=30)
            want = full.probe(board, stores=(1, 2))
            assert got.method == "search" and want.method == "table"
            assert got.value == got.lower == got.upper == want.value
            assert got.depth is None and got.search["complete"]
            assert got.result == want.result and got.final == want.final
            worths = {m.pit: m.worth for m in want.moves}
            assert {m.pit: m.worth for m in got.moves} == worths
            assert all(m.depth is None for m in got.moves)
            if not got.game_over:
                assert worths[got.best] == want.value
                assert got.line[0] == got.best


def test_without_search_the_refusal_stays(kalah_pair) -> None:
    part, _ = kalah_pair
    board = (2, 2, 2, 2, 2, 2)
    with pytest.raises(sowdb.MissingTableError):
        part.probe(board)
    assert part.get(board) is None
    assert part.get(board, search=30).method == "search"
    for bad in (0, -1, float("nan"), 1e300):
        with pytest.raises(sowdb.Error):
            part.probe(board, search=bad)


def test_bounds_under_a_tiny_budget_hold_the_value(tmp_path: Path) -> None:
    sowdb.generate("kalah/6x4", 4, str(tmp_path / "k"))
    with sowdb.open(tmp_path / "k") as tb:
        r = tb.probe((4,) * 12, search=0.05)
    assert r.method == "search" and r.value is None
    assert -48 <= r.lower < r.upper <= 48
    assert r.search["stopped_by"] == "time_limit" and not r.search["complete"]
    assert r.final is None
    assert all(m.lower <= m.upper for m in r.moves)


def test_proved_once_comes_from_the_proof_store(kalah_pair) -> None:
    part, _ = kalah_pair
    board = (3, 1, 2, 2, 0, 4)
    first = part.probe(board, search=30)
    again = part.probe(board, search=30)
    assert not first.search["stored"] and again.search["stored"]
    assert again.value == first.value
    assert [m.worth for m in again.moves] == [m.worth for m in first.moves]


def test_solve_takes_any_position(kalah_pair, tmp_path: Path) -> None:
    part, full = kalah_pair
    board = (3, 0, 4, 1, 2, 2)
    got = sowdb.solve("kalah/3x3", tables=str(part.directory), board=board, stores=(2, 1),
                      threads=1)
    want = full.probe(board, stores=(2, 1))
    assert got["position"] == list(board) and got["stores"] == [2, 1]
    assert got["value"] == want.value and got["result"] == want.result
    assert got["final"] == list(want.final)
    assert {m["pit"]: m["worth"] for m in got["moves"]} == {m.pit: m.worth for m in want.moves}
    with pytest.raises(sowdb.InvalidRequestError):
        sowdb.solve("kalah/3x3", tables=str(part.directory), stores=(1, 1))
