// `sowdb gen`: build a table directory. Option binding and rendering; the job, its thread count,
// its summary, its JSON and its text are the analysis library's (sowdb/analysis/generate_job.h,
// table_jobs.h, generate_text.h), the work the generator's.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "commands.h"
#include "gen_args.h"
#include "interrupt.h"
#include "layer_job.h"
#include "progress_line.h"
#include "sowdb/analysis/generate_job.h"
#include "sowdb/analysis/generate_text.h"
#include "sowdb/analysis/table_jobs.h"

namespace sowdb::cli {
namespace {

// Runs the job; a refusal gets the remedy that names this command's flags added (the library's
// message states the cause only). Bad input is a UsageError (exit 2); any other refusal keeps its
// kind (a failure while working, exit 1).
GenerateSummary generate_with_remedies(const GenerateRequest& request,
                                       const GenerateEvents& events) {
  try {
    return generate_tables(request, events);
  } catch (const Refused& e) {
    Refusal refusal = e.refusal();
    refusal.message += gen_remedy(e);
    if (is_bad_input(refusal.kind))
      throw UsageError(refusal.message);
    throw Refused(std::move(refusal));
  }
}

// The job's events as this program shows them: a progress line on a terminal, each layer as
// a text or JSON line on stdout as it comes, a rebuilt layer's line.
GenerateEvents gen_events(const GenArgs& args, int pits) {
  const bool tty = isatty(fileno(stderr)) && !args.quiet && !args.json;
  GenerateEvents events;
  if (tty) {
    auto line = std::make_shared<ProgressLine>(pits);
    events.on_progress = [line](int n, gen::Phase phase, double f) {
      line->show(n, gen::to_string(phase), f);
    };
  }
  events.on_rebuild = [tty, args](int n, const std::string& why) {
    if (tty)
      ProgressLine::clear();
    // On stdout among the layer lines; on stderr when stdout carries JSON or nothing.
    std::FILE* to = args.json || args.quiet ? stderr : stdout;
    std::fprintf(to, "%s\n", rebuild_text(n, why).c_str());
    std::fflush(to);
  };
  events.on_layer = layer_printer<gen::LayerReport>(
      {tty, args.json, args.quiet},
      [](const gen::LayerReport& r) { std::printf("%s\n", layer_text(r).c_str()); });
  return events;
}

int run_gen(const GenArgs& args) {
  const GenerateRequest request = generate_request(args);
  catch_interrupts(request.out);
  const GenerateSummary summary =
      generate_with_remedies(request, gen_events(args, request.variant.rules.pits()));
  if (args.json)
    std::printf("%s\n", to_json(summary).dump().c_str());
  else if (!args.quiet)
    std::printf("%s\n", summary_text(summary).c_str());
  return 0;
}

}  // namespace

void add_gen(CLI::App& app, Runner& run) {
  auto args = std::make_shared<GenArgs>();
  auto* cmd = app.add_subcommand("gen", "Solve every layer up to N seeds and write the tables");
  add_gen_options(cmd, *args, kGenMemoryHelp);
  cmd->callback([&run, args] { run = [args] { return run_gen(*args); }; });
}

}  // namespace sowdb::cli
