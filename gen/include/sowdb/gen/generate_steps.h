// The steps of `generate` that another driver of the same directory layout shares (the MPI
// generator, mpi/): preparing the output directory and the rules of which layers a run visits.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "sowdb/gen/directory_lock.h"
#include "sowdb/gen/generate.h"

namespace sowdb::gen {

/// The prepare-output step of `generate`: checks `options` (max_stones, the memory estimate of
/// a single process), creates `options.out`, takes its lock recording `holder` (e.g. "sowdb gen
/// oware 0..14"), refuses a directory holding tables of another rule set, board, objective or
/// seeds per pit, removes the temporaries of dead writers and writes the manifest.
/// RETURN the lock, held until it is destroyed.
/// ERRORS as generate(): InvalidRequest for a request refused before any work, DirectoryBusy,
///   std::runtime_error for an I/O failure.
std::unique_ptr<DirectoryLock> prepare_output(const GenerateOptions& options,
                                              const std::string& holder);

/// The zstd levels a run (generate, migrate) takes: those of `sowdb gen --zstd-level`. The
/// writer (WriteOptions::zstd_level) takes zstd's whole range.
inline constexpr int kMinZstdLevel = 1;
inline constexpr int kMaxZstdLevel = 22;

/// Refuses a zstd level outside kMinZstdLevel..kMaxZstdLevel (prepare_output and migrate call
/// it before any work). ERRORS InvalidRequest naming the level and the range.
void check_zstd_level(int level);

/// Refuses a directory in which no file can be created (no write permission, a read-only file
/// system) before a layer is solved for nothing: a run calls it before the first layer it
/// writes, so that a rerun over complete tables passes on a read-only file system.
/// ERRORS InvalidRequest when the directory cannot be used, std::runtime_error on a full disk
///   or an I/O error.
void check_writable(const std::filesystem::path& dir);

/// Whether layer n is the last of a run into `out` that goes up to at least `max_stones`: a run
/// goes on past max_stones only through layers the directory holds. Nothing reads the last
/// layer, and it reads no layer its moves cannot reach.
bool last_layer(const std::filesystem::path& out, int max_stones, int n);

}  // namespace sowdb::gen
