// Solving a start position as a product: plan the tables (given, or the cache's), refuse what
// cannot be answered before any work, build or repair the cache, search, report.
#include "sowdb/analysis/start_solve.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "elapsed.h"
#include "sowdb/analysis/refusal.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/directory_lock.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/table_directory.h"
#include "sowdb/probe/tables.h"
#include "start_checkpoint.h"

namespace sowdb {
namespace {

namespace fs = std::filesystem;
using analysis_internal::Clock;
using analysis_internal::since;

// The positions of the search's table a checkpoint keeps in a store of `records`: a quarter,
// so that one search's proofs leave room for other searches' (a book's).
std::size_t keep_positions(std::uint64_t records) {
  return static_cast<std::size_t>(records / 4);
}

// The search probes values only, again and again across every layer: keep every decoded value
// block (about 1 byte a position of the tables), no depth block.
TableSetOptions search_table_options() {
  TableSetOptions o;
  o.cache_blocks = std::size_t{1} << 24;
  o.depth_cache_blocks = 0;
  return o;
}

// Tables the search can use for `rules`, or gen::InvalidRequest saying why not.
void check_tables(const TableSet& tables, const RuleSet& rules) {
  if (tables.objective() != Objective::kCompetitive) {
    throw gen::InvalidRequest("the tables in " + tables.directory().string() +
                              " hold the co-operative objective; a competitive solve needs "
                              "competitive tables");
  }
  if (!(tables.rules() == rules)) {
    throw gen::InvalidRequest("the tables in " + tables.directory().string() + " hold " +
                              describe(tables.rules()) + ", not " + describe(rules));
  }
}

// The end of a refusal's message for tables of layers 0..`max` (-1: none) the user gave.
std::string given_tables_note(int max) {
  return max >= 0 ? "; the tables hold up to " + std::to_string(max) : "";
}

// The same for solve's table cache in `dir`, which the user never named: which directory it is,
// what it is, and how far it goes (`planned`: the layers it would be built to, `sized` saying
// why; else the layers it holds, `sized` empty).
std::string cache_note(const fs::path& dir, int max, bool planned, const char* sized) {
  if (dir.empty() || max < 0)
    return "";
  return std::string("; no tables were given, and solve's table cache for these rules, ") +
         dir.string() + (planned ? ", is built up to layer " : ", holds layers up to ") +
         std::to_string(max) + " (" + (*sized ? std::string(sized) + "; " : std::string()) +
         "the environment variable SOWDB_CACHE_DIR names another cache directory)";
}

// Seeds on the board the request solves: its position's, else the start's.
int request_stones(const StartSolveRequest& r) {
  if (!r.position)
    return r.variant.total_stones();
  int n = 0;
  for (const std::uint8_t p : *r.position)
    n += p;
  return n;
}

// What the request names: the variant's start, or "the position of N seeds".
std::string request_what(const StartSolveRequest& r) {
  return r.position ? "the position of " + std::to_string(request_stones(r)) + " seeds"
                    : r.variant.to_string();
}

// What the search cannot answer with tables of layers 0..`tables_max` (-1: none), refused
// before any work (solve_start refuses the same, but only after the cache has been built).
// `held` ends the message: whose layers they are (given_tables_note, cache_note).
void refuse_up_front(const StartSolveRequest& r, int tables_max, const std::string& held) {
  const Variant& v = r.variant;
  const int stones = request_stones(r);
  if (tables_max >= stones)
    return;
  // A position is searched whatever its family (gen::solve_position's search of its own keeps
  // its bounds sound under repetition); only the start keeps the refusal it always had.
  if (v.rules.family == Family::kOware && !r.position) {
    throw gen::NeedsCompleteTables(
        "Oware-family positions can repeat, so a search cannot prove the value of " +
            v.to_string() + " without complete tables: it needs layers 0.." +
            std::to_string(stones) + held,
        v,
        stones,
        Objective::kCompetitive);
  }
  if (stones > 127) {
    std::string why = "a search keeps values of -128..127 only, and " + request_what(r) + " has " +
                      std::to_string(stones) + " seeds on the board";
    if (stones > kMaxIndexedStones) {
      why += ", more than tables hold (layers up to " + std::to_string(kMaxIndexedStones) +
             "): it cannot be solved";
    } else {
      why += ": it needs complete tables, layers 0.." + std::to_string(stones);
      throw gen::NeedsCompleteTables(why, v, stones, Objective::kCompetitive);
    }
    throw gen::InvalidRequest(why);
  }
}

// A position and stores the game can hold, refused before any work (Refused, kBadPosition or
// kBadStores): pits only on the variant's board, and stores that hold, with the board, no more
// than the game.
void refuse_position(const StartSolveRequest& r) {
  const int board_pits = r.variant.rules.pits();
  if (!r.position) {
    if (r.store_mover != 0 || r.store_opponent != 0) {
      throw Refused(RefusalKind::kBadStores,
                    "stores are given with a position only; the start's are empty");
    }
    return;
  }
  for (std::size_t i = static_cast<std::size_t>(board_pits); i < r.position->size(); ++i) {
    if ((*r.position)[i] != 0) {
      throw Refused(RefusalKind::kBadPosition,
                    "the position has seeds beyond the " + std::to_string(board_pits) +
                        " pits of " + r.variant.to_string());
    }
  }
  const int stones = request_stones(r);
  if (stones > kMaxBoardStones) {
    throw Refused(RefusalKind::kBadPosition,
                  "the position holds " + std::to_string(stones) + " seeds, more than the " +
                      std::to_string(kMaxBoardStones) + " a board holds");
  }
  GameOutcome o;
  std::string error;
  if (game_outcome(r.variant, 0, r.store_mover, r.store_opponent, stones, o, &error) !=
      OutcomeStatus::kOk) {
    throw Refused(RefusalKind::kBadStores, error);
  }
}

// The game's end with the stores when [lower, upper] decides its result; nullopt otherwise.
std::optional<GameOutcome> decided_outcome(const StartSolveRequest& r,
                                           const gen::StartSolution& s) {
  GameOutcome out;
  bool decided = false;
  if (bounded_outcome(r.variant,
                      s.lower,
                      s.upper,
                      r.store_mover,
                      r.store_opponent,
                      request_stones(r),
                      out,
                      decided) != OutcomeStatus::kOk ||
      !decided)
    return std::nullopt;
  return out;
}

void refuse_hash(int mib, int bits) {
  const std::uint64_t physical = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                                 static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
  if ((std::uint64_t{8} << bits) > physical / 2) {
    throw gen::InvalidRequest("a transposition table of " + std::to_string(mib) +
                              " MiB is more than half of this machine's memory (" +
                              std::to_string(physical >> 20) + " MiB)");
  }
}

// Whether this process can create and write `dir`; `why` says why not.
bool writable(const fs::path& dir, std::string& why) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    why = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    why = dir.string() + " is not writable";
    return false;
  }
  return true;
}

