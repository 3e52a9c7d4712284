#include "sowdb/gen/generate.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "layer_ranges.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/solver.h"
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

std::string describe(const RuleSet& r) {
  std::string s = std::string(to_string(r.family)) + " rules, " + std::to_string(r.pits_per_side) +
                  " pits per side, skip_origin=" + (r.skip_origin ? "on" : "off");
  if (r.family == Family::kOware)
    s += ", grand_slam=" + std::string(to_string(r.grand_slam));
  if (r.family == Family::kKalah) {
    s += ", capture_empty_opposite=" + std::string(r.capture_empty_opposite ? "on" : "off") +
         ", end=" + std::string(to_string(r.end));
  }
  return s;
}

// Refuses, before any work, a run whose largest layer cannot fit: the smaller layers' values
// (1 byte per position) and marks (1 bit) stay in memory while the largest layer is solved in
// 3 bytes per position plus flags. Counts are estimated in floating point: for the largest
// boards C(n + 2P - 1, 2P - 1) does not even fit in 64 bits.
void check_memory(const RuleSet& rules, int max_stones, std::uint64_t limit_bytes) {
  const int k = rules.pits();
  auto positions = [k](int n) {
    long double c = 1;
    for (int i = 1; i <= k - 1; ++i)
      c = c * static_cast<long double>(n + i) / i;
    return c;
  };
  long double smaller = 0;
  for (int n = 0; n < max_stones; ++n)
    smaller += positions(n);
  const long double largest = positions(max_stones);
  const long double need = smaller * 1.125L + largest * 3.1L;
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

void write_manifest(const fs::path& dir, const Variant& v) {
  // The manifest only names the variant for display; the rules that count are in each table.
  const fs::path path = dir / kManifestName;
  const std::string text = "{\"variant\": \"" + v.to_string() + "\"}\n";
  {
    // Already right (a rerun over a complete directory): write nothing, so that a read-only
    // or full file system does not fail a run that has nothing to write.
    std::ifstream in(path, std::ios::binary);
    std::stringstream have;
    have << in.rdbuf();
    if (in && have.str() == text)
      return;
  }
  const fs::path tmp = dir / (std::string(kManifestName) + ".tmp." + std::to_string(getpid()));
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      const std::string why = errno ? std::strerror(errno) : "write failed";
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot write " + path.string() + ": " + why);
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    throw std::runtime_error("cannot rename " + tmp.string() + ": " + ec.message());
}

// Removes what a killed run left behind: "<name>.tmp.<pid>" of a process that no longer exists
// (TempFile and write_manifest), and "layer-NNN.sdb.plain" (the Kalah second write, between its
// write and its rename). A temporary of a live process (a concurrent run) is left alone.
void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("layer-", 0) != 0 && name.rfind(kManifestName, 0) != 0)
      continue;
    bool stale = false;
    const auto tmp = name.rfind(".tmp.");
    if (tmp != std::string::npos) {
      const std::string digits = name.substr(tmp + 5);
      if (!digits.empty() && digits.size() < 10 &&
          digits.find_first_not_of("0123456789") == std::string::npos) {
        const auto pid = static_cast<pid_t>(std::stol(digits));
        stale = pid != getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
      }
    } else if (name.size() > 6 && name.compare(name.size() - 6, 6, ".plain") == 0) {
      stale = true;
    }
    if (stale)
      fs::remove(entry.path(), ec);
  }
}

// The value of layers 0..n-1, in memory.
using Values = std::vector<std::vector<std::int8_t>>;

// Per layer, which entries its file stores as recompute entries: bit `i % 64` of word `i / 64`
// marks entry `i` (the LayerSource::recompute layout); an empty vector marks none.
using Marks = std::vector<std::vector<std::uint64_t>>;

bool marked(const std::vector<std::uint64_t>& marks, std::uint64_t i) {
  return !marks.empty() && ((marks[i / 64] >> (i % 64)) & 1) != 0;
}

void mark(std::vector<std::uint64_t>& marks, std::uint64_t i) {
  marks[i / 64] |= std::uint64_t{1} << (i % 64);
}

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

// The children of a position over every legal move (the all-moves rule): the indices of those
// that stay in its layer, and whether every other one is an entry its smaller layer stores.
struct Children {
  int in_layer = 0;
  bool smaller_stored = true;
  std::array<std::uint64_t, kMaxPitsPerSide> index{};
};

