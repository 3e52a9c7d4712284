#include "dist_generate.h"

#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "dist_solver.h"
#include "dist_write.h"
#include "free_memory.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/format/v6_parts.h"
#include "sowdb/gen/generate_steps.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/internal/recompute.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/tables.h"

namespace sowdb::mpi {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Broadcasts rank 0's error to every rank.
DistError broadcast(const Comm& comm, DistError e) {
  int head[2] = {e.exit_code, static_cast<int>(e.message.size())};
  MPI_Bcast(head, 2, MPI_INT, 0, MPI_COMM_WORLD);
  e.exit_code = head[0];
  e.message.resize(static_cast<std::size_t>(head[1]));
  if (head[1] > 0)
    MPI_Bcast(e.message.data(), head[1], MPI_CHAR, 0, MPI_COMM_WORLD);
  (void)comm;
  return e;
}

// Runs f on rank 0 and tells every rank how it went: exit code 2 for a request gen refuses
// before any work (InvalidRequest), 1 for any other failure.
template <typename F>
DistError on_root(const Comm& comm, F&& f) {
  DistError e;
  if (comm.rank == 0) {
    try {
      f();
    } catch (const gen::OutHoldsOtherTables& x) {
      // The library states the cause; the remedy names this program's flags.
      e = {2, std::string(x.what()) + ". Use another --out directory."};
    } catch (const gen::OutLabelledOtherwise& x) {
      e = {2, std::string(x.what()) + ": use --variant " + x.held.to_string() + "."};
    } catch (const gen::InvalidRequest& x) {
      e = {2, x.what()};
    } catch (const std::exception& x) {
      e = {1, x.what()};
    }
  }
  return broadcast(comm, e);
}

bool all_true(bool x) {
  int in = x ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out != 0;
}

// This rank's part of layer n as a later layer reads it (Slices::bytes).
// This rank's part of layer n as a later layer reads it (Slices::bytes), made in place of the
// part's values.
std::vector<std::int8_t> kept_bytes(int n, LayerPart&& part) {
  std::vector<std::int8_t> out = std::move(part.value);
  if (n <= gen::kMaxMarkedStones) {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = gen::marked_byte(out[i], part.marked(i));
  }
  part = LayerPart();
  return out;
}

class Driver {
 public:
  Driver(const Comm& comm, const DistOptions& options)
      : comm_(comm),
        options_(options),
        gen_(options.gen),
        rules_(gen_.variant.rules.normalised()),
        engine_(rules_) {}

  DistError run() {
    if (gen_.objective == Objective::kCooperative) {
      return {2,
              "co-operative tables are not built over MPI: use `sowdb gen --objective "
              "cooperative` on one machine"};
    }
    gen::GenerateOptions prepare = gen_;
    if (prepare.memory_limit_bytes == 0) {
      // gen's estimate is for one process; the ranks share the work. A rank's part is about
      // 1/K of it (decision record 0010).
      const long double physical = static_cast<long double>(sysconf(_SC_PHYS_PAGES)) *
                                   static_cast<long double>(sysconf(_SC_PAGE_SIZE));
      prepare.memory_limit_bytes =
          static_cast<std::uint64_t>(physical * 0.9L * static_cast<long double>(comm_.size));
    }
    std::unique_ptr<gen::DirectoryLock> lock;
    DistError e = on_root(comm_, [&] {
      lock = gen::prepare_output(prepare,
                                 "sowdb-mpi gen " + gen_.variant.to_string() + " 0.." +
                                     std::to_string(gen_.max_stones) + " on " +
                                     std::to_string(comm_.size) + " ranks");
    });
    if (e.exit_code != 0)
      return e;
    for (int n = 0;; ++n) {
      const fs::path path = gen_.out / layer_file_name(n);
      int plan[3] = {0, 0, 0};  // go on to layer n; its file exists; it is the run's last
      if (comm_.rank == 0) {
        const bool exists = fs::exists(path);
        plan[0] = n <= gen_.max_stones || (rewrote_marked_ && n <= kMaxIndexedStones && exists);
        plan[1] = exists;
        plan[2] = gen::last_layer(gen_.out, gen_.max_stones, n);
      }
      MPI_Bcast(plan, 3, MPI_INT, 0, MPI_COMM_WORLD);
      if (!plan[0])
        break;
      // As gen: the run's last layer reads no layer its moves cannot reach (those between it
      // and its smallest capture), and no layer reads it.
      last_ = plan[2] != 0;
      if (last_) {
        for (int m = std::max(0, n - engine_.min_gain() + 1); m < n; ++m)
          free_memory(slices_.bytes[static_cast<std::size_t>(m)]);
      }
      e = layer(n, path, plan[1] != 0);
      if (e.exit_code != 0)
        return e;
    }
    return {};
  }

