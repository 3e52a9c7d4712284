// libFuzzer target: arbitrary bytes as a table directory's manifest (sowdb.json). The reader must
// believe it or say why not, never crash (ASan, UBSan); a manifest it believes must name a
// variant whose own manifest text it believes too, with the same variant.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sowdb/probe/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const sowdb::ManifestContent content = sowdb::parse_manifest(text);
  if (!content.error.empty())
    return 0;
  if (!content.variant || content.legacy)
    std::abort();  // believed without a variant, or without a checksum
  const sowdb::ManifestContent again =
      sowdb::parse_manifest(sowdb::manifest_text(*content.variant));
  if (!again.error.empty() || !again.variant || !(*again.variant == *content.variant))
    std::abort();
  return 0;
}
