#include "sowdb/gen/migrate.h"

#include <atomic>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/gen/directory_lock.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/internal/layer_walk.h"
#include "sowdb/probe/internal/recompute.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/tables.h"

namespace sowdb::gen {
namespace fs = std::filesystem;

namespace {

// Reports fractions of a phase from the executor's threads one at a time (a report that would
// wait is skipped), and the end of the phase always.
class PhaseReport {
 public:
  PhaseReport(const MigrateOptions& options, int stones, const char* phase)
      : options_(options), stones_(stones), phase_(phase) {}
  void operator()(std::uint64_t done, std::uint64_t total) {
    if (!options_.on_progress)
      return;
    const double f = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    const std::unique_lock lock(mutex_, std::try_to_lock);
    if (lock.owns_lock() && f < 1.0)
      options_.on_progress(stones_, phase_, f);
  }
  void end() {
    if (options_.on_progress)
      options_.on_progress(stones_, phase_, 1.0);
  }

 private:
  const MigrateOptions& options_;
  int stones_;
  const char* phase_;
  std::mutex mutex_;
};

}  // namespace

void migrate(const MigrateOptions& options) {
  std::error_code ec;
  if (fs::exists(options.out, ec) &&
      (!fs::is_directory(options.out, ec) || !fs::is_empty(options.out, ec))) {
    throw InvalidRequest(options.out.string() +
                         " exists and is not an empty directory; migrate writes a new directory");
  }
  std::unique_ptr<TableSet> from;
  try {
    from = TableSet::open(options.from);
  } catch (const std::runtime_error& e) {
    throw InvalidRequest(e.what());
  }
  if (from->objective() == Objective::kCooperative) {
    // Version 5 is their only format so far: there is nothing to migrate them to.
    throw InvalidRequest(options.from.string() +
                         " holds co-operative tables, which only format version 5 describes; "
                         "migrate rewrites competitive tables");
  }
  fs::create_directories(options.out, ec);
  if (ec)
    throw InvalidRequest("cannot create " + options.out.string() + ": " + ec.message());
  const DirectoryLock lock(options.out, "sowdb migrate " + options.from.string());
  write_manifest(options.out, from->variant());

  const RuleSet& rules = from->rules();
  const Rules engine(rules);
  const int pits = rules.pits();
  std::vector<std::vector<std::int8_t>> values(static_cast<std::size_t>(from->max_stones()) + 1);
  std::vector<std::vector<std::uint64_t>> old_marks(values.size());
  std::vector<std::vector<std::uint64_t>> new_marks(values.size());
  for (int n = 0; n <= from->max_stones(); ++n) {
    const std::uint64_t size = layer_size(pits, n);
    auto& v = values[static_cast<std::size_t>(n)];
    v.resize(size);
    std::vector<std::uint16_t> depths(size);
    std::vector<LayerValues> below(static_cast<std::size_t>(n));
    for (int m = 0; m < n; ++m) {
      below[static_cast<std::size_t>(m)] = {values[static_cast<std::size_t>(m)],
                                            old_marks[static_cast<std::size_t>(m)]};
    }
    PhaseReport read_report(options, n, "read");
    ReadLayerOptions read;
    read.executor = options.executor;
    read.depths = [&depths](std::uint64_t first, std::span<const std::uint16_t> block) {
      std::copy(block.begin(), block.end(), depths.begin() + static_cast<std::ptrdiff_t>(first));
    };
    read.progress = [&](std::uint64_t done, std::uint64_t total) { read_report(done, total); };
    if (from->read_layer(n, below, v, &old_marks[static_cast<std::size_t>(n)], read) !=
        ProbeStatus::kOk) {
      throw TableError(TableError::Code::kCorrupt,
                       "layer " + std::to_string(n) + " of " + options.from.string() +
                           " does not read: " + from->layer_error(n));
    }
    read_report.end();

    // The generator's minority rule (SolveOptions::mark), on the values as read.
    auto& mask = new_marks[static_cast<std::size_t>(n)];
    bool any_mark = false;
    if (options.recompute && n <= kMaxMarkedStones) {
      mask.assign((size + 63) / 64, 0);
      std::atomic<bool> any{false};
      internal::for_each_range(
          engine,
          n,
          options.executor,
          [&](std::uint64_t first, std::uint64_t last, const Pits& start, std::span<std::uint8_t>) {
            Pits board = start;
            const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
            MoveList moves;
            bool found = false;
            for (std::uint64_t i = first; i < last; ++i) {
              bool mark = mover_in_minority(board, rules.pits_per_side, n);
              if (mark) {
                engine.legal_moves(board, moves);
                for (const Move& m : moves) {
                  if (m.gain() != 0 &&
                      internal::marked(
                          new_marks[static_cast<std::size_t>(n - m.gain())],
                          rank(std::span<const std::uint8_t>(m.child.data(), span.size())))) {
                    mark = false;
                    break;
                  }
                }
              }
              if (mark) {
                mask[i / 64] |= std::uint64_t{1} << (i % 64);
                found = true;
              }
              next_position(span);
            }
            if (found)
              any = true;
          });
      any_mark = any;
      if (!any_mark)
        mask.clear();
    }

    PhaseReport write_report(options, n, "write");
    LayerSource source;
    source.values = v;
    source.recompute = mask;
    source.all_moves = true;
    source.fill_depths = [&depths](std::uint64_t first, std::span<std::uint16_t> out) {
      std::copy_n(depths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
    };
    WriteOptions write = options.write;
    write.executor = options.executor;
    write.progress = [&](std::uint64_t done, std::uint64_t total) { write_report(done, total); };
    const fs::path path = options.out / layer_file_name(n);
    write_layer(path, rules, n, source, write);
    write_report.end();
    if (options.on_layer) {
      options.on_layer(n,
                       size,
                       fs::file_size(options.from / layer_file_name(n), ec),
                       fs::file_size(path, ec),
                       read_info(path).format_version);
    }
  }
}

}  // namespace sowdb::gen
