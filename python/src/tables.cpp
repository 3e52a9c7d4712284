// sowdb.open and sowdb.TableSet: one position with its full report, or many as numpy arrays.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "sowdb/analysis/bulk_probe.h"
#include "sowdb/analysis/position_report.h"
#include "sowdb/analysis/report_json.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/outcome.h"

namespace sowdb::python {
namespace {

// The default block cache of a table set opened from Python, per layer: the module is for
// bulk work, which comes back to blocks again and again (the default of the C++ library, 64 KiB,
// suits one probe at a time).
constexpr std::size_t kPythonCacheBytes = std::size_t{64} << 20;

struct MoveInfo {
  int pit = 0;
  int worth = 0;
  int depth = 0;
  int gain = 0;
  int stored = 0;
  int captured = 0;
  bool extra_turn = false;
  std::string category;
  py::tuple after;
};

struct LineStepInfo {
  int mover = 0;
  int pit = 0;
  int gain = 0;
  bool extra_turn = false;
  py::tuple before;
};

struct ProbeResult {
  std::string variant;
  py::tuple board;
  int stones = 0;
  std::pair<int, int> stores;
  int value = 0;
  int depth = 0;
  std::string result;
  std::pair<double, double> final_score;
  bool decided = false;
  bool game_over = false;
  std::vector<MoveInfo> moves;
  std::optional<int> best;
  std::vector<int> line;
  std::vector<LineStepInfo> line_steps;
  std::string line_end;
};

struct Labels {
  py::object value;
  py::object status;
  py::object depth = py::none();
  py::object best = py::none();
};

ProbeResult to_result(const PositionReport& r, const Rules& rules) {
  const int k = rules.pits();
  ProbeResult out;
  out.variant = r.variant.to_string();
  out.board = board_tuple(r.board, k);
  out.stones = r.stones;
  out.stores = {r.store_mover, r.store_opponent};
  out.value = r.value;
  out.depth = r.depth;
  out.result = to_string(r.outcome.result);
  out.final_score = {r.outcome.mover, r.outcome.opponent};
  out.decided = r.outcome.decided;
  out.game_over = r.moves.empty();
  for (const ReportedMove& m : r.moves) {
    out.moves.push_back({m.pit,
                         m.worth,
                         m.depth,
                         m.gain,
                         m.stored,
                         m.captured,
                         m.extra_turn,
                         to_string(m.category),
                         board_tuple(m.after, k)});
  }
  out.best = r.best();
  for (const LineStep& s : r.line.steps) {
    out.line.push_back(s.pit);
    out.line_steps.push_back({s.mover, s.pit, s.gain, s.extra_turn, board_tuple(s.before, k)});
  }
  out.line_end = line_end_text(r.line.end);
  return out;
}

// A table set as Python holds it: closing drops this handle, while a bulk call running without
// the GIL keeps its own reference until it returns.
class PyTables {
 public:
  PyTables(const std::string& path, std::optional<std::size_t> cache_bytes, bool verify)
      : dir_(path) {
    TableSetOptions options;
    options.cache_bytes = cache_bytes.value_or(kPythonCacheBytes);
    options.verify_checksums = verify;
    std::unique_ptr<TableSet> set;
    {
      py::gil_scoped_release release;
      set = TableSet::open(path, options);
    }
    set_ = std::move(set);
    variant_ = std::make_unique<PyVariant>(set_->variant());
    max_stones_ = set_->max_stones();
  }

  // The open table set. ERRORS throws PyError(kClosed) after close().
  std::shared_ptr<const TableSet> get() const {
    if (!set_)
      throw PyError(ErrorKind::kClosed, "the table set " + dir_ + " is closed");
    return set_;
  }
  void close() { set_.reset(); }
  bool closed() const { return !set_; }
  const std::string& directory() const { return dir_; }
  const PyVariant& variant() const { return *variant_; }
  int max_stones() const { return max_stones_; }

