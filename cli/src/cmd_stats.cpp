// `sowdb stats`: per-layer statistics of a table directory, for solved-game write-ups. The
// statistics come from the analysis library (sowdb/analysis/layer_statistics.h); this file binds
// the options and renders each layer as it arrives.
#include <cstdio>
#include <memory>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "sowdb/analysis/layer_statistics.h"
#include "sowdb/analysis/report_json.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/version.h"
#include "stats_reach.h"

namespace sowdb::cli {
namespace {

struct StatsArgs {
  std::string tables;
  int max_stones = -1;
  int threads = 0;
  bool json = false;
  bool csv = false;
  bool markdown = false;

  StatsFormat format() const {
    return json       ? StatsFormat::kJson
           : csv      ? StatsFormat::kCsv
           : markdown ? StatsFormat::kMarkdown
                      : StatsFormat::kText;
  }
};

void create_stats_options(CLI::App* cmd, StatsArgs& args) {
  cmd->add_option("--tables", args.tables, "Table directory")->required();
  cmd->add_option("--max-stones", args.max_stones, "Layers 0..N only (default: all)")
      ->transform(whole_number())
      ->check(CLI::Range(0, kMaxIndexedStones));
  add_threads_option(cmd, args.threads);
  auto* json = cmd->add_flag("--json", args.json, "One JSON object per layer");
  auto* csv = cmd->add_flag("--csv", args.csv, "A CSV table: a header line, then a line per layer");
  auto* markdown =
      cmd->add_flag("--markdown", args.markdown, "A Markdown table, with the rule set above it");
  json->excludes(csv)->excludes(markdown);
  csv->excludes(markdown);
}

void print_header(const TableSet& tables, const StatsArgs& args) {
  const std::string variant = tables.variant().to_string();
  if (args.csv) {
    std::printf(
        "n,positions,wins,draws,losses,win_share,draw_share,loss_share,mean_value,"
        "mean_depth_decided,max_depth,max_depth_position,endless_draws\n");
  } else if (args.markdown) {
    std::printf("`%s` (%s), tables in `%s`, sowdb %s\n\n",
                variant.c_str(),
                describe(tables.rules()).c_str(),
                args.tables.c_str(),
                SOWDB_VERSION_STRING);
    std::printf(
        "| n | positions | win %% | draw %% | loss %% | endless %% | mean value | "
        "mean depth (decided) | max depth | a position of the largest depth |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  } else if (!args.json) {
    std::printf("%s in %s\n%5s %14s %8s %8s %8s %9s %9s %9s %6s  %s\n",
                variant.c_str(),
                args.tables.c_str(),
                "n",
                "positions",
                "win %",
                "draw %",
                "loss %",
                "endless %",
                "mean val",
                "mean dep",
                "max d",
                "a position of the largest depth");
  }
}

void print_csv_row(const Rules& rules, const LayerStatistics& s) {
  std::printf("%d,%llu,%llu,%llu,%llu,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%s,%s\n",
              s.n,
              static_cast<unsigned long long>(s.positions),
              static_cast<unsigned long long>(s.wins),
              static_cast<unsigned long long>(s.draws),
              static_cast<unsigned long long>(s.losses),
              s.share(s.wins),
              s.share(s.draws),
              s.share(s.losses),
              s.mean_value,
              s.mean_depth_decided,
              s.max_depth,
              pits_text(rules, s.max_depth_position).c_str(),
              s.endless_draws ? std::to_string(*s.endless_draws).c_str() : "");
}

// The Markdown row and the aligned text line carry the same fields.
void print_table_row(const Rules& rules, const LayerStatistics& s, bool markdown) {
  char endless[32] = "-";
  if (s.endless_draws)
    std::snprintf(endless, sizeof endless, "%.2f", s.percent(*s.endless_draws));
  std::printf(markdown ? "| %d | %llu | %.2f | %.2f | %.2f | %s | %+.3f | %.2f | %d | `%s` |\n"
                       : "%5d %14llu %8.2f %8.2f %8.2f %9s %+9.3f %9.2f %6d  %s\n",
              s.n,
              static_cast<unsigned long long>(s.positions),
              s.percent(s.wins),
              s.percent(s.draws),
              s.percent(s.losses),
              endless,
              s.mean_value,
              s.mean_depth_decided,
              s.max_depth,
              pits_text(rules, s.max_depth_position).c_str());
}

void print_row(const Rules& rules, const LayerStatistics& s, const StatsArgs& args) {
  if (args.json) {
    std::printf("%s\n", to_json(s, rules).dump().c_str());
  } else if (args.csv) {
    print_csv_row(rules, s);
  } else {
    print_table_row(rules, s, args.markdown);
  }
  std::fflush(stdout);
}

int run_stats(const StatsArgs& args) {
  const std::unique_ptr<TableSet> tables = open_tables(args.tables);
  const int last = last_layer(*tables, args.max_stones, args.tables);
  if (tables->objective() == Objective::kCooperative) {
    print_reach_stats(*tables, last, args.tables, args.format());
    return 0;
  }
  print_header(*tables, args);
  const Rules& rules = tables->engine();
  // A damaged layer throws before its row: a consumer reading line by line would take one for
  // statistics.
  layer_statistics(
      *tables, last, [&](const LayerStatistics& s) { print_row(rules, s, args); }, args.threads);
  return 0;
}

}  // namespace

void add_stats(CLI::App& app, Runner& run) {
  auto args = std::make_shared<StatsArgs>();
  auto* cmd = app.add_subcommand(
      "stats", "Per-layer statistics: wins, draws and losses for the mover, values, depths");
  create_stats_options(cmd, *args);
  cmd->callback([&run, args] { run = [args] { return run_stats(*args); }; });
}

}  // namespace sowdb::cli
