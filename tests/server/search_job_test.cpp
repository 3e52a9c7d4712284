// Searches that outlive their request (follow=1, GET and DELETE /api/v1/job): a job's answer
// equals complete tables'; its positions only grow from one poll to the next and its bounds only
// narrow; DELETE stops it; a job nobody asks about stops by itself and frees its slot; jobs share
// the search slots; bad ids and parameters are refused.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/probe/tables.h"
#include "sowdb/server/api.h"

namespace sowdb::server {
namespace {

using Clock = std::chrono::steady_clock;

std::shared_ptr<const TableSet> open_tables(const std::string& variant, int max_stones) {
  return TableSet::open(test::generated_dir({variant, max_stones}));
}

Response ask(const Api& api, const std::string& method, const std::string& target) {
  const std::optional<Response> r = api.answer(Request{method, target, "", ""}, true);
  EXPECT_TRUE(r.has_value()) << target;
  return r.value_or(Response{});
}

nlohmann::json body(const Response& r) {
  return nlohmann::json::parse(r.payload());
}

// The start of Kalah(6,4) over layers 0..4: a search of minutes, so its job runs while a test
// asks about it.
const std::string kLong =
    "/api/v1/position?variant=kalah/6x4&board=4,4,4,4,4,4,4,4,4,4,4,4&search_ms=1&follow=1";

// Polls job `id` until it ends (or `limit` passes), checking that positions only grow and bounds
// only narrow; returns the last response.
Response follow_to_end(const Api& api, const std::string& id, std::chrono::seconds limit) {
  const auto until = Clock::now() + limit;
  std::uint64_t positions = 0;
  int lower = -1000;
  int upper = 1000;
  Response r;
  for (;;) {
    r = ask(api, "GET", "/api/v1/job?id=" + id);
    if (r.status != 202 || Clock::now() > until)
      return r;
    const auto j = body(r);
    EXPECT_EQ(j["job"], id);
    EXPECT_EQ(j["state"], "running");
    EXPECT_GE(j["positions"].get<std::uint64_t>(), positions);
    EXPECT_GE(j["lower"].get<int>(), lower);
    EXPECT_LE(j["upper"].get<int>(), upper);
    positions = j["positions"].get<std::uint64_t>();
    lower = j["lower"].get<int>();
    upper = j["upper"].get<int>();
    EXPECT_EQ(r.cache_control, "no-store");
  }
}

TEST(SearchJob, AFollowedSearchEndsAsCompleteTablesSay) {
  const Api api({open_tables("kalah/4x3", 8)}, ApiOptions{});
  const Api complete({open_tables("kalah/4x3", 24)}, ApiOptions{});
  const std::string board = "3,3,3,3,3,3,3,3";
  const Response first = ask(
      api, "GET", "/api/v1/position?variant=kalah/4x3&board=" + board + "&search_ms=1&follow=1");
  Response last = first;
  if (first.status == 202) {
    const auto j = body(first);
    EXPECT_EQ(j["poll"], "/api/v1/job?id=" + j["job"].get<std::string>());
    last = follow_to_end(api, j["job"], std::chrono::seconds(120));
  }
  ASSERT_EQ(last.status, 200) << last.payload();
  const auto got = body(last);
  const auto want = body(ask(complete, "GET", "/api/v1/position?variant=kalah/4x3&board=" + board));
  EXPECT_EQ(got["method"], "search");
  EXPECT_EQ(got["value"], want["value"]);
  ASSERT_EQ(got["moves"].size(), want["moves"].size());
  for (std::size_t i = 0; i < got["moves"].size(); ++i)
    EXPECT_EQ(got["moves"][i]["worth"], want["moves"][i]["worth"]) << i;
  // Proved: the same position with search_ms now answers from the response cache at once.
  const Response again =
      ask(api, "GET", "/api/v1/position?variant=kalah/4x3&board=" + board + "&search_ms=1");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(body(again)["value"], want["value"]);
}

TEST(SearchJob, DeleteStopsAJobAndFreesItsSlot) {
  const Api api({open_tables("kalah/6x4", 4)}, ApiOptions{});
  const Response first = ask(api, "GET", kLong);
  ASSERT_EQ(first.status, 202) << first.payload();
  const std::string id = body(first)["job"];
  // The same position again joins the running job rather than taking a slot.
  EXPECT_EQ(body(ask(api, "GET", kLong))["job"], id);
  // Another position finds the one slot taken.
  const std::string other =
      "/api/v1/position?variant=kalah/6x4&board=4,4,4,4,4,4,4,4,4,4,4,3&search_ms=1&follow=1";
  EXPECT_EQ(ask(api, "GET", other).status, 503);
  const Response stopped = ask(api, "DELETE", "/api/v1/job?id=" + id);
  EXPECT_EQ(stopped.status, 200);
  // DELETE waits up to a second for the search to see its stop: "cancelled", or under a
  // sanitizer, still setting up, "running" and stopping soon after.
  const std::string state = body(stopped)["state"];
  EXPECT_TRUE(state == "cancelled" || state == "running") << state;
  // It ends (a search of minutes, stopped): its answer holds the bounds it proved; the slot is
  // free for another job.
  const Response after = follow_to_end(api, id, std::chrono::seconds(60));
  ASSERT_EQ(after.status, 200) << after.payload();
  const auto j = body(after);
  EXPECT_TRUE(j["value"].is_null());
  EXPECT_LE(j["lower"].get<int>(), j["upper"].get<int>());
  const Response next = ask(api, "GET", other);
  EXPECT_EQ(next.status, 202) << next.payload();
  ask(api, "DELETE", "/api/v1/job?id=" + body(next)["job"].get<std::string>());
}

TEST(SearchJob, AJobNobodyFollowsStops) {
  ApiOptions options;
  options.job_idle_seconds = 0.05;
  const Api api({open_tables("kalah/6x4", 4)}, options);
  const Response first = ask(api, "GET", kLong);
  ASSERT_EQ(first.status, 202) << first.payload();
  // Nobody asks about the job: it stops and frees the slot, which a new job then takes. Asking
  // for another position does not touch the first job.
  const std::string other =
      "/api/v1/position?variant=kalah/6x4&board=4,4,4,4,4,4,4,4,4,4,4,3&search_ms=1&follow=1";
  const auto until = Clock::now() + std::chrono::seconds(60);
  Response next;
  do {
    next = ask(api, "GET", other);
  } while (next.status == 503 && Clock::now() < until);
  EXPECT_EQ(next.status, 202) << next.payload();
  const Response old = ask(api, "GET", "/api/v1/job?id=" + body(first)["job"].get<std::string>());
  ASSERT_EQ(old.status, 200) << old.payload();
  EXPECT_TRUE(body(old)["value"].is_null());
}

TEST(SearchJob, BadRequestsAreRefused) {
  const Api api({open_tables("kalah/4x3", 8)}, ApiOptions{});
  EXPECT_EQ(ask(api, "GET", "/api/v1/job?id=0123456789abcdef").status, 404);
  EXPECT_EQ(ask(api, "DELETE", "/api/v1/job?id=nope").status, 404);
  EXPECT_EQ(ask(api, "GET", "/api/v1/job").status, 400);
  EXPECT_EQ(ask(api, "GET", "/api/v1/job?id=1&id=2").status, 400);
  EXPECT_EQ(ask(api, "GET", "/api/v1/job?job=1").status, 400);
  const Response post = ask(api, "POST", "/api/v1/job?id=1");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.allow, "GET, HEAD, DELETE");
  EXPECT_EQ(
      ask(api, "GET", "/api/v1/position?variant=kalah/4x3&board=3,3,3,3,3,3,3,3&follow=2").status,
      400);
  // follow without search_ms: the position above the tables is refused as before.
  EXPECT_EQ(
      ask(api, "GET", "/api/v1/position?variant=kalah/4x3&board=3,3,3,3,3,3,3,3&follow=1").status,
      422);
}

}  // namespace
}  // namespace sowdb::server