// The variant the cache is labelled with: the one it was first built for (the tables serve
// every seed count of the rules, and gen refuses to relabel them), else `v`.
Variant cache_label(const fs::path& dir, const Variant& v) {
  const RuleSet rules = v.rules.normalised();
  if (const auto m = read_manifest(dir);
      m && m->error.empty() && m->variant && m->variant->rules.normalised() == rules) {
    return *m->variant;
  }
  return v;
}

// One solve in progress: the request, the callbacks and the report being filled.
class StartSolver {
 public:
  StartSolver(const StartSolveRequest& request, const StartSolveEvents& events)
      : request_(request), events_(events), rules_(request.variant.rules.normalised()) {
    report_.variant = request.variant;
    report_.position = request.position;
    report_.store_mover = request.store_mover;
    report_.store_opponent = request.store_opponent;
    report_.time_limit = request.time_limit;
  }

  StartSolveReport run() {
    const auto start = Clock::now();
    // A size asked for is refused before any work; the default depends on the tables.
    if (request_.cache_layers < -1 || request_.cache_layers > kMaxIndexedStones) {
      throw gen::InvalidRequest("cache_layers " + std::to_string(request_.cache_layers) +
                                " is outside 0.." + std::to_string(kMaxIndexedStones) +
                                " (-1: the cache policy)");
    }
    refuse_position(request_);
    if (!(request_.checkpoint_seconds >= 0) || !std::isfinite(request_.checkpoint_seconds)) {
      throw gen::InvalidRequest("checkpoint_seconds must be 0 or more, not " +
                                std::to_string(request_.checkpoint_seconds));
    }
    if (request_.hash_mib > 0)
      refuse_hash(request_.hash_mib, start_hash_bits(request_.hash_mib));
    std::unique_ptr<TableSet> tables =
        request_.tables ? open_given(*request_.tables) : open_cache();
    const int tables_max = tables ? tables->max_stones() : -1;
    refuse_up_front(request_,
                    tables_max,
                    report_.source == TablesSource::kCache
                        ? cache_note(cache_dir_, tables_max, false, "")
                        : given_tables_note(tables_max));
    const int bits = start_hash_bits(
        request_.hash_mib > 0
            ? request_.hash_mib
            : start_hash_default_mib(request_stones(request_), tables_max, request_.worths));
    if (events_.on_search)
      events_.on_search();
    try {
      search(tables.get(), bits);
    } catch (const gen::InvalidRequest&) {
      throw;
    } catch (const std::runtime_error& e) {
      // A probe failed on a layer of the cache (a damaged file): the cache is this library's
      // product, so check it as gen's resume does, solve the damaged layers again, and retry.
      std::string why;
      if (report_.source != TablesSource::kCache || repaired_ || !writable(cache_dir_, why))
        throw;
      tables.reset();
      repaired_ = true;
      build(cache_dir_, std::max(want_, have_), e.what());
      tables = open_search_tables(cache_dir_);
      search(tables.get(), bits);
    }
    report_.seconds = since(start);
    return std::move(report_);
  }

