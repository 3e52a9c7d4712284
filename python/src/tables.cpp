// sowdb.open and sowdb.TableSet: one position with its full report, or many as numpy arrays.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "interrupt.h"
#include "reports.h"
#include "sowdb/analysis/bulk_probe.h"
#include "sowdb/analysis/position_answer.h"
#include "sowdb/analysis/proof_store.h"
#include "sowdb/analysis/start_solve.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/gen/start_search.h"

namespace sowdb::python {
namespace {

// The longest search a probe may ask for: a year of seconds.
constexpr double kMaxSearchSeconds = 3.2e7;
// The seconds of a probe's search: None (no search), or a number above 0 and at most a year.
std::optional<double> search_seconds(py::handle obj) {
  if (obj.is_none())
    return std::nullopt;
  double seconds = 0;
  if (!PyBool_Check(obj.ptr()) && (PyFloat_Check(obj.ptr()) || PyIndex_Check(obj.ptr()))) {
    seconds = PyFloat_AsDouble(obj.ptr());
    if (seconds == -1 && PyErr_Occurred()) {
      PyErr_Clear();  // an int too large for a float
      seconds = 0;
    }
  }
  if (!(seconds > 0) || seconds > kMaxSearchSeconds)
    throw PyError(ErrorKind::kInvalidRequest,
                  "search must be a number of seconds above 0 and at most a year, not " +
                      std::string(py::repr(obj)));
  return seconds;
}

// Rows begin..end-1 of `out`.
BulkOutput slice_of(const BulkOutput& out, std::size_t begin, std::size_t end) {
  const auto part = [&](auto span) {
    return span.empty() ? span : span.subspan(begin, end - begin);
  };
  return {part(out.values), part(out.depths), part(out.best), part(out.status)};
}

// Marks GAME_OVER the rows begin..end-1 that the tables answered OK and whose mover has no
// legal move: a finished game has a value (its final one) but no best move.
void mark_game_over(const Rules& rules,
                    const std::uint8_t* boards,
                    const BulkOutput& out,
                    std::size_t begin,
                    std::size_t end) {
  const auto k = static_cast<std::size_t>(rules.board_pits());
  const auto ok = static_cast<std::uint8_t>(ProbeStatus::kOk);
  Pits board{};
  MoveList moves;
  for (std::size_t i = begin; i < end; ++i) {
    if (out.status[i] != ok)
      continue;
    bool over = false;
    if (!out.best.empty()) {
      over = out.best[i] < 0;
    } else {
      std::memcpy(board.data(), boards + i * k, k);
      over = rules.legal_moves(board, moves) == 0;
    }
    if (over)
      out.status[i] = static_cast<std::uint8_t>(ProbeStatus::kGameOver);
  }
}

// probe_bulk of rows begin..end-1 of `boards` over `threads` threads (0: all cores), then
// mark_game_over, in one parallel loop over pieces of kBulkMinRowsPerThread rows (as
// probe_bulk's own), so that the check reads rows still in the processor's cache.
void label_rows(const TableSet& set,
                const std::uint8_t* boards,
                const BulkOutput& out,
                std::size_t begin,
                std::size_t end,
                int threads) {
  const auto k = static_cast<std::size_t>(set.engine().board_pits());
  const std::size_t pieces = (end - begin + kBulkMinRowsPerThread - 1) / kBulkMinRowsPerThread;
  const auto piece = [&](std::size_t p) {
    const std::size_t b = begin + p * kBulkMinRowsPerThread;
    const std::size_t e = std::min(end, b + kBulkMinRowsPerThread);
    probe_bulk(set, {boards + b * k, (e - b) * k}, slice_of(out, b, e), 1);
    mark_game_over(set.engine(), boards, out, b, e);
  };
  if (pieces <= 1) {
    (void)gen::thread_count(threads);  // the refusal of a negative count either way
    if (pieces == 1)
      piece(0);
    return;
  }
  gen::run_with_threads(threads, [&] { gen::tbb_executor()(pieces, piece); });
}

// A table set as Python holds it: closing drops this handle, while a bulk call running without
// the GIL keeps its own reference until it returns.
class PyTables {
 public:
  // cache_bytes: per layer, as TableSetOptions::cache_bytes; None: kDefaultCacheBudget for the
  // whole set (plan_caches).
  PyTables(const std::string& path, py::handle cache_bytes, bool verify) : dir_(path) {
    TableSetOptions options;
    options.verify_checksums = verify;
    if (!cache_bytes.is_none()) {
      options.cache_bytes =
          static_cast<std::size_t>(whole_arg(cache_bytes,
                                             "cache_bytes",
                                             0,
                                             std::numeric_limits<long long>::max(),
                                             ErrorKind::kInvalidRequest));
    }
    std::unique_ptr<TableSet> set;
    {
      py::gil_scoped_release release;
      set = TableSet::open(path, options);
      if (cache_bytes.is_none()) {
        // The layers open on first use: opening again with the plan costs a directory scan.
        std::vector<std::uint64_t> entries;
        for (int n = 0; n <= set->max_stones(); ++n)
          entries.push_back(layer_size(set->engine().board_pits(), n));
        plan_ = plan_caches(entries, kDefaultCacheBudget);
        options.cache_bytes = static_cast<std::size_t>(plan_.value_bytes);
        options.depth_cache_bytes = static_cast<std::size_t>(plan_.depth_bytes);
        set = TableSet::open(path, options);
      }
    }
    set_ = std::move(set);
    variant_ = std::make_unique<PyVariant>(set_->variant());
    max_stones_ = set_->max_stones();
    if (!cache_bytes.is_none())
      plan_.value_bytes = *options.cache_bytes;
    split_cache_ = cache_bytes.is_none();
  }

