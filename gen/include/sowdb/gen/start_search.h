// Solving a game from its start position: by complete tables, or by a search that probes the
// tables it has at every position whose seed count they cover.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sowdb/gen/generate.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb::gen {

/// A move of the start position (or, after an extra turn, of the position it leads to) with its
/// worth under perfect play.
/// The refusal of a start position that only complete tables can answer: an Oware-family start
/// (its positions can repeat), a start of more seeds than a search can hold, or a co-operative
/// start too large to solve in memory. The message states the cause; `variant`, `stones` and
/// `objective` say which tables would answer (layers 0..stones of variant), so that a front end
/// can tell its user how to build them.
struct NeedsCompleteTables : InvalidRequest {
  NeedsCompleteTables(const std::string& what, Variant v, int n, Objective o)
      : InvalidRequest(what), variant(std::move(v)), stones(n), objective(o) {}
  Variant variant;
  int stones;
  Objective objective;
};

/// Bounds on a position's value that a search proved (an entry of its transposition table that
/// holds to the end of the game): what a checkpoint keeps of the search besides its first moves
/// (StartSolution::proved), and what a later search starts from
/// (SolveStartOptions::known_positions). Added 2026-11-30 (issue 44).
struct ProvedPosition {
  Pits position{};         ///< The mover's pits first (2P of them; the rest 0).
  int lower = 0;           ///< The position's value for its mover is at least this...
  int upper = 0;           ///< ...and at most this.
  std::uint64_t work = 0;  ///< About the positions searched to prove them (a power of two).
};

struct StartMove {
  int pit = 0;              ///< The pit sown, 0..P-1, from the first player's side.
  int gain = 0;             ///< Seeds the move sends to the first player's store.
  bool extra_turn = false;  ///< The first player moves again.
  /// Seeds the first player nets from the start position on, when this move (after the moves
  /// before it, for a continuation) is followed by perfect play on both sides.
  int worth = 0;
  /// Bounds on `worth`, equal to it when it is known; a search stopped early
  /// (SolveStartOptions::stop) may leave them apart, and `worth` is then 0.
  int lower = 0;
  int upper = 0;
  /// After an extra turn: every move of the first player's next turn, with its worth counted
  /// from the start position (Rawlings's table of Kalah(6,6)). Empty otherwise.
  std::vector<StartMove> continuations;
};

/// The solution of a start position.
struct StartSolution {
  Pits start{};    ///< S seeds in each pit, stores empty.
  int stones = 0;  ///< Seeds on the board, 2PS.
  int value = 0;   ///< The first player's net under perfect play (stores count from 0).
  /// The pit of a best first move; -1: none, or not known yet. With every worth, the lowest
  /// among equals; with SolveStartOptions::worths false, the first the search proved best.
  int best = -1;
  /// Every search finished: `value` is exact, and so is every worth unless
  /// SolveStartOptions::worths was false (then [lower, upper] of a move bounds it). When the
  /// search was stopped,
  /// [lower, upper] is what was proved of the value, and `value` is 0 unless they meet.
  bool complete = true;
  int lower = 0;                 ///< The value is at least this (equal to it when complete)...
  int upper = 0;                 ///< ...and at most this.
  std::vector<StartMove> moves;  ///< Every legal first move, in pit order.
  bool by_tables = false;        ///< Every answer came from the tables (nothing searched).
  std::uint64_t nodes = 0;       ///< Positions the search expanded (0 with complete tables).
  int tables_max = -1;           ///< The largest layer of the tables used; -1: none.
  std::size_t table_bytes = 0;   ///< Bytes of the transposition table; 0: nothing searched.
  /// Bytes of the tables' values read whole before the search (SolveStartOptions::preload_limit);
  /// 0: none, the search probed the tables.
  std::uint64_t preloaded_bytes = 0;
  double preload_seconds = 0;  ///< The time that reading took.
  /// The pits of a line of proved best moves from the start (SolveStartOptions::line_plies of
  /// them at most): each move's worth equals the value of the position it is played in, as
  /// proved by the search, the tables or the end of the game. It stops at a position the tables
  /// hold (their own line goes on from there), at the end of the game, or where nothing proved
  /// says which move is best. Empty unless the value is exact.
  std::vector<int> line;
  /// The costliest proved bounds of the search's transposition table
  /// (SolveStartOptions::keep_positions of them at most, costliest first); empty unless asked.
  std::vector<ProvedPosition> proved;
  /// Positions of SolveStartOptions::known_positions put into the transposition table.
  std::size_t seeded = 0;
};

