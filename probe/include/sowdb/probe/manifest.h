// The manifest of a table directory, `sowdb.json`: which variant its tables are for.
//
// The layer files' headers hold the full rule set, but not the seeds per pit of the start
// position, which only the manifest names (FORMAT.md, "The table directory"). A manifest
// carries a checksum, so that one damaged or edited by hand is refused rather than believed.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "sowdb/format/rule_set.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// File name of a table directory's manifest.
inline constexpr const char* kManifestName = "sowdb.json";

/// The rule set in words, e.g. "oware rules, 6 pits per side, skip_origin=on,
/// grand_slam=forbidden": what messages and the manifest's "rules" field say. Thread safe.
std::string describe(const RuleSet& rules);

/// The manifest's text for `variant`: one line of JSON with "variant" (its canonical text),
/// "rules" (describe() of its normalised rules) and "checksum" (16 hex digits of the xxh64 of
/// the variant text, a newline and the rules text). Thread safe.
std::string manifest_text(const Variant& variant);

/// What a manifest's text says.
struct ManifestContent {
  /// The variant, when the text names one that parses (also for a manifest that is refused).
  std::optional<Variant> variant;
  /// Empty when the manifest can be believed; else why not, in words: not a manifest, an
  /// unknown variant, a checksum that does not match (damaged or edited by hand), rules that do
  /// not match the variant, or no checksum (written before version 0.2 of sowdb).
  std::string error;
  /// The text has a "variant" but no "checksum" (an older sowdb wrote it).
  bool legacy = false;
};

/// Reads a manifest's text (a deliberately small reader: the probe library carries no JSON
/// dependency; it reads what manifest_text writes). Never throws. Thread safe.
ManifestContent parse_manifest(std::string_view text);

/// Reads `dir`/sowdb.json. RETURN nullopt when the file does not exist; else its content (a
/// file that cannot be read gives an error). Never throws. Thread safe.
std::optional<ManifestContent> read_manifest(const std::filesystem::path& dir);

/// Writes `dir`/sowdb.json for `variant` through a temporary file renamed into place, unless it
/// already holds exactly that text (so that a rerun over a read-only directory writes nothing).
/// ERRORS throws std::runtime_error naming the file when it cannot be written (the temporary is
/// removed): a std::system_error carrying errno when the system refused. THREAD SAFETY one writer
/// per directory (the caller holds the directory's lock).
void write_manifest(const std::filesystem::path& dir, const Variant& variant);

}  // namespace sowdb
