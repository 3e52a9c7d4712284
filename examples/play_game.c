/* play_game: plays a whole game under perfect play, using the sowdb probe library through its C
 * header alone (no rules of its own: sowdb_best_move picks each move and sows it).
 *
 * Usage: play_game TABLE_DIR [PITS...]
 *   TABLE_DIR  a directory written by `sowdb gen`
 *   PITS       2P seed counts, mover first, counter-clockwise; without them, the start position
 *              of the tables' board with as many seeds per pit as the tables hold (at most the
 *              variant's own)
 *
 * Prints each move and the final score. Player A is the one to move at the start. Exits 0 when
 * the game was played, 1 on an error (with one line on stderr), 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sowdb/probe/sowdb.h"

#define MAX_PLIES 100000
#define MAX_HISTORY 4096

static void print_pits(const uint8_t* pits, int32_t board_pits) {
  int32_t i;
  for (i = 0; i < board_pits; ++i)
    printf("%s%d", i ? " " : "", (int)pits[i]);
}

static int fail(const char* what, sowdb_status status) {
  fprintf(stderr, "play_game: %s: %s (%s)\n", what, sowdb_last_error(), sowdb_status_name(status));
  return 1;
}

int main(int argc, char** argv) {
  sowdb_tables* tables = NULL;
  sowdb_status status;
  uint8_t pos[SOWDB_MAX_PITS];
  /* Positions since the last gain, with who was to move: only these can repeat. */
  static uint8_t history[MAX_HISTORY][SOWDB_MAX_PITS + 1];
  int history_size = 0;
  int32_t board_pits, stones = 0, value = 0, depth = 0, i;
  int store[2] = {0, 0};
  int mover = 0; /* 0: player A, 1: player B */
  int ply;
  int endless = 0;

  if (argc < 2) {
    fprintf(stderr, "usage: %s TABLE_DIR [PITS...]\n", argv[0]);
    return 2;
  }
  status = sowdb_open(argv[1], NULL, &tables);
  if (status != SOWDB_OK)
    return fail("cannot open the tables", status);
  board_pits = sowdb_board_pits(tables);
  memset(pos, 0, sizeof pos);
  if (argc > 2) {
    if (argc - 2 != board_pits) {
      fprintf(stderr,
              "play_game: %s is %s: give %d pit counts, not %d\n",
              argv[1],
              sowdb_variant_name(tables),
              (int)board_pits,
              argc - 2);
      sowdb_close(tables);
      return 2;
    }
    for (i = 0; i < board_pits; ++i) {
      char* end = NULL;
      long s = strtol(argv[2 + i], &end, 10);
      if (end == argv[2 + i] || *end != '\0' || s < 0 || s > 255) {
        fprintf(stderr, "play_game: '%s' is not a seed count\n", argv[2 + i]);
        sowdb_close(tables);
        return 2;
      }
      pos[i] = (uint8_t)s;
    }
  } else {
    int32_t s = sowdb_seeds_per_pit(tables);
    while (s > 0 && s * board_pits > sowdb_max_stones(tables))
      --s;
    if (s == 0) {
      fprintf(stderr,
              "play_game: the tables hold up to %d seed%s, too few for a start position; "
              "give the pits\n",
              (int)sowdb_max_stones(tables),
              sowdb_max_stones(tables) == 1 ? "" : "s");
      sowdb_close(tables);
      return 2;
    }
    for (i = 0; i < board_pits; ++i)
      pos[i] = (uint8_t)s;
  }
  for (i = 0; i < board_pits; ++i)
    stones += pos[i];

  status = sowdb_probe_value(tables, pos, board_pits, &value, &depth);
  if (status != SOWDB_OK) {
    sowdb_close(tables);
    return fail("cannot look the position up", status);
  }
  printf("%s, %d seed%s: ", sowdb_variant_name(tables), (int)stones, stones == 1 ? "" : "s");
  print_pits(pos, board_pits);
  printf("\nvalue for A (to move): %+d\n", (int)value);

  for (ply = 1; ply <= MAX_PLIES; ++ply) {
    sowdb_move_worth best;
    int h;
    for (h = 0; h < history_size; ++h) {
      if (history[h][0] == mover && memcmp(history[h] + 1, pos, (size_t)board_pits) == 0)
        break;
    }
    if (h < history_size) {
      endless = 1;
      break;
    }
    if (history_size < MAX_HISTORY) {
      history[history_size][0] = (uint8_t)mover;
      memcpy(history[history_size] + 1, pos, (size_t)board_pits);
      ++history_size;
    }
    status = sowdb_best_move(tables, pos, board_pits, &best);
    if (status == SOWDB_ERR_GAME_OVER)
      break;
    if (status != SOWDB_OK) {
      sowdb_close(tables);
      return fail("cannot find the best move", status);
    }
    printf("%4d. %c sows pit %d", ply, mover ? 'B' : 'A', (int)best.pit);
    if (best.gain)
      printf(", gains %d", (int)best.gain);
    if (best.extra_turn)
      printf(", moves again");
    printf("  -> ");
    print_pits(best.child, board_pits);
    printf("\n");
    store[mover] += best.gain;
    if (best.gain)
      history_size = 0;
    memcpy(pos, best.child, sizeof pos);
    if (!best.extra_turn)
      mover ^= 1;
  }

  {
    /* What is left on the board: a finished game gives each side's seeds to its owner (the
     * table value of a position without moves is the mover's seeds minus the opponent's);
     * endless play splits them evenly (value 0). */
    int32_t left = 0, v = 0, d = 0;
    for (i = 0; i < board_pits; ++i)
      left += pos[i];
    status = sowdb_probe_value(tables, pos, board_pits, &v, &d);
    if (status != SOWDB_OK) {
      sowdb_close(tables);
      return fail("cannot look the last position up", status);
    }
    if (endless) {
      printf("endless play: the position repeats; %d seed%s split evenly\n",
             (int)left,
             left == 1 ? "" : "s");
    } else
      printf("game over: %c cannot move\n", mover ? 'B' : 'A');
    {
      double mine = store[mover] + (left + v) / 2.0;
      double theirs = store[mover ^ 1] + (left - v) / 2.0;
      double a = mover == 0 ? mine : theirs;
      double b = mover == 0 ? theirs : mine;
      printf("final score: A %g, B %g (%s); A - B = %+g, as the value %+d predicted\n",
             a,
             b,
             a > b   ? "A wins"
             : a < b ? "B wins"
                     : "draw",
             a - b,
             (int)value);
      if (a - b != value) {
        fprintf(stderr, "play_game: the game did not end as its value predicted\n");
        sowdb_close(tables);
        return 1;
      }
    }
  }
  sowdb_close(tables);
  return 0;
}
