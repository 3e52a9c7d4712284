// The extension module sowdb._sowdb. The package sowdb (python/sowdb/__init__.py) imports it
// and adds the exceptions (sowdb.errors) and some sugar in Python.
#include <pybind11/pybind11.h>

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
  register_errors();
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
