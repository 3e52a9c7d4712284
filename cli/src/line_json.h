// The JSON of a line of play now lives in the analysis library (sowdb/analysis/report_json.h),
// with the rest of the reports' JSON; these names stay for the CLI's sources.
#pragma once

#include "sowdb/analysis/report_json.h"

namespace sowdb::cli {

using sowdb::line_end_text;
using sowdb::pits_vector;
using sowdb::put_line;

}  // namespace sowdb::cli
