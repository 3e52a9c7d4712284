// The sowdb CLI's subcommands. Each `add_*` registers one subcommand on `app` and sets `run` to
// the function main calls when that subcommand was chosen; it returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

#include "options.h"
#include "sowdb/probe/tables.h"

namespace sowdb::gen {
struct NeedsCompleteTables;
}  // namespace sowdb::gen

namespace sowdb::cli {

using Runner = std::function<int()>;

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

void add_variants(CLI::App& app, Runner& run);
void add_show(CLI::App& app, Runner& run);
void add_gen(CLI::App& app, Runner& run);
void add_probe(CLI::App& app, Runner& run);
void add_verify(CLI::App& app, Runner& run);
void add_manifest(CLI::App& app, Runner& run);
void add_solve(CLI::App& app, Runner& run);
void add_book(CLI::App& app, Runner& run);
void add_stats(CLI::App& app, Runner& run);
void add_migrate(CLI::App& app, Runner& run);
/// `sowdb serve`; only in a build with the server (SOWDB_WITH_SERVER).
void add_serve(CLI::App& app, Runner& run);

}  // namespace sowdb::cli