/// What a search is doing (SolveProgress::phase).
enum class SolvePhase {
  kDeepening,  ///< Iterative deepening of the start (SolveStartOptions::deepening).
  kValue,      ///< MTD(f) on the start position: its value.
  kMoves,      ///< From the value, which moves reach it (bounds on every move).
  kWorths,     ///< Every move's and continuation's exact worth.
};

/// Where a search stands, for progress reports.
struct SolveProgress {
  std::uint64_t nodes = 0;  ///< Positions expanded so far, all threads.
  int done = 0;             ///< Searches finished (one per first move and continuation).
  int total = 0;            ///< Searches in all.
  int lower = 0;            ///< The start's value is proved to be at least this...
  int upper = 0;            ///< ...and at most this.
  /// What the search is doing (fields below added 2026-11-25, issue 34).
  SolvePhase phase = SolvePhase::kValue;
  /// The start's value is being tested against this ("at least beta?"); 0 outside kValue.
  int beta = 0;
};

/// The default bound on the tables read whole before a search (SolveStartOptions::preload_limit):
/// 600 MB, layers 0..22 of 6-pit boards (548 M positions). Kalah(6,4) over 0..20 (226 MB) read
/// nearly every block during the search anyway; deeper tables leave a search that touches few
/// of theirs (decision 0012).
inline constexpr std::uint64_t kPreloadBytes = 600'000'000;

/// SolveStartOptions::share_above's default: the seeds above the tables' top layer from which
/// the threads of a search share the moves of a node (measured in docs/BENCHMARKS.md).
inline constexpr int kShareAbove = 8;

class TableValues;

/// Whether a search over `tables` with SolveStartOptions::preload_limit `limit` reads their
/// values whole (before it, or beside it with preload_delay): for a caller sizing the block
/// caches it opens the tables with. Thread safe. Added 2026-11-29 (issue 41).
bool preload_reads(const TableSet& tables, std::int64_t limit = -1);

/// The bytes the values of `tables` take read whole (one a position of layers
/// 0..max_stones()): what preload_reads weighs against its bound. Thread safe.
std::uint64_t preload_bytes(const TableSet& tables);

class BackgroundValues;

/// The values of a table set read whole once, for many searches over it
/// (SolveStartOptions::preloaded): an opening book's hundreds of positions, where reading them
/// for each search would cost more than most of the searches; a server's or a Python session's
/// searches (read_beside).
/// THREAD SAFETY immutable once read (read_beside: layers appear as they are read): any number
/// of searches may use it at once.
class PreloadedValues {
 public:
  /// Reads the values of every layer of `tables` when they take at most `limit` bytes (as
  /// SolveStartOptions::preload_limit: -1 for its default bound, 0: never); null otherwise.
  /// ERRORS std::runtime_error naming the layer file when a layer does not read;
  /// std::bad_alloc.
  static std::shared_ptr<const PreloadedValues> read(const TableSet& tables,
                                                     std::int64_t limit = -1);
  /// Starts reading the values of every layer of `tables` (not null) in a thread of its own,
  /// the top layer first, when they take at most `limit` bytes (as read); null otherwise.
  /// Searches given the result use each layer as soon as it is read, and the tables' block
  /// caches before: no search waits for the reading. The result keeps `tables` open; its
  /// destruction stops the reading and waits for the thread. A layer that does not read is left
  /// to the tables, which report the failure as they would without this. ERRORS std::bad_alloc;
  /// std::system_error when no thread can be started. Added 2026-11-29 (issue 41).
  static std::shared_ptr<const PreloadedValues> read_beside(std::shared_ptr<const TableSet> tables,
                                                            std::int64_t limit = -1);
  ~PreloadedValues();
  PreloadedValues(const PreloadedValues&) = delete;
  PreloadedValues& operator=(const PreloadedValues&) = delete;

  /// Bytes held (read_beside: those of the layers read so far).
  std::uint64_t bytes() const;
  /// The time the reading took (read_beside: 0).
  double seconds() const { return seconds_; }
  int max_stones() const { return max_stones_; }  ///< The top layer of the tables.
  const TableValues* values() const;              ///< For the searches.

 private:
  PreloadedValues() = default;
  std::unique_ptr<TableValues> values_;
  double seconds_ = 0;
  int max_stones_ = -1;
  // read_beside's: the tables outlive the thread that reads them (members end in reverse).
  std::shared_ptr<const TableSet> tables_;
  std::unique_ptr<BackgroundValues> background_;
};

/// Bounds proved beforehand on the worth of a first move, or of a continuation after its extra
/// turn (SolveStartOptions::known_worths), counted as StartMove::worth is: from the position
/// solved on, for its mover. Added 2026-11-29 (issue 44).
struct KnownWorth {
  int pit = 0;            ///< The first move's pit.
  int continuation = -1;  ///< The continuation's pit after the move's extra turn; -1: the move.
  int lower = -kMaxBoardStones - 1;  ///< The worth is at least this...
  int upper = kMaxBoardStones + 1;   ///< ...and at most this.
};

