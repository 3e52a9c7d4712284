// Api::answer without sockets: requests in, responses out, over small generated tables. The
// position answers are checked against TableSet's own probes; every status of docs/API.md that
// does not need a transport (400, 404, 405, 422) is met once.
#include "sowdb/server/api.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/probe/tables.h"

namespace sowdb::server {
namespace {

// Oware on 3 pits of 2 seeds (12 in a game) up to 8 on the board, and a variant with an option
// that differs from its preset's (abapa's grand slam captures here) up to 6.
constexpr int kOwareMax = 8;
constexpr int kAbapaMax = 6;
constexpr int kGameSeeds = 12;

std::shared_ptr<const TableSet> open_tables(const std::string& variant, int max_stones) {
  return TableSet::open(test::generated_dir({variant, max_stones}));
}

const TableSet& oware() {
  static const std::shared_ptr<const TableSet> set = open_tables("oware/3x2", kOwareMax);
  return *set;
}

const Api& api() {
  static const Api a(
      {open_tables("oware/3x2", kOwareMax), open_tables("abapa/3x2/grand_slam=capture", kAbapaMax)},
      ApiOptions{});
  return a;
}

Response get(const std::string& target) {
  const std::optional<Response> r = api().answer(Request{"GET", target, "", ""}, true);
  EXPECT_TRUE(r.has_value()) << target;
  return r.value_or(Response{});
}

Response post(const std::string& target, const std::string& body) {
  const std::optional<Response> r = api().answer(Request{"POST", target, body, ""}, true);
  EXPECT_TRUE(r.has_value()) << target;
  return r.value_or(Response{});
}

nlohmann::json body_of(const Response& r) {
  return nlohmann::json::parse(r.payload());
}

std::string counts(const std::vector<int>& v) {
  std::string out;
  for (const int x : v) {
    if (!out.empty())
      out += ',';
    out += std::to_string(x);
  }
  return out;
}

std::string position_target(const std::vector<int>& board, int a, int b) {
  return "/api/v1/position?variant=oware/3x2&board=" + counts(board) +
         "&stores=" + std::to_string(a) + "," + std::to_string(b);
}

// Every 7th board of 0..kOwareMax seeds, in odometer order: each layer met, a few hundred probes.
std::vector<std::vector<int>> sample_boards() {
  std::vector<std::vector<int>> out;
  std::vector<int> board(6, 0);
  for (int step = 0;; ++step) {
    int sum = 0;
    for (const int x : board)
      sum += x;
    if (sum <= kOwareMax && step % 7 == 0)
      out.push_back(board);
    std::size_t i = 0;
    while (i < board.size() && ++board[i] > kOwareMax)
      board[i++] = 0;
    if (i == board.size())
      break;
  }
  return out;
}

TEST(ApiAnswer, PositionValuesAreTheTables) {
  const std::vector<std::vector<int>> boards = sample_boards();
  ASSERT_GT(boards.size(), 100u);
  for (const std::vector<int>& board : boards) {
    Pits p{};
    int stones = 0;
    for (std::size_t i = 0; i < board.size(); ++i) {
      p[i] = static_cast<std::uint8_t>(board[i]);
      stones += board[i];
    }
    int value = 0;
    int depth = 0;
    ASSERT_EQ(oware().value(p, value, depth), ProbeStatus::kOk);
    const int rest = kGameSeeds - stones;
    const Response r = get(position_target(board, rest / 2, rest - rest / 2));
    ASSERT_EQ(r.status, 200) << counts(board) << ": " << r.payload();
    EXPECT_EQ(r.endpoint, Endpoint::kPosition);
    const nlohmann::json j = body_of(r);
    EXPECT_EQ(j["api"], kApiVersion);
    EXPECT_EQ(j["variant"], "oware/3x2");
    EXPECT_EQ(j["value"], value) << counts(board);
    EXPECT_EQ(j["depth"], depth) << counts(board);
    EXPECT_EQ(j["pits"], board);
  }
}

TEST(ApiAnswer, UncachedPositionWaitsForMayProbe) {
  const std::string target = position_target({1, 0, 2, 0, 1, 1}, 3, 4);
  EXPECT_FALSE(api().answer(Request{"GET", target, "", ""}, false).has_value());
  const Response probed = get(target);
  ASSERT_EQ(probed.status, 200);
  // Now cached: answered on the I/O thread, the same bytes.
  const std::optional<Response> cached = api().answer(Request{"GET", target, "", ""}, false);
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(cached->payload(), probed.payload());
}

TEST(ApiAnswer, MalformedPositionIs400) {
  for (const std::string target : {
           "/api/v1/position?variant=oware/3x2&board=1,2,x,0,0,0",
           "/api/v1/position?variant=oware/3x2&board=1,2,0,0",  // 4 pits, the board has 6
           "/api/v1/position?variant=oware/3x2",                // no board
           "/api/v1/position?variant=oware/3x2&board=1,0,0,0,0,0&stores=1",
           "/api/v1/position?variant=oware/3x2&board=1,0,0,0,0,0&colour=red",
           "/api/v1/position?variant=oware/3x2&board=1,0,0,0,0,0&board=1,0,0,0,0,0",
       }) {
    const Response r = get(target);
    EXPECT_EQ(r.status, 400) << target << ": " << r.payload();
    EXPECT_EQ(body_of(r)["status"], 400);
    EXPECT_FALSE(body_of(r)["error"].get<std::string>().empty());
  }
}

TEST(ApiAnswer, UnknownOrUnservedVariantIs404) {
  const Response unknown = get("/api/v1/position?variant=nosuch/3x2&board=1,0,0,0,0,0");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(body_of(unknown)["error"].get<std::string>().find("nosuch"), std::string::npos);
  const Response unserved = get("/api/v1/position?variant=kalah/3x2&board=1,0,0,0,0,0");
  EXPECT_EQ(unserved.status, 404);
  EXPECT_NE(body_of(unserved)["error"].get<std::string>().find("not served"), std::string::npos);
}

TEST(ApiAnswer, AboveTheTablesIs422) {
  const Response r = get(position_target({3, 3, 1, 1, 1, 0}, 1, 2));  // 9 seeds, tables hold 8
  EXPECT_EQ(r.status, 422) << r.payload();
  EXPECT_NE(body_of(r)["error"].get<std::string>().find("up to 8"), std::string::npos);
  // Stores the game cannot hold with that board: 12 seeds in all at most.
  EXPECT_EQ(get(position_target({1, 0, 0, 0, 0, 1}, 9, 9)).status, 422);
}

TEST(ApiAnswer, BatchHoldsEachSlotsOwnAnswer) {
  const std::string body = R"({"variant": "oware/3x2", "positions": [)"
                           R"({"board": [1, 0, 2, 0, 1, 1], "stores": [3, 4]},)"
                           R"({"board": [1, 0, 2]},)"
                           R"({"board": [3, 3, 1, 1, 1, 0], "stores": [1, 2]},)"
                           R"({"board": [0, 0, 0, 0, 0, 0], "store": [6, 6]}]})";
  EXPECT_FALSE(api().answer(Request{"POST", "/api/v1/batch", body, ""}, false).has_value());
  const Response r = post("/api/v1/batch", body);
  ASSERT_EQ(r.status, 200) << r.payload();
  EXPECT_EQ(r.endpoint, Endpoint::kBatch);
  const nlohmann::json results = body_of(r)["results"];
  ASSERT_EQ(results.size(), 4u);
  int value = 0;
  int depth = 0;
  ASSERT_EQ(oware().value(test::board_of({1, 0, 2, 0, 1, 1}), value, depth), ProbeStatus::kOk);
  EXPECT_EQ(results[0]["value"], value);
  EXPECT_EQ(results[0]["depth"], depth);
  EXPECT_EQ(results[1]["status"], 400);
  EXPECT_EQ(results[2]["status"], 422);
  EXPECT_EQ(results[3]["status"], 400);
  EXPECT_TRUE(r.faults.empty());
  // The batch as a whole is refused when its variant is not served.
  EXPECT_EQ(post("/api/v1/batch", R"({"variant": "kalah/3x2", "positions": []})").status, 404);
  EXPECT_EQ(post("/api/v1/batch", "{").status, 400);
}

TEST(ApiAnswer, VariantsListsEachServedSet) {
  const Response r = get("/api/v1/variants");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.endpoint, Endpoint::kVariants);
  const nlohmann::json j = body_of(r);
  EXPECT_EQ(j["api"], kApiVersion);
  ASSERT_EQ(j["tables"].size(), 2u);
  const nlohmann::json& first = j["tables"][0];
  EXPECT_EQ(first["variant"], "oware/3x2");
  EXPECT_EQ(first["objective"], "competitive");
  EXPECT_EQ(first["family"], "oware");
  EXPECT_EQ(first["pits_per_side"], 3);
  EXPECT_EQ(first["seeds_per_pit"], 2);
  EXPECT_EQ(first["game_seeds"], kGameSeeds);
  EXPECT_EQ(first["layers"]["max"], kOwareMax);
  EXPECT_GT(first["positions"].get<long long>(), 0);
  EXPECT_GT(first["bytes"].get<long long>(), 0);
  EXPECT_EQ(j["tables"][1]["variant"], "abapa/3x2/grand_slam=capture");
  EXPECT_EQ(j["tables"][1]["layers"]["max"], kAbapaMax);
}

TEST(ApiAnswer, VariantGivesTheCanonicalTextAndFacts) {
  // Options in another order, one of them the preset's own: the canonical text drops it.
  const Response r = get("/api/v1/variant?variant=abapa/3x2/grand_slam=capture,skip_origin=on");
  ASSERT_EQ(r.status, 200) << r.payload();
  EXPECT_EQ(r.endpoint, Endpoint::kVariant);
  const nlohmann::json j = body_of(r);
  EXPECT_EQ(j["api"], kApiVersion);
  EXPECT_EQ(j["variant"], "abapa/3x2/grand_slam=capture");
  EXPECT_EQ(j["preset"], "abapa");
  EXPECT_EQ(j["family"], "oware");
  EXPECT_EQ(j["pits_per_side"], 3);
  EXPECT_EQ(j["seeds_per_pit"], 2);
  EXPECT_EQ(j["game_seeds"], kGameSeeds);
  EXPECT_NE(j["rules"].get<std::string>().find("grand_slam=capture"), std::string::npos);
  ASSERT_EQ(j["tables"].size(), 1u);
  EXPECT_EQ(j["tables"][0]["layers"]["max"], kAbapaMax);
  EXPECT_EQ(j["tables"][0]["objective"], "competitive");
  // The canonical text answers the same; so does the percent-encoded text.
  EXPECT_EQ(get("/api/v1/variant?variant=abapa/3x2/grand_slam=capture").payload(), r.payload());
  EXPECT_EQ(get("/api/v1/variant?variant=abapa%2F3x2%2Fgrand_slam%3Dcapture").payload(),
            r.payload());
}

TEST(ApiAnswer, VariantRefusals) {
  const Response unknown = get("/api/v1/variant?variant=nosuch");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(body_of(unknown)["error"].get<std::string>().find("nosuch"), std::string::npos);
  // oware alone is oware/6x4, which is not served here.
  const Response unserved = get("/api/v1/variant?variant=oware");
  EXPECT_EQ(unserved.status, 404);
  EXPECT_NE(body_of(unserved)["error"].get<std::string>().find("oware/6x4 is not served"),
            std::string::npos);
  EXPECT_EQ(get("/api/v1/variant?variant=oware/3x9x").status, 404);
  EXPECT_EQ(get("/api/v1/variant").status, 400);
  EXPECT_EQ(get("/api/v1/variant?variant=oware/3x2&objective=competitive").status, 400);
  EXPECT_EQ(get("/api/v1/variant?variant=oware/3x2&variant=oware/3x2").status, 400);
  const Response post_it = post("/api/v1/variant?variant=oware/3x2", "");
  EXPECT_EQ(post_it.status, 405);
  EXPECT_EQ(post_it.allow, "GET, HEAD");
  EXPECT_EQ(Api::endpoint_of("/api/v1/variant?variant=oware"), Endpoint::kVariant);
}

TEST(ApiAnswer, HealthAndOtherPaths) {
  const Response health = get("/api/v1/health");
  ASSERT_EQ(health.status, 200);
  EXPECT_EQ(body_of(health)["status"], "ok");
  EXPECT_EQ(body_of(health)["tables"], 2);
  EXPECT_EQ(get("/api/v2/position").status, 404);
  EXPECT_EQ(get("/static/nosuch.js").status, 404);
  const Response page = get("/?variant=oware");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type.rfind("text/html", 0), 0u);
  EXPECT_EQ(get("not a path").status, 400);
  const Response wrong = post("/api/v1/position?variant=oware/3x2&board=1,0,0,0,0,0", "");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(wrong.allow, "GET, HEAD");
}

}  // namespace
}  // namespace sowdb::server
