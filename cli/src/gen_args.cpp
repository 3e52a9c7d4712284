#include "gen_args.h"

#include <cstdint>
#include <exception>
#include <string>

#include "board_text.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"

namespace sowdb::cli {

const char* const kGenMemoryHelp =
    "GiB the run may plan for; a larger run is refused before any work (default: 90% of this "
    "machine's memory)";

void add_gen_options(CLI::App* cmd, GenArgs& args, const std::string& memory_help) {
  cmd->add_option("--variant", args.variant, "Rule system, e.g. oware or kalah/4x3")->required();
  cmd->add_option("--pits", args.pits, "Pits per side (overrides the variant's board)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 8));
  cmd->add_option("--max-stones", args.max_stones, "Largest layer: seeds on the board")
      ->required()
      ->transform(whole_number())
      ->check(CLI::Range(0, kMaxIndexedStones));
  cmd->add_option("--out", args.out, "Table directory (created if missing)")->required();
  add_threads_option(cmd, args.threads);
  cmd->add_flag("--quiet", args.quiet, "No progress or summary lines");
  cmd->add_flag("--json", args.json, "One JSON line per layer on stdout");
  add_write_options(cmd, args.write);
  add_objective_option(cmd, args.objective, "co-operative tables hold each position's set");
  cmd->add_option("--memory-limit", args.memory_limit_gib, memory_help)
      ->transform(number())
      ->check(CLI::Range(0.001, 1e9));
}

GenerateRequest generate_request(const GenArgs& args) {
  GenerateRequest request;
  std::string error;
  if (!resolve_variant(args.variant, args.pits, request.variant, error))
    throw UsageError(error);
  if (args.out.empty())
    throw UsageError("--out: the table directory must not be an empty path");
  request.max_stones = args.max_stones;
  request.out = args.out;
  request.write = args.write.write_options();
  request.recompute = !args.write.no_recompute;
  request.objective = objective_of(args.objective);
  if (request.objective == Objective::kCooperative && args.write.no_recompute)
    throw UsageError("--no-recompute: co-operative tables have no recompute entries");
  if (request.objective == Objective::kCooperative && args.write.format_version == 6)
    throw UsageError("--format-version 6: co-operative tables are written as format version 5");
  request.memory_limit_bytes =
      static_cast<std::uint64_t>(args.memory_limit_gib * 1024.0 * 1024.0 * 1024.0);
  request.threads = args.threads;
  return request;
}

std::string gen_remedy(const Refused& refused) {
  try {
    std::rethrow_if_nested(refused);
  } catch (const gen::OutHoldsOtherTables&) {
    return ". Use another --out directory.";
  } catch (const gen::OutLabelledOtherwise& e) {
    return ": use --variant " + e.held.to_string() +
           ", or relabel the directory with `sowdb manifest --tables " + e.out.string() +
           " --variant " + e.asked.to_string() + "`.";
  } catch (const gen::LayerAboveTooLarge& e) {
    return "; raise --memory-limit, or remove the layers above " + std::to_string(e.max_stones) +
           " (probes may refuse some of their entries)";
  } catch (...) {
    // Another cause: no flag of gen answers it.
  }
  return {};
}

}  // namespace sowdb::cli
