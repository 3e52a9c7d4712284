#include "convert.h"

#include <algorithm>
#include <limits>
#include <string>

#include "sowdb/probe/variant.h"

namespace sowdb::python {
namespace {

const char* class_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kError:
      return "Error";
    case ErrorKind::kMissingTable:
      return "MissingTableError";
    case ErrorKind::kCorruptTable:
      return "CorruptTableError";
    case ErrorKind::kBadPosition:
      return "BadPositionError";
    case ErrorKind::kBadArray:
      return "BadArrayError";
    case ErrorKind::kBadVariant:
      return "BadVariantError";
    case ErrorKind::kIllegalMove:
      return "IllegalMoveError";
    case ErrorKind::kWrongObjective:
      return "WrongObjectiveError";
    case ErrorKind::kOpen:
      return "OpenError";
    case ErrorKind::kClosed:
      return "ClosedError";
    case ErrorKind::kInvalidRequest:
      return "InvalidRequestError";
  }
  return "Error";
}

void set_error(ErrorKind kind, const char* message) {
  // sowdb.errors is imported by the package before the extension, so this finds it loaded.
  const py::object cls = py::module_::import("sowdb.errors").attr(class_name(kind));
  PyErr_SetString(cls.ptr(), message);
}

// The row and pit of the first bad entry of an (N, pits) array of T, or none.
struct BadEntry {
  std::size_t row = std::numeric_limits<std::size_t>::max();
  std::string seeds;  // as the array holds it (a uint64 above 2^63 too)
  int pit = -1;       // -1: the row's sum is the problem
};

template <typename T>
BadEntry scan(const T* in, std::size_t rows, int pits, std::uint8_t* out) {
  for (std::size_t r = 0; r < rows; ++r) {
    int sum = 0;
    for (int p = 0; p < pits; ++p) {
      const T v = in[r * static_cast<std::size_t>(pits) + static_cast<std::size_t>(p)];
      if constexpr (std::numeric_limits<T>::is_signed) {
        if (v < 0)
          return {r, std::to_string(v), p};
      }
      if (v > 255)
        return {r, std::to_string(v), p};
      sum += static_cast<int>(v);
      if (out)
        out[r * static_cast<std::size_t>(pits) + static_cast<std::size_t>(p)] =
            static_cast<std::uint8_t>(v);
    }
    if (sum > kMaxBoardStones)
      return {r, std::to_string(sum), -1};
  }
  return {};
}

template <typename T>
BadEntry scan_rows(const void* data, std::size_t rows, int pits, Rows& out, bool copy) {
  if (copy)
    out.owned.resize(rows * static_cast<std::size_t>(pits));
  return scan(static_cast<const T*>(data), rows, pits, copy ? out.owned.data() : nullptr);
}

}  // namespace

void register_errors() {
  // pybind11 takes a void(*)(std::exception_ptr): the parameter cannot be a reference.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const PyError& e) {
      set_error(e.kind, e.what());
    } catch (const py::builtin_exception&) {
      throw;  // pybind11's own (a failed cast): its translator raises them
    } catch (const std::exception&) {
      // The library's refusals and failures, by kind (refusal_of: the type, never the text).
      const Refusal r = refusal_of(std::current_exception());
      set_error(error_kind(r.kind), r.message.c_str());
    }
  });
}

ErrorKind error_kind(RefusalKind kind) {
  switch (kind) {
    case RefusalKind::kBadRequest:
      return ErrorKind::kInvalidRequest;
    case RefusalKind::kBadPosition:
    case RefusalKind::kBadStores:
      return ErrorKind::kBadPosition;
    case RefusalKind::kUnknownVariant:
      return ErrorKind::kBadVariant;
    case RefusalKind::kNotServed:
    case RefusalKind::kTooManySeeds:
    case RefusalKind::kMissingTable:
      return ErrorKind::kMissingTable;
    case RefusalKind::kCorruptTable:
      return ErrorKind::kCorruptTable;
    case RefusalKind::kUnusableTables:
      return ErrorKind::kOpen;
    case RefusalKind::kGameOver:
    case RefusalKind::kIllegalMove:
      return ErrorKind::kIllegalMove;
    case RefusalKind::kWrongObjective:
      return ErrorKind::kWrongObjective;
    case RefusalKind::kUnreachable:
    case RefusalKind::kBusy:
    case RefusalKind::kInterrupted:
    case RefusalKind::kIoFailure:
    case RefusalKind::kInternal:
      return ErrorKind::kError;
  }
  return ErrorKind::kError;
}

namespace {

// The whole number `obj` holds (as `index`, its int) and `overflow` beyond long long (-1, 0,
// 1); anything but an int (a bool too) is refused: "NAME must be a whole number WHAT, not ...".
long long index_of(py::handle obj,
                   const char* name,
                   const std::string& what,
                   ErrorKind kind,
                   py::object& index,
                   int& overflow) {
  if (PyBool_Check(obj.ptr()) || !PyIndex_Check(obj.ptr()))
    throw PyError(kind,
                  std::string(name) + " must be a whole number" + what + ", not " +
                      std::string(py::repr(obj)));
  index = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!index)
    throw py::error_already_set();
  overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred())
    throw py::error_already_set();
  return v;
}

}  // namespace

