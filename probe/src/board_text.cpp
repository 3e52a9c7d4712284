#include "sowdb/probe/internal/board_text.h"

#include <cstdio>

namespace sowdb::internal {

std::string board_diagram(const Rules& rules, const Pits& board) {
  const int p = rules.pits_per_side();
  const int k = rules.board_pits();
  auto cell = [](int v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%3d ", v);
    return std::string(buf);
  };
  std::string rule = "        +";
  for (int i = 0; i < p; ++i)
    rule += "----+";
  rule += "\n";
  std::string s = "         ";
  for (int i = k - 1; i >= p; --i)
    s += cell(i) + " ";
  s += "\n" + rule + "opponent|";
  for (int i = k - 1; i >= p; --i)
    s += cell(board[i]) + "|";
  s += "\n" + rule + "   mover|";
  for (int i = 0; i < p; ++i)
    s += cell(board[i]) + "|";
  s += "\n" + rule + "         ";
  for (int i = 0; i < p; ++i)
    s += cell(i) + " ";
  s += "\n";
  return s;
}

std::string pits_text(const Rules& rules, const Pits& board) {
  std::string s;
  for (int i = 0; i < rules.board_pits(); ++i) {
    if (i)
      s += ' ';
    s += std::to_string(board[i]);
  }
  return s;
}

}  // namespace sowdb::internal
