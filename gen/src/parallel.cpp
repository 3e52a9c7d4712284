#include "sowdb/gen/parallel.h"

#include <tbb/info.h>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "parallel_loops.h"

namespace sowdb::gen {

int thread_count(int threads) {
  if (threads < 0)
    throw std::invalid_argument("threads must be 0 (all cores) or more, not " +
                                std::to_string(threads));
  return threads > 0 ? threads : tbb::info::default_concurrency();
}

namespace detail {

tbb::task_arena& calling_thread_arena(int threads) {
  const int count = std::min(thread_count(threads), tbb::info::default_concurrency());
  // References into a std::map stay valid as arenas of other counts are added (a request may
  // run another inside it).
  thread_local std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
  std::unique_ptr<tbb::task_arena>& arena = arenas[count];
  if (!arena)
    arena = std::make_unique<tbb::task_arena>(count);
  return *arena;
}

}  // namespace detail

Executor tbb_executor() {
  return [](std::size_t tasks, const std::function<void(std::size_t)>& task) {
    parallel::for_ranges(std::size_t{0}, tasks, std::size_t{1}, [&](const auto& r) {
      for (std::size_t t = r.begin(); t != r.end(); ++t)
        task(t);
    });
  };
}

}  // namespace sowdb::gen
