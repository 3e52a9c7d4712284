// The result types of sowdb.TableSet's calls (reports.cpp): ProbeResult (with MoveInfo and
// LineStep) and Labels, shared by tables.cpp, which makes them.
#pragma once

#include <memory>

#include "bindings.h"
#include "sowdb/analysis/position_report.h"

namespace sowdb::python {

/// The report of one probe as Python holds it: ProbeResult is the analysis library's
/// PositionReport itself, and MoveInfo and LineStep read their fields from it (no copies).
using Report = std::shared_ptr<PositionReport>;

/// The answers of a bulk call (sowdb.Labels): numpy arrays, depth and best None when not asked.
struct Labels {
  py::object value;
  py::object status;
  py::object depth = py::none();
  py::object best = py::none();
};

/// Defines MoveInfo, LineStep, ProbeResult and Labels, in that order.
void def_probe_results(py::module_& m);

}  // namespace sowdb::python
