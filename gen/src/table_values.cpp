#include "table_values.h"

#include <span>
#include <stdexcept>
#include <string>

#include "sowdb/format/index.h"
#include "sowdb/gen/parallel.h"

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

}  // namespace sowdb::gen
