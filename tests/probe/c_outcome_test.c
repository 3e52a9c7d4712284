/* Compiled as C99: sowdb_game_outcome and struct sowdb_outcome from a C program. The C++ test
 * (outcome_test.cpp) calls this function on a directory of oware/2x3 tables. */
#include <stddef.h>

#include "sowdb/probe/sowdb.h"

int sowdb_c_outcome_check(const char* dir);

/* Returns 0 when every step gives what README's formula and the majority rule say, else the
 * failing step. */
int sowdb_c_outcome_check(const char* dir) {
  sowdb_tables* tables = NULL;
  sowdb_outcome o;
  int failed = 0;
  if (sowdb_open(dir, NULL, &tables) != SOWDB_OK || tables == NULL)
    return 1;
  /* 12 seeds in the game; 5 + 1 in the stores, 6 on the board, value -1: 7.5 to 4.5. */
  if (sowdb_game_outcome(tables, -1, 5, 1, 6, &o) != SOWDB_OK)
    failed = 2;
  else if (o.total_seeds != 12 || o.final_mover != 7.5 || o.final_opponent != 4.5)
    failed = 3;
  else if (o.result != 1 || o.decided != 0)
    failed = 4;
  /* 7 of 12 seeds in the opponent's store: a majority, the mover has lost whatever the value. */
  if (!failed && sowdb_game_outcome(tables, 4, 0, 7, 4, &o) != SOWDB_OK)
    failed = 5;
  else if (!failed && (o.result != -1 || o.decided != 1))
    failed = 6;
  /* 8 + 1 + 4 = 13 seeds: more than the game holds. */
  if (!failed && sowdb_game_outcome(tables, 0, 8, 1, 4, &o) != SOWDB_ERR_ARGUMENT)
    failed = 7;
  sowdb_close(tables);
  return failed;
}