 private:
  DistError layer(int n, const fs::path& path, bool exists) {
    const auto start = Clock::now();
    const std::uint64_t size = layer_size(rules_.pits(), n);
    // Version 6's parts are whole index groups of blocks (v6_parts.h), so that each rank
    // writes its own pieces of the block index and the group hashes.
    const std::uint64_t unit = std::max<std::uint64_t>(1, gen_.write.block_entries) *
                               (gen_.write.format_version == 6 ? kV6PartBlocks : 1);
    slices_.partition.emplace_back(size, comm_.size, unit);
    slices_.bytes.emplace_back();
    DistLayerReport report;
    report.layer.stones = n;
    report.layer.positions = size;
    Traffic traffic;
    double solve_seconds = 0;
    bool reused = exists && reuse(n, path, report, traffic);
    if (!reused) {
      if (!writable_checked_) {
        DistError e = on_root(comm_, [&] { gen::check_writable(gen_.out); });
        if (e.exit_code != 0)
          return e;
        writable_checked_ = true;
      }
      const auto solve_start = Clock::now();
      if (n == options_.die_at_layer)
        std::raise(SIGKILL);
      PartOptions part_options;
      part_options.mark = gen_.recompute && gen_.write.depth_codec != DepthCodec::kAll;
      part_options.deep_byte = options_.deep_byte;
      part_options.progress = [&](double f) { progress(n, gen::Phase::kSolve, f); };
      progress(n, gen::Phase::kSolve, 0);
      LayerPart part = solve_part(comm_, rules_, n, slices_, part_options, traffic);
      solve_seconds = since(solve_start);
      report.layer.solve_seconds = max_all(solve_seconds);
      const auto write_start = Clock::now();
      progress(n, gen::Phase::kWrite, 0);
      const WriteResult written =
          write_parts(comm_,
                      path,
                      rules_,
                      n,
                      slices_.partition.back(),
                      part,
                      gen_.write,
                      options_.write_mode,
                      traffic,
                      [&](double f) { progress(n, gen::Phase::kWrite, f); });
      if (!written.error.empty())
        return {1, written.error};
      if (written.recompute && !rewrote_marked_)
        rewrote_marked_ = n;
      report.layer.write_seconds = since(write_start);
      // Kept for the later layers (none reads the run's last one).
      if (!last_)
        slices_.bytes.back() = kept_bytes(n, std::move(part));
    }
    const double seconds = since(start);
    // The figures of the whole job: sums and maxima over the ranks.
    report.bytes_sent = sum_all(traffic.bytes);
    report.messages = sum_all(traffic.messages);
    struct {
      double seconds;
      int rank;
    } mine{solve_seconds, comm_.rank}, slowest{};
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    report.slowest_seconds = slowest.seconds;
    report.slowest_rank = slowest.rank;
    const std::uint64_t rss = gen::peak_rss_bytes();
    report.layer.peak_rss_bytes = max_all(rss);
    report.rank0_rss_bytes = rss;
    report.other_rss_bytes = max_all(comm_.rank == 0 ? std::uint64_t{0} : rss);
    if (comm_.rank == 0) {
      std::error_code ec;
      report.layer.reused = reused;
      report.layer.read_seconds = reused ? seconds : 0;
      report.layer.seconds = reused ? 0 : seconds;
      report.layer.positions_per_s =
          (!reused && seconds > 0) ? static_cast<double>(size) / seconds : 0;
      report.layer.bytes_on_disk = fs::file_size(path, ec);
      if (options_.on_layer)
        options_.on_layer(report);
    }
    return {};
  }

  void progress(int n, gen::Phase phase, double f) const {
    if (comm_.rank == 0 && options_.on_progress)
      options_.on_progress(n, phase, f);
  }

