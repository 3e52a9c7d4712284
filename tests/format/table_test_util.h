// Helpers shared by the table file tests (tests/format/*_test.cpp): layers from a fixed seed
// (test_layer.h), reader options, an executor on threads, raw bytes to tamper with, and the
// checks the tests repeat.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"
#include "sowdb/format/xxhash64.h"
#include "test_layer.h"
#include "test_support.h"

namespace sowdb::test {

/// An Executor (WriteOptions::executor) that runs the tasks on `threads` std::threads, each
/// taking the next task index from a shared counter, so tasks finish in a scrambled order.
inline Executor thread_executor(unsigned threads) {
  return [threads](std::size_t tasks, const std::function<void(std::size_t)>& task) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (std::size_t i = next++; i < tasks; i = next++) {
          try {
            task(tasks - 1 - i);  // back to front: the writer must not rely on the order
          } catch (...) {
            std::lock_guard lock(error_mutex);
            if (!error)
              error = std::current_exception();
          }
        }
      });
    }
    for (std::thread& th : pool)
      th.join();
    if (error)
      std::rethrow_exception(error);
  };
}

/// Reader options with a cache size and checksum verification.
inline OpenOptions options(std::size_t cache_blocks, bool verify_checksums = true) {
  OpenOptions o;
  o.cache_blocks = cache_blocks;
  o.verify_checksums = verify_checksums;
  return o;
}

/// Reader options that expect a rule set and a stone count.
inline OpenOptions expecting(std::optional<RuleSet> rules, std::optional<int> stones) {
  OpenOptions o;
  o.expected_rules = rules;
  o.expected_stones = stones;
  return o;
}

inline void write_bytes(const std::filesystem::path& p, std::span<const std::byte> b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

inline std::uint64_t get_le(std::span<const std::byte> b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | std::to_integer<std::uint64_t>(b[at + i]);
  return v;
}

inline void put_le(std::span<std::byte> b, std::size_t at, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    b[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
}

/// Recomputes the header checksum (bytes 56..63) and the file checksum (last 8 bytes), so a
/// tampered field reaches the check that names it instead of failing a checksum first.
inline void reseal(std::vector<std::byte>& b) {
  put_le(b, 56, xxh64(std::span(b).first(56)), 8);
  put_le(b, b.size() - 8, xxh64(std::span(b).first(b.size() - 8)), 8);
}

/// The code of the TableError `f` throws; fails the test when it throws nothing.
template <typename F>
std::optional<TableError::Code> error_of(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const TableError& e) {
    if (message)
      *message = e.what();
    return e.code();
  }
  return std::nullopt;
}

/// The name of a TableError code, so that a failed comparison prints words.
inline std::string name_of(TableError::Code c) {
  return to_string(c);
}

/// Expects `expr` to throw a TableError with `code` (the message is shown when it differs).
#define EXPECT_TABLE_ERROR(expr, code)                                                            \
  do {                                                                                            \
    std::string msg_;                                                                             \
    const auto got_ = ::sowdb::test::error_of([&] { expr; }, &msg_);                              \
    ASSERT_TRUE(got_.has_value()) << #expr " threw nothing";                                      \
    EXPECT_EQ(::sowdb::test::name_of(*got_), ::sowdb::test::name_of(code)) << #expr ": " << msg_; \
  } while (0)

/// Every rule set the header can express, each in its normalised form.
// The Oware and Kalah rule sets of `pits` pits a side (Kalah's normalised, as the presets').
inline RuleSet oware(std::uint8_t pits) {
  RuleSet r;
  r.family = Family::kOware;
  r.pits_per_side = pits;
  return r;
}

inline RuleSet kalah(std::uint8_t pits) {
  RuleSet r;
  r.family = Family::kKalah;
  r.pits_per_side = pits;
  return r.normalised();
}

inline std::vector<RuleSet> all_rule_sets(std::uint8_t pits_per_side) {
  std::vector<RuleSet> out;
  for (const bool skip : {false, true}) {
    for (const auto slam : {GrandSlam::kCapture, GrandSlam::kNoCapture, GrandSlam::kForbidden}) {
      out.push_back({Family::kOware, pits_per_side, skip, slam, false, KalahEnd::kNoMove});
    }
    for (const bool capture : {false, true}) {
      for (const auto end : {KalahEnd::kNoMove, KalahEnd::kEmptySide}) {
        out.push_back({Family::kKalah, pits_per_side, skip, GrandSlam::kCapture, capture, end});
      }
    }
    out.push_back(
        {Family::kWariUs, pits_per_side, skip, GrandSlam::kCapture, false, KalahEnd::kNoMove});
  }
  return out;
}

/// Checks info, every `stride`-th probe and read_all of `r` against `l`.
inline void expect_reads_back(const LayerReader& r, const Layer& l, std::uint64_t stride = 1) {
  const LayerInfo& info = r.info();
  ASSERT_EQ(info.rules, l.rules.normalised());
  ASSERT_EQ(info.stones, l.stones);
  ASSERT_EQ(info.entries, l.values.size());
  for (std::uint64_t i = 0; i < info.entries; i += stride) {
    ASSERT_EQ(r.value(i), l.read_value(i)) << i;
    ASSERT_EQ(r.depth(i), l.read_depth(i)) << i;
  }
  EXPECT_EQ(r.value(info.entries), std::nullopt);
  EXPECT_EQ(r.depth(info.entries), std::nullopt);
  EXPECT_EQ(r.value(~std::uint64_t{0}), std::nullopt);
  std::vector<std::int8_t> v(info.entries);
  std::vector<std::uint16_t> d(info.entries);
  r.read_all(v, d);
  EXPECT_EQ(v, l.read_values());
  EXPECT_EQ(d, l.read_depths());
  EXPECT_EQ(info.recompute, !l.recompute.empty());
}

/// Replaces the depth frame of block `b` of `bytes` (a file of `blocks` blocks) with `frame`,
/// fixing the seek table and the checksums.
inline std::vector<std::byte> with_depth_frame(const std::vector<std::byte>& bytes,
                                               std::uint32_t blocks,
                                               std::uint32_t b,
                                               const std::vector<std::byte>& frame) {
  const std::size_t seek = bytes.size() - 16 - 24 * std::size_t{blocks};
  const std::size_t e = seek + 24 * std::size_t{b};
  const auto at = static_cast<std::size_t>(get_le(bytes, e, 8) + get_le(bytes, e + 8, 4));
  const auto old_size = static_cast<std::size_t>(get_le(bytes, e + 12, 4));
  std::vector<std::byte> out(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(at));
  out.insert(out.end(), frame.begin(), frame.end());
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at + old_size), bytes.end());
  const std::size_t new_seek = out.size() - 16 - 24 * std::size_t{blocks};
  const auto delta = static_cast<std::int64_t>(frame.size()) - static_cast<std::int64_t>(old_size);
  for (std::uint32_t k = b + 1; k < blocks; ++k) {
    const std::size_t ek = new_seek + 24 * std::size_t{k};
    put_le(out,
           ek,
           static_cast<std::uint64_t>(static_cast<std::int64_t>(get_le(out, ek, 8)) + delta),
           8);
  }
  const std::size_t eb = new_seek + 24 * std::size_t{b};
  put_le(out, eb + 12, frame.size(), 4);
  put_le(out, eb + 20, xxh64(frame) & 0xFFFFFFFFu, 4);
  reseal(out);
  return out;
}

}  // namespace sowdb::test
