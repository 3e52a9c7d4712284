// The layer loop of the distributed generator: `gen::generate` over MPI ranks. Not installed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "dist_write.h"
#include "exchange.h"
#include "sowdb/gen/generate.h"

namespace sowdb::mpi {

/// What happened to one layer, over all ranks (given on rank 0).
struct DistLayerReport {
  gen::LayerReport layer;             ///< As gen's; peak_rss_bytes: the largest over the ranks.
  std::uint64_t bytes_sent = 0;       ///< Bytes the ranks sent each other for this layer.
  std::uint64_t messages = 0;         ///< Non-empty buffers the ranks sent each other.
  double slowest_seconds = 0;         ///< The slowest rank's time on the layer's solve.
  int slowest_rank = 0;               ///< That rank.
  std::uint64_t rank0_rss_bytes = 0;  ///< Peak RSS of rank 0.
  std::uint64_t other_rss_bytes = 0;  ///< The largest peak RSS of the other ranks.
};

/// Options of generate_distributed: gen's (on_layer, on_progress and on_rebuild unused) and
/// the distributed run's callbacks, called on rank 0 only.
struct DistOptions {
  gen::GenerateOptions gen;
  std::function<void(const DistLayerReport&)> on_layer;
  std::function<void(int, gen::Phase, double)> on_progress;
  std::function<void(int, const std::string&)> on_rebuild;
  /// For the kill-and-resume test: this rank kills itself with SIGKILL when it starts to solve
  /// layer `die_at_layer` (-1: never).
  int die_at_layer = -1;
  /// For tests: PartOptions::deep_byte (depths from it up kept in a list), 1..255.
  std::uint8_t deep_byte = 255;
  /// How the ranks' compressed blocks reach the file (decision record 0010).
  WriteMode write_mode = WriteMode::kGather;
  /// Worker threads of each rank for this run (a oneTBB task arena of this size); 0: every core
  /// the rank may run on.
  int threads = 0;
};

/// What a refused or failed run tells the user.
struct DistError {
  int exit_code = 0;    ///< 0: no error; 2: a request refused before any work; 1: a failure.
  std::string message;  ///< Rank 0's message.
};

/// Builds the tables `sowdb gen` builds with `options.gen`, byte for byte, over all ranks of
/// MPI_COMM_WORLD (collective): rank 0 prepares the directory as gen does (checks, lock,
/// manifest) and writes each layer's file; every rank solves its part of each layer and keeps
/// its part of every layer. Resumes from the layers present and valid. Co-operative tables are
/// refused. Runs on a task arena of `options.threads` threads on each rank (the calling thread
/// makes every MPI call, MPI_THREAD_FUNNELED). Returns the error rank 0 reports (the same exit code
/// on every rank); throws for a failure inside a collective phase (the caller aborts the job).
DistError generate_distributed(const Comm& comm, const DistOptions& options);

}  // namespace sowdb::mpi
