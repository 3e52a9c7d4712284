/* sowdb.h: the C interface of the sowdb probe library (C99; also valid C++).
 *
 * Looks up exact values of mancala positions in a directory of tables written by `sowdb gen`,
 * and brings its own move generator, so a C program needs no rules of its own.
 *
 * Words. A board has P pits per side (the P of "oware/6x4", of `sowdb gen --pits P`) and 2P pits
 * in all. A position is an array of `board_pits` = 2P pit counts (sowdb_board_pits()), mover
 * first, counter-clockwise: entries 0..P-1 are the mover's pits, left to right as the mover sees
 * them; entries P..2P-1 the opponent's. A value is the seeds the mover takes from now on minus
 * the seeds the opponent takes, under perfect play by both (endless play is worth 0). A depth is
 * the number of plies the side that gains needs to realise the value (0 for a value of 0 and
 * for a finished game). Caches are sized in bytes.
 *
 * Which call where. In a search, at every node: sowdb_probe_wdl (win/draw/loss and final score
 * with the stores, one call, no depth read) or sowdb_probe_value_only (the value alone). At the
 * root, once per move chosen: sowdb_best_move, sowdb_probe_moves (every move with its worth and
 * depth) and sowdb_probe_value (value and depth); these read depth blocks, which cost more.
 *
 * Errors. Every function returns a status and never aborts: C++ exceptions do not cross this
 * interface. On failure, sowdb_last_error() gives a one-line message that states the cause (it
 * never names a command-line flag).
 *
 * Stability. The numbers of sowdb_status are stable: a number never changes its meaning and new
 * statuses are only added after the last one, so a caller may store or compare them. Options
 * structs carry their own size (struct_size), so a newer library reads an older caller's struct
 * safely. Calls marked DEPRECATED keep working until the date they give.
 *
 * Link with -lsowdb_probe -lsowdb_format -lzstd -lstdc++ (or `pkg-config --libs sowdb`, or
 * CMake's sowdb::probe).
 */
#ifndef SOWDB_PROBE_SOWDB_H_
#define SOWDB_PROBE_SOWDB_H_

#include <stdint.h>

#include "sowdb/probe/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most pits a board has, 2P with P at most 8: the size of every position array. */
#define SOWDB_MAX_PITS 16

/** SOWDB_DEPRECATED(text): marks a call kept for a while. Standard attributes only (C++14, C23):
 *  a C99 or C11 compiler gets no warning; the header's comments and CHANGELOG.md give the date.
 *  Define SOWDB_NO_DEPRECATION_WARNINGS to silence them. */
#if defined(SOWDB_NO_DEPRECATION_WARNINGS)
#define SOWDB_DEPRECATED(text)
#elif defined(__cplusplus) && __cplusplus >= 201402L
#define SOWDB_DEPRECATED(text) [[deprecated(text)]]
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 202311L
#define SOWDB_DEPRECATED(text) [[deprecated(text)]]
#else
#define SOWDB_DEPRECATED(text)
#endif

/** Result of every call. STABLE: these numbers keep their meaning in every later version; new
 *  statuses are added after the last. */
typedef enum sowdb_status {
  SOWDB_OK = 0,                   /**< Success. */
  SOWDB_ERR_ARGUMENT = 1,         /**< A null pointer, a too small buffer, a pit out of range,
                                       or stores the game cannot hold (sowdb_game_outcome). */
  SOWDB_ERR_BAD_POSITION = 2,     /**< board_pits is not sowdb_pits(), or more than 255 seeds. */
  SOWDB_ERR_TOO_MANY_STONES = 3,  /**< More seeds than the tables hold (sowdb_max_stones()). */
  SOWDB_ERR_MISSING_TABLE = 4,    /**< A table file needed for the answer is missing. */
  SOWDB_ERR_CORRUPT_TABLE = 5,    /**< A table file failed a check or a read. */
  SOWDB_ERR_OPEN = 6,             /**< sowdb_open: no usable table directory. */
  SOWDB_ERR_GAME_OVER = 7,        /**< The position has no legal move: the game is over. */
  SOWDB_ERR_ILLEGAL_MOVE = 8,     /**< sowdb_play: the pit is not a legal move. */
  SOWDB_ERR_INTERNAL = 9,         /**< Out of memory or an unexpected failure. */
  SOWDB_ERR_WRONG_OBJECTIVE = 10, /**< A competitive query on co-operative tables, or the
                                       reverse (sowdb_objective()). */
  SOWDB_ERR_UNREACHABLE = 11      /**< sowdb_cooperative_line: no joint line reaches the
                                       difference asked for. */
} sowdb_status;

