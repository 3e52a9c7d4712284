#include "sowdb/analysis/table_jobs.h"

#include <algorithm>

namespace sowdb {

void GenerateSummary::add(const gen::LayerReport& layer) {
  max_stones = layer.stones;
  layer_seconds += layer.seconds;
  solve_seconds += layer.solve_seconds;
  write_seconds += layer.write_seconds;
  read_seconds += layer.read_seconds;
  positions += layer.positions;
  if (!layer.reused)
    solved_positions += layer.positions;
  bytes_on_disk += layer.bytes_on_disk;
  layers_reused += layer.reused ? 1 : 0;
  peak_rss_bytes = std::max(peak_rss_bytes, layer.peak_rss_bytes);
}

double GenerateSummary::positions_per_s() const {
  return seconds > 0 ? static_cast<double>(solved_positions) / seconds : 0.0;
}

double GenerateSummary::bytes_per_position() const {
  return positions > 0 ? static_cast<double>(bytes_on_disk) / static_cast<double>(positions) : 0.0;
}

void MigrateSummary::add(const gen::MigrateLayerReport& layer) {
  max_stones = layer.stones;
  positions += layer.positions;
  bytes_before += layer.bytes_before;
  bytes_on_disk += layer.bytes_on_disk;
}

void VerifySummary::add(const VerifyReport& layer, const std::string& read_error) {
  max_stones = layer.stones;
  positions += layer.positions;
  problems += layer.problems();
  unreadable += layer.unreadable;
  if (layer.unreadable && first_read_error.empty())
    first_read_error = layer.read_error.empty() ? read_error : layer.read_error;
}

std::string VerifySummary::failure() const {
  if (verified())
    return {};
  // Unreadable entries are a damaged file, not a wrong value: say which, in one line.
  std::string what;
  const std::uint64_t wrong = problems - unreadable;
  if (wrong) {
    what = wrong == 1 ? "1 entry disagrees with its successors"
                      : std::to_string(wrong) + " entries disagree with their successors";
    if (objective == Objective::kCooperative)
      what += " (the sets their moves give)";
  }
  if (unreadable) {
    what += std::string(what.empty() ? "" : "; ") + std::to_string(unreadable) +
            (unreadable == 1 ? " entry" : " entries") + " could not be read";
    if (!first_read_error.empty())
      what += " (" + first_read_error + ")";
  }
  return what;
}

nlohmann::json to_json(const gen::LayerReport& layer) {
  nlohmann::json j;
  j["n"] = layer.stones;
  j["positions"] = layer.positions;
  j["seconds"] = layer.seconds;
  j["positions_per_s"] = layer.positions_per_s;
  j["solve_seconds"] = layer.solve_seconds;
  j["write_seconds"] = layer.write_seconds;
  j["read_seconds"] = layer.read_seconds;
  j["peak_rss_bytes"] = layer.peak_rss_bytes;
  j["bytes_on_disk"] = layer.bytes_on_disk;
  j["reused"] = layer.reused;
  if (!layer.rebuilt_because.empty())
    j["rebuilt_because"] = layer.rebuilt_because;
  return j;
}

nlohmann::json to_json(const GenerateSummary& s) {
  nlohmann::json j;
  j["summary"] = true;
  j["variant"] = s.variant;
  j["max_stones"] = s.max_stones;
  j["layers"] = s.max_stones + 1;
  j["layers_reused"] = s.layers_reused;
  j["positions"] = s.positions;
  j["solved_positions"] = s.solved_positions;
  j["seconds"] = s.seconds;
  j["solve_seconds"] = s.solve_seconds;
  j["write_seconds"] = s.write_seconds;
  j["read_seconds"] = s.read_seconds;
  j["positions_per_s"] = s.positions_per_s();
  j["bytes_on_disk"] = s.bytes_on_disk;
  j["bytes_per_position"] = s.bytes_per_position();
  j["peak_rss_bytes"] = s.peak_rss_bytes;
  j["threads"] = s.threads;
  j["zstd_level"] = s.zstd_level;
  j["recompute"] = s.recompute;
  j["objective"] = to_string(s.objective);
  return j;
}

nlohmann::json to_json(const gen::MigrateLayerReport& layer) {
  nlohmann::json j;
  j["n"] = layer.stones;
  j["positions"] = layer.positions;
  j["seconds"] = layer.seconds;
  j["bytes_before"] = layer.bytes_before;
  j["bytes_on_disk"] = layer.bytes_on_disk;
  j["format_version"] = layer.format_version;
  j["reused"] = layer.reused;
  return j;
}

nlohmann::json to_json(const MigrateSummary& s) {
  nlohmann::json j;
  j["summary"] = true;
  j["max_stones"] = s.max_stones;
  j["layers"] = s.max_stones + 1;
  j["positions"] = s.positions;
  j["seconds"] = s.seconds;
  j["bytes_before"] = s.bytes_before;
  j["bytes_on_disk"] = s.bytes_on_disk;
  j["recompute"] = s.recompute;
  return j;
}

nlohmann::json to_json(const VerifyReport& layer, double seconds) {
  nlohmann::json j;
  j["n"] = layer.stones;
  j["positions"] = layer.positions;
  j["bad_values"] = layer.bad_values;
  j["bad_depths"] = layer.bad_depths;
  j["unreadable"] = layer.unreadable;
  j["seconds"] = seconds;
  j["examples"] = layer.examples;
  return j;
}

nlohmann::json to_json(const VerifySummary& s) {
  nlohmann::json j;
  j["summary"] = true;
  j["tables"] = s.tables;
  j["variant"] = s.variant;
  j["max_stones"] = s.max_stones;
  j["positions"] = s.positions;
  j["problems"] = s.problems;
  j["unreadable"] = s.unreadable;
  j["seconds"] = s.seconds;
  j["verified"] = s.verified();
  j["objective"] = to_string(s.objective);
  return j;
}

}  // namespace sowdb
