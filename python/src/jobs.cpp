// sowdb.generate and sowdb.solve: long jobs with progress, interruptible from Python.
//
// The job runs on a thread of its own (run_interruptible, interrupt.h) while the calling thread
// checks for signals; a signal, or an exception from the progress callback, asks the job to
// stop through the library's stop hook (GenerateRequest::stop, StartSolveRequest::stop), and
// the exception is raised once the job has ended. A layer in progress leaves no file (the writer's
// temporary is removed); the layers written before it stay.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "bindings.h"
#include "interrupt.h"
#include "sowdb/analysis/generate_job.h"
#include "sowdb/analysis/refusal.h"
#include "sowdb/analysis/start_solve.h"
#include "sowdb/analysis/table_jobs.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"

namespace sowdb::python {
namespace {

using Clock = std::chrono::steady_clock;
// The progress callback is called at most this often within a phase.
constexpr auto kProgressEvery = std::chrono::milliseconds(100);

// Where a job stands, for the progress callback.
struct Progress {
  std::string kind;   // "generate", "build" (solve's table cache) or "search"
  int stones = -1;    // the layer (generate, build); -1 in a search
  std::string phase;  // "read", "solve", "write", "done"; a search's "deepening", "value", ...
  double fraction = 0;
  double done = 0;   // positions of the layers done so far (generate, build), or searches
  double total = 0;  // positions of every layer of the run, or searches in all
  std::uint64_t nodes = 0;
  int lower = 0;
  int upper = 0;
};

// The Python side of a running job: JobStop, and the progress callback.
struct Interrupt : JobStop {
  py::object progress;  // None or a callable
  Clock::time_point last_call{};
  std::string last_phase;