  // The open table set. ERRORS throws PyError(kClosed) after close().
  std::shared_ptr<const TableSet> get() const {
    if (!set_)
      throw PyError(ErrorKind::kClosed, "the table set " + dir_ + " is closed");
    return set_;
  }
  void close() {
    set_.reset();
    proofs_.reset();
    search_values_.reset();
  }
  bool closed() const { return !set_; }
  const std::string& directory() const { return dir_; }
  const PyVariant& variant() const { return *variant_; }
  int max_stones() const { return max_stones_; }

  // The report of `board`; nullopt for a missing table when `missing_ok`. Above the tables a
  // search of up to `search` seconds (None: refused) answers; Ctrl-C stops it and raises.
  std::optional<Report> probe(py::handle board_obj,
                              py::handle stores_obj,
                              py::handle max_plies,
                              bool missing_ok,
                              py::handle search_obj) const {
    const auto set = get();
    const Pits board = board_from(board_obj, set->engine());
    const std::pair<int, int> stores = stores_arg(stores_obj);
    PositionQuery query;
    query.max_plies = static_cast<int>(whole_arg(
        max_plies, "max_plies", 0, std::numeric_limits<int>::max(), ErrorKind::kInvalidRequest));
    JobStop irq;
    if (const std::optional<double> search = search_seconds(search_obj)) {
      query.search = SearchBudget{};
      query.search->seconds = *search;
      query.search->threads = 1;
      query.search->proofs = proofs(*set);
      query.search->stop = [&irq] { return irq.stop.load(); };
      // The values read whole once, beside the first search, serve every later one; a search
      // probes the set's block caches until its layers are read.
      query.search->preload_limit = 0;
      query.search->preloaded = search_values(set);
    }
    query.board.assign(board.begin(), board.begin() + set->engine().board_pits());
    query.store_mover = stores.first;
    query.store_opponent = stores.second;
    query.objective = Objective::kCompetitive;
    std::optional<Answer<PositionAnswer>> answer;
    if (query.search) {
      run_interruptible(irq, [&] { answer = answer_position(*set, query); });
    } else {
      py::gil_scoped_release release;
      answer = answer_position(*set, query);
    }
    if (!*answer) {
      if (missing_ok && error_kind(answer->refusal().kind) == ErrorKind::kMissingTable)
        return std::nullopt;
      throw Refused(answer->refusal());
    }
    return std::make_shared<PositionReport>(std::move(*(*answer).value().competitive));
  }