  // The report of `board`; nullopt for a missing table when `missing_ok`.
  std::optional<ProbeResult> probe(py::handle board_obj,
                                   std::pair<int, int> stores,
                                   int max_plies,
                                   bool missing_ok) const {
    const auto set = get();
    const Pits board = board_from(board_obj, set->engine());
    if (stores.first < 0 || stores.second < 0)
      throw PyError(ErrorKind::kBadPosition, "a store holds 0 seeds or more");
    if (max_plies < 0)
      throw PyError(ErrorKind::kBadPosition, "max_plies must be 0 or more");
    ProbeStatus status = ProbeStatus::kOk;
    std::optional<PositionReport> report;
    std::string error;
    {
      py::gil_scoped_release release;
      int v = 0;
      int d = 0;
      status = set->value(board, v, d);
      if (status == ProbeStatus::kOk) {
        try {
          report = report_position(*set, board, stores.first, stores.second, max_plies);
        } catch (const std::runtime_error& e) {
          error = e.what();
          // Which failure: the stores, or a table along the way (the moves or the line).
          GameOutcome o;
          int stones = 0;
          for (const auto p : board)
            stones += p;
          MoveWorths moves;
          PrincipalLine line;
          if (game_outcome(set->variant(), v, stores.first, stores.second, stones, o) !=
              OutcomeStatus::kOk) {
            status = ProbeStatus::kBadPosition;
          } else if (const ProbeStatus s = set->moves(board, moves); s != ProbeStatus::kOk) {
            status = s;
          } else if (const ProbeStatus l = set->principal_line(board, line, max_plies);
                     l != ProbeStatus::kOk) {
            status = l;
          } else {
            status = ProbeStatus::kCorruptTable;
          }
        }
      } else {
        error = set->explain(status, board);
      }
    }
    if (status != ProbeStatus::kOk) {
      const ErrorKind kind = kind_of(status);
      if (missing_ok && kind == ErrorKind::kMissingTable)
        return std::nullopt;
      throw PyError(kind, error);
    }
    return to_result(*report, set->engine());
  }

  // The value and depth of one board (raises on a failed probe).
  std::pair<int, int> value_depth(py::handle board_obj) const {
    const auto set = get();
    const Pits board = board_from(board_obj, set->engine());
    int v = 0;
    int d = 0;
    const ProbeStatus s = set->value(board, v, d);
    if (s != ProbeStatus::kOk)
      throw PyError(kind_of(s), set->explain(s, board));
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
      throw PyError(kind_of(s), set->explain(s, board));
    return m.move.pit;
  }