long long whole_arg(py::handle obj, const char* name, long long lo, long long hi, ErrorKind kind) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  py::object index;
  int overflow = 0;
  const long long v = index_of(obj, name, " " + range, kind, index, overflow);
  if (overflow != 0 || v < lo || v > hi)
    throw PyError(
        kind, std::string(name) + " must be " + range + ", not " + std::string(py::repr(index)));
  return v;
}

double number_arg(py::handle obj, const char* name, double lo, double hi, ErrorKind kind) {
  double v = std::numeric_limits<double>::quiet_NaN();
  if (!PyBool_Check(obj.ptr()) && (PyFloat_Check(obj.ptr()) || PyIndex_Check(obj.ptr()))) {
    v = PyFloat_AsDouble(obj.ptr());
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();  // an int too large for a float
      v = std::numeric_limits<double>::quiet_NaN();
    }
  }
  if (!(v >= lo && v <= hi))
    throw PyError(kind,
                  std::string(name) + " must be a number " +
                      py::repr(py::float_(lo)).cast<std::string>() + ".." +
                      py::repr(py::float_(hi)).cast<std::string>() + ", not " +
                      std::string(py::repr(obj)));
  return v;
}

long long clamped_whole(
    py::handle obj, const char* name, long long lo, long long hi, ErrorKind kind) {
  py::object index;
  int overflow = 0;
  const long long v = index_of(obj, name, "", kind, index, overflow);
  if (overflow != 0)
    return overflow < 0 ? lo : hi;
  return std::clamp(v, lo, hi);
}

int threads_arg(py::handle obj, ErrorKind kind) {
  return static_cast<int>(
      whole_arg(obj, "threads (0: all cores)", 0, std::numeric_limits<int>::max(), kind));
}

std::pair<int, int> stores_arg(py::handle obj) {
  const auto refuse = [&] {
    return PyError(ErrorKind::kBadPosition,
                   "stores must be (mover, opponent), two whole numbers of seeds (each at most " +
                       std::to_string(std::numeric_limits<int>::max()) + "), not " +
                       std::string(py::repr(obj)));
  };
  if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj) || py::len(obj) != 2)
    throw refuse();
  const py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
  int out[2] = {0, 0};
  for (std::size_t i = 0; i < 2; ++i) {
    try {
      out[i] = static_cast<int>(whole_arg(seq[i],
                                          "a store",
                                          std::numeric_limits<int>::min(),
                                          std::numeric_limits<int>::max(),
                                          ErrorKind::kBadPosition));
    } catch (const PyError&) {
      throw refuse();
    }
  }
  return {out[0], out[1]};
}

Pits board_from(py::handle board, const Rules& rules) {
  const int k = rules.board_pits();
  if (!py::isinstance<py::sequence>(board) && !py::isinstance<py::array>(board))
    throw PyError(ErrorKind::kBadPosition,
                  "a board is a sequence of " + std::to_string(k) + " pit counts, not " +
                      py::type::of(board).attr("__name__").cast<std::string>());
  const py::sequence seq = py::reinterpret_borrow<py::sequence>(board);
  if (py::len(seq) != static_cast<std::size_t>(k))
    throw PyError(ErrorKind::kBadPosition,
                  "a board of this variant has " + std::to_string(k) + " pits (2 x " +
                      std::to_string(rules.pits_per_side()) + "), not " +
                      std::to_string(py::len(seq)));
  Pits out{};
  int sum = 0;
  for (int i = 0; i < k; ++i) {
    const py::object item = seq[static_cast<std::size_t>(i)];
    long long v = 0;
    // Whole numbers only (int, numpy integers): not floats, not bools.
    if (PyBool_Check(item.ptr()) || !PyIndex_Check(item.ptr()))
      throw PyError(
          ErrorKind::kBadPosition,
          "pit " + std::to_string(i) + " is not a whole number: " + std::string(py::repr(item)));
    const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(item.ptr()));
    if (!index)
      throw py::error_already_set();
    int overflow = 0;
    v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow != 0 || v < 0 || v > 255)
      throw PyError(ErrorKind::kBadPosition,
                    "pit " + std::to_string(i) + " holds " + std::string(py::str(index)) +
                        " seeds: a pit holds 0..255");
    sum += static_cast<int>(v);
    out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v);
  }
  if (sum > kMaxBoardStones)
    throw PyError(ErrorKind::kBadPosition,
                  "the board holds " + std::to_string(sum) + " seeds; a board holds at most " +
                      std::to_string(kMaxBoardStones));
  return out;
}

py::tuple board_tuple(const Pits& board, int pits) {
  py::tuple t(static_cast<std::size_t>(pits));
  for (int i = 0; i < pits; ++i)
    t[static_cast<std::size_t>(i)] = py::int_(board[static_cast<std::size_t>(i)]);
  return t;
}