Children children(const Rules& rules, const Pits& board, int n, const Marks& marks) {
  Children c;
  MoveList moves;
  const auto pits = static_cast<std::size_t>(rules.pits());
  const auto index = [pits](const Pits& b) {
    return rank(std::span<const std::uint8_t>(b.data(), pits));
  };
  if (rules.rule_set().family == Family::kOware) {
    // oware_exits builds only the moves that gain seeds; the others (most of them) are sown
    // here and replayed, which costs less than building every Move.
    int quiet = 0;
    rules.oware_exits(board, moves, quiet);
    for (const Move& m : moves) {
      if (marked(marks[static_cast<std::size_t>(n - m.gain())], index(m.child)))
        c.smaller_stored = false;
    }
    for (int pit = 0; quiet > 0 && pit < rules.rule_set().pits_per_side; ++pit) {
      if (board[static_cast<std::size_t>(pit)] == 0)
        continue;
      const Pits& add = rules.sowing_add(pit, board[static_cast<std::size_t>(pit)]);
      Pits sown = board;
      sown[static_cast<std::size_t>(pit)] = 0;
      for (std::size_t k = 0; k < pits; ++k)
        sown[k] = static_cast<std::uint8_t>(sown[k] + add[k]);
      if (rules.oware_quiet_move_to_turned(board, pit, sown)) {
        c.index[static_cast<std::size_t>(c.in_layer++)] = index(rules.rotate(sown));
        --quiet;
      }
    }
    return c;
  }
  rules.legal_moves(board, moves);
  for (const Move& m : moves) {
    const std::uint64_t child = index(m.child);
    if (m.gain() == 0)
      c.index[static_cast<std::size_t>(c.in_layer++)] = child;
    else if (marked(marks[static_cast<std::size_t>(n - m.gain())], child))
      c.smaller_stored = false;
  }
  return c;
}

// The recompute mask of solved layer n (LayerSource::recompute) under the all-moves rule
// (FORMAT.md, "Recompute entries"): every position satisfies value = best worth over its legal
// moves, so any entry may be marked whose children are all stored. `marks` holds the smaller
// layers' recompute entries; within the layer, the positions are taken in index order and
// each is marked unless a child or a parent of smaller index already is (a greedy maximal
// independent set of the layer's move graph: about 43% of Oware's entries, in a pattern that
// zstd codes in fewer bytes than the values it replaces). The children are found in parallel,
// a chunk at a time; the decisions, which depend on all earlier ones, go in index order on one
// thread, so the mask is the same for every thread count.
std::vector<std::uint64_t> all_moves_mask(const Rules& rules, int n, const Marks& marks) {
  const std::uint64_t size = layer_size(rules.pits(), n);
  std::vector<std::uint64_t> mask((size + 63) / 64, 0);
  std::vector<std::uint64_t> barred((size + 63) / 64, 0);  // a child of a marked entry
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;
  std::vector<Children> chunk(static_cast<std::size_t>(std::min(size, kChunk)));
  for (std::uint64_t first = 0; first < size; first += kChunk) {
    const std::uint64_t last = std::min(size, first + kChunk);
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(first, last, 2048), [&](const auto& r) {
      Pits board{};
      const std::span<std::uint8_t> pits(board.data(), static_cast<std::size_t>(rules.pits()));
      unrank(r.begin(), n, pits);
      for (std::uint64_t i = r.begin(); i < r.end(); ++i) {
        chunk[i - first] = children(rules, board, n, marks);
        next_position(pits);
      }
    });
    for (std::uint64_t i = first; i < last; ++i) {
      const Children& c = chunk[i - first];
      if (!c.smaller_stored || marked(barred, i))
        continue;
      bool free = true;
      for (int k = 0; k < c.in_layer; ++k) {
        const std::uint64_t child = c.index[static_cast<std::size_t>(k)];
        // A move back to the position itself would make it its own child.
        free = free && child != i && !marked(mask, child);
      }
      if (!free)
        continue;
      mark(mask, i);
      for (int k = 0; k < c.in_layer; ++k)
        mark(barred, c.index[static_cast<std::size_t>(k)]);
    }
  }
  return mask;
}

