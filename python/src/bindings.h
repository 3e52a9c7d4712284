// The parts of the extension module, each defined in its own file and called from module.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
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

/// The default block caches of a table set (cache_plan.cpp): bytes per layer, as
/// TableSetOptions::cache_bytes (value frames only) and depth_cache_bytes take them.
struct CachePlan {
  std::uint64_t value_bytes = 0;  ///< Value frames per layer.
  std::uint64_t depth_bytes = 0;  ///< Depth frames per layer (0: none kept).
  bool values_whole = false;      ///< Every layer's value frames fit: each layer kept whole.
};

/// Shares `budget` bytes of decoded blocks out over layers of `layer_entries` positions each:
/// every layer's values whole when they fit together, else one cap for every layer (the
/// smaller layers whole); the depth frames get what the values leave. The decoded frames of
/// all layers together then stay within the budget (plus about one block a layer).
CachePlan plan_caches(std::span<const std::uint64_t> layer_entries, std::uint64_t budget);

/// The default budget of plan_caches for a table set opened from Python: 256 MiB.
inline constexpr std::uint64_t kDefaultCacheBudget = std::uint64_t{256} << 20;

void def_variant(py::module_& m);  // Variant, MoveResult, Outcome, layer helpers
void def_tables(py::module_& m);   // open, TableSet, ProbeResult, Labels
void def_jobs(py::module_& m);     // generate, solve

}  // namespace sowdb::python
