// Small answers on request (docs/API.md): `max_plies` (0: no principal line) and `fields` for a
// position and a batch, gzip when the request accepts it, and the bound on an answer's size (413,
// never an answer cut short). Over small generated tables, without sockets.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/probe/tables.h"
#include "sowdb/server/api.h"

namespace sowdb::server {
namespace {

constexpr int kOwareMax = 8;

std::shared_ptr<const TableSet> oware_tables() {
  return TableSet::open(test::generated_dir({"oware/3x2", kOwareMax}));
}

const Api& api() {
  static const Api a({oware_tables()}, ApiOptions{});
  return a;
}

Response ask(const Api& a,
             const std::string& method,
             const std::string& target,
             const std::string& body = "",
             const std::string& accept_encoding = "") {
  const std::optional<Response> r =
      a.answer(Request{method, target, body, "", accept_encoding}, true);
  EXPECT_TRUE(r.has_value()) << target;
  return r.value_or(Response{});
}

Response get(const std::string& target) {
  return ask(api(), "GET", target);
}

Response post_batch(const std::string& body, const std::string& accept_encoding = "") {
  return ask(api(), "POST", "/api/v1/batch", body, accept_encoding);
}

nlohmann::json body_of(const Response& r) {
  return nlohmann::json::parse(r.payload());
}

// Positions of 5..8 seeds with moves left: each has a principal line of at least one ply.
const std::vector<std::string> kBoards = {
    "1,0,2,0,1,1", "2,1,0,1,1,2", "0,3,1,2,0,2", "1,1,1,1,1,1"};

std::string position(const std::string& board, const std::string& extra = "") {
  return "/api/v1/position?variant=oware/3x2&board=" + board + "&stores=1,1" + extra;
}

std::string batch_body(const std::string& options) {
  std::string body = R"({"variant": "oware/3x2", )" + options + R"("positions": [)";
  for (const std::string& b : kBoards)
    body += "{\"board\": [" + b + "], \"stores\": [1, 1]},";
  return body + R"({"board": [9, 9, 9]}]})";  // the last one refused in place
}

TEST(SmallAnswers, MaxPliesZeroGivesNoLine) {
  for (const std::string& board : kBoards) {
    SCOPED_TRACE(board);
    const Response full = get(position(board));
    const Response none = get(position(board, "&max_plies=0"));
    const Response one = get(position(board, "&max_plies=1"));
    ASSERT_EQ(full.status, 200) << full.payload();
    ASSERT_EQ(none.status, 200) << none.payload();
    ASSERT_EQ(one.status, 200) << one.payload();
    nlohmann::json f = body_of(full);
    nlohmann::json n = body_of(none);
    ASSERT_FALSE(f["line"].empty());
    EXPECT_TRUE(n["line"].empty());
    EXPECT_TRUE(n["line_steps"].empty());
    EXPECT_EQ(body_of(one)["line"].size(), 1u);
    EXPECT_EQ(body_of(one)["line"][0], f["line"][0]);
    // Everything but the line is the same answer.
    for (const char* key : {"line", "line_steps", "line_end"}) {
      f.erase(key);
      n.erase(key);
    }
    EXPECT_EQ(f, n);
    // More than the server plays is the server's line, not a refusal.
    EXPECT_EQ(get(position(board, "&max_plies=999999")).payload(), full.payload());
  }
  for (const char* bad : {"&max_plies=-1", "&max_plies=x", "&max_plies=", "&max_plies=1,2"}) {
    const Response r = get(position(kBoards[0], bad));
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_NE(body_of(r)["error"].get<std::string>().find("max_plies"), std::string::npos);
  }
}

TEST(SmallAnswers, BatchMaxPliesZeroGivesNoLine) {
  const Response full = post_batch(batch_body(""));
  const Response none = post_batch(batch_body(R"("max_plies": 0, )"));
  ASSERT_EQ(full.status, 200) << full.payload();
  ASSERT_EQ(none.status, 200) << none.payload();
  const nlohmann::json f = body_of(full)["results"];
  const nlohmann::json n = body_of(none)["results"];
  ASSERT_EQ(n.size(), kBoards.size() + 1);
  for (std::size_t i = 0; i < kBoards.size(); ++i) {
    EXPECT_FALSE(f[i]["line"].empty());
    EXPECT_TRUE(n[i]["line"].empty()) << i;
    EXPECT_TRUE(n[i]["line_steps"].empty()) << i;
    EXPECT_EQ(n[i]["value"], f[i]["value"]);
    EXPECT_EQ(n[i]["moves"], f[i]["moves"]);
  }
  EXPECT_EQ(n.back()["status"], 400);
  for (const char* bad : {R"("max_plies": -1, )", R"("max_plies": "0", )", R"("max_plies": 1.5, )"})
    EXPECT_EQ(post_batch(batch_body(bad)).status, 400) << bad;
}

TEST(SmallAnswers, FieldsKeepOnlyTheKeysAsked) {
  const Response full = get(position(kBoards[1]));
  const Response some = get(position(kBoards[1], "&fields=value,best"));
  ASSERT_EQ(some.status, 200) << some.payload();
  const nlohmann::json f = body_of(full);
  const nlohmann::json s = body_of(some);
  EXPECT_EQ(s, (nlohmann::json{{"api", 1}, {"best", f["best"]}, {"value", f["value"]}}));
  // Every key of an answer may be asked for: all of them give the whole answer.
  std::string all;
  for (const auto& item : f.items())
    all += (all.empty() ? "" : ",") + item.key();
  EXPECT_EQ(get(position(kBoards[1], "&fields=" + all)).payload(), full.payload());
  const Response unknown = get(position(kBoards[1], "&fields=value,colour"));
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(body_of(unknown)["error"].get<std::string>().find("unknown field 'colour'"),
            std::string::npos);
  EXPECT_EQ(get(position(kBoards[1], "&fields=")).status, 400);
  EXPECT_EQ(get(position(kBoards[1], "&fields=value,,best")).status, 400);
  // A refusal keeps its keys whatever was asked.
  const Response refused = get("/api/v1/position?variant=oware/3x2&board=9,9,9,0,0,0&fields=value");
  EXPECT_EQ(refused.status, 422);
  EXPECT_TRUE(body_of(refused).contains("error"));
}

TEST(SmallAnswers, BatchFields) {
  const Response full = post_batch(batch_body(""));
  const nlohmann::json f = body_of(full)["results"];
  for (const char* fields : {R"("fields": ["value", "depth"], )", R"("fields": "value,depth", )"}) {
    SCOPED_TRACE(fields);
    const Response r = post_batch(batch_body(fields));
    ASSERT_EQ(r.status, 200) << r.payload();
    const nlohmann::json got = body_of(r)["results"];
    ASSERT_EQ(got.size(), f.size());
    for (std::size_t i = 0; i < kBoards.size(); ++i) {
      EXPECT_EQ(got[i],
                (nlohmann::json{{"api", 1}, {"depth", f[i]["depth"]}, {"value", f[i]["value"]}}));
    }
    EXPECT_EQ(got.back(), f.back());  // the refusal in place, whole
  }
  for (const char* bad : {R"("fields": ["value", "colour"], )",
                          R"("fields": [], )",
                          R"("fields": [3], )",
                          R"("fields": "", )"}) {
    const Response r = post_batch(batch_body(bad));
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_NE(body_of(r)["error"].get<std::string>().find("fields"), std::string::npos) << bad;
  }
}

TEST(SmallAnswers, GzipWhenAccepted) {
  const Response plain = post_batch(batch_body(""));
  const Response packed = post_batch(batch_body(""), "deflate, gzip;q=0.8");
  ASSERT_EQ(plain.status, 200);
  ASSERT_EQ(packed.status, 200);
  ASSERT_GE(plain.payload().size(), kGzipMinBytes);
  EXPECT_TRUE(plain.content_encoding.empty());
  EXPECT_EQ(plain.vary, "Accept-Encoding");
  EXPECT_EQ(packed.content_encoding, "gzip");
  EXPECT_EQ(packed.vary, "Accept-Encoding");
  // The gzip magic, and smaller than the plain answer (server_test.py decodes it).
  ASSERT_GE(packed.payload().size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(packed.payload()[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(packed.payload()[1]), 0x8b);
  EXPECT_LT(packed.payload().size(), plain.payload().size());
  // Refused, or not offered: plain.
  for (const char* header : {"gzip;q=0", "identity", "br", "gzip;q=0.0, deflate"})
    EXPECT_TRUE(post_batch(batch_body(""), header).content_encoding.empty()) << header;
  // A short answer is not worth compressing; the page's files never are.
  const Response health = ask(api(), "GET", "/api/v1/health", "", "gzip");
  EXPECT_TRUE(health.content_encoding.empty());
  EXPECT_EQ(health.vary, "Accept-Encoding");
  const Response page = ask(api(), "GET", "/", "", "gzip");
  EXPECT_TRUE(page.content_encoding.empty());
  EXPECT_TRUE(page.vary.empty());
}

TEST(SmallAnswers, OversizeAnswerIs413) {
  ApiOptions options;
  const std::size_t one = get(position(kBoards[0])).payload().size();
  options.max_answer_bytes = one * 2;  // a position fits, the batch does not
  const Api small({oware_tables()}, options);
  EXPECT_EQ(ask(small, "GET", position(kBoards[0])).status, 200);
  const Response r = ask(small, "POST", "/api/v1/batch", batch_body(""));
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.endpoint, Endpoint::kBatch);
  const nlohmann::json j = body_of(r);
  EXPECT_EQ(j["status"], 413);
  EXPECT_NE(
      j["error"].get<std::string>().find("larger than " + std::to_string(options.max_answer_bytes)),
      std::string::npos)
      << j;
  // The same batch asked smaller fits.
  EXPECT_EQ(ask(small, "POST", "/api/v1/batch", batch_body(R"("fields": "value", )")).status, 200);
  // A single answer over the bound is refused too, not cut.
  options.max_answer_bytes = one / 2;
  const Api tiny({oware_tables()}, options);
  const Response single = ask(tiny, "GET", position(kBoards[0]));
  EXPECT_EQ(single.status, 413);
  EXPECT_EQ(single.endpoint, Endpoint::kPosition);
  EXPECT_EQ(ask(tiny, "GET", position(kBoards[0], "&fields=value")).status, 200);
}

// The CORS switch: off by default; on, the origin named may read answers and is answered a
// preflight; another origin gets no CORS header.
TEST(SmallAnswers, CorsForTheOriginNamed) {
  auto header = [](const Response& r, const std::string& name) {
    for (const auto& [n, v] : r.headers) {
      if (n == name)
        return v;
    }
    return std::string();
  };
  auto ask_from = [](const Api& a, const std::string& method, const std::string& origin) {
    const std::optional<Response> r =
        a.answer(Request{method, position(kBoards[0]), "", "", "", origin}, true);
    EXPECT_TRUE(r.has_value());
    return r.value_or(Response{});
  };
  const std::string site = "https://example.org";
  // Off: no header, and OPTIONS is a method not allowed, as before.
  EXPECT_TRUE(ask_from(api(), "GET", site).headers.empty());
  EXPECT_EQ(ask_from(api(), "OPTIONS", site).status, 405);
  ApiOptions options;
  options.cors_origin = site;
  const Api cors({oware_tables()}, options);
  const Response got = ask_from(cors, "GET", site);
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(header(got, "Access-Control-Allow-Origin"), site);
  EXPECT_EQ(got.vary, "Accept-Encoding, Origin");
  const Response pre = ask_from(cors, "OPTIONS", site);
  EXPECT_EQ(pre.status, 204);
  EXPECT_TRUE(pre.payload().empty());
  EXPECT_EQ(header(pre, "Access-Control-Allow-Origin"), site);
  EXPECT_NE(header(pre, "Access-Control-Allow-Methods").find("POST"), std::string::npos);
  EXPECT_EQ(header(pre, "Access-Control-Allow-Headers"), "Content-Type");
  // Another origin: answered (the browser then refuses it), without the header.
  EXPECT_TRUE(ask_from(cors, "GET", "https://elsewhere.example").headers.empty());
  EXPECT_EQ(ask_from(cors, "OPTIONS", "https://elsewhere.example").status, 405);
}

}  // namespace
}  // namespace sowdb::server
