// The small table directories the analysis tests report on, generated once per process.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "generated_tables.h"
#include "sowdb/probe/tables.h"

namespace sowdb::test {

/// Competitive tables of `variant` up to `max_stones`, opened.
inline std::unique_ptr<TableSet> open_competitive(const std::string& variant, int max_stones) {
  return TableSet::open(generated_dir({variant, max_stones}));
}

/// Co-operative tables of wari-kc/3x2 up to 12 seeds (its start position), opened.
inline std::unique_ptr<TableSet> open_cooperative() {
  static TempDir root("analysis-coop");
  static std::once_flag once;
  std::call_once(once, [] {
    generate_into(root.path() / "coop", {"wari-kc/3x2", 12}, [](gen::GenerateOptions& o) {
      o.objective = Objective::kCooperative;
    });
  });
  return TableSet::open(root.path() / "coop");
}

}  // namespace sowdb::test
