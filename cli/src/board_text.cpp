#include "board_text.h"

#include <charconv>
#include <cstdio>
#include <limits>

#include "options.h"
#include "sowdb/analysis/position_answer.h"

namespace sowdb::cli {

Stores parse_stores(const std::string& text) {
  const std::size_t comma = text.find(',');
  auto number = [&](std::string_view w, long long& out) {
    auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), out);
    if (w.empty() || ptr != w.data() + w.size())
      return false;
    if (ec == std::errc::result_out_of_range && w.front() != '-')
      out = std::numeric_limits<long long>::max();  // a number of 20 digits: far too large
    else if (ec != std::errc() || out < 0)
      return false;
    return true;
  };
  Stores s;
  s.text = clipped(text, 40);
  if (comma == std::string::npos || !number(std::string_view(text).substr(0, comma), s.mover) ||
      !number(std::string_view(text).substr(comma + 1), s.opponent)) {
    throw UsageError("--stores wants A,B: the mover's and the opponent's store, e.g. 3,5; got '" +
                     s.text + "'");
  }
  return s;
}

std::string gain_text(int gain, bool extra_turn) {
  std::string what;
  if (gain)
    what = "gains " + std::to_string(gain);
  if (extra_turn)
    what += std::string(what.empty() ? "" : ", ") + "extra turn";
  return what;
}

void print_game_over(const Rules& rules, const Pits& board) {
  std::printf("\nNo legal move: the game is over. Final split: mover %d, opponent %d.\n",
              rules.own_seeds(board),
              rules.opponent_seeds(board));
}

void print_line(const Rules& rules, const PrincipalLine& line) {
  int ply = 0;
  for (const LineStep& s : line.steps) {
    const std::string what = gain_text(s.gain, s.extra_turn);
    std::printf("  %3d. %-8s pit %d  %-20s %s\n",
                ++ply,
                s.mover == 0 ? "mover" : "opponent",
                s.pit,
                what.c_str(),
                pits_text(rules, s.before).c_str());
  }
  const char* who = line.last_mover == 0 ? "mover" : "opponent";
  const int left = rules.own_seeds(line.last) + rules.opponent_seeds(line.last);
  switch (line.end) {
    case LineEnd::kGameOver:
      std::printf("  end: the %s cannot move in %s; seeds on each side go to their owner\n",
                  who,
                  pits_text(rules, line.last).c_str());
      break;
    case LineEnd::kRepetition:
      std::printf("  endless: %s repeats with the %s to move; the %s left split evenly\n",
                  pits_text(rules, line.last).c_str(),
                  who,
                  count_text(left, "seed", "seeds").c_str());
      break;
    case LineEnd::kMaxPlies:
      std::printf("  (stopped after %s)\n", count_text(ply, "ply", "plies").c_str());
      break;
  }
}

namespace {

// Of a pit count that is not one, a message quotes this much: enough to recognise it.
constexpr std::size_t kQuotedWord = 40;

}  // namespace

std::string clipped(std::string_view text, std::size_t limit) {
  // Control bytes are shown as \xNN: a NUL would end the message early (errors travel as C
  // strings), and the others would act on the user's terminal.
  std::string out;
  for (const char c : text.substr(0, limit)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  if (text.size() > limit)
    out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

bool pit_numbers(const Rules& rules,
                 const std::vector<std::string>& words,
                 std::vector<long long>& numbers,
                 std::string& error) {
  numbers.assign(words.size(), 0);
  if (static_cast<int>(words.size()) != rules.board_pits())
    return true;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), numbers[i]);
    const bool whole = !w.empty() && ptr == w.data() + w.size();
    if (whole && ec == std::errc::result_out_of_range) {
      // A count of 20 digits is a number, just far too large: say so, not "not a number".
      error = "pit " + std::to_string(i) + ": seed count " + clipped(w, kQuotedWord) +
              " is out of range (a board holds at most " + std::to_string(kMaxBoardStones) +
              " seeds)";
      return false;
    }
    if (!whole || ec != std::errc()) {
      error = "pit " + std::to_string(i) + ": '" + clipped(w, kQuotedWord) +
              "' is not a whole number of seeds";
      return false;
    }
  }
  return true;
}

bool parse_pits(const Rules& rules,
                const std::vector<std::string>& words,
                Pits& board,
                std::string& error) {
  std::vector<long long> numbers;
  if (!pit_numbers(rules, words, numbers, error))
    return false;
  const Answer<Pits> checked = check_board(rules, numbers);
  if (!checked) {
    error = checked.refusal().message;
    return false;
  }
  board = *checked;
  return true;
}

bool resolve_variant(std::string_view text, int pits_override, Variant& out, std::string& error) {
  auto v = parse_variant(text, &error);
  if (!v)
    return false;
  if (pits_override != 0) {
    if (pits_override < 1 || pits_override > kMaxPitsPerSide) {
      error = "--pits must be 1..8, not " + std::to_string(pits_override);
      return false;
    }
    v->rules.pits_per_side = static_cast<std::uint8_t>(pits_override);
    if (v->total_stones() > kMaxBoardStones) {
      error = "--pits " + std::to_string(pits_override) + ": a " + std::to_string(pits_override) +
              "x" + std::to_string(v->seeds_per_pit) + " board holds " +
              std::to_string(v->total_stones()) + " seeds; at most " +
              std::to_string(kMaxBoardStones) + " are supported";
      return false;
    }
  }
  out = *v;
  return true;
}

}  // namespace sowdb::cli
