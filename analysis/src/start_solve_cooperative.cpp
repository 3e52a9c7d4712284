// The co-operative objective at a start position: from co-operative tables, or every layer
// solved in memory.
#include <chrono>

#include "sowdb/analysis/start_solve.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/tables.h"

namespace sowdb {
namespace {

std::unique_ptr<TableSet> open_reach_tables(const std::filesystem::path& dir) {
  try {
    return TableSet::open(dir);
  } catch (const std::exception& e) {
    throw gen::InvalidRequest(e.what());
  }
}

// The start's answer read from co-operative tables that cover it (`gen --objective
// cooperative`).
gen::ReachStart reach_start_from_tables(const Variant& v, const std::filesystem::path& dir) {
  const std::unique_ptr<TableSet> tables = open_reach_tables(dir);
  if (tables->objective() != Objective::kCooperative)
    throw gen::InvalidRequest(tables->explain(ProbeStatus::kWrongObjective, Pits{}));
  if (!(tables->rules() == v.rules.normalised())) {
    throw gen::InvalidRequest("the tables in " + dir.string() + " hold " +
                              describe(tables->rules()) + ", not " +
                              describe(v.rules.normalised()));
  }
  const int stones = v.total_stones();
  if (tables->max_stones() < stones) {
    throw gen::InvalidRequest("the tables in " + dir.string() + " hold layers up to " +
                              std::to_string(tables->max_stones()) + "; the start of " +
                              v.to_string() + " has " + std::to_string(stones) + " seeds");
  }
  const Pits start = v.start();
  ReachSet set;
  MoveReaches moves;
  ProbeStatus st = tables->reach(start, set);
  if (st == ProbeStatus::kOk)
    st = tables->reach_moves(start, moves);
  if (st != ProbeStatus::kOk)
    throw std::runtime_error(tables->explain(st, start));
  gen::ReachStart r;
  r.reachable = set.differences();
  r.balanced = set.contains(0);
  for (const MoveReach& m : moves) {
    gen::ReachStart::Move rm;
    rm.pit = m.move.pit;
    rm.gain = m.move.gain();
    rm.extra_turn = m.move.extra_turn;
    rm.reachable = m.reachable.differences();
    rm.balancing = m.reachable.contains(0);
    r.moves.push_back(std::move(rm));
  }
  return r;
}

// solve_cooperative_start on the calling thread's arena.
CooperativeStartReport cooperative_start(const Variant& variant,
                                         const std::optional<std::filesystem::path>& tables) {
  const auto start = std::chrono::steady_clock::now();
  CooperativeStartReport r;
  r.variant = variant;
  if (tables) {
    if (tables->empty())
      throw gen::InvalidRequest("the table directory must not be an empty path");
    r.reach = reach_start_from_tables(variant, *tables);
    r.tables = tables->string();
  } else {
    try {
      r.reach = gen::solve_reach_start(variant);
    } catch (const gen::TooLarge& e) {
      // Complete co-operative tables answer any start their layers hold.
      throw gen::NeedsCompleteTables(e.what() + std::string(": it needs co-operative tables"),
                                     variant,
                                     variant.total_stones(),
                                     Objective::kCooperative);
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

CooperativeStartReport solve_cooperative_start(const Variant& variant,
                                               const std::optional<std::filesystem::path>& tables,
                                               int threads) {
  return gen::run_with_threads(threads, [&] { return cooperative_start(variant, tables); });
}

}  // namespace sowdb
