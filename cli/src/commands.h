// The sowdb CLI's subcommands. Each `add_*` registers one subcommand on `app` and sets `run` to
// the function main calls when that subcommand was chosen; it returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

#include "sowdb/analysis/refusal.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/tables.h"

namespace sowdb::gen {
struct NeedsCompleteTables;
}  // namespace sowdb::gen

namespace sowdb::cli {

using Runner = std::function<int()>;

/// Thrown by a subcommand for bad input of its own (its options and their combinations): a
/// refusal of kind kBadRequest, which main prints as one line and exits 2 for.
struct UsageError : Refused {
  explicit UsageError(const std::string& message) : Refused(RefusalKind::kBadRequest, message) {}
};

/// Opens a table directory for a subcommand; one that cannot be opened (missing, empty, mixed
/// rule sets) is bad input: throws UsageError with the probe library's reason.
std::unique_ptr<TableSet> open_tables(const std::string& dir, const TableSetOptions& options = {});

/// The command line that answers ProbeStatus::kWrongObjective on tables holding `held`
/// ("; ask with --objective cooperative"), to append to TableSet::explain's cause.
std::string objective_remedy(Objective held);

/// The hint appended to a refusal that complete tables would answer: the `sowdb gen` command
/// that builds them, and --tables to pass them.
std::string tables_remedy(const gen::NeedsCompleteTables& e);

/// The last layer a whole-directory command covers: every layer `tables` holds, or
/// `max_stones` when that is >= 0. Asking for layers the directory does not hold throws
/// UsageError (an error, not a silent clamp).
int last_layer(const TableSet& tables, int max_stones, const std::string& dir);

/// The exit codes, the last paragraph of every command's --help (a command with a footer of its
/// own ends it with these).
const char* exit_codes_help();

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

/// The objective in prose: "competitive" or "co-operative" (the flag value is "cooperative").
const char* objective_text(Objective objective);

/// `threads`, or every core when it is 0 (not given): gen::thread_count, the count a request
/// of that many threads runs on (for the summaries that print it).
int thread_count(int threads);

/// The options of the commands that write tables (gen, migrate).
struct WriteArgs {
  unsigned block_entries = kDefaultBlockEntries;  ///< --block-entries
  int zstd_level = WriteOptions{}.zstd_level;     ///< --zstd-level
  bool no_recompute = false;                      ///< --no-recompute
};

/// Adds --block-entries, --no-recompute and --zstd-level to `cmd`, stored in `args`.
void add_write_options(CLI::App* cmd, WriteArgs& args);

void add_variants(CLI::App& app, Runner& run);
void add_show(CLI::App& app, Runner& run);
void add_gen(CLI::App& app, Runner& run);
void add_probe(CLI::App& app, Runner& run);
void add_verify(CLI::App& app, Runner& run);
void add_manifest(CLI::App& app, Runner& run);
void add_solve(CLI::App& app, Runner& run);
void add_stats(CLI::App& app, Runner& run);
void add_migrate(CLI::App& app, Runner& run);
/// `sowdb serve`; only in a build with the server (SOWDB_WITH_SERVER).
void add_serve(CLI::App& app, Runner& run);

}  // namespace sowdb::cli
