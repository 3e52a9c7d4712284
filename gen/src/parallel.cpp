#include "sowdb/gen/parallel.h"

#include <tbb/parallel_for.h>

namespace sowdb::gen {

Executor tbb_executor() {
  return [](std::size_t tasks, const std::function<void(std::size_t)>& task) {
    tbb::parallel_for(std::size_t{0}, tasks, [&](std::size_t t) { task(t); });
  };
}

}  // namespace sowdb::gen
