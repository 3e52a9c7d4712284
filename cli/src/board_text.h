// Text rendering shared by the CLI's subcommands.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sowdb/analysis/generate_text.h"
#include "sowdb/probe/internal/board_text.h"
#include "sowdb/probe/internal/count_text.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb::cli {

// "1 seed", "0 seeds": the project's count text (sowdb/probe/internal/count_text.h).
using internal::count_text;

/// Bytes in binary units with one decimal: "1.5 MiB" (the analysis library's, which writes the
/// sizes of gen's lines).
using sowdb::human_bytes;

/// What a message echoes of the user's input: `text` itself when it has at most `limit` bytes,
/// else its first `limit` bytes and "... (N bytes)", so that a 10 MB line does not come back
/// whole. The cut may split a UTF-8 character (JSON output replaces the broken bytes).
std::string clipped(std::string_view text, std::size_t limit);

// The board text of the probe library (sowdb/probe/internal/board_text.h).
using internal::board_diagram;
using internal::pits_text;

/// The numbers of PITS... (mover first, counter-clockwise) for a board of `rules`, for
/// check_board and answer_position (sowdb/analysis/position_answer.h), which judge them: the
/// count, the range, the sum. Returns false with a one-line reason for a word that is not a whole
/// number or one too long to be a count; only when the count is right, since a wrong count is
/// the first thing the judge says (its words then become zeros).
bool pit_numbers(const Rules& rules,
                 const std::vector<std::string>& words,
                 std::vector<long long>& numbers,
                 std::string& error);

/// Parses PITS... for a board of `rules`: pit_numbers, then check_board. Returns false with a
/// one-line reason on a wrong count, a non-numeric or negative count, or too many seeds.
bool parse_pits(const Rules& rules,
                const std::vector<std::string>& words,
                Pits& board,
                std::string& error);

/// Seeds already in the stores (--stores A,B of probe and solve).
struct Stores {
  long long mover = 0;     ///< The mover's store.
  long long opponent = 0;  ///< The opponent's store.
  std::string text;        ///< As given (clipped), for messages.
};

/// Parses --stores A,B: two whole numbers >= 0 (a number too large for a long long reads as its
/// largest value). How many seeds the stores may hold depends on the game and on the position
/// (check_stores, answer_position, solve), so any size is taken here. ERRORS throws UsageError
/// naming the text for anything else.
Stores parse_stores(const std::string& text);

/// "gains 2, extra turn", "gains 3", "extra turn" or "": what a move does besides sowing.
std::string gain_text(int gain, bool extra_turn);

/// Prints that `board` has no legal move and how its seeds split, for `probe`'s text reports.
void print_game_over(const Rules& rules, const Pits& board);

/// Prints `line`'s steps (each position before the move, from the mover's side) and how it ends,
/// one line each, on stdout, for `probe`'s text reports.
void print_line(const Rules& rules, const PrincipalLine& line);

/// Resolves --variant and --pits into a variant; false with a one-line reason.
bool resolve_variant(std::string_view text, int pits_override, Variant& out, std::string& error);

}  // namespace sowdb::cli
