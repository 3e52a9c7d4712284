// `sowdb solve`: the value of a game's start position and the worth of every first move, from
// complete tables or by a search that probes the tables it has (gen::solve_start).
#include <tbb/global_control.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "progress_line.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/cooperative.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/solve.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/tables.h"

namespace sowdb::cli {
namespace {

namespace fs = std::filesystem;

// Building tables of this many positions (layers 0..L together) takes about half a minute on
// two cores: cheap enough to do for the user.
constexpr long double kCheapPositions = 3e8L;

// Where solve keeps the tables it builds: $SOWDB_CACHE_DIR, else $XDG_CACHE_HOME/sowdb, else
// ~/.cache/sowdb; one directory per rule set (the tables serve every seed count).
fs::path cache_dir(const RuleSet& rules) {
  fs::path root;
  if (const char* d = std::getenv("SOWDB_CACHE_DIR"); d && *d)
    root = d;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    root = fs::path(x) / "sowdb";
  else if (const char* h = std::getenv("HOME"); h && *h)
    root = fs::path(h) / ".cache" / "sowdb";
  else
    throw std::runtime_error("no cache directory: set SOWDB_CACHE_DIR or use --tables");
  std::string name;
  for (const char c : describe(rules)) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '=' || c == '-')
      name.push_back(c);
    else if (!name.empty() && name.back() != '_')
      name.push_back('_');
  }
  return root / name;
}

// The largest L <= top whose layers 0..L hold at most kCheapPositions positions together.
int cheap_layers(const RuleSet& rules, int top) {
  long double total = 0;
  int last = -1;
  for (int n = 0; n <= top; ++n) {
    // The sum stays far below 2^64: it stops at the first layer past kCheapPositions.
    total += static_cast<long double>(layer_size(rules.pits(), n));
    if (total > kCheapPositions)
      break;
    last = n;
  }
  return last;
}

// log2 of the transposition table's entries (8 bytes each) for `mb` MiB (0: 128 MiB, which
// searched as few positions as 1 GiB for Kalah(6,4) over tables 0..20, 214 M, and faster).
int hash_bits(int mb) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(mb > 0 ? mb : 128) << 20;
  return std::max(2, static_cast<int>(std::bit_width(bytes / 8)) - 1);
}

nlohmann::json move_json(const gen::StartMove& m) {
  nlohmann::json j;
  j["pit"] = m.pit;
  // A search stopped early may leave a worth unknown: null, with the bounds proved.
  j["worth"] = m.lower == m.upper ? nlohmann::json(m.worth) : nlohmann::json(nullptr);
  j["lower"] = m.lower;
  j["upper"] = m.upper;
  j["gain"] = m.gain;
  j["extra_turn"] = m.extra_turn;
  if (!m.continuations.empty()) {
    nlohmann::json next = nlohmann::json::array();
    for (const gen::StartMove& c : m.continuations)
      next.push_back(move_json(c));
    j["continuations"] = next;
  }
  return j;
}

