// One writer at a time per table directory: the lock now belongs to the table directory's owner
// (sowdb/probe/directory_writer.h, below gen); these names stay for the generator's callers.
#pragma once

#include "sowdb/probe/directory_writer.h"

namespace sowdb::gen {

using sowdb::DirectoryBusy;
using sowdb::DirectoryLock;
using sowdb::kLockName;
using sowdb::wait_for_directory;

}  // namespace sowdb::gen
