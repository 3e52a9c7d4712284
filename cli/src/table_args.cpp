#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "commands.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate_steps.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/table_directory.h"

namespace sowdb::cli {
namespace {

// Whether `text` is a number as strtod reads it, with nothing after it.
bool is_number(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())))
    return false;
  char* end = nullptr;
  (void)std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

}  // namespace

const char* exit_codes_help() {
  return "Exit codes: 0 success; 1 a failure while working (damaged data, I/O, a busy directory, "
         "output that cannot be written); 2 bad input, refused before any work; 128 + signal an "
         "interrupted gen, migrate or solve. Reference: docs/CLI.md";
}

CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::size_t digits = text.empty() || (text[0] != '-' && text[0] != '+') ? 0 : 1;
        const std::size_t sign = digits;
        while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
          ++digits;
        if (digits > sign && digits == text.size()) {
          const std::size_t zeros = text.find_first_not_of('0', sign);
          if (zeros == std::string::npos)
            text = "0";
          else
            text.erase(sign, zeros - sign);
          return {};
        }
        return "'" + text + "' is not " + (is_number(text) ? "a whole number" : "a number");
      },
      "");
}

CLI::Validator number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return is_number(text) ? std::string() : "'" + text + "' is not a number";
      },
      "");
}

std::unique_ptr<TableSet> open_tables(const std::string& dir, const TableSetOptions& options) {
  try {
    return TableSet::open(dir, options);
  } catch (const TableSetError& e) {
    // The library states the cause; the remedy, a command line, is the program's to give.
    const std::string write = "; `sowdb manifest --tables " + dir +
                              " --variant V` writes it from the layer headers (" + e.layer_rules() +
                              ")";
    switch (e.cause()) {
      case OpenError::kManifestMissing:
      case OpenError::kManifestDamaged:
      case OpenError::kManifestMismatch:
        throw UsageError(e.what() + write);
      case OpenError::kManifestUnconfirmed:
        throw UsageError(std::string(e.what()) + "; `sowdb manifest --tables " + dir +
                         "` confirms it");
      default:
        throw UsageError(e.what());
    }
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

std::string objective_remedy(Objective held) {
  return held == Objective::kCooperative
             ? "; ask with --objective cooperative"
             : "; build co-operative tables with `sowdb gen --objective cooperative`";
}

std::string tables_remedy(const gen::NeedsCompleteTables& e) {
  return "; build them with `sowdb gen --variant " + e.variant.to_string() + " --max-stones " +
         std::to_string(e.stones) +
         (e.objective == Objective::kCooperative ? " --objective cooperative" : "") +
         " --out DIR` and pass --tables DIR";
}

int last_layer(const TableSet& tables, int max_stones, const std::string& dir) {
  const int held = tables.max_stones();
  if (max_stones < 0) {
    // The tables end at the first missing layer. Checking only the layers below a gap and
    // reporting success would pass a directory whose upper layers no probe can read.
    if (const auto gap = find_gap(std::filesystem::path(dir))) {
      throw std::runtime_error(dir + ": " + layer_file_name(gap->missing) + " is missing, so " +
                               layer_file_name(gap->above) +
                               " and the layers above the gap cannot be read (use "
                               "--max-stones " +
                               std::to_string(gap->missing - 1) + " for the layers below it)");
    }
    return held;
  }
  if (max_stones > held) {
    throw UsageError("--max-stones " + std::to_string(max_stones) + ": " + dir +
                     " holds layers up to " + std::to_string(held));
  }
  return max_stones;
}

void add_threads_option(CLI::App* cmd, int& threads, const std::string& help) {
  cmd->add_option("--threads", threads, help)
      ->transform(whole_number())
      ->check(CLI::Range(1, 1024));
}

void add_objective_option(CLI::App* cmd, std::string& objective, const std::string& help) {
  cmd->add_option("--objective",
                  objective,
                  "competitive (each player takes the most seeds) or cooperative (seed 002's "
                  "Win-Win: which final differences a joint line can reach)" +
                      (help.empty() ? "" : "; " + help))
      ->check(CLI::IsMember({"competitive", "cooperative"}))
      ->capture_default_str();
}

Objective objective_of(const std::string& objective) {
  return objective == "cooperative" ? Objective::kCooperative : Objective::kCompetitive;
}

const char* objective_text(Objective objective) {
  return objective == Objective::kCooperative ? "co-operative" : "competitive";
}

int thread_count(int threads) {
  return gen::thread_count(threads);
}

void add_write_options(CLI::App* cmd, WriteArgs& args) {
  cmd->add_option("--block-entries", args.block_entries, "Entries per compressed block")
      ->transform(whole_number())
      ->check(CLI::Range(1u, kMaxBlockEntries))
      ->capture_default_str();
  cmd->add_flag("--no-recompute",
                args.no_recompute,
                "Store every value (format version 2) instead of recompute entries that the "
                "probe recomputes from their children (format version 4)");
  cmd->add_option("--zstd-level", args.zstd_level, "zstd compression level")
      ->transform(whole_number())
      ->check(CLI::Range(gen::kMinZstdLevel, gen::kMaxZstdLevel))
      ->capture_default_str();
}

}  // namespace sowdb::cli