/** An open table directory. Opaque; create with sowdb_open, free with sowdb_close. */
typedef struct sowdb_tables sowdb_tables;

/** One legal move with its worth. */
typedef struct sowdb_move_worth {
  int32_t pit;        /**< The mover's pit sown, 0..P-1. */
  int32_t worth;      /**< Seeds the mover nets from here on by playing it, perfect play after. */
  int32_t gain;       /**< Seeds the move itself sends to the mover's store. */
  int32_t depth;      /**< Plies to realise the worth after the move (0 if the move gains). */
  int32_t extra_turn; /**< 1: the same player moves again (Kalah family); else 0. */
  uint8_t child[SOWDB_MAX_PITS]; /**< The resulting position, from the next mover's side;
                                      entries beyond sowdb_board_pits() are 0. */
} sowdb_move_worth;

/** The default block cache of each layer in bytes (sowdb_open_options.cache_bytes): 64 KiB,
 *  eight depth blocks of the generator's 4096 entries. */
#define SOWDB_DEFAULT_CACHE_BYTES 65536u

/** How to open a table directory. Fill it with sowdb_open_options_init(), then set what you
 *  need. Fields are only ever added at the end; struct_size tells the library which ones the
 *  caller knows (a field past it takes its default). */
typedef struct sowdb_open_options {
  /** sizeof(sowdb_open_options) as the caller was compiled; set by sowdb_open_options_init. */
  uint32_t struct_size;
  /** Nonzero: depth blocks get a cache of their own of depth_cache_bytes, and cache_bytes
   *  counts value blocks only: for a caller that probes values again and again but reads each
   *  depth once. Default 0: one cache for both. */
  int32_t separate_depth_cache;
  /** Bytes of decoded blocks kept per layer: a value block costs 1 byte per entry, a depth
   *  block 2, and a shared cache counts each block at 2 (plus about 100 bytes of bookkeeping a
   *  block, not counted). Default SOWDB_DEFAULT_CACHE_BYTES; 0 keeps none, so every probe
   *  decodes. A layer whose blocks all fit (3 bytes per position) is read without a lock: what
   *  an engine probing from many threads wants. */
  uint64_t cache_bytes;
  /** See separate_depth_cache. Default 0 (each thread still keeps the last depth block it
   *  read). */
  uint64_t depth_cache_bytes;
  /** Nonzero: map version 6 layer files read-only, and copy each probe's bytes out of the
   *  mapping (no system call a probe). Default 0: each probe reads its bytes with pread, and a
   *  file cut short while the handle is open makes the probes that need the lost bytes fail
   *  with SOWDB_ERR_CORRUPT_TABLE. With mapping on, such a file ends the process with SIGBUS:
   *  the library installs no signal handler (docs/LIBRARY.md). Older format versions are always
   *  read with pread. */
  int32_t memory_map;
} sowdb_open_options;

/** Sets every field of `options` to its default and struct_size to sizeof *options. A null
 *  pointer is ignored. NOTES thread safe. */
void sowdb_open_options_init(sowdb_open_options* options);

/** Opens the table directory `dir`. Layer files are opened when first needed.
 *  PARAMETERS dir: a directory written by `sowdb gen`; options: NULL for the defaults, else
 *    filled by sowdb_open_options_init first; out: receives the handle.
 *  RETURN SOWDB_OK and *out set; SOWDB_ERR_OPEN (directory missing, no tables, tables of
 *    different rule sets: see sowdb_last_error()) and *out = NULL; SOWDB_ERR_ARGUMENT for a null
 *    pointer or an options struct whose struct_size is smaller than its first two fields.
 *  NOTES thread safe. Replaces the two-argument sowdb_open and sowdb_open_with_cache,
 *    sowdb_open_with_caches and sowdb_open_opts (CHANGELOG.md, "Unreleased"). */
sowdb_status sowdb_open(const char* dir, const sowdb_open_options* options, sowdb_tables** out);

/** The library's version, "MAJOR.MINOR.PATCH" (SOWDB_VERSION_STRING of the headers it was built
 *  with; compare it with the macro to catch headers and library of different versions).
 *  Never NULL. NOTES thread safe. */
const char* sowdb_version(void);

/** Frees a handle from sowdb_open. NULL is ignored. NOTES not while other threads use it. */
void sowdb_close(sowdb_tables* tables);

