// The parts of the extension module, each defined in its own file and called from module.cpp.
#pragma once

#include <memory>
#include <string>

#include "convert.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

namespace sowdb::python {

/// sowdb.Variant: a rule system on a board, with its rules engine.
struct PyVariant {
  Variant variant;
  std::shared_ptr<const Rules> rules;

  /// From a parsed variant. ERRORS whatever Rules' constructor throws (never for a parsed one).
  explicit PyVariant(const Variant& v)
      : variant(v), rules(std::make_shared<const Rules>(v.rules)) {}
};

/// Parses "oware", "kalah/4x3", ... with `pits` and `seeds` overriding the board (either may be
/// None). ERRORS throws PyError(kBadVariant) with the parser's reason.
PyVariant make_variant(const std::string& text, const py::object& pits, const py::object& seeds);

/// A Variant from a Python argument: a sowdb.Variant or its text.
PyVariant variant_from(py::handle obj);

void def_variant(py::module_& m);  // Variant, MoveResult, Outcome, layer helpers
void def_tables(py::module_& m);   // open, TableSet, ProbeResult, Labels
void def_jobs(py::module_& m);     // generate, solve

}  // namespace sowdb::python
