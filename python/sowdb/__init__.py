"""sowdb: exact mancala tablebases from Python.

    import sowdb
    with sowdb.open("tables/oware") as tb:
        r = tb.probe([0, 1, 2, 0, 0, 3, 1, 0, 0, 2, 0, 1])
        print(r.value, r.result, r.best, r.line)
        labels = tb.values(boards)          # boards: an (N, 12) integer numpy array
        print(labels.value[labels.ok])

The rules: sowdb.Variant("oware").play(board, pit). Tables: sowdb.generate("oware", 16, dir).
A start position: sowdb.solve("kalah/4x3").
"""

from __future__ import annotations

import enum
import os
from typing import Iterator, NamedTuple, Optional, Union

import numpy as np

from .errors import (
    BadArrayError,
    BadPositionError,
    BadVariantError,
    ClosedError,
    CorruptTableError,
    Error,
    IllegalMoveError,
    InvalidRequestError,
    MissingTableError,
    OpenError,
    WrongObjectiveError,
)
from ._sowdb import (
    Labels,
    LineStep,
    MoveInfo,
    MoveResult,
    Outcome,
    ProbeResult,
    Progress,
    TableSet,
    Variant,
    __version__,
    generate,
    solve,
)
from . import _sowdb


class Status(enum.IntEnum):
    """A bulk call's status per board (Labels.status)."""

    OK = 0
    BAD_POSITION = 1
    TOO_MANY_STONES = 2
    MISSING_TABLE = 3
    CORRUPT_TABLE = 4
    GAME_OVER = 5
    WRONG_OBJECTIVE = 6


#: Labels.value where the status is not OK.
UNKNOWN_VALUE = -128
#: Labels.depth where the status is not OK.
UNKNOWN_DEPTH = 0xFFFF


def open(path: Union[str, "os.PathLike[str]"], *, cache_bytes: Optional[int] = None,
         verify_checksums: bool = True) -> TableSet:
    """Opens a table directory written by `sowdb gen` (or sowdb.generate).

    cache_bytes: decoded blocks kept per layer (default 64 MiB; 3 bytes per position keep a
    whole layer, read without locks). Raises OpenError. Use as a context manager:
    ``with sowdb.open(dir) as tb: ...``.
    """
    return TableSet(str(path), cache_bytes, verify_checksums)


class LayerChunk(NamedTuple):
    """Part of a layer (TableSet.layer): positions first..first+len-1 in the tables' order."""

    first: int
    boards: np.ndarray
    values: np.ndarray
    depths: Optional[np.ndarray]
    status: np.ndarray


def _layer(self: TableSet, stones: int, *, chunk_size: int = 1 << 20, depths: bool = False,
           threads: int = 0) -> Iterator[LayerChunk]:
    """Every position of layer `stones` with its value (and depth), in chunks of at most
    chunk_size positions: a layer as a data set, for layers that do not fit in memory."""
    if chunk_size < 1:
        raise BadArrayError("chunk_size must be 1 or more")
    size = self.variant.layer_size(stones)
    first = 0
    while first < size:
        boards, values, layer_depths, status = self._layer_chunk(stones, first, chunk_size,
                                                                 depths, threads)
        yield LayerChunk(first, boards, values, layer_depths, status)
        first += len(values)


TableSet.layer = _layer  # type: ignore[attr-defined]


def _random_positions(self: Variant, count: int, max_stones: int, *, min_stones: int = 0,
                      seed: Union[int, np.random.Generator, None] = None,
                      threads: int = 0) -> np.ndarray:
    """`count` positions drawn uniformly from every position of min_stones..max_stones seeds
    (so mostly from the largest layers), as a (count, 2P) uint8 array. max_stones is at most
    127 (the largest layer); raises BadArrayError for arguments out of range."""
    if count < 0 or min_stones < 0 or max_stones < min_stones:
        raise BadArrayError("want count >= 0 and 0 <= min_stones <= max_stones")
    if max_stones > _sowdb._MAX_INDEXED_STONES:
        raise BadArrayError(f"max_stones={max_stones}: a layer has 0.."
                            f"{_sowdb._MAX_INDEXED_STONES} seeds")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    layers = np.arange(min_stones, max_stones + 1)
    sizes = np.array([self.layer_size(int(n)) for n in layers], dtype=np.float64)
    picks = rng.choice(layers, size=count, p=sizes / sizes.sum())
    out = np.empty((count, self.board_pits), dtype=np.uint8)
    for n, size in zip(layers, sizes):
        rows = np.flatnonzero(picks == n)
        if len(rows):
            indices = rng.integers(0, int(size), size=len(rows), dtype=np.uint64)
            out[rows] = self.positions(int(n), indices, threads)
    return out


Variant.random_positions = _random_positions  # type: ignore[attr-defined]

__all__ = [
    "BadArrayError",
    "BadPositionError",
    "BadVariantError",
    "ClosedError",
    "CorruptTableError",
    "Error",
    "IllegalMoveError",
    "InvalidRequestError",
    "Labels",
    "LayerChunk",
    "LineStep",
    "MissingTableError",
    "MoveInfo",
    "MoveResult",
    "OpenError",
    "Outcome",
    "ProbeResult",
    "Progress",
    "Status",
    "TableSet",
    "UNKNOWN_DEPTH",
    "UNKNOWN_VALUE",
    "Variant",
    "WrongObjectiveError",
    "generate",
    "open",
    "solve",
]