// Replaces the kRecomputeValue entries of reused layer n (as read_all gives them) by their
// values, and returns the layer's recompute mask (empty when it has none). An entry resolves
// over the moves that gain seeds (version 3) or, with `all_moves` (version 4), over every legal
// move. Throws TableError (kCorrupt) when a recompute entry does not resolve: it has legal
// moves but none counts, or (the one-ply rule) a move leads to a recompute entry, as in files
// of an older writer, whose layer is then solved again.
std::vector<std::uint64_t> resolve_recompute(const Rules& rules,
                                             int n,
                                             std::span<std::int8_t> value,
                                             const Values& smaller,
                                             const Marks& marks,
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
  const auto pits = static_cast<std::size_t>(rules.pits());
  // The children a recompute entry reads are stored entries (the rule, checked on `mask`), so
  // those in layer n hold values that this pass does not change.
  for_each_position(rules, n, [&](std::uint64_t i, const Pits& board) {
    if (!marked(mask, i))
      return;
    const auto fail = [&](const char* why) {
      throw TableError(
          TableError::Code::kCorrupt,
          "layer " + std::to_string(n) + ": recompute entry " + std::to_string(i) + why);
    };
    MoveList moves;
    if (rules.legal_moves(board, moves) == 0) {
      value[i] = static_cast<std::int8_t>(rules.final_value(board));
      return;
    }
    std::optional<int> best;
    for (const Move& m : moves) {
      if (m.gain() == 0 && !all_moves)
        continue;
      const int layer = n - m.gain();
      const std::uint64_t child = rank(std::span<const std::uint8_t>(m.child.data(), pits));
      if (marked(layer == n ? mask : marks[static_cast<std::size_t>(layer)], child))
        fail(" leads to a recompute entry (one-ply rule)");
      const int v = layer == n ? value[child] : smaller[static_cast<std::size_t>(layer)][child];
      best = std::max(best.value_or(-kMaxBoardStones), Rules::worth(m, v));
    }
    if (!best)
      fail(" has no move that gains seeds");
    value[i] = static_cast<std::int8_t>(*best);
  });
  return mask;
}

}  // namespace

