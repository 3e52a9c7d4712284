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
import operator
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
    """A bulk call's status per board (Labels.status). GAME_OVER: a finished game (the mover
    has no legal move): its value is the final one, its depth 0, no best move (-1). Labels.ok
    is OK or GAME_OVER. TableSet.layer gives OK for every position the tables hold."""

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
#: Bytes of decoded blocks a table set keeps in all when opened without cache_bytes (256 MiB).
DEFAULT_CACHE_BUDGET: int = _sowdb._DEFAULT_CACHE_BUDGET


def open(path: Union[str, "os.PathLike[str]"], *, cache_bytes: Optional[int] = None,
         verify_checksums: bool = True) -> TableSet:
    """Opens a table directory written by `sowdb gen` (or sowdb.generate).

    cache_bytes: decoded blocks kept per layer (4 bytes per position keep a whole layer, read
    without locks). Default (None): DEFAULT_CACHE_BUDGET, 256 MiB of decoded blocks for the
    whole set, values first: every layer's values are kept whole when they fit together (1 byte
    a position: Oware 0..20, 226 M positions, takes 216 MiB), else every layer gets the same cap
    (the small layers whole); depths get what the values leave. Bulk labelling of random
    positions then runs at its full rate wherever the values fit. Raises OpenError,
    InvalidRequestError (a cache_bytes that is not a whole number 0 or more). Use as a context
    manager: ``with sowdb.open(dir) as tb: ...``.
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
    127 (the largest layer); raises BadArrayError for arguments out of range, and for a count
    whose arrays would not fit in the machine's memory (about 2P + 24 bytes a position)."""
    try:
        count, max_stones, min_stones = (operator.index(x) for x in (count, max_stones,
                                                                      min_stones))
    except TypeError:
        raise BadArrayError("count, max_stones and min_stones must be whole numbers") from None
    if count < 0 or min_stones < 0 or max_stones < min_stones:
        raise BadArrayError("want count >= 0 and 0 <= min_stones <= max_stones")
    if max_stones > _sowdb._MAX_INDEXED_STONES:
        raise BadArrayError(f"max_stones={max_stones}: a layer has 0.."
                            f"{_sowdb._MAX_INDEXED_STONES} seeds")
    # The boards, the layer of each (int64), and the rows and indices of one layer at a time.
    need = count * (self.board_pits + 24)
    memory = _physical_memory()
    if memory is not None and need > memory:
        raise BadArrayError(f"count={count:,}: {count:,} positions need about {_size(need)}, "
                            f"more than this machine's memory ({_size(memory)})")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    layers = np.arange(min_stones, max_stones + 1)
    sizes = np.array([self.layer_size(int(n)) for n in layers], dtype=np.float64)
    try:
        picks = rng.choice(layers, size=count, p=sizes / sizes.sum())
        out = np.empty((count, self.board_pits), dtype=np.uint8)
        for n, size in zip(layers, sizes):
            rows = np.flatnonzero(picks == n)
            if len(rows):
                indices = rng.integers(0, int(size), size=len(rows), dtype=np.uint64)
                out[rows] = self.positions(int(n), indices, threads)
    except MemoryError:
        raise BadArrayError(f"count={count:,}: not enough memory for {count:,} positions "
                            f"(about {_size(need)})") from None
    return out


def _physical_memory() -> Optional[int]:
    """The machine's memory in bytes, or None where the system does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n}"


Variant.random_positions = _random_positions  # type: ignore[attr-defined]

__all__ = [
    "BadArrayError",
    "BadPositionError",
    "BadVariantError",
    "ClosedError",
    "CorruptTableError",
    "DEFAULT_CACHE_BUDGET",
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
