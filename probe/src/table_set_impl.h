// The state behind a TableSet, shared by the files that implement it (tables.cpp: opening and
// probes; read_layer.cpp: whole layers). Not installed.
#pragma once

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/internal/recompute.h"
#include "sowdb/probe/tables.h"

namespace sowdb {
namespace probe_detail {

// The layer whose failure ended the last failed probe of this thread (-1: none), so that
// explain() names that layer's file rather than the highest damaged layer below the position.
inline thread_local int tl_failed_layer = -1;

inline ProbeStatus failed_at(int n, ProbeStatus s) noexcept {
  tl_failed_layer = n;
  return s;
}

}  // namespace probe_detail

// One layer file, opened on first use. `state` goes 0 (not tried) -> 1 (open) or 2 (failed,
// latched); it is written under `mutex` and read without it on the fast path.
struct LayerSlot {
  std::filesystem::path path;
  std::atomic<int> state{0};
  std::mutex mutex;
  std::unique_ptr<LayerReader> reader;
  ProbeStatus failure = ProbeStatus::kOk;
  std::string error;  // guarded by mutex
};

struct TableSet::Impl {
  std::filesystem::path dir;
  TableSetOptions options;
  Variant variant;
  RuleSet rules;
  Objective objective = Objective::kCompetitive;
  std::optional<Rules> engine;
  int max_stones = -1;
  int top = -1;  // the largest layer with a file; above max_stones only when a layer is missing
  std::vector<std::unique_ptr<LayerSlot>> slots;  // layers 0..top

  // The open reader of layer `n`, or the reason there is none.
  ProbeStatus reader(int n, const LayerReader*& out) const noexcept {
    if (n < 0 || n > max_stones)
      return ProbeStatus::kTooManyStones;
    LayerSlot& slot = *slots[n];
    int state = slot.state.load(std::memory_order_acquire);
    if (state == 1) {
      out = slot.reader.get();
      return ProbeStatus::kOk;
    }
    if (state == 2)
      return probe_detail::failed_at(n, slot.failure);
    try {
      std::lock_guard lock(slot.mutex);
      state = slot.state.load(std::memory_order_relaxed);
      if (state == 0) {
        OpenOptions open;
        open.cache_blocks = options.cache_blocks;
        open.depth_cache_blocks = options.depth_cache_blocks;
        open.cache_bytes = options.cache_bytes;
        open.depth_cache_bytes = options.depth_cache_bytes;
        open.verify_checksums = options.verify_checksums;
        open.memory_map = options.memory_map;
        open.expected_rules = rules;
        open.expected_stones = n;
        try {
          slot.reader = LayerReader::open(slot.path, open);
          slot.state.store(1, std::memory_order_release);
        } catch (const std::exception& e) {
          std::error_code ec;
          slot.failure = std::filesystem::exists(slot.path, ec) ? ProbeStatus::kCorruptTable
                                                                : ProbeStatus::kMissingTable;
          slot.error = slot.failure == ProbeStatus::kMissingTable
                           ? slot.path.string() + ": the file is missing"
                           : std::string(e.what());
          slot.state.store(2, std::memory_order_release);
        }
      }
      if (slot.state.load(std::memory_order_relaxed) == 1) {
        out = slot.reader.get();
        return ProbeStatus::kOk;
      }
      return probe_detail::failed_at(n, slot.failure);
    } catch (...) {  // a failed lock or allocation: report, never abort
      return probe_detail::failed_at(n, ProbeStatus::kCorruptTable);
    }
  }

  void note_read_error(int n, std::uint64_t index, const char* what) const noexcept {
    probe_detail::tl_failed_layer = n;
    try {
      LayerSlot& slot = *slots[n];
      std::lock_guard lock(slot.mutex);
      slot.error = slot.path.string() + ": the block holding " + what + " of index " +
                   std::to_string(index) + " failed to read or decode";
    } catch (...) {
    }
  }

  // Records `error` (naming the file and what failed) as layer `n`'s error.
  void note_error(int n, const std::string& error) const noexcept {
    probe_detail::tl_failed_layer = n;
    try {
      LayerSlot& slot = *slots[n];
      std::lock_guard lock(slot.mutex);
      slot.error = error;
    } catch (...) {
    }
  }

