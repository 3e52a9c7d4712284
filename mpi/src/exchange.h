// The communication of the distributed generator: who owns which index of a layer, and the
// all-to-all exchange of per-destination buffers that every phase uses. Not installed.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace sowdb::mpi {

/// Traffic of one rank, counted over its messages to other ranks (a rank's buffer for itself is
/// a local copy and counts nothing).
struct Traffic {
  std::uint64_t bytes = 0;     ///< Bytes sent to other ranks.
  std::uint64_t messages = 0;  ///< Non-empty buffers sent to other ranks.
};

/// This process's place in MPI_COMM_WORLD.
struct Comm {
  int rank = 0;
  int size = 1;

  static Comm world() {
    Comm c;
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    return c;
  }
};

/// The split of a layer's index range over `ranks` ranks in whole units (the blocks of the
/// layer's file, `unit` entries each, the last one short): of the layer's U = ceil(size / unit)
/// units, rank r owns [U r / ranks, U (r + 1) / ranks), so a rank's part is a run of whole
/// blocks that it compresses and reads back alone, the owner of an index is a function of the
/// index alone, and the parts differ by at most one unit (decision record 0010). Parts may be
/// empty (fewer units than ranks).
class Partition {
  __extension__ typedef unsigned __int128 U128;

 public:
  Partition() = default;
  /// `unit` >= 1; 1 splits by entries.
  Partition(std::uint64_t size, int ranks, std::uint64_t unit = 1)
      : size_(size), ranks_(ranks), unit_(unit), units_((size + unit - 1) / unit) {}

  std::uint64_t size() const { return size_; }
  /// Entries per unit.
  std::uint64_t unit() const { return unit_; }
  /// First index of rank r (r in 0..ranks); begin(ranks) == size().
  std::uint64_t begin(int r) const { return std::min(size_, first_unit(r) * unit_); }
  std::uint64_t end(int r) const { return begin(r + 1); }
  /// First unit (block) of rank r (r in 0..ranks).
  std::uint64_t first_unit(int r) const {
    return static_cast<std::uint64_t>(static_cast<U128>(units_) * static_cast<unsigned>(r) /
                                      static_cast<unsigned>(ranks_));
  }
  /// The rank that owns index i (i < size()): the largest r with begin(r) <= i.
  int owner(std::uint64_t i) const {
    return static_cast<int>(
        ((static_cast<U128>(i / unit_) + 1) * static_cast<unsigned>(ranks_) - 1) / units_);
  }

 private:
  std::uint64_t size_ = 0;
  int ranks_ = 1;
  std::uint64_t unit_ = 1;
  std::uint64_t units_ = 0;
};

/// Sends out[d] to rank d for every rank d (out.size() == comm.size) and returns what each rank
/// sent to this one: received[s] from rank s, in the order it was sent. Collective: every rank
/// calls it the same number of times. T is trivially copyable. Throws std::runtime_error when a
/// buffer exceeds what one MPI call carries (2^31 bytes); callers send in chunks well below.
template <typename T>
std::vector<std::vector<T>> exchange(const Comm& comm,
                                     const std::vector<std::vector<T>>& out,
                                     Traffic& traffic) {
  const int k = comm.size;
  std::vector<long long> send_counts(k), recv_counts(k);
  for (int d = 0; d < k; ++d) {
    // std::size_t and long long are both 64 bits here: the cast changes the sign, not the
    // width, and the product stays far below 2^63 (a round is refused past 2^31 bytes below).
    // NOLINTNEXTLINE(bugprone-misplaced-widening-cast)
    send_counts[d] = static_cast<long long>(out[d].size() * sizeof(T));
  }
  MPI_Alltoall(
      send_counts.data(), 1, MPI_LONG_LONG, recv_counts.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  std::vector<int> sc(k), sd(k), rc(k), rd(k);
  long long send_total = 0, recv_total = 0;
  for (int d = 0; d < k; ++d) {
    sd[d] = static_cast<int>(send_total);
    rd[d] = static_cast<int>(recv_total);
    sc[d] = static_cast<int>(send_counts[d]);
    rc[d] = static_cast<int>(recv_counts[d]);
    send_total += send_counts[d];
    recv_total += recv_counts[d];
    if (d != comm.rank && send_counts[d] > 0) {
      traffic.bytes += static_cast<std::uint64_t>(send_counts[d]);
      ++traffic.messages;
    }
  }
  if (send_total >= (1LL << 31) || recv_total >= (1LL << 31))
    throw std::runtime_error("an exchange of more than 2 GiB in one round");
  // The staging buffers keep their memory from round to round: allocating them afresh cost
  // page faults on every round (a sixth of the run time at K = 1).
  static thread_local std::vector<char> send, recv;
  send.resize(static_cast<std::size_t>(send_total));
  for (int d = 0; d < k; ++d) {
    if (!out[d].empty())
      std::memcpy(send.data() + sd[d], out[d].data(), static_cast<std::size_t>(sc[d]));
  }
  recv.resize(static_cast<std::size_t>(recv_total));
  MPI_Alltoallv(send.data(),
                sc.data(),
                sd.data(),
                MPI_BYTE,
                recv.data(),
                rc.data(),
                rd.data(),
                MPI_BYTE,
                MPI_COMM_WORLD);
  std::vector<std::vector<T>> in(k);
  for (int s = 0; s < k; ++s) {
    in[s].resize(static_cast<std::size_t>(rc[s]) / sizeof(T));
    if (rc[s] > 0)
      std::memcpy(in[s].data(), recv.data() + rd[s], static_cast<std::size_t>(rc[s]));
  }
  return in;
}

/// The sum of `x` over all ranks, on every rank.
inline std::uint64_t sum_all(std::uint64_t x) {
  unsigned long long in = x, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

/// The largest `x` over all ranks, on every rank.
inline std::uint64_t max_all(std::uint64_t x) {
  unsigned long long in = x, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

/// The largest `x` over all ranks, on every rank.
inline double max_all(double x) {
  double out = 0;
  MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

}  // namespace sowdb::mpi
