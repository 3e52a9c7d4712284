// Zeroed memory straight from the kernel, on huge pages, for the arrays the start search reads at
// random (the transposition table, the tables' values read whole). Internal to sowdb_gen.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace sowdb::gen {

/// An anonymous private mapping, unmapped when destroyed. The kernel's fresh pages read as zero,
/// so nothing is written here and untouched pages cost nothing; on huge pages, since a TLB miss
/// of a random read costs as much as its cache miss.
///
/// THREAD SAFETY the memory is the owner's to share; the object itself is not shared.
class PageMapping {
 public:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  /// Maps `bytes` rounded up to whole huge pages (at least one). `huge`: advise the kernel to
  /// back it with huge pages. `reserve` false: MAP_NORESERVE, for a mapping that a search may
  /// touch only a part of. ERRORS throws std::bad_alloc when the kernel refuses the mapping.
  PageMapping(std::size_t bytes, bool huge, bool reserve) {
    size_ = bytes == 0 ? kHugePage : (bytes + kHugePage - 1) / kHugePage * kHugePage;
    data_ = mmap(nullptr,
                 size_,
                 PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | (reserve ? 0 : MAP_NORESERVE),
                 -1,
                 0);
    if (data_ == MAP_FAILED) {
      data_ = nullptr;
      throw std::bad_alloc();
    }
    if (huge)
      madvise(data_, size_, MADV_HUGEPAGE);
  }
  ~PageMapping() { munmap(data_, size_); }
  PageMapping(const PageMapping&) = delete;
  PageMapping& operator=(const PageMapping&) = delete;

  /// The first byte of the mapping.
  void* data() const { return data_; }
  /// Bytes mapped: whole huge pages.
  std::size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace sowdb::gen