/// The least work (positions searched) of a bound that StartSolution::proved carries: proving a
/// cheaper one again costs less than keeping it. WHY 256: Kalah(4,4) stopped half way kept 877
/// positions, which saved 54.6 K of the 110.6 K positions searched; 16 kept 13,031 (15x) to save
/// 63.8 K (tests/gen/solve_resume_test.cpp's search, 2026-11-30).
inline constexpr std::uint64_t kKeepLeastWork = 256;

/// Options of `solve_start`.
struct SolveStartOptions {
  /// Tables of the variant's rules, probed at every position of at most max_stones() seeds; when
  /// they cover the start (2PS <= max_stones()) the answer comes from them alone. May be null.
  const TableSet* tables = nullptr;
  /// log2 of the transposition table's entries (8 bytes each), one table for all threads;
  /// raised to the least that holds the keys of the board (Kalah(6,8): 22).
  int table_bits = 24;
  /// Called now and then from the threads of the search, one call at a time.
  std::function<void(const SolveProgress&)> progress;
  /// False: find the value and a best move only, by MTD(f) on the start position. A move is
  /// then searched only as far as it takes to show that it is no better than the value (its
  /// worth gets an upper bound), which costs a fraction of its exact worth.
  bool worths = true;
  /// With `worths`: prove the start's value first (MTD(f) on the start, then its tests split
  /// over the first moves), then every worth, so that a search stopped early has the value.
  /// False (the default): straight to every worth, whose exact worths give the value too; the
  /// value's search is mostly work the worths do again (Kalah(6,4) over tables 0..20, one
  /// thread: 98.5 M positions against 104.9 M; `kalah-tournament` over 0..22, two threads:
  /// 110.1 M against 124.3 M; decision 0014). Ignored without `worths`.
  bool value_first = false;
  /// Iterative deepening of the start position before its exact search: MTD(f) searches 3
  /// plies deeper at a time from 5 up to this many, positions at the horizon estimated at 0;
  /// 0 (the default): straight to the end. Deepening to 17 searched 1.1-3.3 times the positions
  /// of the search without it (Kalah(6,3) and (6,4) over tables 0..20, decision 0009).
  int deepening = 0;
  /// The tables' layers are read whole into memory before a search (one byte a position,
  /// recompute entries resolved on use; decision 0012) when they take at most this many bytes;
  /// -1 (the default): kPreloadBytes, or a quarter of the machine's memory if less; 0: never
  /// (every lookup goes through the tables' block cache).
  std::int64_t preload_limit = -1;
  /// 0 (the default): the values preload_limit allows are read before the search. More: the
  /// search starts at once through the tables' block caches, and after this many seconds of it
  /// the values are read in a thread of their own, the top layer first, each used by the search
  /// as soon as it is read; a search that ends sooner reads none. For a search within a budget
  /// of time (`sowdb probe`), where reading the tables first would cost more than the short
  /// searches take, and reading them block by block makes the long ones 3-4x slower (issue 41).
  /// The answer is the same either way. Used by the Kalah-family search only. Added 2026-11-29.
  double preload_delay = 0;
  /// Values read whole beforehand (PreloadedValues::read) of the same tables, shared by many
  /// searches: when set (and of as many layers as `tables`), no search reads its own, and
  /// preload_limit is not used. Added 2026-11-29 (`sowdb book`).
  std::shared_ptr<const PreloadedValues> preloaded;
  /// Asked before each first move's search and now and then during the searches, from their
  /// threads (may be called concurrently); when it
  /// returns true the search stops and solve_start returns the bounds proved so far
  /// (StartSolution::complete false). May be empty.
  std::function<bool()> stop;
  /// The longest StartSolution::line to read from what the search proved (no search is made
  /// for it); 0: none.
  int line_plies = 0;
  /// Bounds on the position's value proved beforehand (a proof store's record, for the player
  /// to move): the search starts from them and, when they meet, skips the value's own search
  /// (MTD(f) on the position) and goes on to the moves. Wrong bounds give wrong answers: pass
  /// only proved ones. Default: nothing known. Used by the Kalah-family search only.
  int known_lower = -kMaxBoardStones - 1;
  int known_upper = kMaxBoardStones + 1;
  /// Bounds on first moves' and continuations' worths proved beforehand (a checkpoint in the
  /// proof store, issue 44): each search of a move (or continuation) starts from them, so a
  /// proved half is not searched again and an exact worth not at all; a bound on a move that
  /// has continuations bounds each of them above and the move in the answer. Entries of pits
  /// that are no legal move are ignored. Wrong bounds give wrong answers: pass only proved
  /// ones; bounds of one move (or continuation) that do not intersect are refused
  /// (InvalidRequest). Used by the Kalah-family search only. Added 2026-11-29.
  std::vector<KnownWorth> known_worths;
  /// Bounds proved beforehand on positions the search may meet (a proof store's records, a
  /// checkpoint's StartSolution::proved): they go into the transposition table before the
  /// search, the costliest first and at most a quarter of its entries, so that a search stopped
  /// and started again does not prove again what it had proved. Positions of another board, of
  /// more seeds than the position solved or of at most the tables' seeds are ignored. Wrong
  /// bounds give wrong answers: pass only proved ones. Used by the Kalah-family search only.
  /// Added 2026-11-30 (issue 44).
  std::vector<ProvedPosition> known_positions;
  /// The StartSolution solve_start returns when stopped (not complete), and those given to
  /// `checkpoint` (as often as a tenth of the search's time allows: gathering them reads the
  /// whole table), carry in
  /// StartSolution::proved up to this many of the costliest bounds the transposition table
  /// holds (of positions whose proof took at least kKeepLeastWork positions); 0 (the default):
  /// none. Used by the Kalah-family search only. Added 2026-11-30 (issue 44).
  std::size_t keep_positions = 0;
  /// Called with what the search has proved so far, at most once every checkpoint_seconds,
  /// from one of the search's threads, one call at a time, while the search waits: the
  /// StartSolution solve_start would return if it were stopped then (complete false; `line`
  /// empty), every bound in it proved. For a checkpoint that survives a stop (`sowdb solve`
  /// keeps it in the proof store); the final answer is the caller's to keep. Never called when
  /// the tables answer without a search, nor by the Oware family's search. May be empty.
  /// Added 2026-11-29 (issue 44).
  std::function<void(const StartSolution&)> checkpoint;
  /// Seconds between calls of `checkpoint`, counted from the start of the search; 0 (the
  /// default) or less: never called.
  double checkpoint_seconds = 0;
  /// With more than one thread, the threads divide each null-window test between them at the
  /// nodes of at least the tables' max_stones() plus this many seeds (simplified ABDADA: a move
  /// another thread is searching waits for the node's others); below, a node's subtree is too
  /// small to be worth the shared marks. -1 (the default): kShareAbove. The answer is the same
  /// whatever it is. Used by the Kalah-family search only. Added 2026-11-29 (issue 44).
  int share_above = -1;
};

