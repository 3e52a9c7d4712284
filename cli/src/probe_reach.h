// `sowdb probe` on co-operative tables (`sowdb gen --objective cooperative`): the text of the
// co-operative report (sowdb/analysis/cooperative_report.h computes it, report_json.h writes its
// JSON).
#pragma once

#include <string>
#include <vector>

#include "sowdb/analysis/cooperative_report.h"

namespace sowdb::cli {

/// The report as text, on stdout; `set` names the tables it came from.
void print_reach_text(const TableSet& set, const CooperativeReport& r);

/// Differences as text with runs joined: "-4..-2, 0, 2..4"; "none" when empty.
std::string differences_text(const std::vector<int>& d);

}  // namespace sowdb::cli
