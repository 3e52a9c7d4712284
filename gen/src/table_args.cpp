#include "commands.h"

namespace sowdb::cli {

std::unique_ptr<TableSet> open_tables(const std::string& dir, const TableSetOptions& options) {
  try {
    return TableSet::open(dir, options);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

int last_layer(const TableSet& tables, int max_stones, const std::string& dir) {
  const int held = tables.max_stones();
  if (max_stones < 0)
    return held;
  if (max_stones > held) {
    throw UsageError("--max-stones " + std::to_string(max_stones) + ": " + dir +
                     " holds layers up to " + std::to_string(held));
  }
  return max_stones;
}

}  // namespace sowdb::cli