  // The reuse-layer step over the ranks: every rank decodes the blocks of its own part (the
  // partition is in whole blocks of the file's size when the file was written with this run's
  // --block-entries; otherwise the blocks that overlap the part); rank 0 also checks the
  // whole-file checksum, which covers every block, as gen's open does. The recompute entries
  // of a rank's part are resolved from their children, asked of their owners. Returns false,
  // on every rank, when any rank finds the file wanting (the layer is then solved again).
  bool reuse(int n, const fs::path& path, DistLayerReport& report, Traffic& traffic) {
    const Partition& part = slices_.partition.back();
    const std::uint64_t first = part.begin(comm_.rank);
    const std::uint64_t owned = part.end(comm_.rank) - first;
    std::vector<std::int8_t> value(owned);
    bool recompute = false;
    bool all_moves = false;
    std::string why;
    progress(n, gen::Phase::kRead, 0);
    try {
      OpenOptions open;
      open.expected_rules = rules_;
      open.expected_stones = n;
      open.verify_checksums = comm_.rank == 0;
      const auto reader = LayerReader::open(path, open);
      recompute = reader->info().recompute;
      all_moves = reader->info().all_moves;
      read_part(*reader, first, value);
    } catch (const TableError& e) {
      why = e.what();
    }
    bool ok = all_true(why.empty());
    // Every rank knows whether the file has recompute entries: the same file.
    std::vector<std::int8_t> resolved;
    if (ok) {
      slices_.bytes.back() = std::move(value);
      if (recompute) {
        resolved.assign(owned, 0);
        try {
          resolve(n, first, all_moves, slices_.bytes.back(), resolved, traffic);
        } catch (const TableError& e) {
          why = e.what();
        }
        ok = all_true(why.empty());
      }
    }
    if (!ok) {
      free_memory(slices_.bytes.back());
      // Rank 0 names the check that failed: its own, or that another rank's failed.
      if (comm_.rank == 0) {
        report.layer.rebuilt_because = why.empty() ? "layer " + std::to_string(n) +
                                                         ": another rank's part of the file "
                                                         "does not read back or resolve"
                                                   : why;
        if (options_.on_rebuild)
          options_.on_rebuild(n, report.layer.rebuilt_because);
      }
      return false;
    }
    progress(n, gen::Phase::kRead, 1);
    // The part as later layers read it (kept_bytes), in place: a recompute entry becomes its
    // resolved value with the mark.
    std::vector<std::int8_t>& bytes = slices_.bytes.back();
    const bool marked_layer = n <= gen::kMaxMarkedStones;
    for (std::uint64_t i = 0; i < owned; ++i) {
      const bool mark = recompute && bytes[i] == kRecomputeValue;
      const std::int8_t v = mark ? resolved[i] : bytes[i];
      bytes[i] = marked_layer ? gen::marked_byte(v, mark) : v;
    }
    return true;
  }

  // Decodes the entries [first, first + out.size()) of the layer from the blocks that hold
  // them, in parallel. Throws TableError with the first failed block's message.
  static void read_part(const LayerReader& reader,
                        std::uint64_t first,
                        std::span<std::int8_t> out) {
    if (out.empty())
      return;
    const std::uint64_t be = reader.info().block_entries;
    const auto b0 = static_cast<std::uint32_t>(first / be);
    const auto b1 = static_cast<std::uint32_t>((first + out.size() - 1) / be + 1);
    std::vector<std::string> errors(b1 - b0);
    tbb::parallel_for(b0, b1, [&](std::uint32_t b) {
      const std::uint64_t start = std::uint64_t{b} * be;
      const std::uint64_t lo = std::max(start, first),
                          hi = std::min(start + be, first + out.size());
      std::span<std::int8_t> into = out.subspan(lo - first, hi - lo);
      std::vector<std::int8_t> whole;
      if (lo != start || hi - lo != reader.block_size(b)) {
        whole.resize(reader.block_size(b));
        into = whole;
      }
      const LayerReader::BlockRead r = reader.read_block(b, into, {});
      if (!r.values) {
        errors[b - b0] =
            r.error.empty() ? "block " + std::to_string(b) + " does not decode" : r.error;
        return;
      }
      if (!whole.empty())
        std::copy(whole.begin() + static_cast<std::ptrdiff_t>(lo - start),
                  whole.begin() + static_cast<std::ptrdiff_t>(hi - start),
                  out.begin() + static_cast<std::ptrdiff_t>(lo - first));
    });
    for (const std::string& e : errors) {
      if (!e.empty())
        throw TableError(TableError::Code::kCorrupt, e);
    }
  }

  // Resolves the recompute entries of this rank's part of layer n (`value`, from index `first`,
  // as read: the other ranks' requests for layer n's entries are answered from it, so it stays
  // as read until every rank is done) into `resolved`, as gen's reuse does. Every child an
  // entry's resolution reads is asked of its owner; the part is taken in rounds of kResolveRound
  // positions (2^18; their number agreed over the ranks), so that the requests held at once stay
  // bounded. Throws TableError (kCorrupt), after the last round, for an entry that does not
  // resolve.
  void resolve(int n,
               std::uint64_t first,
               bool all_moves,
               const std::vector<std::int8_t>& value,
               std::vector<std::int8_t>& resolved,
               Traffic& traffic) {
    constexpr std::uint64_t kResolveRound = std::uint64_t{1} << 18;
    const std::uint64_t owned = value.size();
    const std::uint64_t rounds = max_all((owned + kResolveRound - 1) / kResolveRound);
    std::optional<std::string> failure;
    for (std::uint64_t r = 0; r < rounds; ++r) {
      const std::uint64_t lo = std::min(owned, r * kResolveRound);
      const std::uint64_t hi = std::min(owned, lo + kResolveRound);
      resolve_round(n, first, lo, hi, all_moves, value, resolved, traffic, failure);
    }
    if (failure)
      throw TableError(TableError::Code::kCorrupt, *failure);
  }

