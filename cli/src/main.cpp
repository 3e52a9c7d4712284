// sowdb: the command-line front end. Only this program talks to the user.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "exit_code.h"
#include "interrupt.h"
#include "sowdb/probe/version.h"

namespace {

// Whether everything written to standard output (stdio, or iostreams for CLI11's help and
// version) reached it; says why not on stderr. Output that did not reach its destination (disk
// full, closed pipe) is a failure, not a silent exit 0 with a truncated result. `err`: the errno
// of the writes so far, when the caller knows it (0 otherwise).
bool stdout_written(int err) {
  errno = 0;
  std::cout.flush();
  if (errno != 0)
    err = errno;
  errno = 0;
  if (std::fflush(stdout) != 0 && errno != 0)
    err = errno;
  if (!std::cout.fail() && !std::ferror(stdout))
    return true;
  // A write that failed before (CLI11 flushes its version line, gen each of its lines) may
  // leave nothing for these flushes to fail on, and no errno.
  std::fprintf(stderr,
               "sowdb: error: writing standard output: %s\n",
               err != 0 ? std::strerror(err) : "write failed");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  sowdb::cli::catch_broken_pipe();
  CLI::App app{"sowdb: exact mancala tables (generate, verify, look up)", "sowdb"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("sowdb ") + SOWDB_VERSION_STRING);
  app.footer(sowdb::cli::exit_codes_help());
  sowdb::cli::Runner run;
  sowdb::cli::add_variants(app, run);
  sowdb::cli::add_show(app, run);
  sowdb::cli::add_gen(app, run);
  sowdb::cli::add_probe(app, run);
  sowdb::cli::add_verify(app, run);
  sowdb::cli::add_stats(app, run);
  sowdb::cli::add_manifest(app, run);
  sowdb::cli::add_solve(app, run);
  sowdb::cli::add_book(app, run);
  sowdb::cli::add_migrate(app, run);
#ifdef SOWDB_WITH_SERVER
  sowdb::cli::add_serve(app, run);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    // --help, --version: their text is the output, and can fail to be written like any other.
    errno = 0;
    const int rc = app.exit(e);
    return stdout_written(errno) ? rc : 1;
  } catch (const CLI::ParseError& e) {
    // A mistyped command ('sowdb prob') is not "a subcommand is required".
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      std::fprintf(stderr,
                   "sowdb: error: unknown command '%s' (commands: variants, show, gen, probe, "
                   "verify, stats, manifest, solve, migrate, serve; see sowdb --help)\n",
                   app.remaining().front().c_str());
      return 2;
    }
    const std::vector<CLI::App*> chosen = app.get_subcommands();
    const std::string help =
        chosen.empty() ? "sowdb --help" : "sowdb " + chosen.front()->get_name() + " --help";
    // A mistyped option ('--tabels') is not "--tables is required": CLI11 checks what is
    // required before it reports the arguments it could not match.
    if (!chosen.empty() && dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
      for (const std::string& arg : chosen.front()->remaining()) {
        if (arg.size() > 1 && arg[0] == '-') {
          std::fprintf(
              stderr, "sowdb: error: unknown option '%s' (see %s)\n", arg.c_str(), help.c_str());
          return 2;
        }
      }
    }
    // One clear line, not CLI11's two-line banner.
    std::fprintf(stderr, "sowdb: error: %s (see %s)\n", e.what(), help.c_str());
    return 2;
  }
  try {
    const int rc = run ? run() : 2;
    return stdout_written(0) ? rc : 1;
  } catch (...) {
    sowdb::cli::await_ending_handler();
    return sowdb::cli::report_failure(std::current_exception());
  }
}
