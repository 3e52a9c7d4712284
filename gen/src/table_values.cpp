#include "table_values.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <span>
#include <stdexcept>
#include <string>

#include "sowdb/format/index.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/gen/start_search.h"

namespace sowdb::gen {

std::uint64_t TableValues::bytes_for(int pits, int max_stones) {
  std::uint64_t total = 0;
  for (int n = 0; n <= max_stones; ++n)
    total += layer_size(pits, n);
  return total;
}

TableValues::TableValues(const TableSet& tables) {
  const int pits = tables.rules().pits();
  const int top = tables.max_stones();
  bytes_ = bytes_for(pits, top);
  // One mapping for every layer, every byte of which is written below.
  arena_ = std::make_unique<PageMapping>(static_cast<std::size_t>(bytes_), true, true);
  auto* at = static_cast<std::int8_t*>(arena_->data());
  std::vector<std::span<std::int8_t>> values(static_cast<std::size_t>(top) + 1);
  layers_.resize(static_cast<std::size_t>(top) + 1);
  ReadLayerOptions read;
  read.executor = tbb_executor();
  // Resolving every recompute entry up front walks every position of every layer (13 s of
  // Kalah(6,4)'s 0..20, against the 1-2 s the whole value search took): the search resolves
  // the few it meets.
  read.resolve = false;
  for (int n = 0; n <= top; ++n) {
    const auto k = static_cast<std::size_t>(n);
    values[k] = {at, static_cast<std::size_t>(layer_size(pits, n))};
    layers_[k] = at;
    at += values[k].size();
    if (tables.read_layer(n, {}, values[k], nullptr, read) != ProbeStatus::kOk)
      throw std::runtime_error(tables.layer_error(n));
  }
}

TableValues::~TableValues() = default;

std::unique_ptr<TableValues> preload_values(const TableSet* tables,
                                            int pits,
                                            std::int64_t limit,
                                            double& seconds) {
  seconds = 0;
  if (!tables || limit == 0)
    return nullptr;
  std::uint64_t bound = static_cast<std::uint64_t>(limit);
  if (limit < 0) {
    // Deep tables leave a small search that touches few blocks (Kalah(6,4) over 0..28 decoded
    // a fraction of their 5.6 GB): reading them whole would cost more than it saves.
    bound = std::min<std::uint64_t>(kPreloadBytes,
                                    static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                                        static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE)) / 4);
  }
  if (TableValues::bytes_for(pits, tables->max_stones()) > bound)
    return nullptr;
  const auto start = std::chrono::steady_clock::now();
  auto values = std::make_unique<TableValues>(*tables);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return values;
}

const TableValues* search_values(const SolveStartOptions& options,
                                 const TableSet* tables,
                                 int pits,
                                 std::unique_ptr<TableValues>& owned,
                                 double& seconds) {
  if (const auto& shared = options.preloaded;
      shared && tables && shared->max_stones() == tables->max_stones()) {
    return shared->values();
  }
  owned = preload_values(tables, pits, options.preload_limit, seconds);
  return owned.get();
}

std::shared_ptr<const PreloadedValues> PreloadedValues::read(const TableSet& tables,
                                                             std::int64_t limit) {
  std::shared_ptr<PreloadedValues> p(new PreloadedValues());
  p->values_ = preload_values(&tables, tables.rules().pits(), limit, p->seconds_);
  if (!p->values_)
    return nullptr;
  p->max_stones_ = tables.max_stones();
  return p;
}

PreloadedValues::~PreloadedValues() = default;

std::uint64_t PreloadedValues::bytes() const {
  return values_ ? values_->bytes() : 0;
}

}  // namespace sowdb::gen
