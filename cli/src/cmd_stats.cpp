// `sowdb stats`: per-layer statistics of a table directory, for solved-game write-ups.
#include <tbb/global_control.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "board_text.h"
#include "commands.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/endless.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/version.h"
#include "stats_reach.h"

namespace sowdb::cli {

namespace {

// The largest layer whose draws `stats` sorts into endless and realised ones: 500 million
// positions, a few GB for the graph of its draws.
constexpr std::uint64_t kMaxEndlessLayer = 500000000;

}  // namespace
namespace {

// Counts over one layer; values are offset by 128 in the histogram.
struct LayerStats {
  std::array<std::uint64_t, 256> histogram{};
  std::uint64_t depth_sum = 0;        // over positions with a non-zero value
  std::vector<std::uint64_t> depths;  // positions with a non-zero value, by depth
  int max_depth = 0;
  std::uint64_t max_depth_index = 0;
  std::uint64_t unreadable = 0;

  void merge(const LayerStats& o) {
    for (int i = 0; i < 256; ++i)
      histogram[i] += o.histogram[i];
    depth_sum += o.depth_sum;
    if (o.depths.size() > depths.size())
      depths.resize(o.depths.size());
    for (std::size_t d = 0; d < o.depths.size(); ++d)
      depths[d] += o.depths[d];
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
    bool csv = false;
    bool markdown = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "stats", "Per-layer statistics: wins, draws and losses for the mover, values, depths");
  cmd->add_option("--tables", args->tables, "Table directory")->required();
  cmd->add_option("--max-stones", args->max_stones, "Layers 0..N only (default: all)")
      ->transform(whole_number())
      ->check(CLI::Range(0, kMaxIndexedStones));
  add_threads_option(cmd, args->threads);
  auto* json = cmd->add_flag("--json", args->json, "One JSON object per layer");
  auto* csv =
      cmd->add_flag("--csv", args->csv, "A CSV table: a header line, then a line per layer");
  auto* markdown =
      cmd->add_flag("--markdown", args->markdown, "A Markdown table, with the rule set above it");
  json->excludes(csv)->excludes(markdown);
  csv->excludes(markdown);
  cmd->callback([&run, args] {
    run = [args] {
      const std::unique_ptr<TableSet> tables = open_tables(args->tables);
      const int threads = thread_count(args->threads);
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                static_cast<std::size_t>(threads));
      const Rules& rules = tables->engine();
      const int k = rules.pits();
      const int last = last_layer(*tables, args->max_stones, args->tables);
      const std::string variant = tables->variant().to_string();
      if (tables->objective() == Objective::kCooperative) {
        print_reach_stats(*tables,
                          last,
                          args->tables,
                          args->json       ? StatsFormat::kJson
                          : args->csv      ? StatsFormat::kCsv
                          : args->markdown ? StatsFormat::kMarkdown
                                           : StatsFormat::kText);
        return 0;
      }
      if (args->csv) {
        std::printf(
            "n,positions,wins,draws,losses,win_share,draw_share,loss_share,mean_value,"
            "mean_depth_decided,max_depth,max_depth_position,endless_draws\n");
      } else if (args->markdown) {
        std::printf("`%s` (%s), tables in `%s`, sowdb %s\n\n",
                    variant.c_str(),
                    describe(tables->rules()).c_str(),
                    args->tables.c_str(),
                    SOWDB_VERSION_STRING);
        std::printf(
            "| n | positions | win %% | draw %% | loss %% | endless %% | mean value | "
            "mean depth (decided) | max depth | a position of the largest depth |\n"
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
      } else if (!args->json) {
        std::printf("%s in %s\n%5s %14s %8s %8s %8s %9s %9s %9s %6s  %s\n",
                    variant.c_str(),
                    args->tables.c_str(),
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
      // Each layer is read whole (TableSet::read_layer) and kept for the recompute entries of
      // the layers above, up to the layers the last one's moves cannot reach.
      std::vector<std::vector<std::int8_t>> held(static_cast<std::size_t>(last) + 1);
      std::vector<std::vector<std::uint64_t>> masks(held.size());
      for (int n = 0; n <= last; ++n) {
        const std::uint64_t size = layer_size(k, n);
        if (n == last) {
          for (int m = std::max(0, n - rules.min_gain() + 1); m < n; ++m) {
            std::vector<std::int8_t>().swap(held[static_cast<std::size_t>(m)]);
            std::vector<std::uint64_t>().swap(masks[static_cast<std::size_t>(m)]);
          }
        }
        std::vector<LayerValues> below;
        for (int m = 0; m < n; ++m)
          below.push_back({held[static_cast<std::size_t>(m)], masks[static_cast<std::size_t>(m)]});
        std::vector<std::int8_t> values(size);
        LayerStats stats;
        std::mutex mutex;
        ReadLayerOptions read;
        read.executor = gen::tbb_executor();
        // Values and depths as the probe library answers them, recompute entries resolved as
        // any user would see them.
        read.depths = [&](std::uint64_t first, std::span<const std::uint16_t> depths) {
          LayerStats acc;
          for (std::size_t j = 0; j < depths.size(); ++j) {
            const std::uint64_t i = first + j;
            const int value = values[i];
            const int depth = depths[j];
            if (value == kUnreadableValue || depth == kUnreadableDepth) {
              ++acc.unreadable;
              continue;
            }
            ++acc.histogram[value + 128];
            if (value != 0) {
              acc.depth_sum += static_cast<std::uint64_t>(depth);
              if (acc.depths.size() <= static_cast<std::size_t>(depth))
                acc.depths.resize(static_cast<std::size_t>(depth) + 1);
              ++acc.depths[static_cast<std::size_t>(depth)];
            }
            if (depth > acc.max_depth) {
              acc.max_depth = depth;
              acc.max_depth_index = i;
            }
          }
          std::lock_guard lock(mutex);
          stats.merge(acc);
        };
        (void)tables->read_layer(n, below, values, &masks[static_cast<std::size_t>(n)], read);
        // Draws decided by endless play, on layers whose graph of draws fits comfortably
        // (count_endless_draws needs about 5 bytes per draw and 4 per move between draws).
        std::optional<std::uint64_t> endless;
        if (!stats.unreadable && size <= kMaxEndlessLayer)
          endless = gen::count_endless_draws(rules, n, values, gen::tbb_executor());
        if (n < last)
          held[static_cast<std::size_t>(n)] = std::move(values);
        // A damaged layer gets no line: a consumer reading line by line would take one for
        // statistics.
        if (stats.unreadable) {
          throw std::runtime_error("layer " + std::to_string(n) + ": " +
                                   count_text(stats.unreadable, "position", "positions") +
                                   " could not be read: " + tables->layer_error(n));
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
        const auto percent = [total](std::uint64_t count) {
          return 100.0 * static_cast<double>(count) / total;
        };
        const double mean_depth =
            decided ? static_cast<double>(stats.depth_sum) / static_cast<double>(decided) : 0.0;
        if (args->json) {
          nlohmann::json j;
          j["n"] = n;
          j["positions"] = size;
          j["wins"] = wins;
          j["draws"] = draws;
          j["losses"] = losses;
          j["mean_value"] = value_sum / total;
          j["mean_depth_decided"] = mean_depth;
          j["max_depth"] = stats.max_depth;
          j["max_depth_position"] = pits_text(rules, deep);
          nlohmann::json hist = nlohmann::json::object();
          for (int v = -n; v <= n; ++v) {
            if (stats.histogram[v + 128])
              hist[std::to_string(v)] = stats.histogram[v + 128];
          }
          j["values"] = hist;
          nlohmann::json depth_hist = nlohmann::json::object();
          for (std::size_t d = 0; d < stats.depths.size(); ++d) {
            if (stats.depths[d])
              depth_hist[std::to_string(d)] = stats.depths[d];
          }
          j["depths"] = depth_hist;
          j["unreadable"] = stats.unreadable;
          j["endless_draws"] = endless ? nlohmann::json(*endless) : nlohmann::json(nullptr);
          std::printf("%s\n", j.dump().c_str());
        } else if (args->csv) {
          std::printf("%d,%llu,%llu,%llu,%llu,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%s,%s\n",
                      n,
                      static_cast<unsigned long long>(size),
                      static_cast<unsigned long long>(wins),
                      static_cast<unsigned long long>(draws),
                      static_cast<unsigned long long>(losses),
                      static_cast<double>(wins) / total,
                      static_cast<double>(draws) / total,
                      static_cast<double>(losses) / total,
                      value_sum / total,
                      mean_depth,
                      stats.max_depth,
                      pits_text(rules, deep).c_str(),
                      endless ? std::to_string(*endless).c_str() : "");
        } else {
          // The Markdown row and the aligned text line carry the same fields.
          char endless_buf[32] = "-";
          if (endless)
            std::snprintf(endless_buf, sizeof endless_buf, "%.2f", percent(*endless));
          const std::string endless_text = endless_buf;
          std::printf(args->markdown
                          ? "| %d | %llu | %.2f | %.2f | %.2f | %s | %+.3f | %.2f | %d | `%s` |\n"
                          : "%5d %14llu %8.2f %8.2f %8.2f %9s %+9.3f %9.2f %6d  %s\n",
                      n,
                      static_cast<unsigned long long>(size),
                      percent(wins),
                      percent(draws),
                      percent(losses),
                      endless_text.c_str(),
                      value_sum / total,
                      mean_depth,
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
