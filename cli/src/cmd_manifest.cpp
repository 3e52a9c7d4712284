// `sowdb manifest`: writes a table directory's manifest (sowdb.json) from its layer headers, to
// repair a missing, damaged or older one, or to relabel the tables for another seed count.
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "sowdb/gen/directory_lock.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/tables.h"

namespace sowdb::cli {

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
      ->check(CLI::Range(1, 8));
  cmd->callback([&run, args] {
    run = [args] {
      namespace fs = std::filesystem;
      const fs::path dir = args->tables;
      std::error_code ec;
      if (!fs::is_directory(dir, ec))
        throw UsageError(args->tables + ": no such directory");
      const gen::DirectoryLock lock(dir, "sowdb manifest");
      // The rules every readable layer header agrees on.
      std::optional<RuleSet> rules;
      std::string rules_from;
      for (const auto& [n, file] : read_layer_files(dir)) {
        if (!file.info)
          continue;  // a damaged layer says nothing about the directory's rules
        const std::string name = layer_file_name(n);
        if (!rules) {
          rules = file.info->rules.normalised();
          rules_from = name;
        } else if (!(file.info->rules.normalised() == *rules)) {
          throw std::runtime_error(args->tables + " holds tables of different rule sets: " +
                                   rules_from + " (" + describe(*rules) + ") and " + name + " (" +
                                   describe(file.info->rules.normalised()) + ")");
        }
      }
      if (!rules)
        throw UsageError(args->tables + ": no readable layer file (layer-NNN.sdb)");
      Variant v;
      if (!args->variant.empty()) {
        std::string error;
        if (!resolve_variant(args->variant, args->pits, v, error))
          throw UsageError(error);
      } else {
        // A sound manifest, or an older one (no checksum, but written by sowdb), is taken at its
        // word; a damaged or edited one could name anything.
        const auto old = read_manifest(dir);
        if (!old || !old->variant || (!old->legacy && !old->error.empty())) {
          throw UsageError("name the variant with --variant (the layers hold " + describe(*rules) +
                           "; " +
                           (old ? std::string(kManifestName) + " " + old->error
                                : std::string(kManifestName) + " is missing") +
                           ")");
        }
        v = *old->variant;
      }
      if (!(v.rules.normalised() == *rules)) {
        throw UsageError(v.to_string() + " has " + describe(v.rules.normalised()) +
                         ", but the layers hold " + describe(*rules));
      }
      write_manifest(dir, v);
      std::printf("%s: %s (%s)\n",
                  (dir / kManifestName).string().c_str(),
                  v.to_string().c_str(),
                  describe(*rules).c_str());
      return 0;
    };
  });
}

}  // namespace sowdb::cli