  // One round of resolve: the entries [lo, hi) of the part (collective: one exchange). Records
  // the first entry that does not resolve in `failure`.
  void resolve_round(int n,
                     std::uint64_t first,
                     std::uint64_t lo,
                     std::uint64_t hi,
                     bool all_moves,
                     const std::vector<std::int8_t>& value,
                     std::vector<std::int8_t>& resolved,
                     Traffic& traffic,
                     std::optional<std::string>& failure) {
    const int k = rules_.pits();
    const auto span_of = [k](const Pits& b) {
      return std::span<const std::uint8_t>(b.data(), static_cast<std::size_t>(k));
    };
    const auto asked = [all_moves](const Move& m) { return m.gain() != 0 || all_moves; };
    std::vector<std::vector<std::uint64_t>> req(static_cast<std::size_t>(comm_.size));
    Pits board{};
    MoveList moves;
    if (lo < hi)
      unrank(first + lo, n, std::span(board.data(), static_cast<std::size_t>(k)));
    std::vector<std::uint64_t> entries;
    for (std::uint64_t i = lo; i < hi; ++i) {
      if (value[i] == kRecomputeValue) {
        entries.push_back(i);
        engine_.legal_moves(board, moves);
        for (const Move& m : moves) {
          if (!asked(m))
            continue;
          const std::uint64_t index = rank(span_of(m.child));
          const int layer = n - m.gain();
          req[slices_.partition[layer].owner(index)].push_back(byte_request(layer, index));
        }
      }
      next_position(std::span(board.data(), static_cast<std::size_t>(k)));
    }
    const auto answers = request_bytes(comm_, slices_, req, traffic);
    std::vector<std::size_t> cursor(static_cast<std::size_t>(comm_.size), 0);
    for (const std::uint64_t i : entries) {
      unrank(first + i, n, std::span(board.data(), static_cast<std::size_t>(k)));
      if (engine_.legal_moves(board, moves) == 0) {
        resolved[i] = static_cast<std::int8_t>(engine_.final_value(board));
        continue;
      }
      // The answers of this entry's moves, in move order, before resolving (which may stop at a
      // failing child and leave some unread): layer n's as read, the smaller layers' from
      // their kept bytes.
      std::array<std::int8_t, kMaxPitsPerSide> child_byte{};
      for (int j = 0; j < moves.size; ++j) {
        const Move& m = moves.moves[j];
        if (!asked(m))
          continue;
        const int layer = n - m.gain();
        const int d = slices_.partition[layer].owner(rank(span_of(m.child)));
        const std::int8_t b = answers[d][cursor[d]++];
        const bool marked_layer = layer < n && layer <= gen::kMaxMarkedStones;
        child_byte[j] = marked_layer && gen::marked_mark(b)
                            ? kRecomputeValue
                            : static_cast<std::int8_t>(marked_layer ? gen::marked_value(b) : b);
      }
      const auto child = [&](int layer, std::uint64_t index, std::int8_t& byte) {
        for (int j = 0; j < moves.size; ++j) {
          if (n - moves.moves[j].gain() == layer && rank(span_of(moves.moves[j].child)) == index)
            byte = child_byte[j];
        }
        return ProbeStatus::kOk;
      };
      const internal::Resolution res = internal::resolve_recompute(moves, n, k, all_moves, child);
      if (res.kind != internal::Resolution::Kind::kValue && !failure) {
        failure = "layer " + std::to_string(n) + ": recompute entry " + std::to_string(first + i) +
                  (res.kind == internal::Resolution::Kind::kChained
                       ? " leads to a recompute entry (the stored-children rule, the one-ply "
                         "rule of version 3)"
                       : " has no move that gains seeds");
      }
      resolved[i] = static_cast<std::int8_t>(res.value);
    }
  }

  const Comm& comm_;
  const DistOptions& options_;
  const gen::GenerateOptions& gen_;
  RuleSet rules_;
  Rules engine_;
  Slices slices_;
  std::optional<int> rewrote_marked_;  // rank 0: the first layer written with recompute entries
  bool writable_checked_ = false;
  bool last_ = false;  // the layer being built is the run's last
};

}  // namespace

DistError generate_distributed(const Comm& comm, const DistOptions& options) {
  Driver driver(comm, options);
  // The thread count of this run, not a process-wide setting (gen::run_with_threads). The arena
  // runs the driver on this thread, so the MPI calls stay on the thread that initialised MPI.
  return gen::run_with_threads(options.threads, [&] { return driver.run(); });
}

}  // namespace sowdb::mpi