  Labels label(py::handle boards, bool depths, bool best, int threads) const {
    if (threads < 0)
      throw PyError(ErrorKind::kBadArray, "threads must be 0 (all cores) or more");
    const auto set = get();
    const int k = set->engine().pits();
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
    {
      py::gil_scoped_release release;
      probe_bulk(*set, {rows.data, rows.rows * static_cast<std::size_t>(k)}, out, threads);
    }
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
  py::tuple layer_chunk(
      int stones, std::uint64_t first, std::uint64_t count, bool depths, int threads) const {
    const auto set = get();
    if (stones < 0 || stones > set->max_stones())
      throw PyError(ErrorKind::kMissingTable,
                    "layer " + std::to_string(stones) + ": the tables in " + dir_ +
                        " hold layers 0.." + std::to_string(set->max_stones()));
    const int k = set->engine().pits();
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
    const std::span<std::uint8_t> rows(boards.mutable_data(), count * static_cast<std::size_t>(k));
    {
      py::gil_scoped_release release;
      layer_positions(k, stones, first, rows);
      probe_bulk(*set, rows, out, threads);
    }
    return py::make_tuple(boards, values, depths ? py::object(depth_array) : py::none(), status);
  }

 private:
  std::string dir_;
  std::shared_ptr<const TableSet> set_;
  std::unique_ptr<PyVariant> variant_;
  int max_stones_ = 0;
};

// The result types of a probe: MoveInfo, LineStep, ProbeResult and Labels.
void def_probe_results(py::module_& m) {
  py::class_<MoveInfo>(m, "MoveInfo", "One legal move of a probed position.")
      .def_readonly("pit", &MoveInfo::pit, "The pit sown, 0..P-1 from the mover's left.")
      .def_readonly("worth",
                    &MoveInfo::worth,
                    "Seeds the mover nets from the position by playing it, perfect play after.")
      .def_readonly("depth",
                    &MoveInfo::depth,
                    "Plies to realise the worth after the move (0 when it gains seeds).")
      .def_readonly("gain", &MoveInfo::gain, "Seeds the move sends to the mover's store.")
      .def_readonly("stored", &MoveInfo::stored, "Seeds sown straight into the store.")
      .def_readonly("captured", &MoveInfo::captured, "Seeds captured.")
      .def_readonly("extra_turn", &MoveInfo::extra_turn, "The mover moves again.")
      .def_readonly("category",
                    &MoveInfo::category,
                    "'win', 'draw' or 'loss': the game's result after this move with the stores.")
      .def_readonly("after",
                    &MoveInfo::after,
                    "The position after the move, from the side of the player to move next.")
      .def("__repr__", [](const MoveInfo& i) {
        return "MoveInfo(pit=" + std::to_string(i.pit) + ", worth=" + std::to_string(i.worth) +
               ", depth=" + std::to_string(i.depth) + ", category='" + i.category + "')";
      });

  py::class_<LineStepInfo>(m, "LineStep", "One ply of a principal line.")
      .def_readonly("mover",
                    &LineStepInfo::mover,
                    "0: the player to move at the probed position; 1: the other.")
      .def_readonly("pit", &LineStepInfo::pit, "The pit sown, from the mover's side.")
      .def_readonly("gain", &LineStepInfo::gain, "Seeds the move took.")
      .def_readonly("extra_turn", &LineStepInfo::extra_turn, "The same player moves again.")
      .def_readonly(
          "before", &LineStepInfo::before, "The position before the move, from the mover's side.");

  py::class_<ProbeResult>(m,
                          "ProbeResult",
                          "Everything the tables say about one position (TableSet.probe): the "
                          "fields of `sowdb probe --json`.")
      .def_readonly("variant", &ProbeResult::variant, "The tables' variant.")
      .def_readonly("board", &ProbeResult::board, "The position, mover first.")
      .def_readonly("stones", &ProbeResult::stones, "Seeds on the board.")
      .def_readonly("stores", &ProbeResult::stores, "Seeds already taken, mover first.")
      .def_readonly(
          "value", &ProbeResult::value, "Seeds the mover nets from here under perfect play.")
      .def_readonly("depth", &ProbeResult::depth, "Plies to realise the value.")
      .def_readonly("result", &ProbeResult::result, "'win', 'draw' or 'loss' for the mover.")
      .def_readonly(
          "final", &ProbeResult::final_score, "The final seeds (mover, opponent) with the stores.")
      .def_readonly(
          "decided", &ProbeResult::decided, "Oware family: a store already holds a majority.")
      .def_readonly("game_over", &ProbeResult::game_over, "The mover has no legal move.")
      .def_readonly("moves", &ProbeResult::moves, "Every legal move, best first (MoveInfo).")
      .def_readonly("best", &ProbeResult::best, "The best move's pit; None when the game is over.")
      .def_readonly("line", &ProbeResult::line, "The principal line's pits.")
      .def_readonly("line_steps", &ProbeResult::line_steps, "The principal line (LineStep).")
      .def_readonly("line_end",
                    &ProbeResult::line_end,
                    "Why the line stopped: 'game_over', 'endless' or 'max_plies'.")
      .def("__repr__", [](const ProbeResult& r) {
        return "ProbeResult(value=" + std::to_string(r.value) +
               ", depth=" + std::to_string(r.depth) + ", result='" + r.result +
               "', best=" + (r.best ? std::to_string(*r.best) : std::string("None")) + ")";
      });

  py::class_<Labels>(m,
                     "Labels",
                     "The answers of a bulk call, one entry per board: `value` (int8; -128 "
                     "where the status is not OK), `status` (uint8, sowdb.Status), `depth` "
                     "(uint16; 65535 where not OK) and `best` (int8; -1 where the game is over "
                     "or not OK) when asked for.")
      .def_readonly("value", &Labels::value)
      .def_readonly("status", &Labels::status)
      .def_readonly("depth", &Labels::depth)
      .def_readonly("best", &Labels::best)
      .def_property_readonly(
          "ok",
          [](const Labels& l) { return l.status.attr("__eq__")(0); },
          "A boolean mask: the boards the tables answered.")
      .def("__len__", [](const Labels& l) { return py::len(l.value); });
}

}  // namespace

void def_tables(py::module_& m) {
  def_probe_results(m);
  py::class_<PyTables>(m,
                       "TableSet",
                       "A directory of tables written by `sowdb gen` (or sowdb.generate), "
                       "opened by sowdb.open. A context manager; close() frees its caches.")
      .def(py::init<const std::string&, std::optional<std::size_t>, bool>(),
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
          [](const PyTables& t, py::handle board, std::pair<int, int> stores, int max_plies) {
            return *t.probe(board, stores, max_plies, false);
          },
          py::arg("board"),
          py::arg("stores") = std::pair<int, int>(0, 0),
          py::arg("max_plies") = 1000,
          "The full report of one position (ProbeResult). Raises MissingTableError (more seeds "
          "than the tables hold, or a missing layer), CorruptTableError, BadPositionError.")
      .def(
          "get",
          [](const PyTables& t, py::handle board, std::pair<int, int> stores, int max_plies) {
            return t.probe(board, stores, max_plies, true);
          },
          py::arg("board"),
          py::arg("stores") = std::pair<int, int>(0, 0),
          py::arg("max_plies") = 1000,
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
          [](const PyTables& t, py::handle boards, int threads) {
            return t.label(boards, false, false, threads);
          },
          py::arg("boards"),
          py::kw_only(),
          py::arg("threads") = 0,
          "The values of an (N, 2P) integer array of boards (Labels: value, status), over "
          "`threads` threads (0: all cores), without the GIL.")
      .def(
          "depths",
          [](const PyTables& t, py::handle boards, int threads) {
            return t.label(boards, true, false, threads);
          },
          py::arg("boards"),
          py::kw_only(),
          py::arg("threads") = 0,
          "As values, with the depths (Labels.depth).")
      .def(
          "best_moves",
          [](const PyTables& t, py::handle boards, int threads) {
            return t.label(boards, true, true, threads);
          },
          py::arg("boards"),
          py::kw_only(),
          py::arg("threads") = 0,
          "As depths, with the best move's pit (Labels.best; -1 where the game is over).")
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