  void note_unresolved(int n, std::uint64_t index) const noexcept {
    probe_detail::tl_failed_layer = n;
    try {
      LayerSlot& slot = *slots[n];
      std::lock_guard lock(slot.mutex);
      slot.error = slot.path.string() + ": index " + std::to_string(index) +
                   " is a recompute entry, but the position has no move that gains seeds";
    } catch (...) {
    }
  }

  void note_chained(int n,
                    std::uint64_t index,
                    int child_layer,
                    std::uint64_t child) const noexcept {
    probe_detail::tl_failed_layer = n;
    try {
      LayerSlot& slot = *slots[n];
      std::lock_guard lock(slot.mutex);
      slot.error = slot.path.string() + ": index " + std::to_string(index) +
                   " is a recompute entry whose move leads to index " + std::to_string(child) +
                   " of layer " + std::to_string(child_layer) +
                   ", itself a recompute entry: the file breaks the stored-children rule (the "
                   "one-ply rule of version 3; FORMAT.md, \"Recompute entries\"; it was written "
                   "by an older or foreign writer; generate it again)";
    } catch (...) {
    }
  }

  // Checks `position` and counts its seeds, for a query of objective `wanted`.
  ProbeStatus check(const Pits& position,
                    int& stones,
                    Objective wanted = Objective::kCompetitive) const noexcept {
    if (objective != wanted)
      return ProbeStatus::kWrongObjective;
    const int k = rules.pits();
    int n = 0;
    for (int i = 0; i < kMaxPits; ++i) {
      if (i >= k && position[i] != 0)
        return ProbeStatus::kBadPosition;
      n += position[i];
    }
    if (n > kMaxBoardStones)
      return ProbeStatus::kBadPosition;
    if (n > top)
      return ProbeStatus::kTooManyStones;
    if (n > max_stones)
      return probe_detail::failed_at(max_stones + 1, ProbeStatus::kMissingTable);
    stones = n;
    return ProbeStatus::kOk;
  }

  std::uint64_t index_of(const Pits& position) const noexcept {
    return rank(
        std::span<const std::uint8_t>(position.data(), static_cast<std::size_t>(rules.pits())));
  }

  // The value byte layer `n` stores for `index`: a value, or kRecomputeValue.
  ProbeStatus stored_value(int n,
                           std::uint64_t index,
                           const LayerReader*& r,
                           std::int8_t& out) const noexcept {
    const ProbeStatus s = reader(n, r);
    if (s != ProbeStatus::kOk)
      return s;
    const auto v = r->value(index);
    if (!v) {
      note_read_error(n, index, "the value");
      return ProbeStatus::kCorruptTable;
    }
    out = *v;
    return ProbeStatus::kOk;
  }

  // Value and (if `depth` is set) depth of a checked position with `n` seeds. Without `depth`
  // only value frames are read.
  ProbeStatus lookup(const Pits& position, int n, int& value, int* depth) const noexcept {
    const LayerReader* r = nullptr;
    const std::uint64_t index = index_of(position);
    std::int8_t v = 0;
    std::optional<std::uint16_t> d;
    ProbeStatus s = reader(n, r);
    if (s != ProbeStatus::kOk)
      return s;
    if (depth && r->info().format_version >= 6) {
      // Value and depth in one walk of the value block. (Older files keep their order: the
      // depth of a version 3 recompute entry of value >= 0 is never read.)
      const auto vd = r->value_and_depth(index);
      if (!vd) {
        note_read_error(n, index, r->value(index) ? "the depth" : "the value");
        return ProbeStatus::kCorruptTable;
      }
      v = vd->value;
      d = vd->depth;
    } else {
      s = stored_value(n, index, r, v);
      if (s != ProbeStatus::kOk)
        return s;
    }
    if (v == kRecomputeValue)
      return recompute(*r, position, n, index, value, depth, d);
    if (depth) {
      if (!d)
        d = r->depth(index);
      if (!d) {
        note_read_error(n, index, "the depth");
        return ProbeStatus::kCorruptTable;
      }
      *depth = *d;
    }
    value = v;
    return ProbeStatus::kOk;
  }

