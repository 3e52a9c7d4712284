// Solving a game from its start position as a product (`sowdb solve`): where the tables come
// from (a directory given, or tables the library builds once into a per-user cache), the
// start-position search over them (gen::solve_start), and the report with its JSON. Not to be
// confused with the retrograde layer solver (gen/solver.h), which builds the tables.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sowdb/gen/cooperative.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/outcome.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// The root of the per-user table cache: $SOWDB_CACHE_DIR, else $XDG_CACHE_HOME/sowdb, else
/// $HOME/.cache/sowdb. Empty when none of them is set. Thread safe (reads the environment).
std::filesystem::path start_cache_root();

/// The cache directory of one rule set under `root`: one directory per rule set, named after
/// describe(rules), whose tables serve every seed count. Thread safe.
std::filesystem::path start_cache_dir(const std::filesystem::path& root, const RuleSet& rules);

/// The cache policy: the layers 0..L the library builds by itself for a start of `stones` seeds
/// under `rules` (L = stones when that is cheap: complete tables answer without a search).
/// Returns -1 when not even layer 0 is cheap. See kStartCachePositions. Thread safe.
int start_cache_layers(const RuleSet& rules, int stones);

/// The positions (layers 0..L together) the cache may hold for one start: 550 million, layers
/// 0..22 of 6-pit boards (548.4 M positions), 0..42 of 4-pit boards, 0..15 of 8-pit ones.
/// WHY (measured 2026-11-26 on this 2-core machine, Release, decisions 0012 and 0014): a new
/// user's Kalah(6,4) every worth with an empty cache took, over cache 0..20 / 0..21 / 0..22,
/// `kalah-tournament` 106.7 / 86.3 / 69.7 s and `kalah-irving` 53.4 / - / 47.2 s (the build of
/// 0..22 is 25 s of it, 0..20 about 10 s): each layer more halves the search's positions at
/// Kalah(6,4) (266.7 M, 180.9 M, 122.7 M), while it costs 1.5 times the build of the one
/// before. Building 0..22 peaks at 0.7 GB (values stored whole, no recompute entries), and the
/// search reads them whole (548 MB). (Until 2026-11-26: 230 million, layers 0..20; before
/// that 90 M and 300 M.) The cache is kept, so `--cache-layers`
/// (StartSolveRequest::cache_layers) buys a larger one once.
inline constexpr long double kStartCachePositions = 5.5e8L;

/// The transposition table's default size in MiB for a search of `stones` seeds over tables
/// of layers 0..`tables_max` (-1: none), every worth or (`worths` false) the value only:
/// kSmallHashMib for a value-only search of at most kSmallHashReach seeds above its tables,
/// else kHashMib. WHY (measured 2026-11-26, this machine, decision 0014): Kalah(6,4)
/// `kalah-irving` value only over 0..20 expands 8.5 M positions, enough to touch every huge
/// page of a 128 MiB table, and the kernel's zeroing of them took 0.4 s of its 6-7 s; at 32 MiB
/// it expands 3.6% more positions in 0.92x the time. Every worth gains nothing from a larger
/// table than 128 MiB (512 MiB: 1.05x the time, 0.78x the positions), and a longer search
/// (Kalah(6,5)) needs the room. Thread safe.
int start_hash_default_mib(int stones, int tables_max, bool worths);

inline constexpr int kHashMib = 128;
inline constexpr int kSmallHashMib = 32;
inline constexpr int kSmallHashReach = 28;

/// log2 of the transposition table's entries (8 bytes each) for `mib` MiB (0: kHashMib),
/// rounded down to a power of two. Thread safe.
int start_hash_bits(int mib);

/// The default seconds between a solve's checkpoints (StartSolveRequest::checkpoint_seconds).
/// WHY: a checkpoint writes a few records of the proof store (one per position, microseconds),
/// so its cost does not count; what it buys is the work a kill -9 or a crash can lose, at most
/// this much search (a SIGINT or SIGTERM loses none: the last checkpoint is written before the
/// process exits).
inline constexpr double kCheckpointSeconds = 180;

