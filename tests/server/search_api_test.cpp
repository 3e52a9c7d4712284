// GET /api/v1/position with search_ms: a position above the served tables is searched, and the
// answer (value, every move's worth) equals complete tables'; without search_ms it is refused as
// before; bounds that ran out of time are sent no-store; the proof store answers a position
// proved by an earlier server.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/analysis/opening_book.h"
#include "sowdb/analysis/proof_store.h"
#include "sowdb/probe/tables.h"
#include "sowdb/server/api.h"
#include "test_support.h"

namespace sowdb::server {
namespace {

constexpr int kPartial = 5;  // kalah/3x2's tables served: layers 0..5 of its 12 seeds

std::shared_ptr<const TableSet> open_tables(const std::string& variant, int max_stones) {
  return TableSet::open(test::generated_dir({variant, max_stones}));
}

Response get(const Api& api, const std::string& target) {
  const std::optional<Response> r = api.answer(Request{"GET", target, "", ""}, true);
  EXPECT_TRUE(r.has_value()) << target;
  return r.value_or(Response{});
}

std::string target(const std::vector<int>& board, const std::string& extra) {
  std::string t = "/api/v1/position?variant=kalah/3x2&board=";
  for (std::size_t i = 0; i < board.size(); ++i) {
    if (i > 0)
      t += ',';
    t += std::to_string(board[i]);
  }
  return t + extra;
}

TEST(SearchApi, AboveTheTablesAnswersAsCompleteTables) {
  test::TempDir proofs("search-api");
  ApiOptions options;
  options.proofs_root = proofs.path();
  const Api api({open_tables("kalah/3x2", kPartial)}, options);
  const Api complete({open_tables("kalah/3x2", 12)}, ApiOptions{});
  const std::vector<std::vector<int>> boards = {
      {2, 2, 2, 2, 2, 2}, {1, 3, 0, 2, 2, 1}, {0, 4, 1, 1, 0, 3}, {3, 0, 0, 2, 1, 1}};
  for (const auto& board : boards) {
    SCOPED_TRACE(target(board, ""));
    const Response refused = get(api, target(board, ""));
    EXPECT_EQ(refused.status, 422);
    const Response r = get(api, target(board, "&stores=0,0&search_ms=5000"));
    ASSERT_EQ(r.status, 200) << r.payload();
    const Response w = get(complete, target(board, ""));
    ASSERT_EQ(w.status, 200) << w.payload();
    const auto g = nlohmann::json::parse(r.payload());
    const auto t = nlohmann::json::parse(w.payload());
    EXPECT_EQ(g["method"], "search");
    EXPECT_EQ(t["method"], "table");
    EXPECT_EQ(g["value"], t["value"]);
    EXPECT_EQ(g["result"], t["result"]);
    ASSERT_EQ(g["moves"].size(), t["moves"].size());
    for (std::size_t i = 0; i < g["moves"].size(); ++i)
      EXPECT_EQ(g["moves"][i]["worth"], t["moves"][i]["worth"]) << i;
    EXPECT_EQ(r.cache_control, "public, max-age=86400");
    // The same position without search_ms is still refused after its search.
    EXPECT_EQ(get(api, target(board, "")).status, 422);
  }
  // A server started later answers from what the first one proved.
  const Api later({open_tables("kalah/3x2", kPartial)}, options);
  const auto again =
      nlohmann::json::parse(get(later, target(boards[0], "&search_ms=5000")).payload());
  EXPECT_TRUE(again["search"]["stored"].get<bool>());
  EXPECT_EQ(again["search"]["positions"], 0);
}

TEST(SearchApi, BoundsAreSentNoStoreAndHoldTheValue) {
  const Api api({open_tables("kalah/6x4", 4)}, ApiOptions{});
  const Response r =
      get(api, "/api/v1/position?variant=kalah/6x4&board=4,4,4,4,4,4,4,4,4,4,4,4&search_ms=50");
  ASSERT_EQ(r.status, 200) << r.payload();
  const auto j = nlohmann::json::parse(r.payload());
  EXPECT_TRUE(j["value"].is_null());
  EXPECT_LT(j["lower"].get<int>(), j["upper"].get<int>());
  EXPECT_EQ(j["search"]["stopped_by"], "time_limit");
  EXPECT_EQ(r.cache_control, "no-store");
}

TEST(SearchApi, SearchMsIsCheckedAndBounded) {
  ApiOptions options;
  options.max_search_ms = 20;
  const Api api({open_tables("kalah/6x4", 4)}, options);
  EXPECT_EQ(get(api,
                "/api/v1/position?variant=kalah/6x4&board=4,4,4,4,4,4,4,4,4,4,4,4"
                "&search_ms=soon")
                .status,
            400);
  EXPECT_EQ(get(api,
                "/api/v1/position?variant=kalah/6x4&board=4,4,4,4,4,4,4,4,4,4,4,4"
                "&search_ms=-5")
                .status,
            400);
  // Far more than the bound asked: searched for the bound (unbounded, the test would hang).
  const Response r = get(api,
                         "/api/v1/position?variant=kalah/6x4&board=4,4,4,4,4,4,4,4,4,4,4,4"
                         "&search_ms=999999");
  ASSERT_EQ(r.status, 200) << r.payload();
  EXPECT_EQ(nlohmann::json::parse(r.payload())["search"]["stopped_by"], "time_limit");
}

TEST(SearchApi, ValueOnlyIsAnsweredByABook) {
  test::TempDir proofs("search-api-book");
  const std::shared_ptr<const TableSet> part = open_tables("kalah/3x2", kPartial);
  {
    ProofStore store(proof_store_path(proofs.path(), part->rules()), part->rules());
    BookRequest book;
    book.variant = part->variant();
    book.plies = 2;
    book.threads = 1;
    ASSERT_GT(build_book(*part, store, book).proved, 0u);
  }
  ApiOptions options;
  options.proofs_root = proofs.path();
  const Api api({part}, options);
  const Api complete({open_tables("kalah/3x2", 12)}, ApiOptions{});
  const Response r = get(api, target({2, 2, 2, 2, 2, 2}, "&search_ms=1&worths=0"));
  ASSERT_EQ(r.status, 200) << r.payload();
  const auto g = nlohmann::json::parse(r.payload());
  const auto t = nlohmann::json::parse(get(complete, target({2, 2, 2, 2, 2, 2}, "")).payload());
  EXPECT_TRUE(g["search"]["stored"].get<bool>());
  EXPECT_EQ(g["value"], t["value"]);
  // The best move is proved; the other moves' worths may stay bounds.
  for (const auto& m : t["moves"]) {
    if (m["pit"] == g["best"]) {
      EXPECT_EQ(m["worth"], t["value"]);
    }
  }
  EXPECT_EQ(get(api, target({2, 2, 2, 2, 2, 2}, "&search_ms=1&worths=2")).status, 400);
}

}  // namespace
}  // namespace sowdb::server