// `sowdb solve --objective cooperative`: every layer solved in memory for the co-operative
// objective, the start position's reachable differences and which first moves keep a balanced
// end possible.
// The start's answer read from co-operative tables that cover it (`gen --objective
// cooperative`); UsageError for tables of the other objective or too few layers.
gen::ReachStart reach_start_from_tables(const Variant& v, const std::string& dir) {
  const std::unique_ptr<TableSet> tables = open_tables(dir);
  if (tables->objective() != Objective::kCooperative)
    throw UsageError("--tables: " + tables->explain(ProbeStatus::kWrongObjective, Pits{}) +
                     objective_remedy(tables->objective()));
  if (!(tables->rules() == v.rules.normalised())) {
    throw UsageError("--tables " + dir + " holds " + describe(tables->rules()) + ", not " +
                     describe(v.rules.normalised()));
  }
  const int stones = v.total_stones();
  if (tables->max_stones() < stones) {
    throw UsageError("--tables " + dir + " holds layers up to " +
                     std::to_string(tables->max_stones()) + "; the start of " + v.to_string() +
                     " has " + std::to_string(stones) + " seeds");
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

template <typename Args>
int solve_cooperative(const Variant& v, const Args& args) {
  if (args.value_only || args.time_limit > 0)
    throw UsageError("--objective cooperative takes neither --value-only nor --time-limit");
  const auto start = std::chrono::steady_clock::now();
  gen::ReachStart r;
  const bool from_tables = !args.tables.empty();
  if (from_tables) {
    r = reach_start_from_tables(v, args.tables);
  } else {
    try {
      r = gen::solve_reach_start(v);
    } catch (const gen::TooLarge& e) {
      throw UsageError(e.what() + std::string("; build co-operative tables with `sowdb gen "
                                              "--objective cooperative` and pass --tables"));
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto list = [](const std::vector<int>& d) {
    std::string s;
    for (const int x : d)
      s += (s.empty() ? "" : " ") + std::to_string(x);
    return s;
  };
  if (args.json) {
    nlohmann::json j;
    j["variant"] = v.to_string();
    j["rules"] = describe(v.rules.normalised());
    j["objective"] = "cooperative";
    j["stones"] = v.total_stones();
    j["reachable"] = r.reachable;
    j["balanced"] = r.balanced;
    nlohmann::json balancing = nlohmann::json::array();
    nlohmann::json moves = nlohmann::json::array();
    for (const auto& m : r.moves) {
      if (m.balancing)
        balancing.push_back(m.pit);
      moves.push_back({{"pit", m.pit},
                       {"gain", m.gain},
                       {"extra_turn", m.extra_turn},
                       {"reachable", m.reachable},
                       {"balancing", m.balancing}});
    }
    j["balancing_moves"] = balancing;
    j["moves"] = moves;
    j["positions"] = r.positions;
    j["seconds"] = seconds;
    j["method"] = from_tables ? "tables" : "memory";
    if (from_tables)
      j["tables"] = args.tables;
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::printf("%s (%s), co-operative objective: %s\n",
              v.to_string().c_str(),
              describe(v.rules.normalised()).c_str(),
              r.balanced ? "the game can end balanced" : "no line of play ends balanced");
  std::printf("reachable differences for the first player: %s\n", list(r.reachable).c_str());
  for (const auto& m : r.moves) {
    std::printf("  pit %d%s: %s%s\n",
                m.pit,
                m.extra_turn ? " (extra turn)" : "",
                list(m.reachable).c_str(),
                m.balancing ? "  (keeps a balanced end possible)" : "");
  }
  if (from_tables) {
    std::printf(
        "read from the co-operative tables in %s in %.2f s\n", args.tables.c_str(), seconds);
  } else {
    std::printf("solved %s in memory in %.2f s\n",
                count_text(r.positions, "position", "positions").c_str(),
                seconds);
  }
  return 0;
}

}  // namespace

void add_solve(CLI::App& app, Runner& run) {
  struct Args {
    std::string variant;
    int pits = 0;
    int seeds = 0;
    std::string tables;
    int threads = 0;
    double time_limit = 0;
    int hash_mb = 0;
    bool value_only = false;
    std::string objective = "competitive";
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("solve",
                                 "The value of a start position and the worth of every first move");
  cmd->add_option("--variant", args->variant, "Rule system, e.g. kalah or kalah-irving/6x4")
      ->required();
  cmd->add_option("--pits", args->pits, "Pits per side (overrides the variant's board)")
      ->check(CLI::Range(1, 8));
  cmd->add_option(
         "--seeds", args->seeds, "Seeds in each pit at the start (overrides the variant's)")
      ->check(CLI::Range(1, kMaxBoardStones));
  cmd->add_option("--tables",
                  args->tables,
                  "Table directory of the variant's rules (default: tables built in the cache "
                  "when that is cheap)");
  add_threads_option(cmd, args->threads);
  cmd->add_option("--time-limit",
                  args->time_limit,
                  "Stop the search after this many seconds and print the bounds proved so far")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--hash-mb",
                  args->hash_mb,
                  "Memory of the search's transposition table in MiB, rounded down to a power "
                  "of two (default 128)")
      ->check(CLI::Range(1, 1 << 16));
  cmd->add_flag("--value-only",
                args->value_only,
                "Only the value and a best first move: the other moves get an upper bound on "
                "their worth (a search of a fraction of the work)");
  add_objective_option(cmd, args->objective);
  cmd->add_flag("--json", args->json, "One JSON object on stdout");
  cmd->callback([&run, args] {
    run = [args] {
      Variant v;
      std::string error;
      if (!resolve_variant(args->variant, args->pits, v, error))
        throw UsageError(error);
      if (args->seeds > 0) {
        if (v.rules.pits() * args->seeds > kMaxBoardStones) {
          throw UsageError("--seeds " + std::to_string(args->seeds) + " on " +
                           std::to_string(v.rules.pits()) + " pits is more than the " +
                           std::to_string(kMaxBoardStones) + " seeds a board holds");
        }
        v.seeds_per_pit = args->seeds;
      }
      if (args->objective == "cooperative")
        return solve_cooperative(v, *args);
      const int threads = thread_count(args->threads);
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                static_cast<std::size_t>(threads));
      const RuleSet rules = v.rules.normalised();
      const int stones = v.total_stones();
      const bool tty = isatty(fileno(stderr)) && !args->json;
      const auto start = std::chrono::steady_clock::now();
      // The search probes values only, again and again across every layer: keep every decoded
      // value block (about 1 byte a position of the tables), no depth block.
      TableSetOptions cached;
      cached.cache_blocks = std::size_t{1} << 24;
      cached.depth_cache_blocks = 0;
      std::unique_ptr<TableSet> tables;
      std::string source;  // where the tables came from, in words
      bool built = false;
      if (!args->tables.empty()) {
        tables = open_tables(args->tables, cached);
        source = args->tables;
      } else {
        const int cheap = cheap_layers(rules, stones);
        const int want = cheap >= stones ? stones : cheap;
        if (rules.family == Family::kOware && want < stones) {
          throw UsageError(
              "Oware-family positions can repeat, so a search cannot prove the value of " +
              v.to_string() + ": it needs complete tables, layers 0.." + std::to_string(stones) +
              ", more than solve builds by itself; build them with sowdb gen --variant " +
              v.to_string() + " --max-stones " + std::to_string(stones) +
              " --out DIR and pass --tables DIR");
        }
        const fs::path dir = cache_dir(rules);
        // The cache keeps the variant it was first built for: the tables serve every seed
        // count, and gen refuses to relabel them.
        Variant label = v;
        if (const auto m = read_manifest(dir);
            m && m->error.empty() && m->variant && m->variant->rules.normalised() == rules) {
          label = *m->variant;
        }
        int have = -1;
        while (fs::exists(dir / layer_file_name(have + 1)))
          ++have;
        if (have < want) {
          gen::GenerateOptions options;
          options.variant = label;
          options.max_stones = want;
          options.out = dir;
          if (tty) {
            auto line = std::make_shared<ProgressLine>(rules.pits());
            options.on_progress = [line](int n, gen::Phase phase, double f) {
              line->show(n, gen::to_string(phase), f);
            };
          }
          gen::generate(options);
          if (tty)
            ProgressLine::clear();
          built = true;
        }
        tables = open_tables(dir.string(), cached);
        source = dir.string() + (built ? " (built now, in the cache)" : " (the cache)");
      }
      gen::SolveStartOptions options;
      options.tables = tables.get();
      options.worths = !args->value_only;
      options.table_bits = hash_bits(args->hash_mb);
      if (const std::uint64_t physical = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                                         static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
          (std::uint64_t{8} << options.table_bits) > physical / 2) {
        throw UsageError("--hash-mb " + std::to_string(args->hash_mb) +
                         " is more than half of this machine's memory (" +
                         std::to_string(physical >> 20) + " MiB)");
      }
      if (args->time_limit > 0) {
        const auto deadline =
            start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(args->time_limit));
        options.stop = [deadline] { return std::chrono::steady_clock::now() >= deadline; };
      }
      std::mutex mutex;
      auto last_draw = std::chrono::steady_clock::now();
      if (tty) {
        options.progress = [&](const gen::SolveProgress& p) {
          const auto now = std::chrono::steady_clock::now();
          if (now - last_draw < std::chrono::milliseconds(200))
            return;
          last_draw = now;
          const double s = std::chrono::duration<double>(now - start).count();
          std::fprintf(stderr,
                       "\r\033[Ksearch: value in [%+d, %+d], %d of %d first moves and "
                       "continuations done, %llu positions, %.2f M positions/s",
                       p.lower,
                       p.upper,
                       p.done,
                       p.total,
                       static_cast<unsigned long long>(p.nodes),
                       s > 0 ? static_cast<double>(p.nodes) / s / 1e6 : 0.0);
          std::fflush(stderr);
        };
      }
      gen::StartSolution s;
      try {
        s = gen::solve_start(v, options);
      } catch (const gen::InvalidRequest& e) {
        throw UsageError(e.what());
      }
      if (tty)
        ProgressLine::clear();
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (args->json) {
        nlohmann::json j;
        j["variant"] = v.to_string();
        j["rules"] = describe(rules);
        j["seeds_per_pit"] = v.seeds_per_pit;
        j["stones"] = stones;
        j["value"] = s.lower == s.upper ? nlohmann::json(s.value) : nlohmann::json(nullptr);
        j["complete"] = s.complete;
        j["lower"] = s.lower;
        j["upper"] = s.upper;
        j["best"] = s.best >= 0 ? nlohmann::json(s.best) : nlohmann::json(nullptr);
        nlohmann::json moves = nlohmann::json::array();
        for (const gen::StartMove& m : s.moves)
          moves.push_back(move_json(m));
        j["moves"] = moves;
        j["nodes"] = s.nodes;
        j["seconds"] = seconds;
        j["method"] = s.by_tables ? "tables" : "search";
        j["tables"] = source;
        j["tables_max_stones"] = s.tables_max;
        j["tables_built"] = built;
        j["hash_mb"] = s.table_bytes >> 20;
        std::printf("%s\n", j.dump().c_str());
        return 0;
      }
      std::printf("%s (%s), %d seeds in each pit, %d on the board\n",
                  v.to_string().c_str(),
                  describe(rules).c_str(),
                  v.seeds_per_pit,
                  stones);
      // An exact worth, or the bounds a stopped search proved.
      const auto worth = [](int lower, int upper) {
        char text[48];
        if (lower == upper)
          std::snprintf(text, sizeof text, "%+d", lower);
        else
          std::snprintf(text, sizeof text, "between %+d and %+d", lower, upper);
        return std::string(text);
      };
      if (!s.complete) {
        std::printf("stopped after %g s (--time-limit): what is not proved is given as bounds\n",
                    args->time_limit);
      }
      std::printf("value for the first player: %s", worth(s.lower, s.upper).c_str());
      if (s.best >= 0)
        std::printf(" (best first move: pit %d)", s.best);
      std::printf("\n");
      for (const gen::StartMove& m : s.moves) {
        std::printf("  pit %d: %s%s\n",
                    m.pit,
                    worth(m.lower, m.upper).c_str(),
                    m.extra_turn ? " (extra turn)" : "");
        for (const gen::StartMove& c : m.continuations) {
          std::printf("      then pit %d: %s%s\n",
                      c.pit,
                      worth(c.lower, c.upper).c_str(),
                      c.extra_turn ? " (extra turn)" : "");
        }
      }
      if (s.by_tables) {
        std::printf("from complete tables: %s, layers 0..%d; %.2f s\n",
                    source.c_str(),
                    s.tables_max,
                    seconds);
      } else {
        std::printf("searched %llu positions in %.2f s (%.2f M/s), probing %s\n",
                    static_cast<unsigned long long>(s.nodes),
                    seconds,
                    seconds > 0 ? static_cast<double>(s.nodes) / seconds / 1e6 : 0.0,
                    s.tables_max >= 0 ? ("the tables at up to " + std::to_string(s.tables_max) +
                                         " seeds: " + source)
                                            .c_str()
                                      : "no tables");
      }
      return 0;
    };
  });
}

}  // namespace sowdb::cli
