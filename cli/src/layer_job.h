// What `gen` and `migrate` do alike around their library call: each finished layer is printed
// as it comes, and the run is timed with its interrupts caught.
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>

#include "commands.h"
#include "interrupt.h"
#include "progress_line.h"
#include "sowdb/analysis/table_jobs.h"
#include "sowdb/gen/generate.h"

namespace sowdb::cli {

/// How a layer job talks: a progress line on a terminal, JSON lines, or nothing (--quiet).
struct LayerOutput {
  bool tty = false;
  bool json = false;
  bool quiet = false;
};

/// The on_layer callback of a layer job: marks the layer complete for the interrupt handler and
/// prints it (a JSON line, else `print_text(report)` unless quiet), clearing the progress line
/// first on a terminal. The library's job adds the layer to its summary.
template <typename Report, typename PrintText>
std::function<void(const Report&)> layer_printer(LayerOutput out, PrintText print_text) {
  return [out, print_text](const Report& r) {
    interrupt_progress(r.stones);
    if (out.tty)
      ProgressLine::clear();
    if (out.json)
      std::printf("%s\n", to_json(r).dump().c_str());
    else if (!out.quiet)
      print_text(r);
    std::fflush(stdout);
  };
}

/// Runs `job` with interrupts caught for the directory `out` (its temporaries removed, exit
/// 128 + signal) and returns its wall seconds. A refusal reaches main's one mapper.
template <typename Job>
double run_layer_job(const std::filesystem::path& out, Job&& job) {
  const auto start = std::chrono::steady_clock::now();
  catch_interrupts(out);
  job();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace sowdb::cli