 private:
  std::unique_ptr<TableSet> open_search_tables(const fs::path& dir) {
    std::unique_ptr<TableSet> t = TableSet::open(dir, search_table_options());
    check_tables(*t, rules_);
    const std::optional<LayerGap> gap = find_gap(dir);
    report_.missing_layer = gap ? gap->missing : -1;
    if (report_.missing_layer >= 0) {
      report_.notes.push_back(dir.string() + ": " + layer_file_name(report_.missing_layer) +
                              " is missing, so only layers 0.." +
                              std::to_string(report_.missing_layer - 1) +
                              " are used (the layers above the gap are not)");
    }
    return t;
  }

  std::unique_ptr<TableSet> open_given(const fs::path& dir) {
    if (dir.empty())
      throw gen::InvalidRequest("the table directory must not be an empty path");
    report_.source = TablesSource::kGiven;
    report_.tables = dir.string();
    try {
      return open_search_tables(dir);
    } catch (const gen::InvalidRequest&) {
      throw;
    } catch (const std::exception& e) {
      throw gen::InvalidRequest(e.what());
    }
  }

  // The cache's tables, built (or completed) first when they are missing; null when the cache
  // cannot be written and holds nothing.
  std::unique_ptr<TableSet> open_cache() {
    const int stones = request_stones(request_);
    want_ = request_.cache_layers >= 0 ? request_.cache_layers : start_cache_layers(rules_, stones);
    want_ = std::min(want_, stones);
    // Refuse before building what the search would then refuse.
    if (!request_.cache_root.empty())
      cache_dir_ = start_cache_dir(request_.cache_root, rules_);
    refuse_up_front(request_,
                    want_,
                    cache_note(cache_dir_,
                               want_,
                               true,
                               request_.cache_layers >= 0 ? "the size asked for"
                                                          : "its default size for this board"));
    if (request_.cache_root.empty()) {
      report_.notes.push_back(
          "no cache directory (SOWDB_CACHE_DIR, XDG_CACHE_HOME and HOME "
          "are unset): searching without tables");
      return nullptr;
    }
    report_.source = TablesSource::kCache;
    report_.tables = cache_dir_.string();
    have_ = contiguous_top(layer_numbers(cache_dir_));
    std::string why;
    if (have_ < want_ && !writable(cache_dir_, why))
      return unwritable_cache(why);
    if (have_ < want_)
      build(cache_dir_, want_, "new layers");
    try {
      return open_search_tables(cache_dir_);
    } catch (const gen::InvalidRequest&) {
      throw;
    } catch (const std::exception& e) {
      // A damaged manifest or header, or a manifest not written yet by a concurrent build:
      // the build checks and repairs (waiting for the other writer), then it opens.
      if (!writable(cache_dir_, why))
        throw;
      repaired_ = true;
      build(cache_dir_, std::max(want_, have_), e.what());
      return open_search_tables(cache_dir_);
    }
  }

