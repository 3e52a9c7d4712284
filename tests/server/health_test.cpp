// Health that tells the truth (docs/API.md, "Health"): a layer missing or damaged at start, or
// found damaged by a probe while serving, makes GET /api/v1/health "degraded", naming the
// variant and the layers and never a path; a batch that hits it is one log line.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/probe/table_directory.h"
#include "sowdb/probe/tables.h"
#include "sowdb/server/api.h"
#include "test_support.h"

namespace sowdb::server {
namespace {

constexpr int kOwareMax = 8;

// A copy of oware/3x2's layers 0..8 in a directory of its own, for a test to damage.
std::filesystem::path copy_of_tables(const test::TempDir& tmp) {
  return test::copy_tables(test::generated_dir({"oware/3x2", kOwareMax}), tmp.path() / "oware");
}

void truncate_layer(const std::filesystem::path& dir, int n) {
  const std::filesystem::path file = dir / layer_file_name(n);
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
}

std::unique_ptr<Api> serve(const std::filesystem::path& dir) {
  std::vector<std::shared_ptr<const TableSet>> sets = {TableSet::open(dir)};
  return std::make_unique<Api>(std::move(sets), ApiOptions{});
}

Response ask(const Api& api,
             const std::string& method,
             const std::string& target,
             const std::string& body = "") {
  const std::optional<Response> r = api.answer(Request{method, target, body, ""}, true);
  EXPECT_TRUE(r.has_value()) << target;
  return r.value_or(Response{});
}

nlohmann::json health(const Api& api) {
  const Response r = ask(api, "GET", "/api/v1/health");
  EXPECT_EQ(r.status, 200);
  return nlohmann::json::parse(r.payload());
}

// A position of 6 seeds on oware/3x2: its value is in layer 6.
const std::string kSixSeeds = "/api/v1/position?variant=oware/3x2&board=1,1,1,1,1,1";

TEST(Health, OkOnSoundTables) {
  test::TempDir tmp("health-ok");
  const std::unique_ptr<Api> api = serve(copy_of_tables(tmp));
  EXPECT_TRUE(api->start_warnings().empty());
  const nlohmann::json h = health(*api);
  EXPECT_EQ(h["status"], "ok");
  EXPECT_TRUE(h["damaged"].empty());
}

TEST(Health, TruncatedLayerAtStartIsDegraded) {
  test::TempDir tmp("health-start");
  const std::filesystem::path dir = copy_of_tables(tmp);
  truncate_layer(dir, 5);
  const std::unique_ptr<Api> api = serve(dir);
  const std::vector<std::string> warnings = api->start_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("layer 5"), std::string::npos) << warnings[0];
  const Response r = ask(*api, "GET", "/api/v1/health");
  const nlohmann::json h = nlohmann::json::parse(r.payload());
  EXPECT_EQ(h["status"], "degraded");
  ASSERT_EQ(h["damaged"].size(), 1u);
  EXPECT_EQ(h["damaged"][0]["variant"], "oware/3x2");
  EXPECT_EQ(h["damaged"][0]["objective"], "competitive");
  EXPECT_EQ(h["damaged"][0]["layers"], nlohmann::json::array({5}));
  EXPECT_EQ(std::string(r.payload()).find(tmp.path().string()), std::string::npos);
  // What does not need the layer is still served.
  EXPECT_EQ(ask(*api, "GET", "/api/v1/position?variant=oware/3x2&board=1,0,0,0,0,1").status, 200);
}

TEST(Health, MissingLayerAtStartIsDegraded) {
  test::TempDir tmp("health-gap");
  const std::filesystem::path dir = copy_of_tables(tmp);
  std::filesystem::remove(dir / layer_file_name(4));
  const std::unique_ptr<Api> api = serve(dir);
  EXPECT_FALSE(api->start_warnings().empty());
  const nlohmann::json h = health(*api);
  EXPECT_EQ(h["status"], "degraded");
  ASSERT_EQ(h["damaged"].size(), 1u);
  EXPECT_EQ(h["damaged"][0]["layers"], nlohmann::json::array({4}));
  EXPECT_EQ(h["damaged"][0]["served"]["max"], 3);
}

TEST(Health, LayerTruncatedWhileServingIsDegradedAfterARequestTouchesIt) {
  test::TempDir tmp("health-run");
  const std::filesystem::path dir = copy_of_tables(tmp);
  const std::unique_ptr<Api> api = serve(dir);
  ASSERT_EQ(health(*api)["status"], "ok");
  truncate_layer(dir, 6);
  EXPECT_EQ(health(*api)["status"], "ok");  // nothing has touched it yet
  const Response r = ask(*api, "GET", kSixSeeds);
  EXPECT_EQ(r.status, 500) << r.payload();
  EXPECT_EQ(std::string(r.payload()).find(tmp.path().string()), std::string::npos) << r.payload();
  const Response after = ask(*api, "GET", "/api/v1/health");
  const nlohmann::json h = nlohmann::json::parse(after.payload());
  EXPECT_EQ(h["status"], "degraded");
  ASSERT_EQ(h["damaged"].size(), 1u);
  EXPECT_EQ(h["damaged"][0]["layers"], nlohmann::json::array({6}));
  EXPECT_EQ(std::string(after.payload()).find(tmp.path().string()), std::string::npos);
}

TEST(Health, BatchOnADamagedLayerIsOneLogLine) {
  test::TempDir tmp("health-batch");
  const std::filesystem::path dir = copy_of_tables(tmp);
  truncate_layer(dir, 6);
  const std::unique_ptr<Api> api = serve(dir);
  std::string body = R"({"variant": "oware/3x2", "positions": [)";
  for (const char* board : {"1,1,1,1,1,1", "2,1,1,1,0,1", "1,0,0,0,0,1", "0,2,2,1,0,1"})
    body += std::string("{\"board\": [") + board + "]},";
  body.back() = ']';
  body += '}';
  const Response r = ask(*api, "POST", "/api/v1/batch", body);
  ASSERT_EQ(r.status, 200) << r.payload();
  const nlohmann::json results = nlohmann::json::parse(r.payload())["results"];
  EXPECT_EQ(results[0]["status"], 500);
  EXPECT_FALSE(results[2].contains("status"));  // 2 seeds: answered
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_NE(r.faults[0].find("3 of 4 positions failed"), std::string::npos) << r.faults[0];
  EXPECT_EQ(std::string(r.payload()).find(tmp.path().string()), std::string::npos);
}

}  // namespace
}  // namespace sowdb::server
