// How far gen::solve_cyclic gets on Oware-family positions above the tables in a time budget:
// the bounds of the value and the positions searched per second, for each board given.
//
//   sowdb_cyclic_bench VARIANT TABLES SECONDS [knob...] -- BOARD [-- BOARD...]
//
// VARIANT e.g. oware (its rules; the board comes from BOARD), TABLES a table directory of those
// rules or "-" for none, BOARD the 2P pit counts, mover's pits first. Knobs (CyclicKnobs):
// no-endless, no-both-sides, no-reuse, cache-unknown, worths (every move's worth, not only the
// value), step=N (plies a round of deepening), bits=N (SolveStartOptions::table_bits).
#include "cyclic_search.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace {

using Clock = std::chrono::steady_clock;

int usage() {
  std::fprintf(stderr,
               "usage: sowdb_cyclic_bench VARIANT TABLES|- SECONDS [knob...] -- BOARD [-- "
               "BOARD...]\n");
  return 2;
}

void run(const sowdb::RuleSet& rules,
         const sowdb::TableSet* tables,
         double seconds,
         const sowdb::gen::CyclicKnobs& knobs,
         bool worths,
         int bits,
         const std::vector<int>& board) {
  sowdb::Pits pos{};
  for (std::size_t i = 0; i < board.size() && i < pos.size(); ++i)
    pos[i] = static_cast<std::uint8_t>(board[i]);
  sowdb::gen::SolveStartOptions options;
  options.tables = tables;
  options.worths = worths;
  options.table_bits = bits;
  // The budget counts from the first test, after the tables are read.
  Clock::time_point start = Clock::now();
  bool started = false;
  options.stop = [&] {
    if (!started) {
      started = true;
      start = Clock::now();
    }
    return std::chrono::duration<double>(Clock::now() - start).count() >= seconds;
  };
  options.progress = [&](const sowdb::gen::SolveProgress& p) {
    std::printf("  %7.2f s  [%d, %d]  %llu positions\n",
                std::chrono::duration<double>(Clock::now() - start).count(),
                p.lower,
                p.upper,
                static_cast<unsigned long long>(p.nodes));
  };
  const sowdb::gen::StartSolution s = sowdb::gen::solve_cyclic(rules, pos, options, knobs);
  const double search = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("board");
  for (int b : board)
    std::printf(" %d", b);
  std::printf(
      ": %d seeds, value in [%d, %d]%s, best pit %d, %llu positions in %.2f s (%.2f s "
      "reading the tables), %.0f positions/s\n",
      s.stones,
      s.lower,
      s.upper,
      s.complete ? " (complete)" : "",
      s.best,
      static_cast<unsigned long long>(s.nodes),
      search,
      s.preload_seconds,
      search > 0 ? static_cast<double>(s.nodes) / search : 0.0);
  for (const sowdb::gen::StartMove& m : s.moves)
    std::printf("  pit %d gain %d: [%d, %d]\n", m.pit, m.gain, m.lower, m.upper);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6)
    return usage();
  const std::optional<sowdb::Variant> v = sowdb::parse_variant(argv[1]);
  if (!v)
    return usage();
  std::unique_ptr<sowdb::TableSet> tables;
  if (std::string(argv[2]) != "-")
    tables = sowdb::TableSet::open(argv[2]);
  const double seconds = std::atof(argv[3]);
  sowdb::gen::CyclicKnobs knobs;
  bool worths = false;
  int bits = 24;
  int i = 4;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    const std::string k = argv[i];
    if (k == "no-endless")
      knobs.endless = false;
    else if (k == "no-both-sides")
      knobs.both_sides = false;
    else if (k == "no-reuse")
      knobs.reuse = false;
    else if (k == "cache-unknown")
      knobs.cache_unknown = true;
    else if (k == "worths")
      worths = true;
    else if (k.rfind("step=", 0) == 0)
      knobs.step = std::atoi(k.c_str() + 5);
    else if (k.rfind("bits=", 0) == 0)
      bits = std::atoi(k.c_str() + 5);
    else
      return usage();
  }
  while (i < argc) {
    std::vector<int> board;
    for (++i; i < argc && std::string(argv[i]) != "--"; ++i)
      board.push_back(std::atoi(argv[i]));
    run(v->rules.normalised(), tables.get(), seconds, knobs, worths, bits, board);
  }
  return 0;
}
