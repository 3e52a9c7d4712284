#include "sowdb/gen/generate.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "generate_reach.h"
#include "layer_ranges.h"
#include "parallel_loops.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/cooperative.h"
#include "sowdb/gen/directory_lock.h"
#include "sowdb/gen/generate_steps.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/internal/recompute.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen {
namespace fs = std::filesystem;

std::uint64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream in(line.substr(6));
      std::uint64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

namespace {

// Positions of layer n on k pits, C(n + k - 1, k - 1), in floating point: for the largest boards
// it does not fit in 64 bits.
long double positions(int k, int n) {
  long double c = 1;
  for (int i = 1; i <= k - 1; ++i)
    c = c * static_cast<long double>(n + i) / i;
  return c;
}

}  // namespace

bool last_layer(const fs::path& out, int max_stones, int n) {
  return n >= max_stones && (n == kMaxIndexedStones || !fs::exists(out / layer_file_name(n + 1)));
}

namespace {

// Refuses, before any work, a run into `out` that cannot fit (memory_needed) or whose largest
// layer has more positions than the solver indexes.
void check_memory(const RuleSet& rules,
                  int max_stones,
                  const fs::path& out,
                  std::uint64_t limit_bytes,
                  Objective objective = Objective::kCompetitive) {
  const long double largest = positions(rules.pits(), max_stones);
  const long double need =
      objective == Objective::kCooperative
          ? reach_memory_needed(rules, max_stones)
          : memory_needed(rules, max_stones, last_layer(out, max_stones, max_stones));
  const long double gib = 1024.0L * 1024.0L * 1024.0L;
  if (largest > static_cast<long double>(std::uint64_t{1} << 40)) {
    char buf[160];
    std::snprintf(buf,
                  sizeof buf,
                  "layer %d of a %d-pit board has about %.3g positions: too many to solve",
                  max_stones,
                  rules.pits_per_side,
                  static_cast<double>(largest));
    throw InvalidRequest(buf);
  }
  const long double physical = static_cast<long double>(sysconf(_SC_PHYS_PAGES)) *
                               static_cast<long double>(sysconf(_SC_PAGE_SIZE));
  const long double limit =
      limit_bytes > 0 ? static_cast<long double>(limit_bytes) : physical * 0.9L;
  if (limit > 0 && need > limit) {
    char buf[256];
    std::snprintf(buf,
                  sizeof buf,
                  "solving layers 0..%d of a %d-pit board needs about %.3g GiB of memory; %s is "
                  "%.3g GiB",
                  max_stones,
                  rules.pits_per_side,
                  static_cast<double>(need / gib),
                  limit_bytes > 0 ? "the memory limit" : "90% of this machine's memory",
                  static_cast<double>(limit / gib));
    throw InvalidRequest(buf);
  }
}

// Whether a failure to create `out` or a file in it means that the directory cannot be used
// (no permission, a read-only file system, a path that cannot name a directory: the request's
// fault, refused as InvalidRequest) rather than a failure on the way (a full disk, an I/O
// error).
bool unusable_out(int err) {
  return err != ENOSPC && err != EDQUOT && err != EIO && err != ENOMEM;
}

// Throws for a failure `err` to create or write in `out`: InvalidRequest when the directory
// cannot be used (unusable_out), else std::runtime_error.
[[noreturn]] void fail_out(int err, const std::string& why) {
  if (unusable_out(err))
    throw InvalidRequest(why);
  throw std::runtime_error(why);
}

}  // namespace