  // The cache cannot be written: search over the layers it holds, or without tables (a small
  // board is solved in memory), and say so.
  std::unique_ptr<TableSet> unwritable_cache(const std::string& why) {
    cache_unwritable_ = true;
    std::unique_ptr<TableSet> t;
    if (have_ >= 0) {
      try {
        t = open_search_tables(cache_dir_);
      } catch (const std::exception&) {
        t.reset();
      }
    }
    const int max = t ? t->max_stones() : -1;
    try {
      refuse_up_front(request_, max, cache_note(cache_dir_, max, false, ""));
    } catch (const gen::InvalidRequest& e) {
      throw gen::InvalidRequest(std::string(e.what()) + "; and the cache cannot be built: " + why);
    }
    if (!t) {
      report_.source = TablesSource::kNone;
      report_.tables.clear();
    }
    report_.notes.push_back(why + ": the cache cannot be built, so " +
                            (t ? "the search probes the layers it holds, 0.." + std::to_string(max)
                               : std::string("the search runs in memory without tables")));
    return t;
  }

  // Builds (or checks and repairs) layers 0..want of the cache, waiting while another process
  // writes it.
  void build(const fs::path& dir, int want, const std::string& reason) {
    const auto start = Clock::now();
    CacheBuild plan;
    plan.dir = dir;
    plan.have = reason == "new layers" ? have_ : -1;
    plan.want = want;
    plan.reason = reason;
    for (int n = plan.have + 1; n <= want; ++n)
      plan.positions += layer_size(rules_.pits(), n);
    if (events_.on_build)
      events_.on_build(plan);
    gen::GenerateOptions options;
    options.variant = cache_label(dir, request_.variant);
    // A concurrent solve for another seed count may label the cache first (after the read
    // above): keep its label rather than refuse.
    options.keep_label = true;
    options.max_stones = want;
    options.out = dir;
    // Every value stored (format version 2): the search looks each up with one load, where a
    // recompute entry costs a move generation and a lookup per child (Kalah(6,4) value only
    // over 0..20: 0.89x the time); the files take 18% more disk, no more time to build.
    options.recompute = false;
    options.on_progress = events_.on_build_progress;
    // A stop during the build throws gen::Stopped (the layers built so far stay in the cache).
    options.stop = request_.stop;
    options.on_rebuild = [this](int n, const std::string& why) {
      report_.repaired_layers.push_back(n);
      if (events_.on_rebuild)
        events_.on_rebuild(n, why);
    };
    options.on_layer = [this](const gen::LayerReport& r) {
      if (!r.reused)
        ++report_.layers_built;
      if (events_.on_layer)
        events_.on_layer(r);
    };
    for (;;) {
      try {
        gen::generate(options);
        break;
      } catch (const gen::DirectoryBusy& e) {
        // Another sowdb builds the same cache: wait for it, then reuse what it wrote.
        if (events_.on_wait)
          events_.on_wait(e.what());
        gen::wait_for_directory(dir);
      }
    }
    report_.tables_built = report_.tables_built || report_.layers_built > 0;
    report_.build_seconds += since(start);
  }