/// Where the tables of a start-position solve came from.
enum class TablesSource {
  kGiven,  ///< A directory the caller named.
  kCache,  ///< The per-user cache (built now or by an earlier run).
  kNone,   ///< No tables: a search from scratch, in memory (the cache could not be written).
};

/// "given", "cache" or "none". Never null.
const char* to_string(TablesSource source) noexcept;

/// What solve_start_position is asked.
struct StartSolveRequest {
  Variant variant;  ///< The game, with S seeds in each pit.
  /// A position to solve in place of the start (added 2026-11-29, issue 41): the mover's pits
  /// first, counter-clockwise, of the variant's board, with any seeds up to kMaxBoardStones in
  /// all. Its value and worths count the seeds netted from it on (gen::solve_position). An
  /// Oware-family position is searched too (its positions repeat, so without complete tables the
  /// answer may stay bounds without a time limit; they always hold the true value). nullopt:
  /// the variant's start.
  std::optional<Pits> position;
  /// Seeds already in the stores of `position` (the mover's, the opponent's), for the game's
  /// result (StartSolveReport::outcome); at most the game's seeds with the board. 0 at the start.
  int store_mover = 0;
  int store_opponent = 0;
  /// Tables of the variant's rules to probe; nullopt: the cache under `cache_root`.
  std::optional<std::filesystem::path> tables;
  /// The cache's root (start_cache_root()); used when `tables` is nullopt. Empty: no cache, the
  /// answer is refused unless a search without tables may give it.
  std::filesystem::path cache_root;
  bool worths = true;  ///< Every first move's worth (false: the value and a best move).
  int hash_mib = 0;    ///< Transposition table in MiB (0: start_hash_default_mib).
  /// Seconds the search may take, counted from the moment the tables are ready: building the
  /// cache is never counted (it cannot be stopped half way and is kept for later runs). 0: none.
  double time_limit = 0;
  /// Asked during the search (from its threads, possibly concurrently): true stops it, and the
  /// report gives the bounds proved so far. Also asked while the cache is built (from the
  /// calling thread, GenerateOptions::stop): true there makes solve_start_position throw
  /// gen::Stopped, the layers written so far kept in the cache. May be empty.
  std::function<bool()> stop;
  /// The word StartSolveReport::stopped_by gives when `stop` stopped the search.
  std::string stop_name = "stopped";
  /// Overrides the cache policy (start_cache_layers) with layers 0..cache_layers, at most
  /// kMaxIndexedStones; -1: the policy. Any other value is refused (gen::InvalidRequest).
  int cache_layers = -1;
  /// Threads of the cache build and the search, for this call only (gen::run_with_threads);
  /// 0: all cores. A negative count is refused (std::invalid_argument).
  int threads = 0;
  /// Keep a checkpoint of the search in the proof store of the rules under `cache_root`
  /// (proof_store.h; added 2026-11-29, issue 44): every `checkpoint_seconds` of search and when
  /// it ends or stops, the bounds proved on the position's value and on every first move's and
  /// continuation's worth (a record of the position, and one of each position an extra turn
  /// leads to); and start from what the store holds of them, so that a stopped search goes on
  /// where it stopped and an answer proved before comes at once. The records are facts of the
  /// game, whichever tables or version of the search proved them, so only the rules key them.
  /// Not for the Oware family, nor when the tables answer alone or there is no cache root.
  /// False (the default): the store is neither read nor written.
  bool checkpoint = false;
  /// Seconds of search between checkpoints; 0: only when the search ends or is stopped. A
  /// negative or non-finite number is refused (gen::InvalidRequest).
  double checkpoint_seconds = kCheckpointSeconds;
};

