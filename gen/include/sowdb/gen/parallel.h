// The generator's threads, for the libraries that take an Executor.
#pragma once

#include "sowdb/format/table_file.h"

namespace sowdb::gen {

/// An Executor (sowdb/format/table_file.h) that runs its tasks with `tbb::parallel_for` on the
/// calling thread's oneTBB arena, so the caller's thread count applies (a tbb::task_arena it
/// runs in, as generate_tables does; or tbb::global_control).
/// Thread safe.
Executor tbb_executor();

}  // namespace sowdb::gen