  void search(const TableSet* tables, int bits) {
    const auto start = Clock::now();
    gen::SolveStartOptions options;
    options.tables = tables;
    options.worths = request_.worths;
    options.table_bits = bits;
    options.progress = events_.on_search_progress;
    const bool limited = request_.time_limit > 0;
    // A search with a time limit proves the value before the worths, so that stopping at the
    // limit leaves the value if not every worth; without one, every worth alone is cheaper.
    options.value_first = limited;
    const auto deadline =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(limited ? request_.time_limit : 0.0));
    const std::function<bool()> stop = request_.stop;
    if (limited || stop) {
      options.stop = [=] { return (limited && Clock::now() >= deadline) || (stop && stop()); };
    }
    std::unique_ptr<SolveCheckpoint> checkpoint = open_checkpoint(tables, options);
    report_.solution = request_.position ? gen::solve_position(rules_, *request_.position, options)
                                         : gen::solve_start(request_.variant, options);
    if (checkpoint) {
      // The last checkpoint: the answer, whole or (stopped) as far as it was proved.
      checkpoint->write(report_.solution);
      report_.checkpoint->writes = checkpoint->writes();
      report_.checkpoint->kept = checkpoint->kept();
      report_.checkpoint->positions = report_.solution.seeded;
    }
    // Kept in the store; the report's reader has no use for a million positions.
    report_.solution.proved = {};
    report_.outcome = decided_outcome(request_, report_.solution);
    report_.search_seconds = since(start);
    if (!report_.solution.complete)
      report_.stopped_by =
          limited && Clock::now() >= deadline ? std::string("time_limit") : request_.stop_name;
  }

  // The proof store's checkpoint of this search (StartSolveRequest::checkpoint), its bounds
  // read into `options`; null when none is kept.
  std::unique_ptr<SolveCheckpoint> open_checkpoint(const TableSet* tables,
                                                   gen::SolveStartOptions& options) {
    report_.checkpoint.reset();
    const int stones = request_stones(request_);
    // The Oware family's search starts from no known bound; complete tables need no search.
    if (!request_.checkpoint || rules_.family == Family::kOware ||
        (tables && tables->max_stones() >= stones) || stones > 127)
      return nullptr;
    if (request_.cache_root.empty()) {
      report_.notes.push_back("no cache directory: no checkpoint of the search is kept");
      return nullptr;
    }
    const Pits position = request_.position ? *request_.position : request_.variant.start();
    // When the cache cannot be written a note says so already; the store beside it fails the
    // same way, and a second note would say nothing new.
    std::vector<std::string> store_notes;
    auto c = std::make_unique<SolveCheckpoint>(
        request_.cache_root, rules_, position, stones, request_.checkpoint_seconds, store_notes);
    if (!cache_unwritable_)
      report_.notes.insert(report_.notes.end(), store_notes.begin(), store_notes.end());
    if (!c->usable())
      return nullptr;
    report_.checkpoint = c->resume(options, report_.notes);
    options.keep_positions = keep_positions(c->capacity_records());
    if ((report_.checkpoint->resumed || report_.checkpoint->positions > 0) && events_.on_resume)
      events_.on_resume(*report_.checkpoint);
    options.checkpoint_seconds = request_.checkpoint_seconds;
    options.checkpoint = [this, c = c.get()](const gen::StartSolution& s) {
      c->write(s);
      report_.checkpoint->writes = c->writes();
      report_.checkpoint->kept = c->kept();
      if (events_.on_checkpoint)
        events_.on_checkpoint(*report_.checkpoint, s);
    };
    return c;
  }

  const StartSolveRequest& request_;
  const StartSolveEvents& events_;
  const RuleSet rules_;
  StartSolveReport report_;
  fs::path cache_dir_;
  int want_ = -1;
  int have_ = -1;
  bool repaired_ = false;
  bool cache_unwritable_ = false;  // said so in a note: the proof store beside it is no better
};

}  // namespace

fs::path start_cache_root() {
  if (const char* d = std::getenv("SOWDB_CACHE_DIR"); d && *d)
    return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return fs::path(x) / "sowdb";
  if (const char* h = std::getenv("HOME"); h && *h)
    return fs::path(h) / ".cache" / "sowdb";
  return {};
}

fs::path start_cache_dir(const fs::path& root, const RuleSet& rules) {
  std::string name;
  for (const char c : describe(rules)) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '=' || c == '-')
      name.push_back(c);
    else if (!name.empty() && name.back() != '_')
      name.push_back('_');
  }
  return root / name;
}

int start_cache_layers(const RuleSet& rules, int stones) {
  long double total = 0;
  int last = -1;
  for (int n = 0; n <= std::min(stones, kMaxIndexedStones); ++n) {
    // The sum stays far below 2^64: it stops at the first layer past kStartCachePositions.
    total += static_cast<long double>(layer_size(rules.pits(), n));
    if (total > kStartCachePositions)
      break;
    last = n;
  }
  return last;
}

int start_hash_default_mib(int stones, int tables_max, bool worths) {
  return !worths && stones <= tables_max + kSmallHashReach ? kSmallHashMib : kHashMib;
}

int start_hash_bits(int mib) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(mib > 0 ? mib : kHashMib) << 20;
  return std::max(2, static_cast<int>(std::bit_width(bytes / 8)) - 1);
}

const char* to_string(TablesSource source) noexcept {
  switch (source) {
    case TablesSource::kGiven:
      return "given";
    case TablesSource::kCache:
      return "cache";
    case TablesSource::kNone:
      break;
  }
  return "none";
}

StartSolveReport solve_start_position(const StartSolveRequest& request,
                                      const StartSolveEvents& events) {
  // The request's thread count holds for the cache build and the search alike, and for this
  // call only: the arena is its own.
  return gen::run_with_threads(request.threads, [&] { return StartSolver(request, events).run(); });
}

}  // namespace sowdb
