#include <filesystem>
#include <stdexcept>
#include <string>

#include "commands.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/table_directory.h"

namespace sowdb::cli {

std::unique_ptr<TableSet> open_tables(const std::string& dir, const TableSetOptions& options) {
  try {
    return TableSet::open(dir, options);
  } catch (const TableSetError& e) {
    // The library states the cause; the remedy, a command line, is the program's to give.
    Refusal r{RefusalKind::kUnusableTables, e.what()};
    r.open_cause = e.cause();
    switch (e.cause()) {
      case OpenError::kManifestMissing:
      case OpenError::kManifestDamaged:
      case OpenError::kManifestMismatch:
        r.message += "; `sowdb manifest --tables " + dir +
                     " --variant V` writes it from the layer headers (" + e.layer_rules() + ")";
        break;
      case OpenError::kManifestUnconfirmed:
        r.message += "; `sowdb manifest --tables " + dir + "` confirms it";
        break;
      default:
        break;
    }
    throw Refused(r);
  } catch (...) {
    // Whatever else stops the directory from opening makes it unusable: bad input, exit 2.
    throw Refused(RefusalKind::kUnusableTables, refusal_of(std::current_exception()).message);
  }
}

std::string objective_remedy(Objective held) {
  return held == Objective::kCooperative
             ? "; ask with --objective cooperative"
             : "; build co-operative tables with `sowdb gen --objective cooperative`";
}

std::string tables_remedy(const gen::NeedsCompleteTables& e) {
  return "; build them with `sowdb gen --variant " + e.variant.to_string() + " --max-stones " +
         std::to_string(e.stones) +
         (e.objective == Objective::kCooperative ? " --objective cooperative" : "") +
         " --out DIR` and pass --tables DIR";
}

int last_layer(const TableSet& tables, int max_stones, const std::string& dir) {
  const int held = tables.max_stones();
  if (max_stones < 0) {
    // The tables end at the first missing layer. Checking only the layers below a gap and
    // reporting success would pass a directory whose upper layers no probe can read.
    if (const auto gap = find_gap(std::filesystem::path(dir))) {
      throw std::runtime_error(dir + ": " + layer_file_name(gap->missing) + " is missing, so " +
                               layer_file_name(gap->above) +
                               " and the layers above the gap cannot be read (use "
                               "--max-stones " +
                               std::to_string(gap->missing - 1) + " for the layers below it)");
    }
    return held;
  }
  if (max_stones > held) {
    throw UsageError("--max-stones " + std::to_string(max_stones) + ": " + dir +
                     " holds layers up to " + std::to_string(held));
  }
  return max_stones;
}

}  // namespace sowdb::cli