void generate(const GenerateOptions& options) {
  const RuleSet rules = options.variant.rules.normalised();
  if (options.max_stones < 0 || options.max_stones > kMaxIndexedStones) {
    throw InvalidRequest("--max-stones must be 0.." + std::to_string(kMaxIndexedStones));
  }
  check_memory(rules, options.max_stones, options.memory_limit_bytes);
  std::error_code ec;
  if (fs::exists(options.out, ec) && !fs::is_directory(options.out, ec))
    throw InvalidRequest(options.out.string() + " exists and is not a directory");
  fs::create_directories(options.out, ec);
  if (ec) {
    const std::string why = "cannot create " + options.out.string() + ": " + ec.message();
    // A path through a file, or a link to nowhere: what was asked can never be a directory.
    if (ec == std::errc::not_a_directory || ec == std::errc::file_exists)
      throw InvalidRequest(why);
    throw std::runtime_error(why);
  }
  // Refuse a directory that holds tables of another rule set or board before touching anything.
  for (const auto& entry : fs::directory_iterator(options.out)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("layer-", 0) != 0 || entry.path().extension() != ".sdb")
      continue;
    LayerInfo info;
    try {
      info = read_info(entry.path());
    } catch (const TableError&) {
      continue;  // unreadable: it will be rebuilt if its layer is needed
    }
    if (!(info.rules == rules)) {
      throw InvalidRequest(options.out.string() + " holds tables of another rule set (" +
                           describe(info.rules) + "); asked for " + describe(rules) +
                           ". Use another --out directory.");
    }
  }

  remove_stale_temporaries(options.out);
  write_manifest(options.out, options.variant);
  const Rules engine(rules);
  Values values;
  // Which entries of each layer's file are recompute entries: about 1/8 byte per position, so
  // each new layer can mark only entries whose exits lead to stored entries (one-ply rule).
  Marks marks;
  // The first layer this run wrote with recompute entries, if any. The recompute entries of the
  // layers above --max-stones that the directory already holds were marked against the earlier
  // file of that layer, and may now lead to its new recompute entries (a directory where
  // --no-recompute runs and default runs mixed): the run then goes on through those layers,
  // reusing the ones that still keep the one-ply rule and solving the others again, so that it
  // never leaves a table set that probes refuse.
  std::optional<int> rewrote_marked;
  for (int n = 0;; ++n) {
    const fs::path path = options.out / layer_file_name(n);
    if (n > options.max_stones) {
      if (!rewrote_marked || n > kMaxIndexedStones || !fs::exists(path))
        break;
      try {
        check_memory(rules, n, options.memory_limit_bytes);
      } catch (const InvalidRequest& e) {
        throw InvalidRequest(
            std::string(e.what()) + ". " + options.out.string() + " holds layer " +
            std::to_string(n) + ", above --max-stones, whose " +
            "recompute entries may rely on layer " + std::to_string(*rewrote_marked) +
            ", which this run wrote again; raise --memory-limit, or remove the layers above " +
            std::to_string(options.max_stones) + " (probes may refuse some of their entries)");
      }
    }
    values.emplace_back();
    marks.emplace_back();
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t size = layer_size(rules.pits(), n);
    LayerReport report;
    report.stones = n;
    report.positions = size;
    bool reused = false;
    if (fs::exists(path)) {
      try {
        OpenOptions open;
        open.expected_rules = rules;
        open.expected_stones = n;
        auto reader = LayerReader::open(path, open);
        values[n].resize(size);
        reader->read_all(values[n], {});
        if (reader->info().recompute)
          marks[n] =
              resolve_recompute(engine, n, values[n], values, marks, reader->info().all_moves);
        reused = true;
      } catch (const TableError&) {
        reused = false;  // damaged, partial or breaking the one-ply rule: solve it again
        marks[n].clear();
      }
    }
    if (!reused) {
      auto progress = [&](double f) {
        if (options.on_progress)
          options.on_progress(n, f);
      };
      Layer layer = solve_layer(
          rules, n, [&](int m) { return values[m].data(); }, progress);
      const auto solved = std::chrono::steady_clock::now();
      report.solve_seconds = std::chrono::duration<double>(solved - start).count();
      std::vector<std::uint64_t> mask;
      // Recompute entries need depth codec 1 (FORMAT.md, "Recompute entries").
      if (options.recompute && options.write.depth_codec != DepthCodec::kAll)
        mask = all_moves_mask(engine, n, marks);
      LayerSource source;
      source.values = layer.value;
      source.recompute = mask;
      source.all_moves = true;
      source.fill_depths = [&layer](std::uint64_t first, std::span<std::uint16_t> out) {
        layer.depth.fill(first, out);
      };
      WriteOptions write = options.write;
      if (!write.executor) {
        // Blocks compress independently: spread them over the oneTBB arena.
        write.executor = [](std::size_t tasks, const std::function<void(std::size_t)>& task) {
          tbb::parallel_for(std::size_t{0}, tasks, [&](std::size_t t) { task(t); });
        };
      }
      write_layer(path, rules, n, source, write);
      if (!mask.empty() && rules.family != Family::kOware) {
        // Recompute entries scattered among stored ones can compress worse than the values
        // they replace (Kalah, where most moves gain seeds and the one-ply rule leaves few
        // entries markable): write the layer without them too and keep the smaller file. In
        // the Oware family they paid on every layer measured (8-12% on Oware 12..17), so the
        // second write, which costs as much as the first, is skipped there.
        const fs::path plain_path = path.string() + ".plain";
        LayerSource plain = source;
        plain.recompute = {};
        write_layer(plain_path, rules, n, plain, write);
        if (fs::file_size(plain_path) < fs::file_size(path)) {
          fs::rename(plain_path, path);
          mask.clear();
        } else {
          fs::remove(plain_path);
        }
      }
      report.write_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - solved).count();
      values[n] = std::move(layer.value);
      if (!mask.empty() && !rewrote_marked)
        rewrote_marked = n;
      // The writer stores every marked entry as a recompute entry, except (layer 127, the
      // largest there is) some it cannot: no layer above reads those marks.
      marks[n] = std::move(mask);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.reused = reused;
    report.seconds = reused ? 0 : seconds;
    report.positions_per_s = (!reused && seconds > 0) ? static_cast<double>(size) / seconds : 0;
    report.peak_rss_bytes = peak_rss_bytes();
    report.bytes_on_disk = fs::file_size(path, ec);
    if (options.on_layer)
      options.on_layer(report);
  }
}

}  // namespace sowdb::gen
