// What a start-position search keeps of its transposition table for a later one (issue 44):
// the costliest bounds that hold, as positions (StartSolution::proved), and the bounds a search
// is given beforehand put back into its table (SolveStartOptions::known_positions).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "position_keys.h"
#include "sowdb/format/index.h"
#include "start_search_state.h"

namespace sowdb::gen::start_detail {
namespace {

// TranspositionTable's measure of a proof's work: the bit width of its positions, at most 31.
int effort_of(std::uint64_t work) {
  return std::min(31, static_cast<int>(std::bit_width(work)));
}

}  // namespace

void StartSearch::seed_table() {
  const std::vector<ProvedPosition>& known = options_.known_positions;
  if (known.empty() || !table_)
    return;
  const int board = rules_.pits();
  const PositionKeys keys(board);
  // The positions this search can meet, costliest first, up to a quarter of the table: more
  // would push out the entries of the search itself.
  struct Seed {
    std::size_t index;  // into `known`
    int stones;
  };
  std::vector<Seed> order;
  order.reserve(known.size());
  for (std::size_t i = 0; i < known.size(); ++i) {
    const Pits& p = known[i].position;
    const int n = std::accumulate(p.begin(), p.begin() + board, 0);
    const bool on_board = std::all_of(p.begin() + board, p.end(), [](auto v) { return v == 0; });
    if (on_board && n > out_.tables_max && n <= out_.stones && known[i].lower <= known[i].upper)
      order.push_back(Seed{i, n});
  }
  const std::size_t most = table_->bytes() / sizeof(std::uint64_t) / 4;
  if (order.size() > most) {
    std::nth_element(
        order.begin(),
        order.begin() + static_cast<std::ptrdiff_t>(most),
        order.end(),
        [&](const Seed& a, const Seed& b) { return known[a.index].work > known[b.index].work; });
    order.resize(most);
  }
  for (const Seed& seed : order) {
    const ProvedPosition& k = known[seed.index];
    const int n = seed.stones;
    const std::uint64_t key = keys.key(k.position, n);
    int lower = std::max(k.lower, -n);
    int upper = std::min(k.upper, n);
    // The same position given twice (a store holds a position in more than one record): both
    // bounds hold, so their intersection does.
    if (const TableEntry e = table_->find(key); e.found && e.depth == kExact) {
      lower = std::max(lower, e.lower);
      upper = std::min(upper, e.upper);
    }
    if (lower > upper)
      throw InvalidRequest("the known bounds on a position's value are empty");
    table_->store(key, lower, upper, -1, kExact, k.work);
  }
  out_.seeded = order.size();
}

std::vector<ProvedPosition> StartSearch::kept_positions() const {
  const std::size_t most = options_.keep_positions;
  std::vector<ProvedPosition> kept;
  if (most == 0 || !table_ || out_.by_tables)
    return kept;
  // One pass over the table (it can take GiBs), the candidates cut back to the costliest `most`
  // whenever they reach four times that; decoded to positions only at the end.
  struct Candidate {
    std::uint64_t key;
    std::int16_t lower;
    std::int16_t upper;
    std::int32_t effort;
  };
  std::vector<Candidate> found;
  const auto costlier = [](const Candidate& a, const Candidate& b) { return a.effort > b.effort; };
  const auto cut = [&] {
    std::nth_element(
        found.begin(), found.begin() + static_cast<std::ptrdiff_t>(most), found.end(), costlier);
    found.resize(most);
  };
  table_->for_each_exact(
      effort_of(kKeepLeastWork), [&](std::uint64_t key, const TableEntry& t, int e) {
        found.push_back(Candidate{
            key, static_cast<std::int16_t>(t.lower), static_cast<std::int16_t>(t.upper), e});
        if (found.size() >= 4 * most)
          cut();
      });
  if (found.size() > most)
    cut();
  std::sort(found.begin(), found.end(), costlier);
  const int board = rules_.pits();
  const PositionKeys keys(board);
  kept.reserve(found.size());
  for (const Candidate& c : found) {
    int n = out_.tables_max + 1;
    while (n < out_.stones && keys.base(n + 1) <= c.key)
      ++n;
    ProvedPosition p;
    if (c.key < keys.base(n) ||
        !unrank(c.key - keys.base(n), n, std::span<std::uint8_t>(p.position.data(), board)))
      continue;  // not a key of this search (cannot happen: the table holds only its keys)
    p.lower = c.lower;
    p.upper = c.upper;
    p.work = std::uint64_t{1} << (c.effort - 1);
    kept.push_back(p);
  }
  return kept;
}

}  // namespace sowdb::gen::start_detail
