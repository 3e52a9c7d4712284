// `sowdb manifest`: writes a table directory's manifest (sowdb.json) from its layer headers, to
// repair a missing, damaged or older one, or to relabel the tables for another seed count.
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "board_text.h"
#include "commands.h"
#include "sowdb/probe/directory_writer.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/table_directory.h"

namespace sowdb::cli {
namespace {

// The rules and the objective every readable layer header of `dir` agrees on. A directory
// that mixes rule sets or objectives, that an interrupted migrate left, or that has no
// readable layer is bad input (as it is to probe and verify): throws UsageError.
RuleSet layers_rules(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir / kMigratingName, ec)) {
    throw UsageError(dir.string() + " is a migrate that was interrupted (" + kMigratingName +
                     "): rerun the same sowdb migrate to finish it");
  }
  std::optional<LayerAgreement> agreed;
  try {
    agreed = agreed_layers(dir, read_layer_files(dir));
  } catch (const TableSetError& e) {
    throw UsageError(e.what());
  }
  if (!agreed)
    throw UsageError(dir.string() + ": no readable layer file (layer-NNN.sdb)");
  return agreed->rules;
}

// The variant to name: --variant, or the one a sound or older manifest names.
Variant variant_to_name(const std::filesystem::path& dir,
                        const std::string& variant,
                        int pits,
                        const RuleSet& rules) {
  Variant v;
  if (!variant.empty()) {
    std::string error;
    if (!resolve_variant(variant, pits, v, error))
      throw UsageError(error);
  } else {
    // A sound manifest, or an older one (no checksum, but written by sowdb), is taken at its
    // word; a damaged or edited one could name anything.
    const auto old = read_manifest(dir);
    if (!old || !old->variant || (!old->legacy && !old->error.empty())) {
      throw UsageError("name the variant with --variant (the layers hold " + describe(rules) +
                       "; " +
                       (old ? std::string(kManifestName) + " " + old->error
                            : std::string(kManifestName) + " is missing") +
                       ")");
    }
    v = *old->variant;
  }
  if (!(v.rules.normalised() == rules)) {
    throw UsageError(v.to_string() + " has " + describe(v.rules.normalised()) +
                     ", but the layers hold " + describe(rules));
  }
  return v;
}

}  // namespace

void add_manifest(CLI::App& app, Runner& run) {
  struct Args {
    std::string tables;
    std::string variant;
    int pits = 0;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "manifest", "Write a table directory's manifest (sowdb.json) from its layer headers");
  cmd->add_option("--tables", args->tables, "Table directory")->required();
  cmd->add_option("--variant",
                  args->variant,
                  "The variant the tables are for, e.g. oware/6x4 (default: the one an older "
                  "manifest names)");
  cmd->add_option("--pits", args->pits, "Pits per side (overrides the variant's board)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 8));
  cmd->callback([&run, args] {
    run = [args] {
      const std::filesystem::path dir = args->tables;
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec))
        throw UsageError(args->tables + ": no such directory");
      const DirectoryLock lock(dir, "sowdb manifest");
      const RuleSet rules = layers_rules(dir);
      const Variant v = variant_to_name(dir, args->variant, args->pits, rules);
      try {
        write_manifest(dir, v);
      } catch (const std::system_error& e) {
        // A directory this process may not write in is unusable, as for gen --out (exit 2); a
        // full disk or an I/O error is a failure on the way (exit 1).
        const int err = e.code().value();
        if (err != ENOSPC && err != EDQUOT && err != EIO)
          throw UsageError(e.what());
        throw;
      }
      std::printf("%s: %s (%s)\n",
                  (dir / kManifestName).string().c_str(),
                  v.to_string().c_str(),
                  describe(rules).c_str());
      return 0;
    };
  });
}

}  // namespace sowdb::cli
