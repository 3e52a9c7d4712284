// The extension module sowdb._sowdb. The package sowdb (python/sowdb/__init__.py) imports it
// and adds the exceptions (sowdb.errors) and some sugar in Python.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "bindings.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/version.h"

PYBIND11_MODULE(_sowdb, m) {
  namespace py = pybind11;
  using namespace sowdb::python;
  m.doc() = "sowdb's C++ core: the rules, table lookups in bulk, generation and solving.";
  m.attr("__version__") = SOWDB_VERSION_STRING;
  // The largest layer (seeds on a board) the tables index, for the package's own checks.
  m.attr("_MAX_INDEXED_STONES") = sowdb::kMaxIndexedStones;
  m.attr("_DEFAULT_CACHE_BUDGET") = kDefaultCacheBudget;
  register_errors();
  m.def(
      "_plan_caches",
      [](const std::vector<std::uint64_t>& layer_entries, std::uint64_t budget) {
        const CachePlan p = plan_caches(layer_entries, budget);
        return py::make_tuple(p.value_bytes, p.depth_bytes, p.values_whole);
      },
      py::arg("layer_entries"),
      py::arg("budget"),
      "(value bytes a layer, depth bytes a layer, every layer's values whole): the caches a "
      "table set of layers of these sizes gets by default from a budget of bytes.");
  m.def(
      "status_name",
      [](int status) {
        return std::string(sowdb::to_string(static_cast<sowdb::ProbeStatus>(status)));
      },
      py::arg("status"),
      "The library's name of a probe status code (as in Labels.status), e.g. 'TooManyStones'.");
  def_variant(m);
  def_tables(m);
  def_jobs(m);
}