  // The value and depth of one board (raises on a failed probe).
  std::pair<int, int> value_depth(py::handle board_obj) const {
    const auto set = get();
    const Pits board = board_from(board_obj, set->engine());
    int v = 0;
    int d = 0;
    const ProbeStatus s = set->value(board, v, d);
    if (s != ProbeStatus::kOk)
      throw Refused(refusal_of(s, *set, board));
    return {v, d};
  }

  std::optional<int> best_move(py::handle board_obj) const {
    const auto set = get();
    const Pits board = board_from(board_obj, set->engine());
    MoveWorth m;
    const ProbeStatus s = set->best_move(board, m);
    if (s == ProbeStatus::kGameOver)
      return std::nullopt;
    if (s != ProbeStatus::kOk)
      throw Refused(refusal_of(s, *set, board));
    return m.move.pit;
  }

  Labels label(py::handle boards, bool depths, bool best, py::handle threads_obj) const {
    const int threads = threads_arg(threads_obj, ErrorKind::kBadArray);
    const auto set = get();
    const int k = set->engine().board_pits();
    const Rows rows = rows_from(boards, k);
    const auto n = static_cast<py::ssize_t>(rows.rows);
    py::array_t<std::int8_t> values(n);
    py::array_t<std::uint8_t> status(n);
    py::array_t<std::uint16_t> depth_array(depths ? n : 0);
    py::array_t<std::int8_t> best_array(best ? n : 0);
    BulkOutput out;
    out.values = {values.mutable_data(), rows.rows};
    out.status = {status.mutable_data(), rows.rows};
    if (depths)
      out.depths = {depth_array.mutable_data(), rows.rows};
    if (best)
      out.best = {best_array.mutable_data(), rows.rows};
    for_slices(rows.rows, first_slice_rows(threads), [&](std::size_t begin, std::size_t end) {
      label_rows(*set, rows.data, out, begin, end, threads);
    });
    Labels l;
    l.value = values;
    l.status = status;
    if (depths)
      l.depth = depth_array;
    if (best)
      l.best = best_array;
    return l;
  }

  // Positions first..first+count-1 of layer `stones` with their labels.
  py::tuple layer_chunk(py::handle stones_obj,
                        py::handle first_obj,
                        py::handle count_obj,
                        bool depths,
                        py::handle threads_obj) const {
    const auto set = get();
    const int threads = threads_arg(threads_obj, ErrorKind::kBadArray);
    const long long max_index = std::numeric_limits<long long>::max();
    const auto stones =
        static_cast<int>(whole_arg(stones_obj, "stones", 0, max_index, ErrorKind::kMissingTable));
    auto first = static_cast<std::uint64_t>(
        whole_arg(first_obj, "first", 0, max_index, ErrorKind::kBadArray));
    auto count = static_cast<std::uint64_t>(
        whole_arg(count_obj, "chunk_size", 1, max_index, ErrorKind::kBadArray));
    if (stones > set->max_stones())
      throw PyError(ErrorKind::kMissingTable,
                    "layer " + std::to_string(stones) + ": the tables in " + dir_ +
                        " hold layers 0.." + std::to_string(set->max_stones()));
    const int k = set->engine().board_pits();
    const std::uint64_t size = layer_size(k, stones);
    if (first > size)
      first = size;
    count = std::min(count, size - first);
    const auto n = static_cast<py::ssize_t>(count);
    py::array_t<std::uint8_t> boards({n, static_cast<py::ssize_t>(k)});
    py::array_t<std::int8_t> values(n);
    py::array_t<std::uint8_t> status(n);
    py::array_t<std::uint16_t> depth_array(depths ? n : 0);
    BulkOutput out;
    out.values = {values.mutable_data(), count};
    out.status = {status.mutable_data(), count};
    if (depths)
      out.depths = {depth_array.mutable_data(), count};
    const auto k_rows = static_cast<std::size_t>(k);
    std::uint8_t* rows = boards.mutable_data();
    for_slices(count, first_slice_rows(threads), [&](std::size_t begin, std::size_t end) {
      const std::span<std::uint8_t> slice(rows + begin * k_rows, (end - begin) * k_rows);
      layer_positions(k, stones, first + begin, slice);
      probe_bulk(*set, slice, slice_of(out, begin, end), threads);
    });
    return py::make_tuple(boards, values, depths ? py::object(depth_array) : py::none(), status);
  }

