#include "stats_reach.h"

#include <bit>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/version.h"

namespace sowdb::cli {

void print_reach_stats(const TableSet& tables,
                       int last,
                       const std::string& dir,
                       StatsFormat format) {
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
  for (int n = 0; n <= last; ++n) {
    const auto path = tables.directory() / layer_file_name(n);
    std::unique_ptr<LayerReader> reader;
    std::vector<std::uint32_t> symbols;
    try {
      OpenOptions open;
      open.expected_rules = tables.rules();
      open.expected_stones = n;
      reader = LayerReader::open(path, open);
      symbols.resize(reader->info().entries);
      reader->read_all_symbols(symbols);
    } catch (const std::exception& e) {
      throw std::runtime_error("layer " + std::to_string(n) + " could not be read: " + e.what());
    }
    const LayerInfo& info = reader->info();
    std::vector<std::uint64_t> per_symbol(info.set_count, 0);
    for (const std::uint32_t s : symbols)
      ++per_symbol[s];
    std::uint64_t balanced = 0;
    double differences = 0;
    for (std::uint32_t s = 0; s < info.set_count; ++s) {
      const auto set = reader->set(s);
      if ((set[static_cast<std::size_t>(n / 64)] >> (n % 64)) & 1)
        balanced += per_symbol[s];
      int size = 0;
      for (const std::uint64_t w : set)
        size += std::popcount(w);
      differences += static_cast<double>(size) * static_cast<double>(per_symbol[s]);
    }
    const double total = static_cast<double>(info.entries);
    const double share = static_cast<double>(balanced) / total;
    const double mean = differences / total;
    const double bytes = static_cast<double>(info.file_size) / total;
    if (format == StatsFormat::kJson) {
      nlohmann::json j;
      j["n"] = n;
      j["positions"] = info.entries;
      j["objective"] = "cooperative";
      j["balanced"] = balanced;
      j["balanced_share"] = share;
      j["mean_reachable"] = mean;
      j["distinct_sets"] = info.set_count;
      j["bytes_on_disk"] = info.file_size;
      std::printf("%s\n", j.dump().c_str());
    } else if (format == StatsFormat::kCsv) {
      std::printf("%d,%llu,%llu,%.6f,%.4f,%u,%llu\n",
                  n,
                  static_cast<unsigned long long>(info.entries),
                  static_cast<unsigned long long>(balanced),
                  share,
                  mean,
                  info.set_count,
                  static_cast<unsigned long long>(info.file_size));
    } else {
      std::printf(format == StatsFormat::kMarkdown ? "| %d | %llu | %.2f | %.2f | %u | %.3f |\n"
                                                   : "%5d %14llu %11.2f %13.2f %9u %10.3f\n",
                  n,
                  static_cast<unsigned long long>(info.entries),
                  100.0 * share,
                  mean,
                  info.set_count,
                  bytes);
    }
    std::fflush(stdout);
  }
}

}  // namespace sowdb::cli
