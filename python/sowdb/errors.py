"""The exceptions of sowdb: catch them by kind, or all of them as sowdb.Error."""


class Error(Exception):
    """Base of every exception sowdb raises (a failure on the way, e.g. a full disk, raises
    Error itself)."""


class MissingTableError(Error, KeyError):
    """The tables cannot answer: the position holds more seeds than the tables, or a layer file
    it needs is missing. Also a KeyError, as in python-chess. TableSet.get returns None
    instead."""

    def __str__(self) -> str:
        # KeyError quotes its argument; this message is prose.
        return str(self.args[0]) if self.args else ""


class CorruptTableError(Error):
    """A layer file failed a check (a checksum, a block that does not decode)."""


class BadPositionError(Error, ValueError):
    """Not a position of this variant: wrong length, a pit outside 0..255, more than 255 seeds,
    or stores the game cannot hold."""


class BadArrayError(Error, ValueError, TypeError):
    """A bulk call's array has the wrong type, shape, dtype or memory layout."""


class BadVariantError(Error, ValueError):
    """The variant text or its options do not name a rule system."""


class IllegalMoveError(Error, ValueError):
    """Variant.play of a pit that is not a legal move."""


class WrongObjectiveError(Error):
    """A value probe on co-operative tables (`sowdb gen --objective cooperative`)."""


class OpenError(Error, OSError):
    """sowdb.open refused the directory: missing, no tables, a damaged or missing manifest,
    mixed tables."""


class ClosedError(Error, ValueError):
    """A call on a TableSet after close()."""


class InvalidRequestError(Error, ValueError):
    """generate or solve refused the request before any work."""


__all__ = [
    "Error",
    "MissingTableError",
    "CorruptTableError",
    "BadPositionError",
    "BadArrayError",
    "BadVariantError",
    "IllegalMoveError",
    "WrongObjectiveError",
    "OpenError",
    "ClosedError",
    "InvalidRequestError",
]
