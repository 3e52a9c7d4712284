// Each report's JSON against its committed example in tests/data/json/, regenerated here from
// the analysis library on tables built by the test: a key renamed, misspelt, dropped or added,
// or a value that changes, fails. After a deliberate change (a key added), rerun with
// SOWDB_UPDATE_JSON_EXAMPLES=1 to rewrite the examples, and review their diff.
#include "json_examples.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "analysis_tables.h"
#include "sowdb/analysis/position_search.h"
#include "sowdb/analysis/report_json.h"

namespace sowdb {
namespace {

// `j` with the values of keys that depend on the zstd library's version (file sizes) or on the
// clock (a search's seconds) set to null, at any depth: the key must be there, its value is not
// compared.
nlohmann::json masked(nlohmann::json j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const bool clock =
          it.key() == "seconds" || it.key() == "value_seconds" || it.key() == "best_seconds";
      it.value() =
          clock || it.key() == "bytes_on_disk" ? nlohmann::json(nullptr) : masked(it.value());
    }
  } else if (j.is_array()) {
    for (auto& e : j)
      e = masked(e);
  }
  return j;
}

// Compares `got` with the example `name`, or writes it there when asked to.
void expect_example(const std::string& name, const nlohmann::json& got) {
  const std::string path = std::string(SOWDB_JSON_EXAMPLES) + "/" + name;
  const char* update = std::getenv("SOWDB_UPDATE_JSON_EXAMPLES");
  if (update && std::string(update) == "1") {
    std::ofstream(path) << test::readable_json(got) << "\n";
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing example " << path;
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json want = nlohmann::json::parse(text.str());
  EXPECT_EQ(masked(got), masked(want)) << name << " differs from the library's output:\n"
                                       << got.dump(2);
  // The committed file is in the readable form the docs quote.
  EXPECT_EQ(text.str(), test::readable_json(want) + "\n") << name << " is not in readable form";
}

Pits board_of(std::initializer_list<int> pits) {
  Pits b{};
  int i = 0;
  for (const int p : pits)
    b[static_cast<std::size_t>(i++)] = static_cast<std::uint8_t>(p);
  return b;
}

TEST(JsonExamples, Probe) {
  const auto set = test::open_competitive("kalah/4x3", 10);
  expect_example("probe.json",
                 to_json(report_position(*set, board_of({1, 2, 0, 1, 1, 0, 2, 3}), 0, 0, 1000)));
}

TEST(JsonExamples, ProbeBySearch) {
  // Four seeds above the tables: the search proves every figure, one thread, no time limit.
  const auto set = test::open_competitive("kalah/4x3", 10);
  SearchBudget budget;
  budget.seconds = 0;
  expect_example(
      "probe_search.json",
      to_json(search_position(*set, board_of({1, 2, 0, 3, 1, 0, 2, 3}), 1, 0, 1000, budget)));
}

TEST(JsonExamples, ProbeWithStores) {
  const auto set = test::open_competitive("oware/6x4", 5);
  expect_example(
      "probe_stores.json",
      to_json(report_position(*set, board_of({0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0}), 22, 22, 1000)));
}

TEST(JsonExamples, ProbeCooperative) {
  const auto set = test::open_cooperative();
  expect_example("probe_cooperative.json",
                 to_json(report_cooperative(*set, board_of({2, 2, 2, 2, 2, 2}), 0, 0, 1000)));
}

TEST(JsonExamples, Stats) {
  const auto set = test::open_competitive("kalah/4x3", 10);
  nlohmann::json layers = nlohmann::json::array();
  layer_statistics(
      *set, 3, [&](const LayerStatistics& s) { layers.push_back(to_json(s, set->engine())); });
  expect_example("stats.json", layers);
}

TEST(JsonExamples, StatsCooperative) {
  const auto set = test::open_cooperative();
  nlohmann::json layers = nlohmann::json::array();
  cooperative_layer_statistics(
      *set, 3, [&](const CooperativeLayerStatistics& s) { layers.push_back(to_json(s)); });
  expect_example("stats_cooperative.json", layers);
}

}  // namespace
}  // namespace sowdb