  // The value of a recompute entry whose position has the legal `moves` (at least one), by
  // internal::resolve_recompute, with the failures noted as layer `n`'s error. Shared by the
  // probes and read_layer, which differ only in where the children come from.
  template <typename Child>
  ProbeStatus resolve(const MoveList& moves,
                      int n,
                      std::uint64_t index,
                      bool all_moves,
                      Child&& child,
                      int& value) const noexcept {
    const internal::Resolution r =
        internal::resolve_recompute(moves, n, rules.pits(), all_moves, std::forward<Child>(child));
    switch (r.kind) {
      case internal::Resolution::Kind::kValue:
        value = r.value;
        return ProbeStatus::kOk;
      case internal::Resolution::Kind::kChildFailed:
        return r.child_status;
      case internal::Resolution::Kind::kChained:
        note_chained(n, index, r.child_layer, r.child_index);
        return ProbeStatus::kCorruptTable;
      case internal::Resolution::Kind::kNoMove:
        break;
    }
    note_unresolved(n, index);
    return ProbeStatus::kCorruptTable;
  }

  // The depth of a recompute entry of value `value` whose position has legal moves, from the
  // depth its file gives (`stored`; kRecomputeDepth for a "recompute, derived depth" entry): the
  // stored depth, else derived (0 for value 0, else 1: an exit realises it at once); none when
  // the value is < 0, which needs a stored depth.
  static std::optional<std::uint16_t> recompute_depth(std::uint16_t stored, int value) noexcept {
    if (stored != kRecomputeDepth)
      return stored;
    if (value < 0)
      return std::nullopt;
    return static_cast<std::uint16_t>(value == 0 ? 0 : 1);
  }

  // Starts loading the children's bytes that resolve() reads (LayerReader::prefetch), so that
  // a probe that misses every cache waits for memory about once, not once a child.
  void prefetch_children(const MoveList& moves, int n, bool all_moves) const noexcept {
    for (const Move& m : moves) {
      if (m.gain() == 0 && !all_moves)
        continue;
      const LayerReader* child = nullptr;
      if (reader(n - m.gain(), child) == ProbeStatus::kOk)
        child->prefetch(index_of(m.child));
    }
  }

  // Value and depth of a recompute entry: without a legal move the final split at depth 0;
  // else `resolve` over the children's stored values, at most P value lookups. The file keeps
  // the depth of the "recompute, stored depth" entries; that of the others is derived.
  // `read_depth`: what r.depth(index) gives, when the caller has read it already.
  ProbeStatus recompute(const LayerReader& r,
                        const Pits& position,
                        int n,
                        std::uint64_t index,
                        int& value,
                        int* depth,
                        std::optional<std::uint16_t> read_depth = std::nullopt) const noexcept {
    const auto file_depth = [&] { return read_depth ? read_depth : r.depth(index); };
    MoveList moves;
    if (engine->legal_moves(position, moves) == 0) {
      value = engine->final_value(position);
      if (depth)
        *depth = 0;
      return ProbeStatus::kOk;
    }
    const bool all_moves = r.info().all_moves;
    prefetch_children(moves, n, all_moves);
    // Version 4 keeps the depth of every entry it may need, so it is read while the entry's own
    // block is still cached, before the children's blocks can evict it (a cold probe decoded
    // the block twice). Version 3 keeps no depth for a value >= 0: none is read for it.
    std::optional<std::uint16_t> d = kRecomputeDepth;
    if (depth && all_moves)
      d = file_depth();
    int best = 0;
    const ProbeStatus s = resolve(
        moves,
        n,
        index,
        all_moves,
        [&](int layer, std::uint64_t child, std::int8_t& byte) {
          const LayerReader* child_reader = nullptr;
          return stored_value(layer, child, child_reader, byte);
        },
        best);
    if (s != ProbeStatus::kOk)
      return s;
    if (depth) {
      if (best < 0 && !all_moves)
        d = file_depth();
      const std::optional<std::uint16_t> derived =
          d ? recompute_depth(*d, best) : std::optional<std::uint16_t>();
      if (!derived) {
        note_read_error(n, index, "the depth");
        return ProbeStatus::kCorruptTable;
      }
      *depth = *derived;
    }
    value = best;
    return ProbeStatus::kOk;
  }

  ProbeStatus read_layer(int n,
                         std::span<const LayerValues> below,
                         std::span<std::int8_t> values,
                         std::vector<std::uint64_t>* recompute_out,
                         const ReadLayerOptions& how) const;
};

}  // namespace sowdb
