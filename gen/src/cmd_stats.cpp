// `sowdb stats`: per-layer statistics of a table directory, for solved-game write-ups.
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_reduce.h>

#include <array>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "board_text.h"
#include "commands.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/tables.h"

namespace sowdb::cli {
namespace {

// Counts over one layer; values are offset by 128 in the histogram.
struct LayerStats {
  std::array<std::uint64_t, 256> histogram{};
  std::uint64_t depth_sum = 0;  // over positions with a non-zero value
  int max_depth = 0;
  std::uint64_t max_depth_index = 0;
  std::uint64_t unreadable = 0;

  void merge(const LayerStats& o) {
    for (int i = 0; i < 256; ++i)
      histogram[i] += o.histogram[i];
    depth_sum += o.depth_sum;
    if (o.max_depth > max_depth ||
        (o.max_depth == max_depth && o.max_depth_index < max_depth_index)) {
      max_depth = o.max_depth;
      max_depth_index = o.max_depth_index;
    }
    unreadable += o.unreadable;
  }
};

}  // namespace

void add_stats(CLI::App& app, Runner& run) {
  struct Args {
    std::string tables;
    int max_stones = -1;
    int threads = 0;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "stats", "Per-layer statistics: wins, draws and losses for the mover, values, depths");
  cmd->add_option("--tables", args->tables, "Table directory")->required();
  cmd->add_option("--max-stones", args->max_stones, "Layers 0..N only (default: all)")
      ->check(CLI::Range(0, kMaxIndexedStones));
  cmd->add_option("--threads", args->threads, "Worker threads (default: all cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--json", args->json, "One JSON object per layer");
  cmd->callback([&run, args] {
    run = [args] {
      const std::unique_ptr<TableSet> tables = open_tables(args->tables, whole_layer_options());
      const int threads = args->threads > 0 ? args->threads : tbb::info::default_concurrency();
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                static_cast<std::size_t>(threads));
      const Rules& rules = tables->engine();
      const int k = rules.pits();
      const int last = last_layer(*tables, args->max_stones, args->tables);
      if (!args->json) {
        std::printf("%s in %s\n%5s %14s %8s %8s %8s %9s %9s %6s  %s\n",
                    tables->variant().to_string().c_str(),
                    args->tables.c_str(),
                    "n",
                    "positions",
                    "win %",
                    "draw %",
                    "loss %",
                    "mean val",
                    "mean dep",
                    "max d",
                    "a position of the largest depth");
      }
      for (int n = 0; n <= last; ++n) {
        const std::uint64_t size = layer_size(k, n);
        // Values come from the probe library, so recompute entries are resolved as any user
        // would see them.
        const LayerStats stats = tbb::parallel_reduce(
            tbb::blocked_range<std::uint64_t>(0, size, 1 << 14),
            LayerStats{},
            [&](const auto& r, LayerStats acc) {
              Pits board{};
              unrank(r.begin(), n, std::span(board.data(), k));
              for (std::uint64_t i = r.begin(); i != r.end(); ++i) {
                int value = 0;
                int depth = 0;
                if (tables->value(board, value, depth) != ProbeStatus::kOk) {
                  ++acc.unreadable;
                } else {
                  ++acc.histogram[value + 128];
                  if (value != 0)
                    acc.depth_sum += static_cast<std::uint64_t>(depth);
                  if (depth > acc.max_depth) {
                    acc.max_depth = depth;
                    acc.max_depth_index = i;
                  }
                }
                next_position(std::span(board.data(), k));
              }
              return acc;
            },
            [](LayerStats a, const LayerStats& b) {
              a.merge(b);
              return a;
            });
        // A damaged layer gets no line: a consumer reading line by line would take one for
        // statistics.
        if (stats.unreadable) {
          throw std::runtime_error("layer " + std::to_string(n) + ": " +
                                   std::to_string(stats.unreadable) +
                                   " positions could not be read: " + tables->layer_error(n));
        }
        std::uint64_t wins = 0, draws = 0, losses = 0;
        double value_sum = 0;
        for (int v = -n; v <= n; ++v) {
          const std::uint64_t c = stats.histogram[v + 128];
          (v > 0 ? wins : v < 0 ? losses : draws) += c;
          value_sum += static_cast<double>(v) * static_cast<double>(c);
        }
        const double total = static_cast<double>(size);
        const std::uint64_t decided = wins + losses;
        Pits deep{};
        unrank(stats.max_depth_index, n, std::span(deep.data(), k));
        if (args->json) {
          nlohmann::json j;
          j["n"] = n;
          j["positions"] = size;
          j["wins"] = wins;
          j["draws"] = draws;
          j["losses"] = losses;
          j["mean_value"] = value_sum / total;
          j["mean_depth_decided"] =
              decided ? static_cast<double>(stats.depth_sum) / static_cast<double>(decided) : 0.0;
          j["max_depth"] = stats.max_depth;
          j["max_depth_position"] = pits_text(rules, deep);
          nlohmann::json hist = nlohmann::json::object();
          for (int v = -n; v <= n; ++v) {
            if (stats.histogram[v + 128])
              hist[std::to_string(v)] = stats.histogram[v + 128];
          }
          j["values"] = hist;
          j["unreadable"] = stats.unreadable;
          std::printf("%s\n", j.dump().c_str());
        } else {
          std::printf(
              "%5d %14llu %8.2f %8.2f %8.2f %+9.3f %9.2f %6d  %s\n",
              n,
              static_cast<unsigned long long>(size),
              100.0 * static_cast<double>(wins) / total,
              100.0 * static_cast<double>(draws) / total,
              100.0 * static_cast<double>(losses) / total,
              value_sum / total,
              decided ? static_cast<double>(stats.depth_sum) / static_cast<double>(decided) : 0.0,
              stats.max_depth,
              pits_text(rules, deep).c_str());
        }
        std::fflush(stdout);
      }
      return 0;
    };
  });
}

}  // namespace sowdb::cli
