// What every part of the extension shares: its exceptions (the classes of sowdb.errors), and
// boards from Python objects and numpy arrays.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sowdb/analysis/refusal.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/tables.h"

namespace sowdb::python {

namespace py = pybind11;

/// The Python exception a PyError becomes: the class of the same name in sowdb.errors.
enum class ErrorKind {
  kError,           ///< Error
  kMissingTable,    ///< MissingTableError (also a KeyError)
  kCorruptTable,    ///< CorruptTableError
  kBadPosition,     ///< BadPositionError (also a ValueError)
  kBadArray,        ///< BadArrayError (also a ValueError and a TypeError)
  kBadVariant,      ///< BadVariantError (also a ValueError)
  kIllegalMove,     ///< IllegalMoveError (also a ValueError)
  kWrongObjective,  ///< WrongObjectiveError
  kOpen,            ///< OpenError (also an OSError)
  kClosed,          ///< ClosedError (also a ValueError)
  kInvalidRequest,  ///< InvalidRequestError (also a ValueError)
};

/// Thrown by the extension's C++ code and translated into the sowdb.errors class of `kind`.
struct PyError : std::runtime_error {
  PyError(ErrorKind k, const std::string& message) : std::runtime_error(message), kind(k) {}
  ErrorKind kind;
};

/// Installs the translator of PyError (and of the library's exceptions) into Python errors.
void register_errors();

/// The exception class of a refusal of `kind`: the extension's one mapping of refusals
/// (sowdb/analysis/refusal.h), used by the translator that register_errors installs.
ErrorKind error_kind(RefusalKind kind);

/// The whole number `obj` (an int or a numpy integer; not a bool, not a float) within lo..hi,
/// for an argument called `name`. ERRORS throws PyError(kind) naming the argument, the range and
/// what was given, for anything else (pybind11's own conversion would raise a TypeError outside
/// the sowdb.Error classes).
long long whole_arg(py::handle obj, const char* name, long long lo, long long hi, ErrorKind kind);

/// The whole number `obj` clamped to lo..hi (for a caller whose own check names what was given).
/// ERRORS throws PyError(kind) for anything but a whole number, as whole_arg.
long long clamped_whole(
    py::handle obj, const char* name, long long lo, long long hi, ErrorKind kind);

/// The number `obj` (an int or a float; not a bool) within lo..hi, as `whole_arg`.
double number_arg(py::handle obj, const char* name, double lo, double hi, ErrorKind kind);

/// A thread count (0: all cores). ERRORS throws PyError(kind) as whole_arg.
int threads_arg(py::handle obj, ErrorKind kind = ErrorKind::kInvalidRequest);

/// Stores (mover, opponent): a sequence of two whole numbers within the range of an int; whether
/// a game can hold them is the caller's check. ERRORS throws PyError(kBadPosition) otherwise.
std::pair<int, int> stores_arg(py::handle obj);

/// The board `board` (a sequence of 2P whole numbers: list, tuple, 1-D numpy array) for
/// `rules`. ERRORS throws PyError(kBadPosition) for a wrong length, a pit outside 0..255, more
/// than 255 seeds in all, or an item that is not a whole number.
Pits board_from(py::handle board, const Rules& rules);

/// The board's 2P pit counts as a tuple of ints.
py::tuple board_tuple(const Pits& board, int pits);

/// Boards given as an (N, pits) numpy array, as rows of bytes for probe_bulk.
struct Rows {
  const std::uint8_t* data = nullptr;  ///< rows * pits bytes.
  std::size_t rows = 0;
  std::vector<std::uint8_t> owned;  ///< The converted copy, when the input was not uint8.
  py::object keep;                  ///< The input array, kept alive while `data` points into it.
};

/// Checks and converts `boards` (an integer numpy array of shape (N, pits), C-contiguous, any
/// integer dtype of native byte order; a list of lists is taken as numpy.asarray takes it).
/// Releases the GIL while it scans. ERRORS throws PyError(kBadArray) for a wrong type, shape,
/// dtype or layout, PyError(kBadPosition) for a pit outside 0..255 or a row of more than 255
/// seeds (naming the first such row).
Rows rows_from(py::handle boards, int pits);

}  // namespace sowdb::python