/** The message of the last call that failed in the calling thread ("" if none). The text stays
 *  valid until the next failing call in this thread. NOTES thread safe (per-thread storage). */
const char* sowdb_last_error(void);

/** The name of a status, e.g. "SOWDB_ERR_TOO_MANY_STONES". Never NULL. Thread safe. */
const char* sowdb_status_name(sowdb_status status);

/** Pits on the board, 2P: the length of every position array. 0 for a NULL handle. */
int32_t sowdb_board_pits(const sowdb_tables* tables);

/** Pits per side, P (the pits a mover may sow: 0..P-1). 0 for a NULL handle. */
int32_t sowdb_pits_per_side(const sowdb_tables* tables);

/** DEPRECATED (2026-11-25; removed before 1.0): sowdb_board_pits, whose name says 2P. */
SOWDB_DEPRECATED("use sowdb_board_pits (2P) or sowdb_pits_per_side (P)")
int32_t sowdb_pits(const sowdb_tables* tables);

/** The largest seed count n such that every layer 0..n is present. -1 for a NULL handle. */
int32_t sowdb_max_stones(const sowdb_tables* tables);

/** Seeds per pit of the variant's start position (e.g. 4 for oware/6x4). 0 for NULL. */
int32_t sowdb_seeds_per_pit(const sowdb_tables* tables);

/** The variant's canonical name, e.g. "oware/6x4" or "kalah/4x3". Valid as long as the handle;
 *  "" for NULL. Thread safe. */
const char* sowdb_variant_name(const sowdb_tables* tables);

/** The value of a position.
 *  PARAMETERS pits, board_pits: the position (board_pits == sowdb_board_pits()); value, depth:
 * outputs (depth may be NULL). RETURN SOWDB_OK, or SOWDB_ERR_ARGUMENT, _BAD_POSITION,
 * _TOO_MANY_STONES, _MISSING_TABLE, _CORRUPT_TABLE; outputs are written only on SOWDB_OK. NOTES
 * thread safe: any number of threads may probe one handle at once. For the root (it reads a depth
 * block; a search wants sowdb_probe_wdl or sowdb_probe_value_only). */
sowdb_status sowdb_probe_value(const sowdb_tables* tables,
                               const uint8_t* pits,
                               int32_t board_pits,
                               int32_t* value,
                               int32_t* depth);

/** The value of a position without its depth, for engines: the same value as
 *  sowdb_probe_value, but the tables' depth streams are never read or decoded, so a probe that
 *  misses the cache decodes only value blocks (one, or for a recomputed value up to 1 + P).
 *  PARAMETERS pits, board_pits: the position (board_pits == sowdb_board_pits()); value: output.
 *  RETURN as sowdb_probe_value; *value is written only on SOWDB_OK.
 *  NOTES thread safe: any number of threads may probe one handle at once. For search. */
sowdb_status sowdb_probe_value_only(const sowdb_tables* tables,
                                    const uint8_t* pits,
                                    int32_t board_pits,
                                    int32_t* value);

/** Every legal move of a position with its worth, in pit order.
 *  PARAMETERS out: room for `capacity` moves (P always suffices; 8 for every board);
 *    count: receives the number of legal moves (0: the game is over).
 *  RETURN as sowdb_probe_value; SOWDB_ERR_ARGUMENT when capacity is too small (*count is then
 *    the number needed).
 *  NOTES thread safe. For the root (each move's depth is read). */
sowdb_status sowdb_probe_moves(const sowdb_tables* tables,
                               const uint8_t* pits,
                               int32_t board_pits,
                               sowdb_move_worth* out,
                               int32_t capacity,
                               int32_t* count);

/** The best move: the highest worth; among equals, with v the position's value, the quickest
 *  win (v > 0), the longest defence (v < 0), or (v == 0) a move that gains seeds, else the
 *  smallest depth; then the lowest pit. Following best moves, play always progresses.
 *  RETURN as sowdb_probe_value, plus SOWDB_ERR_GAME_OVER when there is no legal move.
 *  NOTES thread safe. For the root: the move to play. */
sowdb_status sowdb_best_move(const sowdb_tables* tables,
                             const uint8_t* pits,
                             int32_t board_pits,
                             sowdb_move_worth* out);

/** Plays the mover's pit `pit` under the tables' rules. Needs no table file.
 *  PARAMETERS child: receives board_pits entries, the resulting position from the side of the
 * player to move next; gain, extra_turn: seeds sent to the mover's store and whether the same
 *    player moves again (either may be NULL).
 *  RETURN SOWDB_OK; SOWDB_ERR_ILLEGAL_MOVE when pit is not a legal move (an empty pit, a pit
 *    out of range, a move the rules forbid); SOWDB_ERR_GAME_OVER when no move is legal;
 *    SOWDB_ERR_ARGUMENT, SOWDB_ERR_BAD_POSITION.
 *  NOTES thread safe. */
