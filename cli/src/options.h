// The options that the programs over the generator share (`sowdb`, `sowdb-mpi`), bound with
// CLI11 in one place so that a flag has one name, one range and one message in every program.
// Part of the sowdb_cli_common library (cli/CMakeLists.txt).
#pragma once

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>

#include "sowdb/analysis/refusal.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/tables.h"

namespace sowdb::cli {

/// Thrown by a subcommand for bad input of its own (its options and their combinations): a
/// refusal of kind kBadRequest, which main prints as one line and exits 2 for.
struct UsageError : Refused {
  explicit UsageError(const std::string& message) : Refused(RefusalKind::kBadRequest, message) {}
};

/// The exit codes, the last paragraph of every command's --help (a command with a footer of its
/// own ends it with these).
const char* exit_codes_help();

/// The one line that says why CLI11 refused a command line of `program` (without the leading
/// "PROGRAM: error: "): a mistyped command names the commands (`commands`, "gen, probe"), a
/// mistyped option is called unknown rather than reported as a missing required one, and every
/// line ends with the --help to read. `app` is the program's, after the failed parse.
std::string parse_error_text(CLI::App& app,
                             const CLI::ParseError& error,
                             const std::string& program,
                             const std::string& commands);

/// A CLI11 transform for every integer option, ahead of its range check: a value that is not a
/// number is called "not a number" and one with a fraction "not a whole number" (CLI11's range
/// check would call either "not in range"), and leading zeros go, so that 010 means ten (CLI11
/// reads it as octal). Use as `->transform(whole_number())`.
CLI::Validator whole_number();

/// The same for an option that takes any number (--memory-limit): "not a number".
CLI::Validator number();

/// Adds `--threads K` (1..1024, a whole number) to `cmd`, stored in `threads` (0: not given).
void add_threads_option(CLI::App* cmd,
                        int& threads,
                        const std::string& help = "Worker threads (default: all cores)");

/// Adds `--objective competitive|cooperative` to `cmd`, stored in `objective` (default
/// "competitive"), with `help` after the choices' meaning.
void add_objective_option(CLI::App* cmd, std::string& objective, const std::string& help = "");

/// The objective an `--objective` value names (one add_objective_option accepts).
Objective objective_of(const std::string& objective);

/// The objective in prose: "competitive" or "co-operative" (objective_prose).
const char* objective_text(Objective objective);

/// `threads`, or every core when it is 0 (not given).
int thread_count(int threads);

/// The options of the commands that write tables (gen, migrate).
struct WriteArgs {
  unsigned block_entries = kDefaultBlockEntries;      ///< --block-entries
  int zstd_level = WriteOptions{}.zstd_level;         ///< --zstd-level
  bool no_recompute = false;                          ///< --no-recompute
  unsigned format_version = 0;                        ///< --format-version (0: not given)
  const CLI::Option* block_entries_option = nullptr;  ///< Tells whether --block-entries was given.

  /// The WriteOptions these arguments give: with --format-version 6 and no --block-entries,
  /// kDefaultV6BlockEntries entries a block.
  WriteOptions write_options() const;
};

/// Adds --block-entries, --no-recompute, --zstd-level and --format-version to `cmd`, stored in
/// `args`.
void add_write_options(CLI::App* cmd, WriteArgs& args);

}  // namespace sowdb::cli
