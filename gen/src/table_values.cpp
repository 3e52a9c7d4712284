#include "table_values.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
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

namespace {

// Thrown by the executor of a reading that was cancelled, which read_layer passes on.
struct Cancelled {};

}  // namespace

TableValues::TableValues(const TableSet& tables) : TableValues(tables, false) {}

TableValues::TableValues(const TableSet& tables, bool deferred) {
  const int pits = tables.rules().pits();
  const int top = tables.max_stones();
  const std::uint64_t total = bytes_for(pits, top);
  // One mapping for every layer, every byte of which is written when its layer is read.
  arena_ = std::make_unique<PageMapping>(static_cast<std::size_t>(total), true, true);
  auto* at = static_cast<std::int8_t*>(arena_->data());
  layers_ = std::make_unique<std::atomic<const std::int8_t*>[]>(static_cast<std::size_t>(top) +
                                                                1);  // all null (C++20)
  room_.resize(static_cast<std::size_t>(top) + 1);
  for (int n = 0; n <= top; ++n) {
    room_[static_cast<std::size_t>(n)] = at;
    at += layer_size(pits, n);
  }
  if (deferred)
    return;
  ReadLayerOptions read;
  read.executor = tbb_executor();
  // Resolving every recompute entry up front walks every position of every layer (13 s of
  // Kalah(6,4)'s 0..20, against the 1-2 s the whole value search took): the search resolves
  // the few it meets.
  read.resolve = false;
  for (int n = 0; n <= top; ++n) {
    const auto k = static_cast<std::size_t>(n);
    const std::span<std::int8_t> values(room_[k], static_cast<std::size_t>(layer_size(pits, n)));
    if (tables.read_layer(n, {}, values, nullptr, read) != ProbeStatus::kOk)
      throw std::runtime_error(tables.layer_error(n));
    layers_[k].store(values.data(), std::memory_order_release);
  }
  read_bytes_ = total;
}

void TableValues::read_layers(const TableSet& tables, const std::atomic<bool>& cancel, int lowest) {
  const int pits = tables.rules().pits();
  ReadLayerOptions read;
  // One block at a time on this thread, so that a cancel is seen within a block's decoding.
  read.executor = [&cancel](std::size_t tasks, const std::function<void(std::size_t)>& task) {
    for (std::size_t i = 0; i < tasks; ++i) {
      if (cancel.load(std::memory_order_relaxed))
        throw Cancelled{};
      task(i);
    }
  };
  read.resolve = false;  // as the constructor's
  // The top layers first: a search above the tables probes them the most, and they are the
  // ones the block caches hold least of.
  for (int n = tables.max_stones(); n >= std::max(lowest, 0); --n) {
    const auto k = static_cast<std::size_t>(n);
    if (layers_[k].load(std::memory_order_relaxed))
      continue;
    const std::span<std::int8_t> values(room_[k], static_cast<std::size_t>(layer_size(pits, n)));
    try {
      if (tables.read_layer(n, {}, values, nullptr, read) != ProbeStatus::kOk)
        continue;  // left to the tables' probes, which report the failure
    } catch (...) {
      return;  // cancelled, or no memory for the reading: the search goes on without the rest
    }
    layers_[k].store(values.data(), std::memory_order_release);
    read_bytes_.fetch_add(values.size(), std::memory_order_relaxed);
  }
}

TableValues::~TableValues() = default;

BackgroundValues::BackgroundValues(const TableSet& tables, double delay)
    : values_(std::make_unique<TableValues>(tables, true)) {
  thread_ = std::thread([this, &tables, delay] { run(tables, delay); });
}

BackgroundValues::~BackgroundValues() {
  finish();
}

void BackgroundValues::run(const TableSet& tables, double delay) {
  {
    std::unique_lock lock(mutex_);
    // Capped, so that a huge delay cannot overflow the clock's arithmetic.
    const std::chrono::duration<double> wait(std::min(delay, 1e6));
    if (wake_.wait_for(lock, wait, [this] { return cancel_.load(); }))
      return;
  }
  const auto start = std::chrono::steady_clock::now();
  values_->read_layers(tables, cancel_);
  seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double BackgroundValues::finish() {
  {
    std::lock_guard lock(mutex_);
    cancel_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable())
    thread_.join();
  return seconds_;
}

bool preload_fits(const TableSet* tables, int pits, std::int64_t limit) {
  if (!tables || limit == 0)
    return false;
  std::uint64_t bound = static_cast<std::uint64_t>(limit);
  if (limit < 0) {
    // Deep tables leave a small search that touches few blocks (Kalah(6,4) over 0..28 decoded
    // a fraction of their 5.6 GB): reading them whole would cost more than it saves.
    bound = std::min<std::uint64_t>(kPreloadBytes,
                                    static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                                        static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE)) / 4);
  }
  return TableValues::bytes_for(pits, tables->max_stones()) <= bound;
}

bool preload_reads(const TableSet& tables, std::int64_t limit) {
  return preload_fits(&tables, tables.rules().pits(), limit);
}

std::uint64_t preload_bytes(const TableSet& tables) {
  return TableValues::bytes_for(tables.rules().pits(), tables.max_stones());
}

std::unique_ptr<TableValues> preload_values(const TableSet* tables,
                                            int pits,
                                            std::int64_t limit,
                                            double& seconds) {
  seconds = 0;
  if (!preload_fits(tables, pits, limit))
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

std::shared_ptr<const PreloadedValues> PreloadedValues::read_beside(
    std::shared_ptr<const TableSet> tables, std::int64_t limit) {
  if (!preload_fits(tables.get(), tables->rules().pits(), limit))
    return nullptr;
  std::shared_ptr<PreloadedValues> p(new PreloadedValues());
  p->max_stones_ = tables->max_stones();
  p->tables_ = std::move(tables);
  p->background_ = std::make_unique<BackgroundValues>(*p->tables_, 0.0);
  return p;
}

PreloadedValues::~PreloadedValues() = default;

const TableValues* PreloadedValues::values() const {
  return background_ ? background_->values() : values_.get();
}

std::uint64_t PreloadedValues::bytes() const {
  const TableValues* v = values();
  return v ? v->bytes() : 0;
}

}  // namespace sowdb::gen
