// Steps shared by the writers of table_writer.cpp and layer_parts.cpp. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "sowdb/format/table_file.h"

namespace sowdb::table_internal {

// Blocks compressed per executor call: bounds the compressed bytes held before writing.
constexpr std::size_t kBlocksPerRound = 256;

// Runs task(0) .. task(tasks - 1) on `executor`, or one after the other when it is empty.
void run_tasks(const Executor& executor,
               std::size_t tasks,
               const std::function<void(std::size_t)>& task);

// The checks of a writer's input shared by both kinds of file: rule set, stone count, the
// number of entries given (`given` `noun`s for a layer of `per_entry` of them an entry) and the
// options. Throws TableError kInvalidArgument.
void check_common(const std::string& name,
                  const RuleSet& rules_in,
                  int stones,
                  std::uint64_t given,
                  std::uint64_t per_entry,
                  const char* noun,
                  const WriteOptions& options);

}  // namespace sowdb::table_internal
