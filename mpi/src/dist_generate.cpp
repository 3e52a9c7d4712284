#include "dist_generate.h"

#include <tbb/parallel_for.h>

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
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
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
std::vector<std::int8_t> kept_bytes(int n, const LayerPart& part) {
  std::vector<std::int8_t> out(part.value.begin(), part.value.end());
  if (n <= gen::kMaxMarkedStones) {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = gen::marked_byte(part.value[i], part.marked(i));
  }
  return out;
}

// kept_bytes for a part read back: values and one mark byte per entry.
std::vector<std::int8_t> kept_bytes(int n,
                                    std::span<const std::int8_t> value,
                                    std::span<const std::uint8_t> mark) {
  std::vector<std::int8_t> out(value.begin(), value.end());
  if (n <= gen::kMaxMarkedStones) {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = gen::marked_byte(value[i], !mark.empty() && mark[i] != 0);
  }
  return out;
}

// Streams `count` items of `data` from rank `from` to rank 0 in pieces one MPI call carries
// (64 MiB): rank 0 passes each piece to take(offset, span) as it arrives (its own part without a
// copy). Called by rank 0 and rank `from` only.
template <typename T, typename Take>
void stream_to_root(
    const Comm& comm, int from, const T* data, std::uint64_t count, Traffic& traffic, Take&& take) {
  constexpr std::uint64_t kPiece = (std::uint64_t{64} << 20) / sizeof(T);
  if (comm.rank == 0 && from == 0) {
    take(std::uint64_t{0}, std::span<const T>(data, count));
    return;
  }
  std::vector<T> buffer;
  for (std::uint64_t at = 0; at < count; at += kPiece) {
    const std::uint64_t items = std::min(kPiece, count - at);
    const int bytes = static_cast<int>(items * sizeof(T));
    if (comm.rank == 0) {
      buffer.resize(items);
      MPI_Recv(buffer.data(), bytes, MPI_BYTE, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      take(at, std::span<const T>(buffer.data(), items));
    } else {
      MPI_Send(data + at, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
      traffic.bytes += static_cast<std::uint64_t>(bytes);
      ++traffic.messages;
    }
  }
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
      int plan[2] = {0, 0};  // go on to layer n; its file exists
      if (comm_.rank == 0) {
        const bool exists = fs::exists(path);
        plan[0] = n <= gen_.max_stones || (rewrote_marked_ && n <= kMaxIndexedStones && exists);
        plan[1] = exists;
      }
      MPI_Bcast(plan, 2, MPI_INT, 0, MPI_COMM_WORLD);
      if (!plan[0])
        break;
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
    slices_.partition.emplace_back(size, comm_.size);
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
      slices_.bytes.back() = kept_bytes(n, part);
      const auto write_start = Clock::now();
      DistError e = write(n, path, part, traffic);
      if (e.exit_code != 0)
        return e;
      report.layer.write_seconds = since(write_start);
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

  // The reuse-layer step over the ranks: every rank reads the file (checking every block, as
  // gen does) and keeps its part; the recompute entries of its part are resolved from their
  // children, those in smaller layers asked of their owners. Returns false, on every rank, when
  // any rank finds the file wanting (the layer is then solved again).
  bool reuse(int n, const fs::path& path, DistLayerReport& report, Traffic& traffic) {
    const Partition& part = slices_.partition.back();
    const std::uint64_t first = part.begin(comm_.rank);
    const std::uint64_t owned = part.end(comm_.rank) - first;
    std::vector<std::int8_t> whole;
    bool recompute = false;
    bool all_moves = false;
    std::string why;
    progress(n, gen::Phase::kRead, 0);
    try {
      OpenOptions open;
      open.expected_rules = rules_;
      open.expected_stones = n;
      const auto reader = LayerReader::open(path, open);
      whole.resize(part.size());
      reader->read_all(whole, {});
      recompute = reader->info().recompute;
      all_moves = reader->info().all_moves;
    } catch (const TableError& e) {
      why = e.what();
    }
    bool ok = all_true(why.empty());
    std::vector<std::int8_t> value;
    std::vector<std::uint8_t> mark;
    if (ok) {
      value.assign(whole.begin() + static_cast<std::ptrdiff_t>(first),
                   whole.begin() + static_cast<std::ptrdiff_t>(first + owned));
      // Every rank knows whether the file has recompute entries: the same file.
      if (recompute) {
        mark.assign(owned, 0);
        try {
          resolve(n, first, whole, all_moves, value, mark, traffic);
        } catch (const TableError& e) {
          why = e.what();
        }
        ok = all_true(why.empty());
      }
    }
    if (!ok) {
      // Rank 0 names the check that failed: its own, or that another rank's failed.
      if (comm_.rank == 0) {
        report.layer.rebuilt_because = why.empty() ? "layer " + std::to_string(n) +
                                                         ": a recompute entry of another "
                                                         "rank's part does not resolve"
                                                   : why;
        if (options_.on_rebuild)
          options_.on_rebuild(n, report.layer.rebuilt_because);
      }
      return false;
    }
    progress(n, gen::Phase::kRead, 1);
    slices_.bytes.back() = kept_bytes(n, value, mark);
    return true;
  }

  // Replaces the recompute entries of this rank's part of layer n (`value`, from index `first`)
  // by their values, as gen's reuse does, and marks them in `mark`. `whole` is the layer as
  // read; the children in smaller layers are asked of their owners. Throws TableError
  // (kCorrupt) for an entry that does not resolve.
  void resolve(int n,
               std::uint64_t first,
               std::span<const std::int8_t> whole,
               bool all_moves,
               std::vector<std::int8_t>& value,
               std::vector<std::uint8_t>& mark,
               Traffic& traffic) {
    const int k = rules_.pits();
    const auto span_of = [k](const Pits& b) {
      return std::span<const std::uint8_t>(b.data(), static_cast<std::size_t>(k));
    };
    // One round: every request at once (a reused layer's recompute entries are a minority).
    std::vector<std::vector<std::uint64_t>> req(static_cast<std::size_t>(comm_.size));
    Pits board{};
    MoveList moves;
    const std::uint64_t owned = value.size();
    if (owned > 0)
      unrank(first, n, std::span(board.data(), static_cast<std::size_t>(k)));
    std::vector<std::uint64_t> entries;
    for (std::uint64_t i = 0; i < owned; ++i) {
      if (value[i] == kRecomputeValue) {
        entries.push_back(i);
        mark[i] = 1;
        engine_.legal_moves(board, moves);
        for (const Move& m : moves) {
          if (m.gain() == 0)
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
    std::optional<std::string> failure;
    for (const std::uint64_t i : entries) {
      unrank(first + i, n, std::span(board.data(), static_cast<std::size_t>(k)));
      if (engine_.legal_moves(board, moves) == 0) {
        value[i] = static_cast<std::int8_t>(engine_.final_value(board));
        continue;
      }
      // The answers of this entry's moves, in move order, before resolving (which may stop at a
      // failing child and leave some unread).
      std::array<std::int8_t, kMaxPitsPerSide> smaller{};
      for (int j = 0; j < moves.size; ++j) {
        const Move& m = moves.moves[j];
        if (m.gain() == 0)
          continue;
        const int layer = n - m.gain();
        const int d = slices_.partition[layer].owner(rank(span_of(m.child)));
        const std::int8_t b = answers[d][cursor[d]++];
        smaller[j] = layer <= gen::kMaxMarkedStones && gen::marked_mark(b)
                         ? kRecomputeValue
                         : static_cast<std::int8_t>(
                               layer <= gen::kMaxMarkedStones ? gen::marked_value(b) : b);
      }
      const auto child = [&](int layer, std::uint64_t index, std::int8_t& byte) {
        if (layer == n) {
          byte = whole[index];
        } else {
          for (int j = 0; j < moves.size; ++j) {
            if (n - moves.moves[j].gain() == layer && rank(span_of(moves.moves[j].child)) == index)
              byte = smaller[j];
          }
        }
        return ProbeStatus::kOk;
      };
      const internal::Resolution r = internal::resolve_recompute(moves, n, k, all_moves, child);
      if (r.kind != internal::Resolution::Kind::kValue && !failure) {
        failure = "layer " + std::to_string(n) + ": recompute entry " + std::to_string(first + i) +
                  (r.kind == internal::Resolution::Kind::kChained
                       ? " leads to a recompute entry (the stored-children rule, the one-ply "
                         "rule of version 3)"
                       : " has no move that gains seeds");
      }
      value[i] = static_cast<std::int8_t>(r.value);
    }
    if (failure)
      throw TableError(TableError::Code::kCorrupt, *failure);
  }

  // The write step: rank 0 gathers the layer's parts and writes the file as gen does (a
  // temporary renamed into place when complete). Rank 0 holds the values (1 byte per position),
  // the depths in one byte (those of 255 and more in a list, as gen::DepthTable) and the marks in
  // one bit; each rank frees its part once sent.
  DistError write(int n, const fs::path& path, LayerPart& part, Traffic& traffic) {
    const Partition& partition = slices_.partition.back();
    bool local_mark = false;
    for (const std::uint64_t w : part.mark)
      local_mark = local_mark || w != 0;
    const bool any_mark = !all_true(!local_mark);
    const std::uint64_t size = partition.size();
    const std::uint8_t deep_byte = part.deep_byte;  // the same on every rank
    std::vector<std::int8_t> values;
    gen::DepthTable::Bytes low;
    std::vector<std::pair<std::uint64_t, std::uint16_t>> overflow;
    std::vector<std::uint64_t> recompute;
    if (comm_.rank == 0) {
      values.resize(size);
      low.reset(static_cast<std::uint8_t*>(std::malloc(size + 1)));
      if (!low)
        throw std::bad_alloc();
      if (any_mark)
        recompute.assign((size + 63) / 64, 0);
    }
    if (any_mark && part.mark.empty())
      part.mark.assign((part.value.size() + 63) / 64, 0);
    progress(n, gen::Phase::kWrite, 0);
    for (int r = 0; r < comm_.size; ++r) {
      if (comm_.rank != 0 && comm_.rank != r)
        continue;
      const std::uint64_t first = partition.begin(r);
      const std::uint64_t count = partition.end(r) - first;
      stream_to_root(comm_, r, part.value.data(), count, traffic, [&](auto at, auto piece) {
        std::copy(
            piece.begin(), piece.end(), values.begin() + static_cast<std::ptrdiff_t>(first + at));
      });
      stream_to_root(comm_, r, part.depth.data(), count, traffic, [&](auto at, auto piece) {
        std::copy(piece.begin(), piece.end(), low.get() + first + at);
      });
      // The deep depths: their count first, then the list (rank by rank, so by index).
      std::uint64_t deep = part.deep.size();
      stream_to_root(comm_, r, &deep, 1, traffic, [&](auto, auto piece) { deep = piece[0]; });
      stream_to_root(comm_, r, part.deep.data(), deep, traffic, [&](auto, auto piece) {
        for (const auto& [i, d] : piece)
          overflow.emplace_back(first + i, d);
      });
      if (any_mark) {
        stream_to_root(
            comm_, r, part.mark.data(), (count + 63) / 64, traffic, [&](auto at, auto piece) {
              for (std::size_t w = 0; w < piece.size(); ++w) {
                for (std::uint64_t bits = piece[w]; bits != 0; bits &= bits - 1) {
                  const std::uint64_t i =
                      first + (at + w) * 64 + static_cast<std::uint64_t>(__builtin_ctzll(bits));
                  recompute[i / 64] |= std::uint64_t{1} << (i % 64);
                }
              }
            });
      }
      if (comm_.rank == r)
        part = LayerPart();  // sent: free it before rank 0 compresses
    }
    return on_root(comm_, [&] {
      const gen::DepthTable depths(std::move(low), size, std::move(overflow), deep_byte);
      LayerSource source;
      source.values = values;
      source.recompute = recompute;
      source.all_moves = true;
      source.fill_depths = [&depths](std::uint64_t first, std::span<std::uint16_t> out) {
        depths.fill(first, out);
      };
      WriteOptions write = gen_.write;
      if (!write.executor)
        write.executor = gen::tbb_executor();
      write.progress = [&](std::uint64_t done, std::uint64_t total) {
        progress(n, gen::Phase::kWrite, static_cast<double>(done) / static_cast<double>(total));
      };
      write_layer(path, rules_, n, source, write);
      if (any_mark && !rewrote_marked_)
        rewrote_marked_ = n;
    });
  }

  const Comm& comm_;
  const DistOptions& options_;
  const gen::GenerateOptions& gen_;
  RuleSet rules_;
  Rules engine_;
  Slices slices_;
  std::optional<int> rewrote_marked_;  // rank 0: the first layer written with recompute entries
  bool writable_checked_ = false;
};

}  // namespace

DistError generate_distributed(const Comm& comm, const DistOptions& options) {
  Driver driver(comm, options);
  return driver.run();
}

}  // namespace sowdb::mpi
