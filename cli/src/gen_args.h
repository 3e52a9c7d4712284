// The options of `gen`, shared by `sowdb gen` and `sowdb-mpi gen`: one set of names, ranges and
// help texts, one translation into the analysis library's request, and one set of remedies
// added to its refusals. Part of the sowdb_cli_common library.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "options.h"
#include "sowdb/analysis/generate_job.h"
#include "sowdb/analysis/refusal.h"

namespace sowdb::cli {

/// The command line of `gen`.
struct GenArgs {
  std::string variant;                    ///< --variant
  int pits = 0;                           ///< --pits (0: the variant's board)
  int max_stones = -1;                    ///< --max-stones
  std::string out;                        ///< --out
  int threads = 0;                        ///< --threads (0: all cores)
  bool quiet = false;                     ///< --quiet
  bool json = false;                      ///< --json
  WriteArgs write;                        ///< --block-entries, --zstd-level, --no-recompute
  double memory_limit_gib = 0;            ///< --memory-limit (0: the default)
  std::string objective = "competitive";  ///< --objective
};

/// Adds gen's options to `cmd`, stored in `args`: --variant, --pits, --max-stones, --out,
/// --threads, --quiet, --json, --block-entries, --no-recompute, --zstd-level, --objective and
/// --memory-limit, with `memory_help` as the help of the last.
void add_gen_options(CLI::App* cmd, GenArgs& args, const std::string& memory_help);

/// The help of `sowdb gen --memory-limit`.
extern const char* const kGenMemoryHelp;

/// The analysis library's request for `args`. ERRORS throws UsageError for a variant that does
/// not parse (or a --pits it cannot take), an empty --out, and --no-recompute with co-operative
/// tables.
GenerateRequest generate_request(const GenArgs& args);

/// What the program adds to a refusal of generate_tables that one of gen's flags answers
/// ("Use another --out directory.", "; raise --memory-limit, ..."), read from the library's
/// exception nested in `refused`; empty when none does.
std::string gen_remedy(const Refused& refused);

}  // namespace sowdb::cli
