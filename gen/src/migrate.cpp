#include "sowdb/gen/migrate.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/gen/directory_lock.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/generate_steps.h"
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

// What the marker of an unfinished migration records: the source and the options that decide
// the bytes, so that a rerun continues only the migration it would repeat.
std::string marker_text(const MigrateOptions& options) {
  std::error_code ec;
  fs::path from = fs::weakly_canonical(options.from, ec);
  if (ec)
    from = fs::absolute(options.from);
  std::ostringstream text;
  text << "sowdb migrate\nfrom " << from.string() << "\nrecompute "
       << (options.recompute ? "on" : "off") << "\nblock_entries " << options.write.block_entries
       << "\nzstd_level " << options.write.zstd_level << "\n";
  // Only version 6 adds a line, so that a migration interrupted before the option existed
  // still continues.
  if (options.write.format_version != 0)
    text << "format_version " << options.write.format_version << "\n";
  return text.str();
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Refuses `out` unless it is missing, empty, or the directory of an unfinished migration with
// the same source and options. RETURN whether it is such an unfinished migration.
bool check_out(const MigrateOptions& options) {
  std::error_code ec;
  if (!fs::exists(options.out, ec))
    return false;
  if (!fs::is_directory(options.out, ec)) {
    throw InvalidRequest(options.out.string() +
                         " exists and is not a directory; migrate writes a new directory");
  }
  const fs::path marker = options.out / kMigratingName;
  if (!fs::exists(marker, ec)) {
    if (!fs::is_empty(options.out, ec)) {
      throw InvalidRequest(options.out.string() +
                           " exists and is not an empty directory; migrate writes a new "
                           "directory (or continues one it left unfinished)");
    }
    return false;
  }
  const std::string had = read_text(marker);
  if (had != marker_text(options)) {
    // "sowdb migrate\nfrom X\nrecompute on\n..." as "from X, recompute on, ...".
    std::string was;
    std::istringstream lines(had);
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line))
      was += (was.empty() ? "" : ", ") + line;
    throw InvalidRequest(options.out.string() +
                         " holds an unfinished migrate with other options (" + was +
                         "); rerun it with those, or use another directory");
  }
  return true;
}

// Refuses a directory in which no file can be created (no permission, a read-only file system)
// as bad input, before any layer is read; a full disk or an I/O error is a failure on the way.
void check_out_writable(const fs::path& dir) {
  const fs::path probe = dir / temporary_name(kMigratingName, getpid());
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (!f) {
    const int err = errno;
    const std::string why = "cannot write in " + dir.string() + ": " + std::strerror(err);
    if (err == ENOSPC || err == EDQUOT || err == EIO || err == ENOMEM)
      throw std::runtime_error(why);
    throw InvalidRequest(why);
  }
  std::fclose(f);
  fs::remove(probe);
}

// Writes the marker (under a temporary name, then renamed) unless it is there.
void write_marker(const MigrateOptions& options) {
  const fs::path marker = options.out / kMigratingName;
  std::error_code ec;
  if (fs::exists(marker, ec))
    return;
  const fs::path temp = options.out / temporary_name(kMigratingName, getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << marker_text(options);
    out.flush();
    if (!out)
      throw std::runtime_error("cannot write " + temp.string() + ": " + std::strerror(errno));
  }
  fs::rename(temp, marker);
}

// Whether `path` is a layer an earlier run of the same migration finished: it opens with the
// source's rules and stone count, every checksum holds, and it has the block size asked for.
bool finished_layer(const fs::path& path,
                    const MigrateOptions& options,
                    const RuleSet& rules,
                    int n) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    return false;
  try {
    OpenOptions open;
    open.expected_rules = rules;
    open.expected_stones = n;
    const auto reader = LayerReader::open(path, open);
    const LayerInfo& info = reader->info();
    return info.block_entries == options.write.block_entries &&
           (info.format_version == 6) == (options.write.format_version == 6) &&
           (options.recompute || !info.recompute);
  } catch (const std::exception&) {
    return false;  // written again
  }
}