sowdb_status sowdb_play(const sowdb_tables* tables,
                        const uint8_t* pits,
                        int32_t board_pits,
                        int32_t pit,
                        uint8_t* child,
                        int32_t* gain,
                        int32_t* extra_turn);

/** The end of a game under perfect play (sowdb_game_outcome), from the mover's side. */
typedef struct sowdb_outcome {
  int32_t total_seeds; /**< Seeds in the game: 2PS (sowdb_board_pits() x sowdb_seeds_per_pit()), or
                            the seeds on the board for a position of a layer above that. */
  double final_mover;  /**< The mover's final seeds, store_mover + (stones + value) / 2: a
                            whole number, or a half when endless play splits an odd number. */
  double final_opponent; /**< The opponent's, store_opponent + (stones - value) / 2. */
  int32_t result;        /**< 1: the mover wins; 0: a draw; -1: the mover loses. */
  int32_t decided;       /**< 1: a store already holds more than half of total_seeds (Oware
                              family), which decides the game whatever the value (result says
                              whose store); else 0. */
} sowdb_outcome;

/** The outcome of the game in progress at a position of the tables' variant: the final score
 *  under perfect play, whether a store's majority has already decided the game, and win, draw
 *  or loss for the mover. What `sowdb probe --stores A,B` reports. Needs no table file.
 *  PARAMETERS value: the position's value (sowdb_probe_value), in [-stones, stones];
 *    store_mover, store_opponent: seeds already in the stores (>= 0); stones: seeds on the
 *    board (0..255); out: receives the outcome.
 *  RETURN SOWDB_OK; SOWDB_ERR_ARGUMENT when store_mover + store_opponent + stones exceeds the
 *    seeds of the game, 2PS (or, for a position of more than 2PS seeds, stones: its stores are
 *    empty), with sowdb_last_error() naming the limit; also for a negative store, stones outside
 *    0..255, |value| > stones or a null pointer. *out is written only on SOWDB_OK. Stores that
 *    hold fewer seeds than the game (0 and 0 mid-game) are accepted: the final scores then add
 *    up to less than total_seeds, but their difference, result and decided are right.
 *  NOTES thread safe. */
sowdb_status sowdb_game_outcome(const sowdb_tables* tables,
                                int32_t value,
                                int32_t store_mover,
                                int32_t store_opponent,
                                int32_t stones,
                                sowdb_outcome* out);

/** Win, draw or loss for the mover (sowdb_wdl.result, sowdb_outcome.result). STABLE. */
#define SOWDB_LOSS (-1)
#define SOWDB_DRAW 0
#define SOWDB_WIN 1

/** The answer of sowdb_probe_wdl: the game's end under perfect play, from the mover's side. */
typedef struct sowdb_wdl {
  int32_t result;            /**< SOWDB_WIN, SOWDB_DRAW or SOWDB_LOSS. */
  int32_t value;             /**< The position's value (as sowdb_probe_value_only). */
  int32_t final_mover_x2;    /**< Twice the mover's final seeds, store_mover x 2 + stones +
                                  value: twice, so that a half (endless play splitting an odd
                                  number of seeds) stays a whole number. */
  int32_t final_opponent_x2; /**< Twice the opponent's, store_opponent x 2 + stones - value. */
  int32_t decided;           /**< 1: a store already holds more than half the game's seeds
                                  (Oware family), which decides it whatever the value; else 0. */
} sowdb_wdl;

/** The one call for a search: win/draw/loss and the final score of the game in progress at a
 *  position with `store_mover` and `store_opponent` seeds in the stores (Fathom's tb_probe_wdl
 *  with stores). The same as sowdb_probe_value_only followed by sowdb_game_outcome, in one
 *  call; no depth block is read.
 *  PARAMETERS pits, board_pits: the position (board_pits == sowdb_board_pits()); store_mover,
 *    store_opponent: seeds already taken (>= 0; 0 and 0 are accepted mid-game, and then the
 *    final scores add up to less than the game, but their difference, result and decided are
 *    right); out: receives the answer.
 *  RETURN SOWDB_OK; as sowdb_probe_value; SOWDB_ERR_ARGUMENT for a negative store, stores and
 *    board holding more seeds than the game (sowdb_last_error() names the limit) or a null
 *    pointer. *out is written only on SOWDB_OK.
 *  NOTES thread safe: any number of threads may probe one handle at once. For search. */
