// Steps shared by the writers of table_writer.cpp and layer_parts.cpp. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
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

// write_layer for WriteOptions::format_version 6 (v6_writer.cpp; FORMAT.md, "Version 6"), after
// write_layer's own checks of its arguments.
void write_layer_v6(const std::filesystem::path& path,
                    const RuleSet& rules,
                    int stones,
                    const LayerSource& source,
                    const WriteOptions& options);

}  // namespace sowdb::table_internal
