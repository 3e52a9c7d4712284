// A table directory's layout, in one place (FORMAT.md, "The table directory").
//
// A table directory holds `layer-NNN.sdb` for each layer written, the manifest `sowdb.json`
// (manifest.h), the writers' lock `.sowdb.lock`, while a migrate runs the marker
// `sowdb.migrating`, and while a writer runs (or after one was killed) temporaries
// `<name>.tmp.<pid>`. This header names them and reads a directory: the layer files present
// with their headers, the rule set they agree on, the first gap, what a writer left behind and
// the bytes on disk. The writer's side (the lock, removing stale temporaries) is not part of
// the probe API: it lives in the generator's build (`sowdb/probe/directory_writer.h`, not
// installed).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sowdb/format/layer_parts.h"
#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/manifest.h"

namespace sowdb {

// --- Names -------------------------------------------------------------------------------------

/// File name of layer `stones` inside a table directory: "layer-NNN.sdb". Thread safe.
std::string layer_file_name(int stones);

/// The stone count of a layer file's name: NNN for "layer-NNN.sdb" exactly as layer_file_name
/// writes it; nullopt for any other name ("layer-7.sdb", "layer-007.sdb.tmp.12"). Thread safe.
std::optional<int> parse_layer_file_name(std::string_view name);

/// File name of the writers' lock. It stays in the directory once created (removing it would
/// let a third writer lock a new file while the second still holds the old one).
inline constexpr const char* kLockName = ".sowdb.lock";

/// File name of the marker an unfinished `migrate` keeps in its output directory: its
/// presence makes `migrate` continue the directory and `sowdb manifest` refuse it.
inline constexpr const char* kMigratingName = "sowdb.migrating";

/// The name under which process `pid` writes the file `name` before renaming it into place:
/// "<name>.tmp.<pid>" (format's temporary_path, which the table writer uses). Inline, so that
/// the manifest's reader and writer need no more of the library than the name. Thread safe.
inline std::string temporary_name(const std::string& name, long pid) {
  return name + kTemporaryInfix + std::to_string(pid);
}

// --- Scan --------------------------------------------------------------------------------------

/// One layer file of a table directory and its header.
struct LayerFile {
  std::filesystem::path path;     ///< The file.
  std::optional<LayerInfo> info;  ///< Its header (FORMAT.md checks 1..12), when it reads.
  std::string error;              ///< Why it does not, else empty.
};

/// Every `layer-NNN.sdb` of the directory `dir` (names as layer_file_name writes them), by stone
/// count, each with its header read. ERRORS throws std::filesystem::filesystem_error (a
/// std::system_error) when the directory cannot be listed. Thread safe.
std::map<int, LayerFile> read_layer_files(const std::filesystem::path& dir);

/// The stone counts of the layer files of `dir`, by name alone (no header is read), ascending.
/// Empty when the directory is missing or cannot be listed. Never throws. Thread safe.
std::vector<int> layer_numbers(const std::filesystem::path& dir);

// --- Layers present and gaps -------------------------------------------------------------------

/// The largest n such that layers 0..n are all among `layers` (ascending stone counts, as
/// layer_numbers gives them); -1 when layer 0 is not. Thread safe.
int contiguous_top(const std::vector<int>& layers);

/// A gap in a directory's layers: layer `missing` is absent while a larger one, `above` (the
/// smallest present), is there, so no probe reads `above` or the layers past it.
struct LayerGap {
  int missing = -1;  ///< The first missing layer, contiguous_top + 1.
  int above = -1;    ///< The smallest layer present above it.
};

/// The first gap among `layers` (ascending stone counts): nullopt when no layer above the
/// first missing one is present (layers above kMaxIndexedStones are not counted). Thread safe.
std::optional<LayerGap> find_gap(const std::vector<int>& layers);

/// find_gap(layer_numbers(dir)). Never throws. Thread safe.
std::optional<LayerGap> find_gap(const std::filesystem::path& dir);

// --- What the headers agree on -----------------------------------------------------------------

/// Why TableSet::open refused a directory (TableSetError::cause). A front end adds its own
/// remedy from this (the CLI names `sowdb manifest`); the library's message states the cause.
enum class OpenError : std::uint8_t {
  kNoDirectory,          ///< The path is empty, missing, not a directory or cannot be listed.
  kNoTables,             ///< No layer file, or none whose header reads.
  kMixedTables,          ///< Layers of different rule sets or of both objectives.
  kLayerZeroMissing,     ///< layer-000.sdb is missing.
  kManifestMissing,      ///< sowdb.json is missing.
  kManifestDamaged,      ///< sowdb.json does not read, is not a manifest or fails its checksum.
  kManifestUnconfirmed,  ///< sowdb.json was written by an older sowdb, without a checksum.
  kManifestMismatch,     ///< sowdb.json names rules that a layer's header does not hold.
};

/// What TableSet::open (and agreed_layers) throws: a one-line message naming the directory and
/// the cause, with the cause as a value and, once known, the rule set the layer headers hold.
class TableSetError : public std::runtime_error {
 public:
  TableSetError(OpenError cause,
                std::filesystem::path dir,
                const std::string& message,
                std::string layer_rules = {})
      : std::runtime_error(message),
        cause_(cause),
        dir_(std::move(dir)),
        layer_rules_(std::move(layer_rules)) {}
  /// Why the directory was refused.
  OpenError cause() const noexcept { return cause_; }
  /// The directory as given to open.
  const std::filesystem::path& directory() const noexcept { return dir_; }
  /// describe() of the layers' rule set, when open got that far; else empty.
  const std::string& layer_rules() const noexcept { return layer_rules_; }