/// Solves the start position of `variant` (S seeds in each pit): its value for the first player
/// and the worth of every first move and, after an extra turn, of every continuation.
/// The value comes from MTD(f) on the start position (null-window alpha-beta searches to the
/// end of the game, so values are exact) over one transposition table of bounds shared by the
/// threads of the calling thread's oneTBB arena (each runs the same null-window test, the moves
/// of its large nodes shared between them: SolveStartOptions::share_above); each node
/// settles what the tables, the end of the game, the seeds left and the table know of its
/// children before it searches any. Then every move's worth, from the bounds the value's search
/// proved, by MTD(f) on each, the moves spread over the threads, a thread with none left joining
/// one not done (decision 0009). Only the
/// families whose positions never repeat (Kalah, wari-us) are searched. ERRORS throws
/// NeedsCompleteTables (an InvalidRequest, generate.h) for an Oware-family variant that the tables
/// do not cover (its positions can repeat: a search cannot prove a value there) or a search of
/// more than 127 seeds; InvalidRequest for tables of other rules; std::runtime_error, with the
/// table set's explanation, when a probe fails; std::bad_alloc when the transposition table does
/// not fit. THREAD SAFETY one call at a time per table set is not required: the tables are read
/// only.
StartSolution solve_start(const Variant& variant, const SolveStartOptions& options = {});

/// Solves any position of `rules` as solve_start solves a start: `position` (the mover's pits
/// first, any seed count) in place of the start, StartSolution's "first player" being the mover
/// of `position` and its moves those of the mover (the value and the worths count the seeds
/// netted from `position` on; the stores do not enter). A finished game is answered with its
/// final value and no move. The Oware family, whose positions repeat, is searched by a search
/// of its own that stays sound under repetition (endless play scored as the tables score it,
/// nothing that rests on the search's path kept as a bound; gen/src/cyclic_search.h): its bounds
/// always hold the true value, exact where proved; it gives no `line`. ERRORS as solve_start,
/// with InvalidRequest in place of NeedsCompleteTables (no variant names the tables to build).
/// THREAD SAFETY as solve_start.
StartSolution solve_position(const RuleSet& rules,
                             const Pits& position,
                             const SolveStartOptions& options = {});

}  // namespace sowdb::gen
