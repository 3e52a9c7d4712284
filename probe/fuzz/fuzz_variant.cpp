// libFuzzer target: arbitrary bytes as variant text (`PRESET/PxS/OPTION=VALUE,...`). The parser
// must accept or refuse with a reason, never crash (ASan, UBSan); what it accepts must come back
// unchanged through its canonical text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sowdb/probe/variant.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto v = sowdb::parse_variant(text, &error);
  if (!v) {
    if (error.empty())
      std::abort();  // a refusal always says why
    return 0;
  }
  const std::string canonical = v->to_string();
  const auto again = sowdb::parse_variant(canonical, &error);
  if (!again || !(*again == *v) || again->to_string() != canonical)
    std::abort();
  return 0;
}
