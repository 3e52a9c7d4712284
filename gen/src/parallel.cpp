#include "sowdb/gen/parallel.h"

#include "parallel_loops.h"

namespace sowdb::gen {

Executor tbb_executor() {
  return [](std::size_t tasks, const std::function<void(std::size_t)>& task) {
    parallel::for_ranges(std::size_t{0}, tasks, std::size_t{1}, [&](const auto& r) {
      for (std::size_t t = r.begin(); t != r.end(); ++t)
        task(t);
    });
  };
}

}  // namespace sowdb::gen
