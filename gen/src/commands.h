// The sowdb CLI's subcommands. Each `add_*` registers one subcommand on `app` and sets `run` to
// the function main calls when that subcommand was chosen; it returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace sowdb::cli {

using Runner = std::function<int()>;

/// Thrown by a subcommand for bad input: main prints `what()` as one line and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void add_variants(CLI::App& app, Runner& run);
void add_show(CLI::App& app, Runner& run);
void add_gen(CLI::App& app, Runner& run);
void add_probe(CLI::App& app, Runner& run);
void add_verify(CLI::App& app, Runner& run);
void add_stats(CLI::App& app, Runner& run);

}  // namespace sowdb::cli
