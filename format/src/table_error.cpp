// TableError, the error every table function throws (FORMAT.md, "Reader checks"), and the
// names of the objectives.
#include "sowdb/format/table_file.h"

namespace sowdb {

TableError::TableError(Code code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

const char* to_string(TableError::Code code) noexcept {
  using Code = TableError::Code;
  switch (code) {
    case Code::kIo:
      return "Io";
    case Code::kNotATable:
      return "NotATable";
    case Code::kVersion:
      return "Version";
    case Code::kUnsupported:
      return "Unsupported";
    case Code::kBadHeader:
      return "BadHeader";
    case Code::kRuleMismatch:
      return "RuleMismatch";
    case Code::kTruncated:
      return "Truncated";
    case Code::kCorrupt:
      return "Corrupt";
    case Code::kChecksum:
      return "Checksum";
    case Code::kInvalidArgument:
      return "InvalidArgument";
  }
  return "Unknown";
}

const char* to_string(Objective objective) noexcept {
  return objective == Objective::kCooperative ? "cooperative" : "competitive";
}

std::optional<Objective> parse_objective(std::string_view text) noexcept {
  for (const Objective o : {Objective::kCompetitive, Objective::kCooperative}) {
    if (text == to_string(o))
      return o;
  }
  return std::nullopt;
}

const char* objective_prose(Objective objective) noexcept {
  return objective == Objective::kCooperative ? "co-operative" : "competitive";
}

}  // namespace sowdb
