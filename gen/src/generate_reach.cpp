// Co-operative tables, layer by layer with resume (GenerateOptions::objective).
#include "generate_reach.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/cooperative.h"
#include "sowdb/gen/parallel.h"

namespace sowdb::gen {
namespace fs = std::filesystem;

namespace {

// Layer n's sets as its file holds them. Throws TableError when the file fails a check.
ReachLayer read_reach_layer(const fs::path& path, const RuleSet& rules, int n) {
  OpenOptions open;
  open.expected_rules = rules;
  open.expected_stones = n;
  const auto reader = LayerReader::open(path, open);
  if (reader->info().objective != Objective::kCooperative) {
    throw TableError(TableError::Code::kRuleMismatch,
                     path.string() + ": holds competitive values, not co-operative sets");
  }
  ReachLayer layer;
  layer.stones = n;
  layer.words = reach_set_words(n);
  layer.sets.resize(reader->info().entries * static_cast<std::size_t>(layer.words));
  reader->read_all_sets(layer.sets);
  return layer;
}

}  // namespace

void generate_reach_layers(const GenerateOptions& options,
                           const std::function<void()>& check_writable) {
  const RuleSet rules = options.variant.rules.normalised();
  const auto progress = [&](int n, Phase phase, double f) {
    if (options.on_progress)
      options.on_progress(n, phase, f);
    stop_if_asked(options, n);
  };
  std::vector<ReachLayer> layers;
  bool writable_checked = false;
  for (int n = 0; n <= options.max_stones; ++n) {
    stop_if_asked(options, n);
    const fs::path path = options.out / layer_file_name(n);
    const auto start = std::chrono::steady_clock::now();
    LayerReport report;
    report.stones = n;
    report.positions = layer_size(rules.pits(), n);
    bool reused = false;
    if (fs::exists(path)) {
      try {
        progress(n, Phase::kRead, 0);
        layers.push_back(read_reach_layer(path, rules, n));
        progress(n, Phase::kRead, 1);
        reused = true;
      } catch (const TableError& e) {
        report.rebuilt_because = e.what();
        if (options.on_rebuild)
          options.on_rebuild(n, report.rebuilt_because);
      }
    }
    if (!reused) {
      if (!writable_checked) {
        check_writable();
        writable_checked = true;
      }
      progress(n, Phase::kSolve, 0);
      ReachLayer layer = solve_reach_layer(
          rules,
          n,
          [&](int m) -> const ReachLayer& { return layers.at(static_cast<std::size_t>(m)); },
          [&](double f) { progress(n, Phase::kSolve, f); });
      const auto solved_at = std::chrono::steady_clock::now();
      report.solve_seconds = std::chrono::duration<double>(solved_at - start).count();
      WriteOptions write = options.write;
      if (!write.executor)
        write.executor = tbb_executor();
      write.progress = [&](std::uint64_t done, std::uint64_t total) {
        progress(n, Phase::kWrite, static_cast<double>(done) / static_cast<double>(total));
      };
      progress(n, Phase::kWrite, 0);
      write_reach_layer(path, rules, n, layer.sets, write);
      report.write_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - solved_at).count();
      layers.push_back(std::move(layer));
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.reused = reused;
    report.read_seconds = reused ? seconds : 0;
    report.seconds = reused ? 0 : seconds;
    report.positions_per_s =
        (!reused && seconds > 0) ? static_cast<double>(report.positions) / seconds : 0;
    report.peak_rss_bytes = peak_rss_bytes();
    std::error_code ec;
    report.bytes_on_disk = fs::file_size(path, ec);
    if (options.on_layer)
      options.on_layer(report);
  }
}

}  // namespace sowdb::gen
