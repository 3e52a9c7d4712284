import enum
import os
from typing import NamedTuple, Optional, Union

import numpy as np
import numpy.typing as npt

from ._sowdb import (
    Labels as Labels,
    LineStep as LineStep,
    MoveInfo as MoveInfo,
    MoveResult as MoveResult,
    Outcome as Outcome,
    ProbeResult as ProbeResult,
    Progress as Progress,
    TableSet as TableSet,
    Variant as Variant,
    __version__ as __version__,
    generate as generate,
    solve as solve,
)
from .errors import (
    BadArrayError as BadArrayError,
    BadPositionError as BadPositionError,
    BadVariantError as BadVariantError,
    ClosedError as ClosedError,
    CorruptTableError as CorruptTableError,
    Error as Error,
    IllegalMoveError as IllegalMoveError,
    InvalidRequestError as InvalidRequestError,
    MissingTableError as MissingTableError,
    OpenError as OpenError,
    WrongObjectiveError as WrongObjectiveError,
)

class Status(enum.IntEnum):
    OK = 0
    BAD_POSITION = 1
    TOO_MANY_STONES = 2
    MISSING_TABLE = 3
    CORRUPT_TABLE = 4
    GAME_OVER = 5
    WRONG_OBJECTIVE = 6

UNKNOWN_VALUE: int
UNKNOWN_DEPTH: int
DEFAULT_CACHE_BUDGET: int

class LayerChunk(NamedTuple):
    first: int
    boards: npt.NDArray[np.uint8]
    values: npt.NDArray[np.int8]
    depths: Optional[npt.NDArray[np.uint16]]
    status: npt.NDArray[np.uint8]

def open(path: Union[str, os.PathLike[str]], *, cache_bytes: Optional[int] = None,
         verify_checksums: bool = True) -> TableSet: ...
