/* Compiled as C99: sowdb.h must be a plain C header. The C++ test (c_api_test.cpp) calls this
 * function on a table directory. */
#include <stddef.h>
#include <string.h>

#include "sowdb/probe/sowdb.h"

int sowdb_c_header_check(const char* dir, int32_t* value_out);

/* Opens `dir`, probes the all-zero position and the start position of one seed per pit (if the
 * tables hold it), plays its first legal move; opens it again without a block cache and probes
 * the all-zero position. Returns 0 on success, else the failing step. */
int sowdb_c_header_check(const char* dir, int32_t* value_out) {
  sowdb_tables* tables = NULL;
  sowdb_status status = sowdb_open(dir, NULL, &tables);
  uint8_t pits[SOWDB_MAX_PITS];
  sowdb_move_worth moves[8];
  int32_t count = 0;
  int32_t value = 0;
  int32_t depth = 0;
  int32_t npits;
  int32_t i;
  if (status != SOWDB_OK || tables == NULL)
    return 1;
  npits = sowdb_board_pits(tables);
  if (npits < 2 || npits > SOWDB_MAX_PITS)
    return 2;
  memset(pits, 0, sizeof pits);
  if (sowdb_probe_value(tables, pits, npits, &value, &depth) != SOWDB_OK)
    return 3;
  if (value != 0 || depth != 0)
    return 4;
  if (sowdb_max_stones(tables) >= npits) {
    for (i = 0; i < npits; ++i)
      pits[i] = 1;
    if (sowdb_probe_value(tables, pits, npits, &value, &depth) != SOWDB_OK)
      return 5;
    {
      int32_t only = -1000;
      if (sowdb_probe_value_only(tables, pits, npits, &only) != SOWDB_OK)
        return 12;
      if (only != value)
        return 13;
    }
    if (sowdb_probe_moves(tables, pits, npits, moves, 8, &count) != SOWDB_OK)
      return 6;
    if (count < 1)
      return 7;
    {
      uint8_t child[SOWDB_MAX_PITS];
      int32_t gain = -1;
      int32_t extra = -1;
      if (sowdb_play(tables, pits, npits, moves[0].pit, child, &gain, &extra) != SOWDB_OK) {
        return 8;
      }
      if (memcmp(child, moves[0].child, (size_t)npits) != 0 || gain != moves[0].gain)
        return 9;
    }
    *value_out = value;
  }
  if (strlen(sowdb_variant_name(tables)) == 0)
    return 10;
  if (strcmp(sowdb_status_name(SOWDB_ERR_CORRUPT_TABLE), "SOWDB_ERR_CORRUPT_TABLE") != 0) {
    return 11;
  }
  sowdb_close(tables);
  /* The same directory with no block cache, with separate value and depth caches, and with an
   * options struct from an older caller that knows the first two fields only. */
  {
    sowdb_open_options options;
    int32_t again = -1000;
    sowdb_open_options_init(&options);
    if (options.struct_size != sizeof options || options.cache_bytes != SOWDB_DEFAULT_CACHE_BYTES ||
        options.separate_depth_cache != 0)
      return 14;
    options.cache_bytes = 0;
    tables = NULL;
    if (sowdb_open(dir, &options, &tables) != SOWDB_OK || tables == NULL)
      return 15;
    memset(pits, 0, sizeof pits);
    if (sowdb_probe_value_only(tables, pits, npits, &again) != SOWDB_OK || again != 0)
      return 16;
    sowdb_close(tables);
    options.cache_bytes = UINT64_C(4) * 4096;
    options.separate_depth_cache = 1;
    options.depth_cache_bytes = 0;
    tables = NULL;
    if (sowdb_open(dir, &options, &tables) != SOWDB_OK || tables == NULL)
      return 17;
    if (sowdb_probe_value(tables, pits, npits, &again, &depth) != SOWDB_OK || again != 0 ||
        depth != 0)
      return 18;
    sowdb_close(tables);
    options.struct_size = (uint32_t)offsetof(sowdb_open_options, cache_bytes);
    options.cache_bytes = 12345; /* beyond struct_size: not read */
    tables = NULL;
    if (sowdb_open(dir, &options, &tables) != SOWDB_OK || tables == NULL)
      return 19;
    sowdb_close(tables);
  }
  /* The one call for a search agrees with the value and sowdb_game_outcome. */
  tables = NULL;
  if (sowdb_open(dir, NULL, &tables) != SOWDB_OK || tables == NULL)
    return 20;
  if (sowdb_pits_per_side(tables) * 2 != sowdb_board_pits(tables))
    return 21;
  if (sowdb_max_stones(tables) >= npits) {
    sowdb_wdl wdl;
    sowdb_outcome outcome;
    int32_t only = -1000;
    for (i = 0; i < npits; ++i)
      pits[i] = 1;
    if (sowdb_probe_value_only(tables, pits, npits, &only) != SOWDB_OK)
      return 23;
    if (sowdb_probe_wdl(tables, pits, npits, 0, 0, &wdl) != SOWDB_OK)
      return 24;
    if (sowdb_game_outcome(tables, only, 0, 0, npits, &outcome) != SOWDB_OK)
      return 25;
    if (wdl.value != only || wdl.result != outcome.result || wdl.decided != outcome.decided ||
        wdl.final_mover_x2 != (int32_t)(2 * outcome.final_mover) ||
        wdl.final_opponent_x2 != (int32_t)(2 * outcome.final_opponent))
      return 26;
    if (wdl.result != SOWDB_WIN && wdl.result != SOWDB_DRAW && wdl.result != SOWDB_LOSS)
      return 27;
    if (sowdb_probe_wdl(tables, pits, npits, -1, 0, &wdl) != SOWDB_ERR_ARGUMENT)
      return 28;
  }
  sowdb_close(tables);
  /* The library is the version of these headers. */
  if (strcmp(sowdb_version(), SOWDB_VERSION_STRING) != 0 || SOWDB_VERSION_MAJOR < 0)
    return 22;
  return 0;
}
