// generate_tables: the thread count of a request is its own (two runs of one process at once
// keep theirs), its summary adds up, and its refusals carry their kind and the library's cause.
#include "sowdb/analysis/generate_job.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "analysis_tables.h"
#include "sowdb/analysis/generate_text.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"

namespace sowdb {
namespace {

GenerateRequest request_for(const char* variant, int max_stones, std::filesystem::path out) {
  GenerateRequest request;
  request.variant = *parse_variant(variant);
  request.max_stones = max_stones;
  request.out = std::move(out);
  return request;
}

// The refusal generate_tables throws for `request`, with whether the library's exception of
// type Nested is nested in it.
template <typename Nested>
std::pair<Refusal, bool> refusal_for(const GenerateRequest& request) {
  try {
    generate_tables(request);
  } catch (const Refused& e) {
    bool nested = false;
    try {
      std::rethrow_if_nested(e);
    } catch (const Nested&) {
      nested = true;
    } catch (...) {
    }
    return {e.refusal(), nested};
  }
  ADD_FAILURE() << "no refusal";
  return {};
}

// Two runs at once, one with 1 thread and one with 2: each reports, from inside its work, the
// concurrency of the arena its loops take their thread count from, and each sees its own. The
// latch holds each run at its first progress report until the other has reached its own, so the
// two are in progress together (with a process-wide tbb::global_control, the second run's limit
// would have replaced the first's).
TEST(GenerateJob, TwoRunsAtOnceKeepTheirOwnThreadCounts) {
  test::TempDir dir("generate-threads");
  std::latch both_started(2);
  std::vector<int> counts[2];
  GenerateSummary summaries[2];
  std::exception_ptr failures[2];
  std::vector<std::thread> runs;
  runs.reserve(2);
  for (int i = 0; i < 2; ++i) {
    runs.emplace_back([&, i] {
      GenerateRequest request = request_for("kalah/4x3", 8, dir.path() / std::to_string(i));
      request.threads = i + 1;
      GenerateEvents events;
      bool first = true;
      events.on_progress = [&, i](int, gen::Phase, double) {
        if (first) {
          first = false;
          both_started.arrive_and_wait();
        }
        counts[i].push_back(tbb::this_task_arena::max_concurrency());
      };
      try {
        summaries[i] = generate_tables(request, events);
      } catch (...) {
        failures[i] = std::current_exception();
      }
    });
  }
  for (std::thread& t : runs)
    t.join();
  for (int i = 0; i < 2; ++i) {
    ASSERT_FALSE(failures[i]) << i;
    ASSERT_FALSE(counts[i].empty()) << i;
    for (const int c : counts[i])
      EXPECT_EQ(c, i + 1) << "run " << i;
    EXPECT_EQ(summaries[i].threads, i + 1);
  }
  // The same tables, whatever the threads.
  for (int n = 0; n <= 8; ++n) {
    const auto name = layer_file_name(n);
    std::ifstream a(dir.path() / "0" / name, std::ios::binary),
        b(dir.path() / "1" / name, std::ios::binary);
    const std::string x{std::istreambuf_iterator<char>(a), {}};
    const std::string y{std::istreambuf_iterator<char>(b), {}};
    EXPECT_FALSE(x.empty()) << name;
    EXPECT_EQ(x, y) << name;
  }
}

TEST(GenerateJob, SummaryAddsUpTheLayers) {
  test::TempDir dir("generate-summary");
  GenerateRequest request = request_for("kalah/2x2", 6, dir.path() / "t");
  request.threads = 1;
  std::vector<gen::LayerReport> layers;
  GenerateEvents events;
  events.on_layer = [&](const gen::LayerReport& r) { layers.push_back(r); };
  const GenerateSummary s = generate_tables(request, events);
  ASSERT_EQ(layers.size(), 7u);
  std::uint64_t positions = 0, bytes = 0;
  for (const auto& r : layers) {
    positions += r.positions;
    bytes += r.bytes_on_disk;
  }
  EXPECT_EQ(s.variant, "kalah/2x2");
  EXPECT_EQ(s.max_stones, 6);
  EXPECT_EQ(s.positions, positions);
  EXPECT_EQ(s.solved_positions, positions);
  EXPECT_EQ(s.bytes_on_disk, bytes);
  EXPECT_EQ(s.threads, 1);
  EXPECT_TRUE(s.recompute);
  EXPECT_GT(s.seconds, 0);
  // A rerun reuses every layer; its text names no time but the zero of nothing solved.
  const GenerateSummary again = generate_tables(request);
  EXPECT_EQ(again.layers_reused, 7);
  EXPECT_EQ(summary_text(again),
            "done: kalah/2x2, layers 0..6, " + std::to_string(positions) +
                " positions, 0.00 s solving and writing (solve 0.00, write 0.00), " +
                human_bytes(static_cast<double>(bytes)) + " on disk, 1 thread");
}

TEST(GenerateJob, RefusalsCarryTheirKindAndTheCause) {
  test::TempDir dir("generate-refusals");
  GenerateRequest request = request_for("kalah/2x1", 2, dir.path() / "t");
  request.threads = -1;
  EXPECT_EQ(refusal_for<gen::InvalidRequest>(request).first.kind, RefusalKind::kBadRequest);
  EXPECT_FALSE(std::filesystem::exists(request.out));
  request.threads = 0;
  request.max_stones = kMaxIndexedStones + 1;
  auto [too_many, nested] = refusal_for<gen::InvalidRequest>(request);
  EXPECT_EQ(too_many.kind, RefusalKind::kBadRequest);
  EXPECT_TRUE(nested);
  // A directory of other tables: the library's exception, with its facts, stays readable.
  request.max_stones = 2;
  generate_tables(request);
  GenerateRequest other = request_for("oware/2x1", 2, request.out);
  auto [others, holds_other] = refusal_for<gen::OutHoldsOtherTables>(other);
  EXPECT_TRUE(is_bad_input(others.kind)) << to_string(others.kind);
  EXPECT_TRUE(holds_other);
  EXPECT_NE(others.message.find("kalah"), std::string::npos) << others.message;
  // Stopped on request: interrupted, and the layers written before stay.
  GenerateRequest stopped = request_for("kalah/2x1", 4, dir.path() / "stopped");
  std::atomic<int> layers{0};
  GenerateEvents events;
  events.on_layer = [&](const gen::LayerReport&) { ++layers; };
  stopped.stop = [&] { return layers.load() >= 2; };
  try {
    generate_tables(stopped, events);
    ADD_FAILURE() << "not stopped";
  } catch (const Refused& e) {
    EXPECT_EQ(e.refusal().kind, RefusalKind::kInterrupted) << e.what();
  }
  EXPECT_TRUE(std::filesystem::exists(stopped.out / layer_file_name(1)));
  EXPECT_FALSE(std::filesystem::exists(stopped.out / layer_file_name(2)));
}

}  // namespace
}  // namespace sowdb