/// What a solve read from and wrote to the proof store (StartSolveReport::checkpoint).
struct StartCheckpoint {
  std::string store;     ///< The proof store's file.
  double seconds = 0;    ///< StartSolveRequest::checkpoint_seconds.
  bool resumed = false;  ///< The search started from bounds the store held.
  /// The bounds on the value the store held (-stones..stones: none).
  int lower = 0;
  int upper = 0;
  int known = 0;   ///< First moves and continuations whose worth the store bounded.
  int exact = 0;   ///< Of them, those whose worth it held exact.
  int total = 0;   ///< First moves and continuations in all (one search each).
  int writes = 0;  ///< Checkpoints written, during the search and at its end.
  /// Positions the store held bounds on that the search started from (in its transposition
  /// table; gen::SolveStartOptions::known_positions). Added 2026-11-30.
  std::uint64_t positions = 0;
  /// Positions of the search's transposition table the last checkpoint that carried any kept
  /// in the store (gen::StartSolution::proved; not every checkpoint does). Added 2026-11-30.
  std::uint64_t kept = 0;
};

/// What the cache build is about to do, for StartSolveEvents::on_build.
struct CacheBuild {
  std::filesystem::path dir;    ///< The cache directory of the rule set.
  int have = -1;                ///< Layers 0..have already there (-1: none).
  int want = -1;                ///< Layers 0..want to have when done.
  std::uint64_t positions = 0;  ///< Positions of layers have+1..want, to solve.
  std::string reason;           ///< Why: "new layers", or a damaged layer's message.
};

/// Callbacks of solve_start_position, each from the calling thread unless said otherwise; any
/// may be empty.
struct StartSolveEvents {
  /// The cache is about to be built or repaired (the build may then wait for another writer).
  std::function<void(const CacheBuild&)> on_build;
  /// Another process holds the cache's lock: the build waits for it (its lock record, e.g.
  /// "pid 12: sowdb gen kalah/6x4 0..18").
  std::function<void(const std::string&)> on_wait;
  /// gen::GenerateOptions' callbacks during the build.
  std::function<void(int, gen::Phase, double)> on_build_progress;
  std::function<void(const gen::LayerReport&)> on_layer;
  std::function<void(int, const std::string&)> on_rebuild;
  /// The cache build is over (or none was needed); the search is about to start.
  std::function<void()> on_search;
  /// gen::SolveStartOptions::progress: from the search's threads, one call at a time.
  std::function<void(const gen::SolveProgress&)> on_search_progress;
  /// The search starts from bounds the proof store held (StartSolveRequest::checkpoint).
  std::function<void(const StartCheckpoint&)> on_resume;
  /// A checkpoint was written during the search, of these bounds (not called for the last one,
  /// at the end): from the search's threads, one call at a time.
  std::function<void(const StartCheckpoint&, const gen::StartSolution&)> on_checkpoint;
};

/// The answer to a start-position solve with how it was obtained.
struct StartSolveReport {
  Variant variant;              ///< As asked.
  gen::StartSolution solution;  ///< The value, the bounds, every first move.
  /// StartSolveRequest::position as asked (solution.start holds the position solved either way).
  std::optional<Pits> position;
  int store_mover = 0;     ///< As asked.
  int store_opponent = 0;  ///< As asked.
  /// The end of the game with the stores (game_outcome of the value) when the bounds decide the
  /// result: the final score is then that of `lower` unless the value is exact. nullopt: they
  /// do not decide it.
  std::optional<GameOutcome> outcome;
  std::string tables;  ///< The tables' directory; empty with TablesSource::kNone.
  TablesSource source = TablesSource::kNone;
  bool tables_built = false;  ///< This run built (or repaired) layers of the cache.
  int layers_built = 0;       ///< Layers this run solved and wrote into the cache.
  /// The first layer missing above the layers used when the directory holds larger ones (a
  /// gap: the tables are used below it only); -1: no gap.
  int missing_layer = -1;
  /// Layers of the cache this run found damaged and solved again.
  std::vector<int> repaired_layers;
  /// Things the caller should tell the user: a gap, an unwritable cache.
  std::vector<std::string> notes;
  double seconds = 0;         ///< The whole run: build_seconds + search_seconds + the rest.
  double build_seconds = 0;   ///< Building (or checking and repairing) the cache's tables.
  double search_seconds = 0;  ///< Opening the tables and the search (what time_limit bounds).
  double time_limit = 0;      ///< As asked (0: none).
  /// Why an incomplete search stopped: "time_limit", StartSolveRequest::stop_name, or empty
  /// when it is complete.
  std::string stopped_by;
  /// The checkpoint kept in the proof store; nullopt: none (not asked, or no store to keep it
  /// in: then `notes` says why).
  std::optional<StartCheckpoint> checkpoint;
};

