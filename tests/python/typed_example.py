"""A typed use of the module, checked by mypy --strict against the stubs (ctest python_types):
a wrong stub (a missing name, a wrong return type) fails the check."""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np
import numpy.typing as npt

import sowdb


def best_line(tables_dir: str, board: Tuple[int, ...]) -> List[int]:
    with sowdb.open(tables_dir, cache_bytes=1 << 20) as tb:
        r: sowdb.ProbeResult = tb.probe(board, stores=(0, 0), max_plies=50)
        moves: List[sowdb.MoveInfo] = r.moves
        worths = [m.worth for m in moves]
        best: Optional[int] = r.best
        maybe: Optional[sowdb.ProbeResult] = tb.get(board)
        assert maybe is None or maybe.value == r.value
        assert best is None or worths[0] == r.value
        return r.line


def label(tables_dir: str, boards: npt.NDArray[np.uint8]) -> Tuple[npt.NDArray[np.int8], int]:
    tb = sowdb.open(tables_dir)
    labels: sowdb.Labels = tb.best_moves(boards, threads=2)
    unknown = int((labels.status != sowdb.Status.OK).sum())
    depth = labels.depth
    assert depth is not None
    for chunk in tb.layer(3, chunk_size=100):
        first: int = chunk.first
        values: npt.NDArray[np.int8] = chunk.values
        assert first >= 0 and len(values) > 0
    tb.close()
    return labels.value, unknown


def game(variant: sowdb.Variant) -> sowdb.Outcome:
    board = variant.start()
    stores = (0, 0)
    while not variant.is_game_over(board):
        move: sowdb.MoveResult = variant.play(board, variant.legal_moves(board)[0], stores)
        board, stores = move.board, move.stores
    return variant.outcome(board, stores=stores)


def jobs(out: str) -> int:
    def show(p: sowdb.Progress) -> None:
        print(p.kind, p.stones, p.phase, p.done / max(p.total, 1.0))

    summary = sowdb.generate(sowdb.Variant("kalah", pits=3, seeds=2), 6, out, progress=show)
    solved = sowdb.solve("kalah/3x2", tables=out, time_limit=1.0)
    positions: int = summary["positions"]
    return positions + int(solved["value"] or 0)


def errors() -> str:
    try:
        sowdb.open("/nonexistent")
    except sowdb.OpenError as e:
        return str(e)
    except sowdb.Error:
        raise
    return ""


if __name__ == "__main__":
    print(game(sowdb.Variant("kalah/4x3")).result)
    print(sowdb.Variant("oware").random_positions(3, 8, seed=1).shape)