  // Calls the progress callback (from the job's thread; takes the GIL), at most every
  // kProgressEvery within a phase, and always at its start and end.
  void report(const Progress& p) {
    if (progress.is_none() || stop)
      return;
    const auto now = Clock::now();
    const std::string phase = p.kind + p.phase + std::to_string(p.stones);
    if (phase == last_phase && p.fraction > 0 && p.fraction < 1 && now - last_call < kProgressEvery)
      return;
    last_phase = phase;
    last_call = now;
    py::gil_scoped_acquire gil;
    try {
      progress(p);
    } catch (py::error_already_set& e) {
      e.restore();
      fail();
    }
  }
};

py::object json_to_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

// Progress of a build of layers, in positions: the layers before `n` done, and the fraction
// of layer n.
Progress layer_progress(const char* kind,
                        const RuleSet& rules,
                        int first,
                        int last,
                        int n,
                        const char* phase,
                        double f) {
  Progress p;
  p.kind = kind;
  p.stones = n;
  p.phase = phase;
  p.fraction = f;
  // The layer's solve counts as its first half, its write as the second: `done` only rises.
  const std::string name = phase;
  if (name == "solve")
    f *= 0.5;
  else if (name == "write")
    f = 0.5 + 0.5 * f;
  for (int m = first; m <= last; ++m) {
    const auto size = static_cast<double>(layer_size(rules.pits(), m));
    p.total += size;
    if (m < n)
      p.done += size;
    else if (m == n)
      p.done += f * size;
  }
  return p;
}

py::object generate(py::handle variant_obj,
                    py::handle max_stones_obj,
                    const std::string& out,
                    py::handle threads_obj,
                    py::object progress,
                    bool recompute,
                    py::handle zstd_level_obj) {
  const PyVariant v = variant_from(variant_obj);
  const auto max_stones = static_cast<int>(
      whole_arg(max_stones_obj, "max_stones", 0, kMaxIndexedStones, ErrorKind::kInvalidRequest));
  const int threads = threads_arg(threads_obj);
  // 0 is the default; the library names the range of the others.
  const auto zstd_level = static_cast<int>(
      whole_arg(zstd_level_obj, "zstd_level", -1000, 1000, ErrorKind::kInvalidRequest));
  Interrupt irq;
  irq.progress = std::move(progress);
  GenerateRequest request;
  request.variant = v.variant;
  request.max_stones = max_stones;
  request.out = out;
  request.recompute = recompute;
  if (zstd_level != 0)
    request.write.zstd_level = zstd_level;
  request.threads = threads;
  request.stop = [&] { return irq.stop.load(); };
  const RuleSet rules = v.variant.rules.normalised();
  GenerateEvents events;
  events.on_progress = [&](int n, gen::Phase phase, double f) {
    irq.report(layer_progress("generate", rules, 0, max_stones, n, gen::to_string(phase), f));
  };
  events.on_layer = [&](const gen::LayerReport& r) {
    irq.report(layer_progress("generate", rules, 0, max_stones, r.stones, "done", 1));
  };
  GenerateSummary summary;
  run_interruptible(irq, [&] { summary = generate_tables(request, events); });
  return json_to_python(to_json(summary));
}

const char* phase_text(gen::SolvePhase p) {
  switch (p) {
    case gen::SolvePhase::kDeepening:
      return "deepening";
    case gen::SolvePhase::kValue:
      return "value";
    case gen::SolvePhase::kMoves:
      return "moves";
    case gen::SolvePhase::kWorths:
      return "worths";
  }
  return "?";
}

py::object solve(py::handle variant_obj,
                 std::optional<std::string> tables,
                 std::optional<std::string> cache_dir,
                 bool worths,
                 py::handle hash_mib_obj,
                 py::handle time_limit_obj,
                 py::handle cache_layers_obj,
                 py::handle threads_obj,
                 py::object progress,
                 py::handle board,
                 py::handle stores_obj) {
  const PyVariant v = variant_from(variant_obj);
  const auto hash_mib = static_cast<int>(whole_arg(
      hash_mib_obj, "hash_mib", 0, std::numeric_limits<int>::max(), ErrorKind::kInvalidRequest));
  const double time_limit = number_arg(
      time_limit_obj, "time_limit (seconds; 0: none)", 0, 1e18, ErrorKind::kInvalidRequest);
  // -1 is the default; the library names the range of the others.
  const auto cache_layers = static_cast<int>(
      whole_arg(cache_layers_obj, "cache_layers", -1000, 1000, ErrorKind::kInvalidRequest));
  const int threads = threads_arg(threads_obj);
  const std::pair<int, int> stores = stores_arg(stores_obj);
  Interrupt irq;
  irq.progress = std::move(progress);
  StartSolveRequest request;
  request.variant = v.variant;
  if (!board.is_none())
    request.position = board_from(board, Rules(v.variant.rules));
  else if (stores.first != 0 || stores.second != 0)
    throw PyError(ErrorKind::kInvalidRequest, "stores go with a board (the start's are empty)");
  request.store_mover = stores.first;
  request.store_opponent = stores.second;
  if (tables)
    request.tables = *tables;
  request.cache_root = cache_dir ? std::filesystem::path(*cache_dir) : start_cache_root();
  request.worths = worths;
  request.hash_mib = hash_mib;
  request.time_limit = time_limit;
  request.cache_layers = cache_layers;
  request.threads = threads;
  request.stop = [&] { return irq.stop.load(); };
  request.stop_name = "interrupt";
  const RuleSet rules = v.variant.rules.normalised();
  StartSolveEvents events;
  auto build = std::make_shared<CacheBuild>();
  events.on_build = [&, build](const CacheBuild& b) { *build = b; };
  events.on_build_progress = [&, build](int n, gen::Phase phase, double f) {
    irq.report(
        layer_progress("build", rules, build->have + 1, build->want, n, gen::to_string(phase), f));
  };
  events.on_search_progress = [&](const gen::SolveProgress& s) {
    Progress p;
    p.kind = "search";
    p.phase = phase_text(s.phase);
    p.done = s.done;
    p.total = s.total;
    p.fraction = s.total > 0 ? static_cast<double>(s.done) / s.total : 0;
    p.nodes = s.nodes;
    p.lower = s.lower;
    p.upper = s.upper;
    irq.report(p);
  };
  StartSolveReport report;
  run_interruptible(irq, [&] { report = solve_start_position(request, events); });
  return json_to_python(to_json(report));
}

}  // namespace

void def_jobs(py::module_& m) {
  py::class_<Progress>(m,
                       "Progress",
                       "Where a job stands (the argument of a progress callback). For a "
                       "progress bar: done of total (positions, or searches in a solve).")
      .def_readonly("kind",
                    &Progress::kind,
                    "'generate', 'build' (solve building its table cache) or 'search'.")
      .def_readonly("stones", &Progress::stones, "The layer being built; -1 in a search.")
      .def_readonly("phase",
                    &Progress::phase,
                    "'read', 'solve', 'write' or 'done' for a layer; a search's 'deepening', "
                    "'value', 'moves' or 'worths'.")
      .def_readonly("fraction", &Progress::fraction, "Of the phase (layer) or search, 0..1.")
      .def_readonly("done",
                    &Progress::done,
                    "Positions (searches) done so far; a layer's solve counts as its first half, "
                    "its write as the second.")
      .def_readonly("total", &Progress::total, "Positions (searches) in all.")
      .def_readonly("nodes", &Progress::nodes, "A search's positions expanded so far.")
      .def_readonly("lower", &Progress::lower, "A search's proved lower bound of the value.")
      .def_readonly("upper", &Progress::upper, "A search's proved upper bound of the value.")
      .def("__repr__", [](const Progress& p) {
        return "Progress(kind='" + p.kind + "', stones=" + std::to_string(p.stones) + ", phase='" +
               p.phase + "', fraction=" + std::to_string(p.fraction) + ")";
      });
  m.def("generate",
        &generate,
        py::arg("variant"),
        py::arg("max_stones"),
        py::arg("out"),
        py::kw_only(),
        py::arg("threads") = 0,
        py::arg("progress") = py::none(),
        py::arg("recompute") = true,
        py::arg("zstd_level") = 0,
        "Builds the tables of layers 0..max_stones of `variant` into the directory `out` (as "
        "`sowdb gen`; layers already there are reused) and returns the summary of `sowdb gen "
        "--json` as a dict. `progress(p)` is called with a Progress as the work goes on. "
        "Ctrl-C (KeyboardInterrupt) or an exception from `progress` stops it: the layers done "
        "stay, the one in progress leaves no file. `zstd_level`: 1..22 as `sowdb gen "
        "--zstd-level` (0: its default). Raises InvalidRequestError for a request refused "
        "before any work (a zstd level outside 1..22, a directory of other tables, too little "
        "memory), Error on a failure on the way (full disk).");
  m.def("solve",
        &solve,
        py::arg("variant"),
        py::kw_only(),
        py::arg("tables") = py::none(),
        py::arg("cache_dir") = py::none(),
        py::arg("worths") = true,
        py::arg("hash_mib") = 0,
        py::arg("time_limit") = 0.0,
        py::arg("cache_layers") = -1,
        py::arg("threads") = 0,
        py::arg("progress") = py::none(),
        py::arg("board") = py::none(),
        py::arg("stores") = py::make_tuple(0, 0),
        "Solves the start position of `variant` (as `sowdb solve`), or `board` (2P pit counts, "
        "the mover's first, as `sowdb solve --board`; `stores` the mover's and the opponent's, "
        "for the result): from `tables`, else from "
        "tables built into the per-user cache (`cache_dir`, default $SOWDB_CACHE_DIR, "
        "$XDG_CACHE_HOME/sowdb or ~/.cache/sowdb). Returns the object of `sowdb solve --json` "
        "as a dict (value, best, moves, nodes, ...). `time_limit` seconds bound the search "
        "(the result then holds bounds, complete False). `cache_layers`: build the cache up to "
        "this many seeds, 0..127 as `sowdb solve --cache-layers` (-1: the default size). "
        "Raises InvalidRequestError for a request refused before any work. Ctrl-C raises "
        "KeyboardInterrupt.");
}

}  // namespace sowdb::python