// The generator's minority rule (SolveOptions::mark) on layer n's values as read: the recompute
// mask of layer n (empty when no entry is marked), given the masks of the layers below.
std::vector<std::uint64_t> mark_layer(const MigrateOptions& options,
                                      const RuleSet& rules,
                                      int n,
                                      const std::vector<std::vector<std::uint64_t>>& new_marks) {
  std::vector<std::uint64_t> mask;
  if (!options.recompute || n > kMaxMarkedStones)
    return mask;
  const Rules engine(rules);
  const int pits = rules.pits();
  const std::uint64_t size = layer_size(pits, n);
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
  if (!any)
    mask.clear();
  return mask;
}

}  // namespace

void migrate(const MigrateOptions& options) {
  check_zstd_level(options.write.zstd_level);
  const bool resuming = check_out(options);
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
  std::error_code ec;
  fs::create_directories(options.out, ec);
  if (ec)
    throw InvalidRequest("cannot create " + options.out.string() + ": " + ec.message());
  check_out_writable(options.out);
  const DirectoryLock lock(options.out, "sowdb migrate " + options.from.string());
  if (resuming)
    check_out(options);  // the same, now that no other writer can change it
  // Until the manifest is written last, the marker says the directory is unfinished: no table
  // set opens it (no manifest) and `sowdb manifest` refuses to bless it.
  write_marker(options);

  const RuleSet& rules = from->rules();
  const int pits = rules.pits();
  std::vector<std::vector<std::int8_t>> values(static_cast<std::size_t>(from->max_stones()) + 1);
  std::vector<std::vector<std::uint64_t>> old_marks(values.size());
  std::vector<std::vector<std::uint64_t>> new_marks(values.size());
  for (int n = 0; n <= from->max_stones(); ++n) {
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t size = layer_size(pits, n);
    auto& v = values[static_cast<std::size_t>(n)];
    v.resize(size);
    const fs::path path = options.out / layer_file_name(n);
    const bool reuse = resuming && finished_layer(path, options, rules, n);
    std::vector<std::uint16_t> depths(reuse ? 0 : size);
    std::vector<LayerValues> below(static_cast<std::size_t>(n));
    for (int m = 0; m < n; ++m) {
      below[static_cast<std::size_t>(m)] = {values[static_cast<std::size_t>(m)],
                                            old_marks[static_cast<std::size_t>(m)]};
    }
    PhaseReport read_report(options, n, "read");
    ReadLayerOptions read;
    read.executor = options.executor;
    if (!reuse) {
      read.depths = [&depths](std::uint64_t first, std::span<const std::uint16_t> block) {
        std::copy(block.begin(), block.end(), depths.begin() + static_cast<std::ptrdiff_t>(first));
      };
    }
    read.progress = [&](std::uint64_t done, std::uint64_t total) { read_report(done, total); };
    if (from->read_layer(n, below, v, &old_marks[static_cast<std::size_t>(n)], read) !=
        ProbeStatus::kOk) {
      throw TableError(TableError::Code::kCorrupt,
                       "layer " + std::to_string(n) + " of " + options.from.string() +
                           " does not read: " + from->layer_error(n));
    }
    read_report.end();
    // The marks of a reused layer are needed too: the layers above it are marked from them.
    auto& mask = new_marks[static_cast<std::size_t>(n)];
    mask = mark_layer(options, rules, n, new_marks);

    if (!reuse) {
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
      write_layer(path, rules, n, source, write);
      write_report.end();
    }
    if (options.on_layer) {
      MigrateLayerReport report;
      report.stones = n;
      report.positions = size;
      report.bytes_before = fs::file_size(options.from / layer_file_name(n), ec);
      report.bytes_on_disk = fs::file_size(path, ec);
      report.format_version = read_info(path).format_version;
      report.reused = reuse;
      report.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      options.on_layer(report);
    }
  }
  write_manifest(options.out, from->variant());
  fs::remove(options.out / kMigratingName);
}

}  // namespace sowdb::gen
