// The options that the programs over the generator share (`sowdb`, `sowdb-mpi`): their names,
// ranges and messages, bound with CLI11 once.
#include "options.h"

#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/gen/generate_steps.h"
#include "sowdb/gen/parallel.h"

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

std::string parse_error_text(CLI::App& app,
                             const CLI::ParseError& error,
                             const std::string& program,
                             const std::string& commands) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  if (chosen.empty() && !app.remaining().empty()) {
    return "unknown command '" + app.remaining().front() + "' (commands: " + commands + "; see " +
           program + " --help)";
  }
  const std::string help =
      program + (chosen.empty() ? "" : " " + chosen.front()->get_name()) + " --help";
  // CLI11 checks what is required before it reports the arguments it could not match: a
  // mistyped '--tabels' would read "--tables is required".
  if (!chosen.empty() && dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    for (const std::string& arg : chosen.front()->remaining()) {
      if (arg.size() > 1 && arg[0] == '-') {
        std::string line = "unknown option '";
        line.append(arg).append("' (see ").append(help).append(")");
        return line;
      }
    }
  }
  return std::string(error.what()) + " (see " + help + ")";
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
  return parse_objective(objective).value_or(Objective::kCompetitive);
}

const char* objective_text(Objective objective) {
  return objective_prose(objective);
}

int thread_count(int threads) {
  return gen::thread_count(threads);
}

WriteOptions WriteArgs::write_options() const {
  WriteOptions write;
  write.block_entries = block_entries;
  write.zstd_level = zstd_level;
  write.format_version = static_cast<std::uint16_t>(format_version);
  if (format_version == 6 &&
      (block_entries_option == nullptr || block_entries_option->count() == 0))
    write.block_entries = kDefaultV6BlockEntries;
  return write;
}

void add_write_options(CLI::App* cmd, WriteArgs& args) {
  args.block_entries_option =
      cmd->add_option("--block-entries", args.block_entries, "Entries per compressed block")
          ->transform(whole_number())
          ->check(CLI::Range(1u, kMaxBlockEntries))
          ->capture_default_str();
  cmd->add_option("--format-version",
                  args.format_version,
                  "Write table format version 6 (small Huffman-coded blocks, values and depths "
                  "apart; --block-entries defaults to 256, --zstd-level does not apply); without "
                  "it the lowest version 1..5 that describes each file")
      ->transform(whole_number())
      ->check(CLI::Range(6u, 6u));
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
