/* The C library's answer to one position, for the bad-inputs table (bad_inputs_test.py): the
 * name of the first status that is not SOWDB_OK of sowdb_probe_value then sowdb_game_outcome
 * (or SOWDB_OK), and sowdb_last_error() on a second line.
 *
 * Usage: sowdb_c_status DIR STORE_MOVER STORE_OPPONENT PIT... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sowdb/probe/sowdb.h"

int main(int argc, char** argv) {
  if (argc < 5 || argc - 4 > 64) {
    fprintf(stderr, "usage: sowdb_c_status DIR STORE_MOVER STORE_OPPONENT PIT...\n");
    return 2;
  }
  sowdb_tables* tables = NULL;
  sowdb_status status = sowdb_open(argv[1], NULL, &tables);
  if (status == SOWDB_OK) {
    uint8_t pits[64];
    int32_t stones = 0;
    const int32_t count = (int32_t)(argc - 4);
    for (int32_t i = 0; i < count; ++i) {
      pits[i] = (uint8_t)strtol(argv[4 + i], NULL, 10);
      stones += pits[i];
    }
    int32_t value = 0;
    status = sowdb_probe_value(tables, pits, count, &value, NULL);
    if (status == SOWDB_OK) {
      sowdb_outcome outcome;
      status = sowdb_game_outcome(tables,
                                  value,
                                  (int32_t)strtol(argv[2], NULL, 10),
                                  (int32_t)strtol(argv[3], NULL, 10),
                                  stones,
                                  &outcome);
    }
  }
  printf("%s\n%s\n", sowdb_status_name(status), status == SOWDB_OK ? "" : sowdb_last_error());
  sowdb_close(tables);
  return 0;
}