  // The caches this set was opened with: (value bytes per layer, depth bytes per layer or None
  // for one cache of both, whether every layer's values are kept whole).
  py::tuple cache() const {
    return py::make_tuple(plan_.value_bytes,
                          split_cache_ ? py::object(py::int_(plan_.depth_bytes)) : py::none(),
                          plan_.values_whole);
  }

 private:
  // The proof store of the tables' rules in the cache (proof_store_path), opened at the first
  // search; null when there is no cache or the tables are co-operative.
  ProofStore* proofs(const TableSet& set) const {
    std::call_once(*proofs_once_, [&] {
      const std::filesystem::path file = proof_store_path(start_cache_root(), set.rules());
      if (!file.empty() && set.objective() == Objective::kCompetitive)
        proofs_ = std::make_shared<ProofStore>(file, set.rules());
    });
    return proofs_.get();
  }

  // The values of `set` read whole for the searches (gen::PreloadedValues::read_beside, within
  // gen's bound of 600 MB or a quarter of the memory), started by the first search and kept
  // until close(); null when they do not fit or cannot be read.
  std::shared_ptr<const gen::PreloadedValues> search_values(
      const std::shared_ptr<const TableSet>& set) const {
    std::call_once(*search_values_once_, [&] {
      try {
        search_values_ = gen::PreloadedValues::read_beside(set);
      } catch (const std::exception&) {
        // No memory or no thread: the searches probe the tables.
      }
    });
    return search_values_;
  }

