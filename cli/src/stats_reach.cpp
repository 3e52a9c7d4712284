#include "stats_reach.h"

#include <cstdio>

#include "sowdb/analysis/layer_statistics.h"
#include "sowdb/analysis/report_json.h"
#include "sowdb/probe/version.h"

namespace sowdb::cli {
namespace {

void print_header(const TableSet& tables, const std::string& dir, StatsFormat format) {
  const std::string variant = tables.variant().to_string();
  if (format == StatsFormat::kCsv) {
    std::printf("n,positions,balanced,balanced_share,mean_reachable,distinct_sets,bytes_on_disk\n");
  } else if (format == StatsFormat::kMarkdown) {
    std::printf("`%s` (%s), co-operative tables in `%s`, sowdb %s\n\n",
                variant.c_str(),
                describe(tables.rules()).c_str(),
                dir.c_str(),
                SOWDB_VERSION_STRING);
    std::printf(
        "| n | positions | balanced end reachable %% | mean reachable differences | distinct "
        "sets | bytes/position |\n|---:|---:|---:|---:|---:|---:|\n");
  } else if (format == StatsFormat::kText) {
    std::printf("%s in %s (co-operative)\n%5s %14s %11s %13s %9s %10s\n",
                variant.c_str(),
                dir.c_str(),
                "n",
                "positions",
                "balanced %",
                "mean |set|",
                "sets",
                "bytes/pos");
  }
}

void print_row(const CooperativeLayerStatistics& s, StatsFormat format) {
  if (format == StatsFormat::kJson) {
    std::printf("%s\n", to_json(s).dump().c_str());
  } else if (format == StatsFormat::kCsv) {
    std::printf("%d,%llu,%llu,%.6f,%.4f,%u,%llu\n",
                s.n,
                static_cast<unsigned long long>(s.positions),
                static_cast<unsigned long long>(s.balanced),
                s.balanced_share,
                s.mean_reachable,
                s.distinct_sets,
                static_cast<unsigned long long>(s.bytes_on_disk));
  } else {
    std::printf(format == StatsFormat::kMarkdown ? "| %d | %llu | %.2f | %.2f | %u | %.3f |\n"
                                                 : "%5d %14llu %11.2f %13.2f %9u %10.3f\n",
                s.n,
                static_cast<unsigned long long>(s.positions),
                100.0 * s.balanced_share,
                s.mean_reachable,
                s.distinct_sets,
                static_cast<double>(s.bytes_on_disk) / static_cast<double>(s.positions));
  }
  std::fflush(stdout);
}

}  // namespace

void print_reach_stats(const TableSet& tables,
                       int last,
                       const std::string& dir,
                       StatsFormat format) {
  print_header(tables, dir, format);
  cooperative_layer_statistics(
      tables, last, [format](const CooperativeLayerStatistics& s) { print_row(s, format); });
}

}  // namespace sowdb::cli