namespace {

// Which row of a list of rows has the wrong length, for a list numpy refused as ragged.
std::string ragged_row(py::handle boards, int pits) {
  std::size_t r = 0;
  for (const py::handle row : boards) {
    const py::ssize_t n = PyObject_Length(row.ptr());
    if (n < 0) {
      PyErr_Clear();
      return "row " + std::to_string(r) + " is not a sequence";
    }
    if (n != pits)
      return "row " + std::to_string(r) + " has " + std::to_string(n) + " pits";
    ++r;
  }
  return "the rows are not all of one length";
}

}  // namespace

Rows rows_from(py::handle boards, int pits) {
  const std::string shape_hint = "(N, " + std::to_string(pits) + ")";
  py::array array;
  if (py::isinstance<py::array>(boards)) {
    array = py::reinterpret_borrow<py::array>(boards);
  } else if (py::isinstance<py::list>(boards) || py::isinstance<py::tuple>(boards)) {
    try {
      array = py::module_::import("numpy").attr("asarray")(boards);
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_ValueError))
        throw;
      // numpy's "inhomogeneous shape": rows of different lengths. Name the first bad row.
      throw PyError(ErrorKind::kBadArray,
                    "boards must have shape " + shape_hint +
                        " (one row of 2P pit counts per position): " + ragged_row(boards, pits) +
                        " (numpy: " + std::string(py::str(e.value())) + ")");
    }
  } else {
    throw PyError(ErrorKind::kBadArray,
                  "boards must be a numpy array of shape " + shape_hint + ", not " +
                      py::type::of(boards).attr("__name__").cast<std::string>());
  }
  const py::dtype dtype = array.dtype();
  const char kind = dtype.kind();
  const std::string dtype_text = dtype.attr("name").cast<std::string>();
  if ((kind != 'i' && kind != 'u') || array.ndim() == 0) {
    throw PyError(ErrorKind::kBadArray,
                  "boards must be an integer array (int8, int16, int32, int64, uint8, uint16, "
                  "uint32 or uint64), not " +
                      dtype_text);
  }
  if (array.ndim() != 2 || array.shape(1) != pits) {
    std::string shape = "(";
    for (py::ssize_t d = 0; d < array.ndim(); ++d)
      shape += (d ? ", " : "") + std::to_string(array.shape(d));
    shape += array.ndim() == 1 ? ",)" : ")";
    throw PyError(ErrorKind::kBadArray,
                  "boards must have shape " + shape_hint +
                      " (one row of 2P pit counts per position), not " + shape +
                      (array.ndim() == 1 ? "; one board: boards.reshape(1, -1)" : ""));
  }
  if (!(array.flags() & py::array::c_style)) {
    throw PyError(ErrorKind::kBadArray,
                  "boards is not C-contiguous (a slice, a transpose or a view with strides): "
                  "pass numpy.ascontiguousarray(boards)");
  }
  if (!dtype.attr("isnative").cast<bool>()) {
    throw PyError(ErrorKind::kBadArray,
                  "boards has a non-native byte order (" + dtype_text +
                      "): pass boards.astype(boards.dtype.newbyteorder('='))");
  }
  Rows out;
  out.keep = array;
  out.rows = static_cast<std::size_t>(array.shape(0));
  const void* data = array.data();
  const std::size_t size = dtype.itemsize();
  const bool is_signed = kind == 'i';
  BadEntry bad;
  {
    py::gil_scoped_release release;
    if (!is_signed && size == 1) {
      bad = scan_rows<std::uint8_t>(data, out.rows, pits, out, false);
      out.data = static_cast<const std::uint8_t*>(data);
    } else {
      if (is_signed && size == 1)
        bad = scan_rows<std::int8_t>(data, out.rows, pits, out, true);
      else if (is_signed && size == 2)
        bad = scan_rows<std::int16_t>(data, out.rows, pits, out, true);
      else if (is_signed && size == 4)
        bad = scan_rows<std::int32_t>(data, out.rows, pits, out, true);
      else if (is_signed && size == 8)
        bad = scan_rows<std::int64_t>(data, out.rows, pits, out, true);
      else if (size == 2)
        bad = scan_rows<std::uint16_t>(data, out.rows, pits, out, true);
      else if (size == 4)
        bad = scan_rows<std::uint32_t>(data, out.rows, pits, out, true);
      else
        bad = scan_rows<std::uint64_t>(data, out.rows, pits, out, true);
      out.data = out.owned.data();
    }
  }
  if (bad.row != std::numeric_limits<std::size_t>::max()) {
    if (bad.pit >= 0) {
      throw PyError(ErrorKind::kBadPosition,
                    "row " + std::to_string(bad.row) + ", pit " + std::to_string(bad.pit) +
                        " holds " + bad.seeds + " seeds: a pit holds 0..255");
    }
    throw PyError(ErrorKind::kBadPosition,
                  "row " + std::to_string(bad.row) + " holds " + bad.seeds +
                      " seeds; a board holds at most " + std::to_string(kMaxBoardStones));
  }
  return out;
}

}  // namespace sowdb::python
