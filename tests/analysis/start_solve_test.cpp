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

// Without tables given, an Oware-family start beyond the cache is refused before any work, and
// the refusal names the cache it means (a directory the user never named): where it is, that it
// is solve's table cache, how far it goes and how to put it elsewhere.
TEST(StartSolveRefuses, OwareBeyondTheCacheNamesTheCache) {
  test::TempDir dir("start-solve-cache-note");
  StartSolveRequest request;
  request.variant = *parse_variant("oware/2x2");  // 8 seeds on the board
  request.cache_root = dir.path() / "cache";
  request.cache_layers = 4;
  const std::string cache =
      start_cache_dir(request.cache_root, request.variant.rules.normalised()).string();
  try {
    solve_start_position(request);
    ADD_FAILURE() << "no refusal";
  } catch (const gen::NeedsCompleteTables& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("it needs layers 0..8; no tables were given, and solve's table cache for "
                        "these rules, " +
                        cache + ", is built up to layer 4 (the size asked for; "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("SOWDB_CACHE_DIR names another cache directory"), std::string::npos)
        << what;
    EXPECT_EQ(what.find("the tables hold"), std::string::npos) << what;
  }
  EXPECT_FALSE(std::filesystem::exists(request.cache_root));
}

}  // namespace
}  // namespace sowdb
