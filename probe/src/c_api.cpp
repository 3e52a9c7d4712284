// The C interface (sowdb.h) over TableSet. Every entry point catches every exception.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "sowdb/probe/internal/count_text.h"
#include "sowdb/probe/outcome.h"
#include "sowdb/probe/sowdb.h"
#include "sowdb/probe/tables.h"

struct sowdb_tables {
  std::unique_ptr<sowdb::TableSet> set;
  std::string name;
};

namespace {

thread_local std::string g_last_error;

void set_error(const char* message) noexcept {
  try {
    g_last_error = message;
  } catch (...) {
  }
}

void set_error(const std::string& message) noexcept {
  set_error(message.c_str());
}

sowdb_status from_probe(sowdb::ProbeStatus s) noexcept {
  switch (s) {
    case sowdb::ProbeStatus::kOk:
      return SOWDB_OK;
    case sowdb::ProbeStatus::kBadPosition:
      return SOWDB_ERR_BAD_POSITION;
    case sowdb::ProbeStatus::kTooManyStones:
      return SOWDB_ERR_TOO_MANY_STONES;
    case sowdb::ProbeStatus::kMissingTable:
      return SOWDB_ERR_MISSING_TABLE;
    case sowdb::ProbeStatus::kCorruptTable:
      return SOWDB_ERR_CORRUPT_TABLE;
    case sowdb::ProbeStatus::kGameOver:
      return SOWDB_ERR_GAME_OVER;
    case sowdb::ProbeStatus::kWrongObjective:
      return SOWDB_ERR_WRONG_OBJECTIVE;
    case sowdb::ProbeStatus::kUnreachable:
      return SOWDB_ERR_UNREACHABLE;
  }
  return SOWDB_ERR_INTERNAL;
}

// Copies a C position into Pits after checking the handle and the pit count.
sowdb_status load(const sowdb_tables* t,
                  const std::uint8_t* pits,
                  std::int32_t board_pits,
                  sowdb::Pits& out) noexcept {
  if (!t || !pits) {
    set_error("null argument");
    return SOWDB_ERR_ARGUMENT;
  }
  const int k = t->set->rules().pits();
  if (board_pits != k) {
    set_error("expected " + std::to_string(k) + " pits for " + t->name + ", got " +
              std::to_string(board_pits));
    return SOWDB_ERR_BAD_POSITION;
  }
  out = sowdb::Pits{};
  int total = 0;
  for (int i = 0; i < k; ++i) {
    out[i] = pits[i];
    total += pits[i];
  }
  if (total > sowdb::kMaxBoardStones) {
    set_error("position has " + std::to_string(total) + " seeds; a board holds at most 255");
    return SOWDB_ERR_BAD_POSITION;
  }
  return SOWDB_OK;
}

// Reports a failed probe of `pos`.
sowdb_status fail(const sowdb_tables* t, sowdb::ProbeStatus s, const sowdb::Pits& pos) noexcept {
  try {
    set_error(t->set->explain(s, pos));
  } catch (...) {
    set_error("out of memory");
  }
  return from_probe(s);
}

void fill(const sowdb::MoveWorth& m, int k, sowdb_move_worth& out) noexcept {
  out.pit = m.move.pit;
  out.worth = m.worth;
  out.gain = m.move.gain();
  out.depth = m.depth;
  out.extra_turn = m.move.extra_turn ? 1 : 0;
  std::memset(out.child, 0, sizeof out.child);
  for (int i = 0; i < k; ++i)
    out.child[i] = m.move.child[i];
}

sowdb_status internal(const char* what) noexcept {
  set_error(what);
  return SOWDB_ERR_INTERNAL;
}

// Runs the body of the entry point `name`: every exception ends here, as SOWDB_ERR_INTERNAL
// with a message naming the call (a C caller cannot catch one).
template <typename Body>
sowdb_status guarded(const char* name, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return internal("out of memory");
  } catch (...) {
    try {
      set_error(std::string(name) + ": unexpected failure");
    } catch (...) {
      set_error("unexpected failure");
    }
    return SOWDB_ERR_INTERNAL;
  }
}

// The fields of a caller's options struct that its struct_size covers; the rest keep their
// defaults, so that a caller compiled against an older, shorter struct is read safely.
bool read_options(const sowdb_open_options* in, sowdb_open_options& out) noexcept {
  sowdb_open_options_init(&out);
  if (!in)
    return true;
  const std::size_t size = in->struct_size;
  if (size < offsetof(sowdb_open_options, cache_bytes))
    return false;
  std::memcpy(&out, in, std::min(size, sizeof out));
  out.struct_size = sizeof out;
  return true;
}

