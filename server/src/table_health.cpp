// Health that tells the truth: layers found damaged or missing at start or by a failed probe,
// reported by GET /api/v1/health and, at start, on the terminal.
#include <chrono>
#include <exception>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <system_error>

#include "api_impl.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/table_directory.h"

namespace sowdb::server {
namespace {

// The highest layer file's stone count in `dir`, or -1.
int highest_layer(const std::filesystem::path& dir) {
  int top = -1;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (const std::optional<int> n = parse_layer_file_name(it->path().filename().string()))
      top = std::max(top, *n);
  }
  return top;
}

std::string set_name(const Served& s) {
  return s.variant + " " + to_string(s.objective);
}

// Records the layers of `set` whose probes have failed into `health`.
void note_layer_errors(const TableSet& set, int top, LayerHealth& health) {
  for (int n = 0; n <= top; ++n) {
    if (set.layer_error(n).empty())
      continue;
    const std::lock_guard lock(health.mutex);
    health.damaged.insert(n);
  }
}

}  // namespace

std::vector<std::string> check_layers_at_start(Served& s) {
  std::vector<std::string> lines;
  const TableSet& set = *s.set;
  s.top = std::max(highest_layer(set.directory()), set.max_stones());
  OpenOptions options;
  // The whole-file checksum reads every byte: the first probe of the layer checks it. What is
  // left (a header, sizes, the value and seek tables) costs a few reads per layer and finds a
  // truncated file.
  options.verify_checksums = false;
  options.cache_blocks = 0;
  options.expected_rules = set.rules();
  for (int n = 0; n <= s.top; ++n) {
    std::string why = set.layer_error(n);
    if (why.empty()) {
      options.expected_stones = n;
      try {
        LayerReader::open(set.directory() / layer_file_name(n), options);
      } catch (const std::exception& e) {
        why = e.what();
      }
    }
    if (why.empty())
      continue;
    s.health->damaged.insert(n);
    lines.push_back(set_name(s) + ": layer " + std::to_string(n) + " cannot be served: " + why);
  }
  if (set.max_stones() < s.top) {
    lines.push_back(set_name(s) + ": layers 0.." + std::to_string(set.max_stones()) +
                    " served of 0.." + std::to_string(s.top) + " in the directory");
  }
  return lines;
}

void Api::Impl::note_failure(const Served& s) const {
  note_layer_errors(*s.set, s.top, *s.health);
  // A search reads its own opening of the tables (search_tables): its failures count too.
  if (s.search->opened.load(std::memory_order_acquire) && s.search->set)
    note_layer_errors(*s.search->set, s.top, *s.health);
}

std::string Api::Impl::health_body() const {
  nlohmann::json damaged = nlohmann::json::array();
  for (const Served& s : served) {
    std::vector<int> layers;
    {
      const std::lock_guard lock(s.health->mutex);
      layers.assign(s.health->damaged.begin(), s.health->damaged.end());
    }
    if (layers.empty())
      continue;
    damaged.push_back({{"variant", s.variant},
                       {"objective", to_string(s.objective)},
                       {"layers", layers},
                       {"served", {{"min", 0}, {"max", s.set->max_stones()}}}});
  }
  const double up =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return nlohmann::json{{"api", kApiVersion},
                        {"status", damaged.empty() ? "ok" : "degraded"},
                        {"tables", served.size()},
                        {"damaged", damaged},
                        {"uptime_seconds", static_cast<long long>(up)}}
      .dump();
}

}  // namespace sowdb::server