 private:
  OpenError cause_;
  std::filesystem::path dir_;
  std::string layer_rules_;
};

/// What every readable layer header of a directory holds.
struct LayerAgreement {
  RuleSet rules;                                  ///< The rule set, normalised.
  Objective objective = Objective::kCompetitive;  ///< The objective.
  int from = -1;  ///< The layer whose header was read first (the smallest readable one).
};

/// The rule set and objective that every readable header among `layers` (read_layer_files of
/// `dir`) holds; a header that does not read says nothing. RETURN nullopt when no header reads.
/// ERRORS throws TableSetError (OpenError::kMixedTables) naming `dir` and two layer files when
/// the headers mix the objectives ("DIR mixes competitive and co-operative tables: ...") or the
/// rule sets ("DIR holds tables of different rule sets: ..."). Thread safe.
std::optional<LayerAgreement> agreed_layers(const std::filesystem::path& dir,
                                            const std::map<int, LayerFile>& layers);

// --- What a writer left behind -----------------------------------------------------------------

/// A file a writer left in a table directory that is not part of the tables: a temporary
/// "<name>.tmp.<pid>" of a layer file or of the manifest, or a "layer-NNN.sdb.plain" (left by
/// earlier generators, which wrote Kalah layers a second time).
struct LeftBehind {
  std::filesystem::path path;  ///< The file.
  long pid = 0;                ///< The process that wrote it (0 for a .plain file).
  /// No process will finish it: the writer no longer exists, or it is a .plain file. A
  /// temporary of a live process (a concurrent writer), or of this one, is not stale.
  bool stale = false;
};

/// What writers left in `dir` (LeftBehind), in directory order. Empty when the directory cannot
/// be listed. Never throws. Thread safe.
std::vector<LeftBehind> left_behind(const std::filesystem::path& dir);

// --- Sizes -------------------------------------------------------------------------------------

/// Bytes on disk of a table directory's files.
struct DirectorySizes {
  std::map<int, std::uint64_t> layers;  ///< Bytes of each layer file that could be sized.
  std::uint64_t manifest = 0;           ///< Bytes of the manifest (0 when it is missing).
  std::uint64_t total = 0;              ///< The layers' bytes and the manifest's.
};

/// The sizes of the layer files 0..`max_stones` of `dir` and of its manifest; a file that
/// cannot be sized counts 0. Never throws. Thread safe.
DirectorySizes directory_sizes(const std::filesystem::path& dir, int max_stones);

}  // namespace sowdb