std::size_t to_size(uint64_t n) noexcept {
  return static_cast<std::size_t>(std::min<uint64_t>(n, std::numeric_limits<std::size_t>::max()));
}

// A position's moves into the caller's array of `capacity`: the shared shape of
// sowdb_probe_moves and sowdb_reach_moves. `probe` fills a List (MoveWorths, MoveReaches) from
// the table set, `convert` turns one of its entries into the C struct.
template <typename List, typename Out, typename Probe, typename Convert>
sowdb_status list_moves(const char* name,
                        const sowdb_tables* tables,
                        const uint8_t* pits,
                        int32_t board_pits,
                        Out* out,
                        int32_t capacity,
                        int32_t* count,
                        Probe&& probe,
                        Convert&& convert) noexcept {
  return guarded(name, [&]() -> sowdb_status {
    sowdb::Pits pos;
    if (const sowdb_status s = load(tables, pits, board_pits, pos); s != SOWDB_OK)
      return s;
    if (!count || (!out && capacity > 0) || capacity < 0) {
      set_error(std::string(name) + ": null pointer or negative capacity");
      return SOWDB_ERR_ARGUMENT;
    }
    List all;
    const sowdb::ProbeStatus s = probe(*tables->set, pos, all);
    if (s != sowdb::ProbeStatus::kOk)
      return fail(tables, s, pos);
    *count = all.size;
    if (all.size > capacity) {
      set_error(std::string(name) + ": room for " +
                sowdb::internal::count_text(capacity, "move", "moves") + ", " +
                std::to_string(all.size) + " needed");
      return SOWDB_ERR_ARGUMENT;
    }
    for (int i = 0; i < all.size; ++i)
      convert(all.moves[static_cast<std::size_t>(i)], out[i]);
    return SOWDB_OK;
  });
}

}  // namespace

