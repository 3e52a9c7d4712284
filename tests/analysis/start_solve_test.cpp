// solve_start_position's refusals of the request itself, before any work.
#include "sowdb/analysis/start_solve.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "analysis_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"

namespace sowdb {
namespace {

// cache_layers takes -1 (the policy) and 0..kMaxIndexedStones, as `sowdb solve --cache-layers`;
// anything else is refused before the cache directory is made.
TEST(StartSolveRefuses, CacheLayersOutsideTheCliRange) {
  test::TempDir dir("start-solve-refuse");
  StartSolveRequest request;
  request.variant = *parse_variant("kalah/2x1");
  request.cache_root = dir.path() / "cache";
  for (const int layers : {-2, kMaxIndexedStones + 1, 500}) {
    request.cache_layers = layers;
    EXPECT_THROW(solve_start_position(request), gen::InvalidRequest) << layers;
    EXPECT_FALSE(std::filesystem::exists(request.cache_root)) << layers;
  }
  request.cache_layers = 2;
  const StartSolveReport report = solve_start_position(request);
  EXPECT_TRUE(report.solution.complete);
  EXPECT_EQ(report.layers_built, 3);  // layers 0..2
}

}  // namespace
}  // namespace sowdb
