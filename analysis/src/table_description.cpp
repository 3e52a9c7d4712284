#include "sowdb/analysis/table_description.h"

#include <exception>

#include "sowdb/analysis/refusal.h"

namespace sowdb {

TableDescription describe_tables(const TableSet& set) {
  TableDescription d;
  d.variant = set.variant();
  d.objective = set.objective();
  d.max_stones = set.max_stones();
  try {
    for (const auto& [stones, file] : read_layer_files(set.directory())) {
      if (stones <= d.max_stones && file.info)
        d.positions += file.info->entries;
    }
  } catch (...) {
    throw Refused(refusal_of(std::current_exception()));
  }
  d.bytes = directory_sizes(set.directory(), d.max_stones).total;
  d.gap = find_gap(set.directory());
  return d;
}

}  // namespace sowdb
