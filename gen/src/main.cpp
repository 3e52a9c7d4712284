// sowdb: the command-line front end. Only this program talks to the user.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"sowdb: exact mancala tables (generate, verify, look up)", "sowdb"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("sowdb 0.1.0"));
  sowdb::cli::Runner run;
  sowdb::cli::add_variants(app, run);
  sowdb::cli::add_show(app, run);
  sowdb::cli::add_gen(app, run);
  sowdb::cli::add_probe(app, run);
  sowdb::cli::add_verify(app, run);
  sowdb::cli::add_stats(app, run);
  sowdb::cli::add_manifest(app, run);
  sowdb::cli::add_solve(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A mistyped command ('sowdb prob') is not "a subcommand is required".
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      std::fprintf(stderr,
                   "sowdb: error: unknown command '%s' (commands: variants, show, gen, probe, "
                   "verify, stats, manifest, solve; see sowdb --help)\n",
                   app.remaining().front().c_str());
      return 2;
    }
    // One clear line, not CLI11's two-line banner.
    std::fprintf(stderr, "sowdb: error: %s (see sowdb --help)\n", e.what());
    return 2;
  }
  try {
    const int rc = run ? run() : 2;
    // Output that did not reach its destination (disk full, closed pipe) is a failure, not a
    // silent exit 0 with a truncated result.
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::fprintf(stderr, "sowdb: error: writing standard output: %s\n", std::strerror(errno));
      return 1;
    }
    return rc;
  } catch (const sowdb::cli::UsageError& e) {
    std::fprintf(stderr, "sowdb: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sowdb: error: %s\n", e.what());
    return 1;
  }
}