/// Solves the start position of request.variant (or request.position). Without `tables`, it builds
/// layers 0..start_cache_layers() of the rule set into the cache (reusing what an earlier run
/// built; waiting while another process writes the same cache; re-checking the cache and solving a
/// damaged layer again when a probe fails on it, once), and solves from an unwritable cache's
/// layers, or without tables, when it cannot write. Every refusal comes before any work.
/// ERRORS throws gen::InvalidRequest for a request it refuses (tables of other rules or of the
/// co-operative objective, unreadable or empty tables, a start of more seeds than a search or the
/// tables can take, an Oware-family start without complete tables, a transposition table over
/// half of the memory); Refused (refusal.h) of kind kBadPosition for a position of more than
/// kMaxBoardStones seeds or with seeds off the board, kBadStores for stores the game cannot hold
/// with the position (or any stores with the start); std::runtime_error for a failure on the way
/// (I/O, full disk, a damaged table that is not the cache's); std::bad_alloc; std::invalid_argument
/// for a negative request.threads. THREAD SAFETY one call at a time per process for the same cache
/// (the lock is per process); calls with different thread counts keep their own.
StartSolveReport solve_start_position(const StartSolveRequest& request,
                                      const StartSolveEvents& events = {});

/// The JSON object of `sowdb solve --json`: variant, rules, seeds_per_pit, stones (on the board
/// solved), position (its pits, mover first; null for the start), stores ([mover, opponent]),
/// result ("win", "draw", "loss" for the mover with the stores; null while the bounds do not
/// decide it), final ([mover, opponent] seeds at the end; null unless the value is proved),
/// decided (a store already holds a majority), value (null unless proved), complete, lower, upper,
/// best, moves (pit, worth, lower, upper, gain, extra_turn, continuations), nodes, seconds (the
/// whole run, building the cache included), build_seconds, search_seconds, method ("tables" or
/// "search"), tables (the directory alone; null without tables), tables_source ("given", "cache",
/// "none"), tables_cache, tables_max_stones, tables_built, layers_built, repaired_layers,
/// tables_missing_layer, hash_mb, tables_preloaded_bytes and preload_seconds (the tables read whole
/// before the search, part of search_seconds; 0: probed), time_limit, stopped_by, notes, and
/// checkpoint (null when none was kept; else seconds, resumed, lower and upper of the value read
/// (null unless resumed), known, exact, total, writes: StartCheckpoint). Thread safe.
nlohmann::json to_json(const StartSolveReport& report);

/// The co-operative answer of a start position (`sowdb solve --objective cooperative`).
struct CooperativeStartReport {
  Variant variant;        ///< As asked.
  gen::ReachStart reach;  ///< Reachable differences, balanced, every first move.
  std::string tables;     ///< The co-operative tables read; empty: solved in memory.
  double seconds = 0;     ///< The whole run.
};

/// Reads the answer from co-operative tables `tables` that cover the start, or (nullopt) solves
/// every layer in memory. ERRORS throws gen::InvalidRequest for tables of the other objective,
/// of other rules or too few layers, and for a board too large to solve in memory;
/// std::runtime_error when a probe fails; std::invalid_argument for a negative `threads`.
/// `threads`: threads of this call (gen::run_with_threads); 0: all cores.
/// THREAD SAFETY any number of calls in parallel, each with its own thread count.
CooperativeStartReport solve_cooperative_start(const Variant& variant,
                                               const std::optional<std::filesystem::path>& tables,
                                               int threads = 0);

/// The JSON object of `sowdb solve --objective cooperative --json`. Thread safe.
nlohmann::json to_json(const CooperativeStartReport& report);

}  // namespace sowdb