sowdb_status sowdb_probe_wdl(const sowdb_tables* tables,
                             const uint8_t* pits,
                             int32_t board_pits,
                             int32_t store_mover,
                             int32_t store_opponent,
                             sowdb_wdl* out);

/* --- The co-operative objective (`sowdb gen --objective cooperative`) ---------------------
 * Co-operative tables hold, for each position, the set R of differences d (the mover's takes
 * from here on minus the opponent's) that some joint line of play reaches, endless play
 * splitting the seeds left evenly. With stores A (the mover's) and B the game can still end
 * balanced exactly when B - A is in R. A set is 4 words: bit n + d (word (n + d) / 64) for d in
 * [-n, n], n the seeds on the board. The value functions above answer
 * SOWDB_ERR_WRONG_OBJECTIVE on co-operative tables, and these on competitive ones. */

/** 1 when the tables are co-operative, 0 when competitive, -1 for NULL. Thread safe. */
int32_t sowdb_objective(const sowdb_tables* tables);

/** The reachable set of a position.
 *  PARAMETERS pits, board_pits: the position; bits: receives 4 words; stones: receives n (may be
 *    NULL).
 *  RETURN SOWDB_OK, SOWDB_ERR_WRONG_OBJECTIVE, or as sowdb_probe_value; outputs are written
 *    only on SOWDB_OK.
 *  NOTES thread safe. */
sowdb_status sowdb_reach(const sowdb_tables* tables,
                         const uint8_t* pits,
                         int32_t board_pits,
                         uint64_t bits[4],
                         int32_t* stones);

/** Whether the game can still end with equal stores: *balanced = 1 when store_opponent -
 *  store_mover is in the position's set, else 0.
 *  RETURN as sowdb_reach; SOWDB_ERR_ARGUMENT for a negative store or a null pointer.
 *  NOTES thread safe. */
sowdb_status sowdb_balanced(const sowdb_tables* tables,
                            const uint8_t* pits,
                            int32_t board_pits,
                            int32_t store_mover,
                            int32_t store_opponent,
                            int32_t* balanced);

/** One legal move with the differences joint play still reaches through it. */
typedef struct sowdb_reach_move {
  int32_t pit;        /**< The mover's pit sown, 0..P-1. */
  int32_t gain;       /**< Seeds the move sends to the mover's store. */
  int32_t extra_turn; /**< 1: the same player moves again (Kalah family); else 0. */
  uint64_t bits[4];   /**< The differences reachable through it, from the mover's side at the
                           position (bit n + d, n the position's seeds). */
  uint8_t child[SOWDB_MAX_PITS]; /**< The resulting position, from the next mover's side. */
} sowdb_reach_move;

/** Every legal move of a position with its reachable set, in pit order.
 *  PARAMETERS out: room for `capacity` moves (8 always suffices); count: receives the number
 *    of legal moves (0: the game is over).
 *  RETURN as sowdb_reach; SOWDB_ERR_ARGUMENT when capacity is too small (*count is then the
 *    number needed). NOTES thread safe. */
sowdb_status sowdb_reach_moves(const sowdb_tables* tables,
                               const uint8_t* pits,
                               int32_t board_pits,
                               sowdb_reach_move* out,
                               int32_t capacity,
                               int32_t* count);

/** A joint line of play from a position that ends with the mover's takes minus the opponent's
 *  equal to `target` (store_opponent - store_mover for a balanced end): each move keeps the
 *  target reachable and play progresses (TableSet::cooperative_line).
 *  PARAMETERS moves: receives the pits played, in order (replay them with sowdb_play); capacity:
 *    the most moves to return; count: receives the moves returned; end: receives 0 (the game
 *    ended), 1 (a position repeated: endless play, which only a target of 0 needs) or 2 (the
 *    line was cut at `capacity` moves). moves may be NULL when capacity is 0.
 *  RETURN SOWDB_OK, SOWDB_ERR_UNREACHABLE (target not in the set), or as sowdb_reach.
 *  NOTES thread safe. */
sowdb_status sowdb_cooperative_line(const sowdb_tables* tables,
                                    const uint8_t* pits,
                                    int32_t board_pits,
                                    int32_t target,
                                    int32_t* moves,
                                    int32_t capacity,
                                    int32_t* count,
                                    int32_t* end);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SOWDB_PROBE_SOWDB_H_ */