extern "C" {

void sowdb_open_options_init(sowdb_open_options* options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->separate_depth_cache = 0;
  options->cache_bytes = SOWDB_DEFAULT_CACHE_BYTES;
  options->depth_cache_bytes = 0;
  options->memory_map = 0;
}

sowdb_status sowdb_open(const char* dir, const sowdb_open_options* options, sowdb_tables** out) {
  if (out)
    *out = nullptr;
  if (!dir || !out) {
    set_error("sowdb_open: null argument");
    return SOWDB_ERR_ARGUMENT;
  }
  sowdb_open_options o;
  if (!read_options(options, o)) {
    set_error("sowdb_open: options.struct_size is " + std::to_string(options->struct_size) +
              "; fill the options with sowdb_open_options_init");
    return SOWDB_ERR_ARGUMENT;
  }
  try {
    auto t = std::make_unique<sowdb_tables>();
    sowdb::TableSetOptions set_options;
    set_options.cache_bytes = to_size(o.cache_bytes);
    if (o.separate_depth_cache)
      set_options.depth_cache_bytes = to_size(o.depth_cache_bytes);
    set_options.memory_map = o.memory_map != 0;
    t->set = sowdb::TableSet::open(dir, set_options);
    t->name = t->set->variant().to_string();
    *out = t.release();
    return SOWDB_OK;
  } catch (const std::bad_alloc&) {
    return internal("out of memory");
  } catch (const std::exception& e) {
    set_error(e.what());
    return SOWDB_ERR_OPEN;
  } catch (...) {
    return internal("sowdb_open: unknown error");
  }
}

const char* sowdb_version(void) {
  return SOWDB_VERSION_STRING;
}

void sowdb_close(sowdb_tables* tables) {
  delete tables;
}

const char* sowdb_last_error(void) {
  return g_last_error.c_str();
}

const char* sowdb_status_name(sowdb_status status) {
  switch (status) {
    case SOWDB_OK:
      return "SOWDB_OK";
    case SOWDB_ERR_ARGUMENT:
      return "SOWDB_ERR_ARGUMENT";
    case SOWDB_ERR_BAD_POSITION:
      return "SOWDB_ERR_BAD_POSITION";
    case SOWDB_ERR_TOO_MANY_STONES:
      return "SOWDB_ERR_TOO_MANY_STONES";
    case SOWDB_ERR_MISSING_TABLE:
      return "SOWDB_ERR_MISSING_TABLE";
    case SOWDB_ERR_CORRUPT_TABLE:
      return "SOWDB_ERR_CORRUPT_TABLE";
    case SOWDB_ERR_OPEN:
      return "SOWDB_ERR_OPEN";
    case SOWDB_ERR_GAME_OVER:
      return "SOWDB_ERR_GAME_OVER";
    case SOWDB_ERR_ILLEGAL_MOVE:
      return "SOWDB_ERR_ILLEGAL_MOVE";
    case SOWDB_ERR_INTERNAL:
      return "SOWDB_ERR_INTERNAL";
    case SOWDB_ERR_WRONG_OBJECTIVE:
      return "SOWDB_ERR_WRONG_OBJECTIVE";
    case SOWDB_ERR_UNREACHABLE:
      return "SOWDB_ERR_UNREACHABLE";
  }
  return "SOWDB_ERR_UNKNOWN";
}

int32_t sowdb_board_pits(const sowdb_tables* tables) {
  return tables ? tables->set->engine().board_pits() : 0;
}

int32_t sowdb_pits_per_side(const sowdb_tables* tables) {
  return tables ? tables->set->engine().pits_per_side() : 0;
}

int32_t sowdb_pits(const sowdb_tables* tables) {
  return sowdb_board_pits(tables);
}

int32_t sowdb_max_stones(const sowdb_tables* tables) {
  return tables ? tables->set->max_stones() : -1;
}

int32_t sowdb_seeds_per_pit(const sowdb_tables* tables) {
  return tables ? tables->set->variant().seeds_per_pit : 0;
}

const char* sowdb_variant_name(const sowdb_tables* tables) {
  return tables ? tables->name.c_str() : "";
}

sowdb_status sowdb_probe_value(const sowdb_tables* tables,
                               const uint8_t* pits,
                               int32_t board_pits,
                               int32_t* value,
                               int32_t* depth) {
  return guarded("sowdb_probe_value", [&]() -> sowdb_status {
    sowdb::Pits pos;
    if (const sowdb_status s = load(tables, pits, board_pits, pos); s != SOWDB_OK)
      return s;
    if (!value) {
      set_error("sowdb_probe_value: null value pointer");
      return SOWDB_ERR_ARGUMENT;
    }
    int v = 0;
    int d = 0;
    const sowdb::ProbeStatus s = tables->set->value(pos, v, d);
    if (s != sowdb::ProbeStatus::kOk)
      return fail(tables, s, pos);
    *value = v;
    if (depth)
      *depth = d;
    return SOWDB_OK;
  });
}

sowdb_status sowdb_probe_value_only(const sowdb_tables* tables,
                                    const uint8_t* pits,
                                    int32_t board_pits,
                                    int32_t* value) {
  return guarded("sowdb_probe_value_only", [&]() -> sowdb_status {
    sowdb::Pits pos;
    if (const sowdb_status s = load(tables, pits, board_pits, pos); s != SOWDB_OK)
      return s;
    if (!value) {
      set_error("sowdb_probe_value_only: null value pointer");
      return SOWDB_ERR_ARGUMENT;
    }
    int v = 0;
    const sowdb::ProbeStatus s = tables->set->value(pos, v);
    if (s != sowdb::ProbeStatus::kOk)
      return fail(tables, s, pos);
    *value = v;
    return SOWDB_OK;
  });
}

sowdb_status sowdb_probe_moves(const sowdb_tables* tables,
                               const uint8_t* pits,
                               int32_t board_pits,
                               sowdb_move_worth* out,
                               int32_t capacity,
                               int32_t* count) {
  return list_moves<sowdb::MoveWorths>(
      "sowdb_probe_moves",
      tables,
      pits,
      board_pits,
      out,
      capacity,
      count,
      [](const sowdb::TableSet& set, const sowdb::Pits& pos, sowdb::MoveWorths& all) {
        return set.moves(pos, all);
      },
      [board_pits](const sowdb::MoveWorth& m, sowdb_move_worth& o) { fill(m, board_pits, o); });
}

sowdb_status sowdb_best_move(const sowdb_tables* tables,
                             const uint8_t* pits,
                             int32_t board_pits,
                             sowdb_move_worth* out) {
  return guarded("sowdb_best_move", [&]() -> sowdb_status {
    sowdb::Pits pos;
    if (const sowdb_status s = load(tables, pits, board_pits, pos); s != SOWDB_OK)
      return s;
    if (!out) {
      set_error("sowdb_best_move: null out pointer");
      return SOWDB_ERR_ARGUMENT;
    }
    sowdb::MoveWorth best;
    const sowdb::ProbeStatus s = tables->set->best_move(pos, best);
    if (s != sowdb::ProbeStatus::kOk)
      return fail(tables, s, pos);
    fill(best, board_pits, *out);
    return SOWDB_OK;
  });
}

sowdb_status sowdb_play(const sowdb_tables* tables,
                        const uint8_t* pits,
                        int32_t board_pits,
                        int32_t pit,
                        uint8_t* child,
                        int32_t* gain,
                        int32_t* extra_turn) {
  return guarded("sowdb_play", [&]() -> sowdb_status {
    sowdb::Pits pos;
    if (const sowdb_status s = load(tables, pits, board_pits, pos); s != SOWDB_OK)
      return s;
    if (!child) {
      set_error("sowdb_play: null child pointer");
      return SOWDB_ERR_ARGUMENT;
    }
    const sowdb::Rules& rules = tables->set->engine();
    sowdb::MoveList moves;
    if (rules.legal_moves(pos, moves) == 0) {
      set_error("the game is over: the mover has no legal move");
      return SOWDB_ERR_GAME_OVER;
    }
    sowdb::Move m;
    if (pit < 0 || pit >= rules.pits_per_side() || !rules.play(pos, pit, m)) {
      set_error("pit " + std::to_string(pit) + " is not a legal move");
      return SOWDB_ERR_ILLEGAL_MOVE;
    }
    for (int i = 0; i < board_pits; ++i)
      child[i] = m.child[i];
    if (gain)
      *gain = m.gain();
    if (extra_turn)
      *extra_turn = m.extra_turn ? 1 : 0;
    return SOWDB_OK;
  });
}

sowdb_status sowdb_game_outcome(const sowdb_tables* tables,
                                int32_t value,
                                int32_t store_mover,
                                int32_t store_opponent,
                                int32_t stones,
                                sowdb_outcome* out) {
  return guarded("sowdb_game_outcome", [&]() -> sowdb_status {
    if (!tables || !out) {
      set_error("sowdb_game_outcome: null argument");
      return SOWDB_ERR_ARGUMENT;
    }
    sowdb::GameOutcome o;
    std::string error;
    if (sowdb::game_outcome(
            tables->set->variant(), value, store_mover, store_opponent, stones, o, &error) !=
        sowdb::OutcomeStatus::kOk) {
      set_error(error);
      return SOWDB_ERR_ARGUMENT;
    }
    out->total_seeds = o.total_seeds;
    out->final_mover = o.mover;
    out->final_opponent = o.opponent;
    out->result = static_cast<int32_t>(o.result);
    out->decided = o.decided ? 1 : 0;
    return SOWDB_OK;
  });
}

sowdb_status sowdb_probe_wdl(const sowdb_tables* tables,
                             const uint8_t* pits,
                             int32_t board_pits,
                             int32_t store_mover,
                             int32_t store_opponent,
                             sowdb_wdl* out) {
  return guarded("sowdb_probe_wdl", [&]() -> sowdb_status {
    sowdb::Pits pos;
    if (const sowdb_status s = load(tables, pits, board_pits, pos); s != SOWDB_OK)
      return s;
    if (!out) {
      set_error("sowdb_probe_wdl: null out pointer");
      return SOWDB_ERR_ARGUMENT;
    }
    int v = 0;
    const sowdb::ProbeStatus s = tables->set->value(pos, v);
    if (s != sowdb::ProbeStatus::kOk)
      return fail(tables, s, pos);
    int stones = 0;
    for (int i = 0; i < board_pits; ++i)
      stones += pos[i];
    sowdb::GameOutcome o;
    std::string error;
    if (sowdb::game_outcome(
            tables->set->variant(), v, store_mover, store_opponent, stones, o, &error) !=
        sowdb::OutcomeStatus::kOk) {
      set_error(error);
      return SOWDB_ERR_ARGUMENT;
    }
    out->result = static_cast<int32_t>(o.result);
    out->value = v;
    out->final_mover_x2 = 2 * store_mover + stones + v;
    out->final_opponent_x2 = 2 * store_opponent + stones - v;
    out->decided = o.decided ? 1 : 0;
    return SOWDB_OK;
  });
}

int32_t sowdb_objective(const sowdb_tables* tables) {
  if (!tables)
    return -1;
  return tables->set->objective() == sowdb::Objective::kCooperative ? 1 : 0;
}

sowdb_status sowdb_reach(const sowdb_tables* tables,
                         const uint8_t* pits,
                         int32_t board_pits,
                         uint64_t bits[4],
                         int32_t* stones) {
  return guarded("sowdb_reach", [&]() -> sowdb_status {
    sowdb::Pits pos;
    if (const sowdb_status s = load(tables, pits, board_pits, pos); s != SOWDB_OK)
      return s;
    if (!bits) {
      set_error("sowdb_reach: null bits pointer");
      return SOWDB_ERR_ARGUMENT;
    }
    sowdb::ReachSet set;
    const sowdb::ProbeStatus s = tables->set->reach(pos, set);
    if (s != sowdb::ProbeStatus::kOk)
      return fail(tables, s, pos);
    std::copy(set.bits.begin(), set.bits.end(), bits);
    if (stones)
      *stones = set.stones;
    return SOWDB_OK;
  });
}

sowdb_status sowdb_balanced(const sowdb_tables* tables,
                            const uint8_t* pits,
                            int32_t board_pits,
                            int32_t store_mover,
                            int32_t store_opponent,
                            int32_t* balanced) {
  if (!balanced || store_mover < 0 || store_opponent < 0) {
    set_error("sowdb_balanced: null pointer or negative store");
    return SOWDB_ERR_ARGUMENT;
  }
  uint64_t bits[4];
  int32_t stones = 0;
  const sowdb_status s = sowdb_reach(tables, pits, board_pits, bits, &stones);
  if (s != SOWDB_OK)
    return s;
  sowdb::ReachSet set;
  set.stones = stones;
  std::copy(bits, bits + 4, set.bits.begin());
  *balanced = set.contains(store_opponent - store_mover) ? 1 : 0;
  return SOWDB_OK;
}

sowdb_status sowdb_reach_moves(const sowdb_tables* tables,
                               const uint8_t* pits,
                               int32_t board_pits,
                               sowdb_reach_move* out,
                               int32_t capacity,
                               int32_t* count) {
  return list_moves<sowdb::MoveReaches>(
      "sowdb_reach_moves",
      tables,
      pits,
      board_pits,
      out,
      capacity,
      count,
      [](const sowdb::TableSet& set, const sowdb::Pits& pos, sowdb::MoveReaches& all) {
        return set.reach_moves(pos, all);
      },
      [board_pits](const sowdb::MoveReach& m, sowdb_reach_move& o) {
        o = sowdb_reach_move{};
        o.pit = m.move.pit;
        o.gain = m.move.gain();
        o.extra_turn = m.move.extra_turn ? 1 : 0;
        std::copy(m.reachable.bits.begin(), m.reachable.bits.end(), o.bits);
        for (int p = 0; p < board_pits; ++p)
          o.child[p] = m.move.child[static_cast<std::size_t>(p)];
      });
}

sowdb_status sowdb_cooperative_line(const sowdb_tables* tables,
                                    const uint8_t* pits,
                                    int32_t board_pits,
                                    int32_t target,
                                    int32_t* moves,
                                    int32_t capacity,
                                    int32_t* count,
                                    int32_t* end) {
  return guarded("sowdb_cooperative_line", [&]() -> sowdb_status {
    sowdb::Pits pos;
    if (const sowdb_status s = load(tables, pits, board_pits, pos); s != SOWDB_OK)
      return s;
    if (!count || !end || (!moves && capacity > 0) || capacity < 0) {
      set_error("sowdb_cooperative_line: null pointer or negative capacity");
      return SOWDB_ERR_ARGUMENT;
    }
    sowdb::PrincipalLine line;
    const sowdb::ProbeStatus s = tables->set->cooperative_line(pos, target, line, capacity);
    if (s != sowdb::ProbeStatus::kOk)
      return fail(tables, s, pos);
    *count = static_cast<int32_t>(line.steps.size());
    for (std::size_t i = 0; i < line.steps.size(); ++i)
      moves[i] = line.steps[i].pit;
    *end = line.end == sowdb::LineEnd::kGameOver     ? 0
           : line.end == sowdb::LineEnd::kRepetition ? 1
                                                     : 2;
    return SOWDB_OK;
  });
}

}  // extern "C"
