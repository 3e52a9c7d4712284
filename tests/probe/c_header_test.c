/* Compiled as C99: sowdb.h must be a plain C header. The C++ test (c_api_test.cpp) calls this
 * function on a table directory. */
#include "sowdb/probe/sowdb.h"

#include <stddef.h>
#include <string.h>

int sowdb_c_header_check(const char* dir, int32_t* value_out);

/* Opens `dir`, probes the all-zero position and the start position of one seed per pit (if the
 * tables hold it), plays its first legal move; opens it again without a block cache and probes
 * the all-zero position. Returns 0 on success, else the failing step. */
int sowdb_c_header_check(const char* dir, int32_t* value_out) {
  sowdb_tables* tables = NULL;
  sowdb_status status = sowdb_open(dir, &tables);
  uint8_t pits[SOWDB_MAX_PITS];
  sowdb_move_worth moves[8];
  int32_t count = 0;
  int32_t value = 0;
  int32_t depth = 0;
  int32_t npits;
  int32_t i;
  if (status != SOWDB_OK || tables == NULL) return 1;
  npits = sowdb_pits(tables);
  if (npits < 2 || npits > SOWDB_MAX_PITS) return 2;
  memset(pits, 0, sizeof pits);
  if (sowdb_probe_value(tables, pits, npits, &value, &depth) != SOWDB_OK) return 3;
  if (value != 0 || depth != 0) return 4;
  if (sowdb_max_stones(tables) >= npits) {
    for (i = 0; i < npits; ++i) pits[i] = 1;
    if (sowdb_probe_value(tables, pits, npits, &value, &depth) != SOWDB_OK) return 5;
    {
      int32_t only = -1000;
      if (sowdb_probe_value_only(tables, pits, npits, &only) != SOWDB_OK) return 12;
      if (only != value) return 13;
    }
    if (sowdb_probe_moves(tables, pits, npits, moves, 8, &count) != SOWDB_OK) return 6;
    if (count < 1) return 7;
    {
      uint8_t child[SOWDB_MAX_PITS];
      int32_t gain = -1;
      int32_t extra = -1;
      if (sowdb_play(tables, pits, npits, moves[0].pit, child, &gain, &extra) != SOWDB_OK) {
        return 8;
      }
      if (memcmp(child, moves[0].child, (size_t)npits) != 0 || gain != moves[0].gain) return 9;
    }
    *value_out = value;
  }
  if (strlen(sowdb_variant_name(tables)) == 0) return 10;
  if (strcmp(sowdb_status_name(SOWDB_ERR_CORRUPT_TABLE), "SOWDB_ERR_CORRUPT_TABLE") != 0) {
    return 11;
  }
  sowdb_close(tables);
  /* The same directory with no block cache gives the same value. */
  tables = NULL;
  if (sowdb_open_with_cache(dir, 0, &tables) != SOWDB_OK || tables == NULL)
    return 14;
  {
    int32_t again = -1000;
    memset(pits, 0, sizeof pits);
    if (sowdb_probe_value_only(tables, pits, npits, &again) != SOWDB_OK || again != 0)
      return 15;
  }
  sowdb_close(tables);
  /* And with separate value and depth caches. */
  tables = NULL;
  if (sowdb_open_with_caches(dir, 4, 0, &tables) != SOWDB_OK || tables == NULL)
    return 16;
  {
    int32_t again = -1000;
    int32_t depth = -1;
    memset(pits, 0, sizeof pits);
    if (sowdb_probe_value(tables, pits, npits, &again, &depth) != SOWDB_OK || again != 0 ||
        depth != 0)
      return 17;
  }
  sowdb_close(tables);
  /* And through the options struct, with the defaults and with a depth cache of its own. */
  {
    sowdb_open_options options;
    int32_t again = -1000;
    sowdb_open_options_init(&options);
    if (options.cache_blocks != 8 || options.separate_depth_cache != 0)
      return 18;
    options.separate_depth_cache = 1;
    options.depth_cache_blocks = 2;
    tables = NULL;
    if (sowdb_open_opts(dir, &options, &tables) != SOWDB_OK || tables == NULL)
      return 19;
    memset(pits, 0, sizeof pits);
    if (sowdb_probe_value_only(tables, pits, npits, &again) != SOWDB_OK || again != 0)
      return 20;
    sowdb_close(tables);
    tables = NULL;
    if (sowdb_open_opts(dir, NULL, &tables) != SOWDB_OK || tables == NULL)
      return 21;
    sowdb_close(tables);
  }
  /* The library is the version of these headers. */
  if (strcmp(sowdb_version(), SOWDB_VERSION_STRING) != 0 || SOWDB_VERSION_MAJOR < 0)
    return 22;
  return 0;
}
