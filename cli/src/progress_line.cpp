#include "progress_line.h"

#include <cstdio>
#include <string>

namespace sowdb::cli {

void ProgressLine::show(int stones, const char* phase, double fraction) {
  const std::string line = text_.update(stones, phase, fraction, ProgressText::Clock::now());
  if (line.empty())
    return;
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
}

void ProgressLine::clear() {
  std::fprintf(stderr, "\r%80s\r", "");
}

}  // namespace sowdb::cli