  std::string dir_;
  mutable std::shared_ptr<ProofStore> proofs_;
  std::shared_ptr<std::once_flag> proofs_once_ = std::make_shared<std::once_flag>();
  mutable std::shared_ptr<const gen::PreloadedValues> search_values_;
  std::shared_ptr<std::once_flag> search_values_once_ = std::make_shared<std::once_flag>();
  std::shared_ptr<const TableSet> set_;
  std::unique_ptr<PyVariant> variant_;
  int max_stones_ = 0;
  CachePlan plan_;
  bool split_cache_ = false;
};
}  // namespace

void def_tables(py::module_& m) {
  def_probe_results(m);
  py::class_<PyTables>(m,
                       "TableSet",
                       "A directory of tables written by `sowdb gen` (or sowdb.generate), "
                       "opened by sowdb.open. A context manager; close() frees its caches.")
      .def(py::init<const std::string&, py::handle, bool>(),
           py::arg("path"),
           py::arg("cache_bytes") = py::none(),
           py::arg("verify_checksums") = true)
      .def_property_readonly(
          "variant", [](const PyTables& t) { return t.variant(); }, "The tables' Variant.")
      .def_property_readonly("max_stones",
                             &PyTables::max_stones,
                             "The tables hold every position of 0..max_stones seeds.")
      .def_property_readonly("directory", &PyTables::directory, "The directory as given.")
      .def_property_readonly("closed", &PyTables::closed, "Whether close() was called.")
      .def("close",
           &PyTables::close,
           "Closes the table set; later calls raise ClosedError. Bulk calls running in other "
           "threads finish first.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyTables& t, const py::args&) { t.close(); })
      .def(
          "probe",
          [](const PyTables& t,
             py::handle board,
             py::handle stores,
             py::handle max_plies,
             py::handle search) { return *t.probe(board, stores, max_plies, false, search); },
          py::arg("board"),
          py::arg("stores") = py::make_tuple(0, 0),
          py::arg("max_plies") = 1000,
          py::arg("search") = py::none(),
          "The full report of one position (ProbeResult). Raises MissingTableError (more seeds "
          "than the tables hold, or a missing layer), CorruptTableError, BadPositionError. "
          "With search=SECONDS, a position above the tables is searched for up to that long "
          "(method 'search'): exact where proved, else bounds (lower, upper; value None); "
          "Ctrl-C stops the search and raises KeyboardInterrupt. The first search starts "
          "reading the tables' values whole in a thread of its own (at most 600 MB or a "
          "quarter of the memory; kept until close()), which later searches use. stores: "
          "(mover, opponent); max_plies: 0 or more (InvalidRequestError otherwise).")
      .def(
          "get",
          [](const PyTables& t,
             py::handle board,
             py::handle stores,
             py::handle max_plies,
             py::handle search) { return t.probe(board, stores, max_plies, true, search); },
          py::arg("board"),
          py::arg("stores") = py::make_tuple(0, 0),
          py::arg("max_plies") = 1000,
          py::arg("search") = py::none(),
          "As probe, but None where probe raises MissingTableError.")
      .def(
          "value",
          [](const PyTables& t, py::handle board) { return t.value_depth(board).first; },
          py::arg("board"),
          "The value of one position. Raises as probe.")
      .def(
          "depth",
          [](const PyTables& t, py::handle board) { return t.value_depth(board).second; },
          py::arg("board"),
          "The depth of one position (plies to realise its value).")
      .def("best_move",
           &PyTables::best_move,
           py::arg("board"),
           "The best move's pit; None when the game is over. Raises as probe.")
      .def(
          "values",
          [](const PyTables& t, py::handle boards, py::handle threads) {
            return t.label(boards, false, false, threads);
          },
          py::arg("boards"),
          py::kw_only(),
          py::arg("threads") = 0,
          "The values of an (N, 2P) integer array of boards (Labels: value, status), over "
          "`threads` threads (0: all cores), without the GIL. Ctrl-C raises KeyboardInterrupt "
          "within a second (the work is done in slices of about 0.1 s).")
      .def(
          "depths",
          [](const PyTables& t, py::handle boards, py::handle threads) {
            return t.label(boards, true, false, threads);
          },
          py::arg("boards"),
          py::kw_only(),
          py::arg("threads") = 0,
          "As values, with the depths (Labels.depth).")
      .def(
          "best_moves",
          [](const PyTables& t, py::handle boards, py::handle threads) {
            return t.label(boards, true, true, threads);
          },
          py::arg("boards"),
          py::kw_only(),
          py::arg("threads") = 0,
          "As depths, with the best move's pit (Labels.best; -1 where the game is over, status "
          "GAME_OVER).")
      .def_property_readonly(
          "_cache",
          &PyTables::cache,
          "(value bytes a layer, depth bytes a layer or None, every layer's values whole).")
      .def("_layer_chunk",
           &PyTables::layer_chunk,
           py::arg("stones"),
           py::arg("first"),
           py::arg("count"),
           py::arg("depths"),
           py::arg("threads"))
      .def("__repr__", [](const PyTables& t) {
        return "sowdb.TableSet('" + t.directory() + "', variant='" +
               t.variant().variant.to_string() + "', max_stones=" + std::to_string(t.max_stones()) +
               (t.closed() ? ", closed" : "") + ")";
      });
}

}  // namespace sowdb::python