void check_writable(const fs::path& dir) {
  // The manifest's temporary name: a run killed in between leaves what the next run removes.
  const fs::path probe = dir / temporary_name(kManifestName, getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    fail_out(err, "cannot write in " + dir.string() + ": " + std::strerror(err));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

namespace {

using internal::marked;

void mark(std::vector<std::uint64_t>& marks, std::uint64_t i) {
  marks[i / 64] |= std::uint64_t{1} << (i % 64);
}

// The layers solved so far, as a later layer reads them: layer m's value bytes, which for
// m <= kMaxMarkedStones are marked_bytes (the value and whether the file stores the entry as a
// recompute entry), and for larger layers plain values with the marks beside them. A layer no
// later layer reads is released (empty).
class Solved {
 public:
  // Room for layer n (after layers 0..n-1).
  void add() {
    values_.emplace_back();
    marks_.emplace_back();
  }
  int value(int m, std::uint64_t i) const {
    const std::int8_t b = values_[static_cast<std::size_t>(m)][i];
    return m <= kMaxMarkedStones ? marked_value(b) : b;
  }
  bool marked(int m, std::uint64_t i) const {
    if (m <= kMaxMarkedStones)
      return marked_mark(values_[static_cast<std::size_t>(m)][i]);
    return internal::marked(marks_[static_cast<std::size_t>(m)], i);
  }
  const std::int8_t* bytes(int m) const { return values_[static_cast<std::size_t>(m)].data(); }
  // Keeps layer n's plain `values` and its recompute `mask` (empty: none).
  void keep(int n, std::vector<std::int8_t> values, std::vector<std::uint64_t> mask) {
    auto& v = values_[static_cast<std::size_t>(n)];
    v = std::move(values);
    if (n > kMaxMarkedStones) {
      marks_[static_cast<std::size_t>(n)] = std::move(mask);
      return;
    }
    parallel::for_ranges(
        std::uint64_t{0}, std::uint64_t{v.size()}, std::uint64_t{1} << 16, [&](const auto& r) {
          for (std::uint64_t i = r.begin(); i != r.end(); ++i)
            v[i] = marked_byte(v[i], internal::marked(mask, i));
        });
  }
  void release(int m) {
    std::vector<std::int8_t>().swap(values_[static_cast<std::size_t>(m)]);
    std::vector<std::uint64_t>().swap(marks_[static_cast<std::size_t>(m)]);
  }

 private:
  std::vector<std::vector<std::int8_t>> values_;
  std::vector<std::vector<std::uint64_t>> marks_;
};

// Calls visit(index, board) for every position of layer n, as for_each_range.
template <typename Visit>
void for_each_position(const Rules& rules, int n, Visit&& visit) {
  for_each_range(rules,
                 n,
                 [&](std::uint64_t first,
                     std::uint64_t last,
                     const Pits& board,
                     std::span<std::uint8_t> pits) {
                   for (std::uint64_t i = first; i < last; ++i) {
                     visit(i, board);
                     next_position(pits);
                   }
                 });
}

// Replaces the kRecomputeValue entries of reused layer n (as read_all gives them) by their
// values (internal::resolve_recompute, as the probe library resolves them), and returns the
// layer's recompute mask (empty when it has none). Throws TableError (kCorrupt) when a recompute
// entry does not resolve: no move counts, or a move leads to a recompute entry (the
// stored-children rule), as in files of an older writer, whose layer is then solved again.
std::vector<std::uint64_t> resolve_recompute(const Rules& rules,
                                             int n,
                                             std::span<std::int8_t> value,
                                             const Solved& smaller,
                                             bool all_moves) {
  std::vector<std::uint64_t> mask((value.size() + 63) / 64, 0);
  bool any = false;
  for (std::uint64_t i = 0; i < value.size(); ++i) {
    if (value[i] == kRecomputeValue) {
      mark(mask, i);
      any = true;
    }
  }
  if (!any)
    return {};
  // The children a recompute entry reads are stored entries (the rule, checked on `mask`), so
  // those in layer n hold values that this pass does not change.
  const auto child = [&](int layer, std::uint64_t index, std::int8_t& byte) {
    const bool recompute = layer == n ? marked(mask, index) : smaller.marked(layer, index);
    byte = recompute
               ? kRecomputeValue
               : static_cast<std::int8_t>(layer == n ? value[index] : smaller.value(layer, index));
    return ProbeStatus::kOk;
  };
  for_each_position(rules, n, [&](std::uint64_t i, const Pits& board) {
    if (!marked(mask, i))
      return;
    MoveList moves;
    if (rules.legal_moves(board, moves) == 0) {
      value[i] = static_cast<std::int8_t>(rules.final_value(board));
      return;
    }
    const internal::Resolution r =
        internal::resolve_recompute(moves, n, rules.board_pits(), all_moves, child);
    if (r.kind != internal::Resolution::Kind::kValue) {
      throw TableError(TableError::Code::kCorrupt,
                       "layer " + std::to_string(n) + ": recompute entry " + std::to_string(i) +
                           (r.kind == internal::Resolution::Kind::kChained
                                ? " leads to a recompute entry (the stored-children rule, the "
                                  "one-ply rule of version 3)"
                                : " has no move that gains seeds"));
    }
    value[i] = static_cast<std::int8_t>(r.value);
  });
  return mask;
}

}  // namespace

void check_zstd_level(int level) {
  // The writer takes zstd's whole range (its negative "fast" levels too); a run offers the
  // levels of `sowdb gen --zstd-level`, and refuses the others here, before the directory, its
  // manifest or its lock exist, rather than when the first layer is written.
  if (level < kMinZstdLevel || level > kMaxZstdLevel) {
    throw InvalidRequest("zstd level " + std::to_string(level) + " is outside " +
                         std::to_string(kMinZstdLevel) + ".." + std::to_string(kMaxZstdLevel));
  }
}

std::unique_ptr<DirectoryLock> prepare_output(const GenerateOptions& options,
                                              const std::string& holder) {
  const RuleSet rules = options.variant.rules.normalised();
  if (options.max_stones < 0 || options.max_stones > kMaxIndexedStones) {
    throw InvalidRequest("the largest layer asked for, " + std::to_string(options.max_stones) +
                         " seeds, is outside 0.." + std::to_string(kMaxIndexedStones));
  }
  check_zstd_level(options.write.zstd_level);
  check_memory(
      rules, options.max_stones, options.out, options.memory_limit_bytes, options.objective);
  std::error_code ec;
  if (fs::exists(options.out, ec) && !fs::is_directory(options.out, ec))
    throw InvalidRequest(options.out.string() + " exists and is not a directory");
  fs::create_directories(options.out, ec);
  if (ec) {
    // A path through a file, a link to nowhere, a parent without write permission: what was
    // asked cannot become a directory.
    fail_out(ec.value(), "cannot create " + options.out.string() + ": " + ec.message());
  }
  // One writer at a time: a second run into the same directory would mix its layers with ours.
  auto lock = std::make_unique<DirectoryLock>(options.out, holder);
  std::map<int, LayerFile> files;
  try {
    files = read_layer_files(options.out);
  } catch (const std::system_error& e) {
    fail_out(e.code().value(), "cannot read " + options.out.string() + ": " + e.code().message());
  }
  // Refuse a directory that holds tables of another rule set or board before touching anything
  // (a layer whose header does not read is rebuilt if its layer is needed).
  for (const auto& [n, file] : files) {
    if (file.info && !(file.info->rules == rules)) {
      throw OutHoldsOtherTables(
          options.out.string() + " holds tables of another rule set: " + layer_file_name(n) +
          " has " + describe(file.info->rules) + "; asked for " + describe(rules));
    }
    if (file.info && file.info->objective != options.objective) {
      // Prose spells the objective "co-operative"; to_string gives the flag value.
      const auto prose = [](Objective o) {
        return o == Objective::kCooperative ? "co-operative" : "competitive";
      };
      throw OutHoldsOtherTables(options.out.string() + " holds " + prose(file.info->objective) +
                                " tables (" + layer_file_name(n) + "); asked for " +
                                prose(options.objective) + " ones");
    }
  }
  // The manifest names the seeds per pit, which the tables do not hold: a run for another
  // count over the same tables would relabel them behind the user's back.
  Variant label = options.variant;
  if (const auto manifest = read_manifest(options.out);
      manifest && manifest->variant && manifest->variant->rules.normalised() == rules &&
      !(manifest->variant->to_string() == options.variant.to_string())) {
    if (options.keep_label) {
      label = *manifest->variant;
    } else {
      throw OutLabelledOtherwise(options.out.string() + " holds the tables of " +
                                     manifest->variant->to_string() + " (" + kManifestName +
                                     "); asked for " + options.variant.to_string() +
                                     ". The tables are the same",
                                 *manifest->variant,
                                 options.variant,
                                 options.out);
    }
  }

  remove_stale_temporaries(options.out);
  try {
    write_manifest(options.out, label);
  } catch (const std::system_error& e) {
    fail_out(e.code().value(), e.what());
  }
  return lock;
}

namespace {

// What generate()'s steps share over a competitive run: the layers solved so far and what the
// run has written.
struct Run {
  Run(const GenerateOptions& o, const RuleSet& r) : options(o), rules(r), engine(r) {}
  const GenerateOptions& options;
  RuleSet rules;
  Rules engine;
  Solved solved;
  // The first layer this run wrote with recompute entries, if any. The recompute entries of the
  // layers above --max-stones that the directory already holds were marked against the earlier
  // file of that layer, and may now lead to its new recompute entries (a directory where
  // --no-recompute runs and default runs mixed): the run then goes on through those layers,
  // reusing the ones that still keep the rule and solving the others again, so that it never
  // leaves a table set that probes refuse.
  std::optional<int> rewrote_marked;
  bool writable_checked = false;  // check_writable, before the first layer this run writes

  void progress(int n, Phase phase, double f) const {
    if (options.on_progress)
      options.on_progress(n, phase, f);
    // Thrown from inside the solver's loops too: they rethrow it on the calling thread, and the
    // writer's temporary file removes itself as the exception passes.
    stop_if_asked(options, n);
  }
};

// The reuse-layer step: reads layer n's file at `path` back into run.solved (unless `last`:
// nothing reads the last layer) when it is present and valid. Returns false when the layer must
// be solved: no file, or one that fails a check (then report.rebuilt_because says why, and
// on_rebuild has been called).
bool reuse_layer(Run& run, int n, bool last, const fs::path& path, LayerReport& report) {
  if (!fs::exists(path))
    return false;
  try {
    OpenOptions open;
    open.expected_rules = run.rules;
    open.expected_stones = n;
    auto reader = LayerReader::open(path, open);
    std::vector<std::int8_t> values(report.positions);
    run.progress(n, Phase::kRead, 0);
    reader->read_all(values, {});
    std::vector<std::uint64_t> mask;
    if (reader->info().recompute)
      mask = resolve_recompute(run.engine, n, values, run.solved, reader->info().all_moves);
    run.progress(n, Phase::kRead, 1);
    if (!last)
      run.solved.keep(n, std::move(values), std::move(mask));
    return true;
  } catch (const TableError& e) {
    // Damaged, partial or breaking the rule: solve it again, and say why.
    report.rebuilt_because = e.what();
    if (run.options.on_rebuild)
      run.options.on_rebuild(n, report.rebuilt_because);
    return false;
  }
}

// The solve-and-write-layer step: solves layer n from run.solved, writes it to `path` (through
// a temporary renamed into place) and keeps it in run.solved unless `last`. Fills the report's
// solve and write times.
void solve_and_write_layer(Run& run, int n, bool last, const fs::path& path, LayerReport& report) {
  const GenerateOptions& options = run.options;
  if (!run.writable_checked) {
    check_writable(options.out);
    run.writable_checked = true;
  }
  const auto start = std::chrono::steady_clock::now();
  SolveOptions solve;
  // Recompute entries need depth codec 1 (FORMAT.md, "Recompute entries").
  solve.mark = options.recompute && options.write.depth_codec != DepthCodec::kAll;
  solve.marked_smaller = true;
  solve.progress = [&](double f) { run.progress(n, Phase::kSolve, f); };
  run.progress(n, Phase::kSolve, 0);  // the phase starts: its rate and ETA count from here
  Layer layer = solve_layer(
      run.rules, n, [&](int m) { return run.solved.bytes(m); }, solve);
  const auto solved_at = std::chrono::steady_clock::now();
  report.solve_seconds = std::chrono::duration<double>(solved_at - start).count();
  const bool any_mark =
      std::any_of(layer.recompute.begin(), layer.recompute.end(), [](auto w) { return w; });
  if (!any_mark)
    layer.recompute.clear();
  LayerSource source;
  source.values = layer.value;
  source.recompute = layer.recompute;
  source.all_moves = true;
  source.fill_depths = [&layer](std::uint64_t first, std::span<std::uint16_t> out) {
    layer.depth.fill(first, out);
  };
  WriteOptions write = options.write;
  if (!write.executor) {
    // Blocks compress independently: spread them over the oneTBB arena.
    write.executor = tbb_executor();
  }
  write.progress = [&](std::uint64_t done, std::uint64_t total) {
    run.progress(n, Phase::kWrite, static_cast<double>(done) / static_cast<double>(total));
  };
  run.progress(n, Phase::kWrite, 0);
  write_layer(path, run.rules, n, source, write);
  report.write_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - solved_at).count();
  if (any_mark && !run.rewrote_marked)
    run.rewrote_marked = n;
  layer.depth = DepthTable();
  // The writer stores every marked entry as a recompute entry (the solver marks none in
  // layers of more than kMaxMarkedStones stones, where the writer might not).
  if (!last)
    run.solved.keep(n, std::move(layer.value), std::move(layer.recompute));
}

// Whether the run goes on to layer n: up to max_stones, and past it through the layers the
// directory holds when this run rewrote a layer with recompute entries (Run::rewrote_marked).
// Throws LayerAboveTooLarge when such a layer does not fit the memory limit.
bool continue_to(const Run& run, int n, const fs::path& path) {
  const GenerateOptions& options = run.options;
  if (n <= options.max_stones)
    return true;
  if (!run.rewrote_marked || n > kMaxIndexedStones || !fs::exists(path))
    return false;
  try {
    check_memory(run.rules, n, options.out, options.memory_limit_bytes);
  } catch (const InvalidRequest& e) {
    throw LayerAboveTooLarge(
        std::string(e.what()) + ". " + options.out.string() + " holds layer " + std::to_string(n) +
            ", above the largest layer asked for (" + std::to_string(options.max_stones) +
            "), whose recompute entries may rely on layer " + std::to_string(*run.rewrote_marked) +
            ", which this run wrote again",
        n,
        options.max_stones);
  }
  return true;
}

}  // namespace

void stop_if_asked(const GenerateOptions& options, int n) {
  if (!options.stop || !options.stop())
    return;
  throw Stopped(
      "stopped: " + (n == 0 ? std::string("no layer") : "layers 0.." + std::to_string(n - 1)) +
      " of " + options.out.string() + " complete");
}

void generate(const GenerateOptions& options) {
  const RuleSet rules = options.variant.rules.normalised();
  const auto lock = prepare_output(
      options,
      "sowdb gen " + options.variant.to_string() + " 0.." + std::to_string(options.max_stones));
  if (options.objective == Objective::kCooperative) {
    generate_reach_layers(options, [&] { check_writable(options.out); });
    return;
  }
  Run run(options, rules);
  std::error_code ec;
  for (int n = 0;; ++n) {
    const fs::path path = options.out / layer_file_name(n);
    if (!continue_to(run, n, path))
      break;
    stop_if_asked(options, n);
    // The last layer of the run (no layer above it follows, even past --max-stones) reads no
    // layer that its moves cannot reach, and nothing reads it: memory_needed counts on that.
    const bool last = last_layer(options.out, options.max_stones, n);
    run.solved.add();
    if (last) {
      for (int m = std::max(0, n - run.engine.min_gain() + 1); m < n; ++m)
        run.solved.release(m);
    }
    const auto start = std::chrono::steady_clock::now();
    LayerReport report;
    report.stones = n;
    report.positions = layer_size(rules.pits(), n);
    const bool reused = reuse_layer(run, n, last, path, report);
    if (!reused)
      solve_and_write_layer(run, n, last, path, report);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.reused = reused;
    report.read_seconds = reused ? seconds : 0;
    report.seconds = reused ? 0 : seconds;
    report.positions_per_s =
        (!reused && seconds > 0) ? static_cast<double>(report.positions) / seconds : 0;
    report.peak_rss_bytes = peak_rss_bytes();
    report.bytes_on_disk = fs::file_size(path, ec);
    if (options.on_layer)
      options.on_layer(report);
  }
}

const char* to_string(Phase phase) noexcept {
  switch (phase) {
    case Phase::kRead:
      return "read";
    case Phase::kSolve:
      return "solve";
    case Phase::kWrite:
      return "write";
  }
  return "?";
}

long double reach_memory_needed(const RuleSet& rules, int max_stones) {
  const int k = rules.pits();
  long double kept = 0;  // layers 0..n-1
  long double need = 0;
  for (int n = 0; n <= max_stones; ++n) {
    need = std::max(need, kept + reach_working_bytes(positions(k, n), n));
    kept += positions(k, n) * 8.0L * reach_set_words(n);
  }
  return need;
}

long double memory_needed(const RuleSet& rules, int max_stones, bool last_releases) {
  const int k = rules.pits();
  // While layer n is solved: the layers below it that stay in memory, and its working set (the
  // cyclic solver's value byte, 2-byte cell, frontier flags and mark bits; the acyclic solver's
  // value, depth and mark bytes).
  constexpr long double kWorking = 3.2L;
  long double kept = 0;  // layers 0..n-1
  long double need = 0;
  for (int n = 0; n <= max_stones; ++n) {
    long double held = kept;
    if (n == max_stones && last_releases) {
      for (int m = std::max(0, n - Rules(rules).min_gain() + 1); m < n; ++m)
        held -= positions(k, m) * (m > kMaxMarkedStones ? 1.125L : 1.0L);
    }
    need = std::max(need, held + positions(k, n) * kWorking);
    kept += positions(k, n) * (n > kMaxMarkedStones ? 1.125L : 1.0L);
  }
  return need;
}

}  // namespace sowdb::gen
