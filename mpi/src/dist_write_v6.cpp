#include "dist_write_v6.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sowdb/format/v6_parts.h"
#include "write_common.h"

namespace sowdb::mpi {
namespace fs = std::filesystem;

namespace {

constexpr int kTag = 10;

// The coded part of this rank and what every rank agreed on to place it.
struct Placed {
  const V6Job& job;
  const V6LayerEncoder& encoder;
  V6Part& part;
  V6Streams streams;
};

// The blocks of rank r's part: the partition's entries, in whole blocks.
std::pair<std::uint64_t, std::uint64_t> blocks_of(const V6Job& job, int r) {
  const std::uint64_t be = job.options.block_entries;
  return {(job.partition.begin(r) + be - 1) / be, (job.partition.end(r) + be - 1) / be};
}

// Runs `f` on this rank, then agrees on the first failure over the ranks (collective).
template <typename F>
std::string step(const Comm& comm, F&& f) {
  std::string error;
  try {
    f();
  } catch (const std::exception& e) {
    error = e.what();
  }
  return agree(comm, error);
}

// Sends this rank's piece of `section` to rank 0 (rank s != 0), or receives rank s's and
// passes it to `take` in messages of at most kMessageBytes (rank 0). The size goes first.
void ship(const Placed& p,
          V6Section section,
          int s,
          std::vector<std::byte>& buffer,
          const std::function<void(std::span<const std::byte>)>& take) {
  const Comm& comm = p.job.comm;
  if (comm.rank == s) {
    const std::span<const std::byte> piece = p.part.piece(section);
    std::uint64_t size = piece.size();
    MPI_Send(&size, 1, MPI_UINT64_T, 0, kTag, MPI_COMM_WORLD);
    for (std::uint64_t at = 0; at < size; at += kMessageBytes) {
      const auto n = static_cast<int>(std::min(kMessageBytes, size - at));
      MPI_Send(piece.data() + at, n, MPI_BYTE, 0, kTag, MPI_COMM_WORLD);
      p.job.traffic.bytes += static_cast<std::uint64_t>(n);
      ++p.job.traffic.messages;
    }
    p.part.release(section);
    return;
  }
  std::uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, s, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (std::uint64_t at = 0; at < size; at += kMessageBytes) {
    const auto n = static_cast<int>(std::min(kMessageBytes, size - at));
    buffer.resize(static_cast<std::size_t>(n));
    MPI_Recv(buffer.data(), n, MPI_BYTE, s, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    take(buffer);
  }
}

// Rank 0 writes the file through V6FileWriter: the head, then section by section its own piece
// and each other rank's, received in rank order, then the section's padding.
std::string gather(const Placed& p) {
  const Comm& comm = p.job.comm;
  std::unique_ptr<V6FileWriter> out;
  std::string error = step(comm, [&] {
    if (comm.rank == 0) {
      out = std::make_unique<V6FileWriter>(
          p.job.path, p.encoder.head(p.streams), p.encoder.footer_offset(p.streams));
    }
  });
  if (!error.empty())
    return error;
  // After a failed write rank 0 still receives every piece, so that no rank waits on it.
  const auto take = [&](std::span<const std::byte> bytes) {
    if (!error.empty())
      return;
    try {
      out->append(bytes);
    } catch (const std::exception& e) {
      error = e.what();
      out.reset();  // removes the temporary
    }
  };
  std::vector<std::byte> buffer;
  for (int i = 0; i < kV6Sections; ++i) {
    const auto section = static_cast<V6Section>(i);
    for (int s = 0; s < comm.size; ++s) {
      if (comm.rank == 0 && s == 0) {
        take(p.part.piece(section));
        p.part.release(section);
      } else if (comm.rank == 0 || comm.rank == s) {
        ship(p, section, s, buffer, take);
      }
    }
    if (comm.rank == 0) {
      std::vector<std::byte> zeros(p.encoder.padding(section, p.streams));
      take(zeros);
      if (p.job.progress)
        p.job.progress(0.5 + 0.5 * (i + 1) / kV6Sections);
    }
  }
  if (comm.rank == 0 && error.empty()) {
    try {
      out->finish();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  return agree(comm, error);
}

// Writes `bytes` at `offset` of `file` in collective calls of at most kMessageBytes, `rounds`
// of them (the most any rank needs). Returns the first failure.
std::string write_all(MPI_File file,
                      std::uint64_t offset,
                      std::span<const std::byte> bytes,
                      std::uint64_t rounds,
                      const std::string& name) {
  std::string error;
  for (std::uint64_t i = 0; i < rounds; ++i) {
    const std::uint64_t at = std::min<std::uint64_t>(bytes.size(), i * kMessageBytes);
    const auto count = static_cast<int>(std::min(kMessageBytes, bytes.size() - at));
    // MPI_Offset is long long, as wide as std::uint64_t (dist_write.cpp's mpi_io).
    // NOLINTNEXTLINE(bugprone-misplaced-widening-cast)
    const auto where = static_cast<MPI_Offset>(offset + at);
    const int rc =
        MPI_File_write_at_all(file, where, bytes.data() + at, count, MPI_BYTE, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS && error.empty())
      error = name + ": write failed: " + mpi_error(rc);
  }
  return error;
}

// Rank 0's bytes of an MPI-IO write: the head and each section's padding.
std::string write_head(const Placed& p, MPI_File file, const std::string& name) {
  std::string error;
  const auto put = [&](std::uint64_t offset, std::span<const std::byte> bytes) {
    // NOLINTNEXTLINE(bugprone-misplaced-widening-cast)
    const auto where = static_cast<MPI_Offset>(offset);
    const int rc = MPI_File_write_at(
        file, where, bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS && error.empty())
      error = name + ": write failed: " + mpi_error(rc);
  };
  put(0, p.encoder.head(p.streams));
  for (int i = 0; i < kV6Sections; ++i) {
    const auto section = static_cast<V6Section>(i);
    const std::uint64_t end =
        i + 1 < kV6Sections ? p.encoder.section_offset(static_cast<V6Section>(i + 1), p.streams)
                            : p.encoder.footer_offset(p.streams);
    const std::vector<std::byte> zeros(p.encoder.padding(section, p.streams));
    if (!zeros.empty())
      put(end - zeros.size(), zeros);
  }
  return error;
}

// Every rank writes its piece of each section with MPI-IO; rank 0 writes the head and the
// paddings, then finishes the file (reads it back for the file checksum, writes the footer,
// renames it).
std::string mpi_io(const Placed& p) {
  const Comm& comm = p.job.comm;
  // The temporary's name has rank 0's process id, as gen's writer names its own, so that
  // prepare_output removes it if this job dies.
  long long pid = ::getpid();
  MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const std::string temp = temporary_path(p.job.path, static_cast<long>(pid)).string();
  MPI_File file;
  int rc = MPI_File_open(
      MPI_COMM_WORLD, temp.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
  std::string error =
      agree(comm, rc == MPI_SUCCESS ? std::string() : temp + ": cannot create: " + mpi_error(rc));
  // (A rank whose open succeeded does not close: closing is collective too, and the job ends.)
  if (!error.empty()) {
    if (comm.rank == 0)
      ::unlink(temp.c_str());
    return error;
  }
  if (comm.rank == 0)
    error = write_head(p, file, temp);
  std::array<std::uint64_t, kV6Sections> rounds{};
  for (int i = 0; i < kV6Sections; ++i) {
    const std::uint64_t size = p.part.piece(static_cast<V6Section>(i)).size();
    rounds[static_cast<std::size_t>(i)] = (size + kMessageBytes - 1) / kMessageBytes;
  }
  MPI_Allreduce(MPI_IN_PLACE, rounds.data(), kV6Sections, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < kV6Sections; ++i) {
    const auto section = static_cast<V6Section>(i);
    const std::string e =
        write_all(file,
                  p.encoder.section_offset(section, p.streams) + p.part.piece_offset(section),
                  p.part.piece(section),
                  rounds[static_cast<std::size_t>(i)],
                  temp);
    if (error.empty())
      error = e;
    p.part.release(section);
    if (comm.rank == 0 && p.job.progress)
      p.job.progress(0.5 + 0.4 * (i + 1) / kV6Sections);
  }
  rc = MPI_File_close(&file);
  if (rc != MPI_SUCCESS && error.empty())
    error = temp + ": close failed: " + mpi_error(rc);
  error = agree(comm, error);
  if (comm.rank == 0) {
    try {
      if (error.empty())
        finish_v6_layer_file(temp, p.job.path, p.encoder.footer_offset(p.streams));
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty())
      ::unlink(temp.c_str());
    if (p.job.progress)
      p.job.progress(1);
  }
  return agree(comm, error);
}

// The streams' totals and the index widths over the ranks, and where this rank's blocks start
// in each stream (collective).
V6Streams agree_streams(const Comm& comm, const V6Part& part, std::array<std::uint64_t, 2>& start) {
  std::array<std::uint64_t, 2> bytes = {part.stream_bytes(0), part.stream_bytes(1)};
  std::array<std::uint64_t, 2> total{}, most = {part.max_offset(0), part.max_offset(1)};
  start = {0, 0};
  MPI_Exscan(bytes.data(), start.data(), 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (comm.rank == 0)
    start = {0, 0};  // MPI_Exscan leaves rank 0's undefined
  MPI_Allreduce(bytes.data(), total.data(), 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, most.data(), 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  V6Streams streams;
  for (int s = 0; s < 2; ++s) {
    streams.bytes[static_cast<std::size_t>(s)] = total[static_cast<std::size_t>(s)];
    streams.width[static_cast<std::size_t>(s)] = v6_index_width(most[static_cast<std::size_t>(s)]);
  }
  return streams;
}

}  // namespace

WriteResult write_parts_v6(const V6Job& job) {
  const Comm& comm = job.comm;
  std::optional<V6LayerEncoder> encoder;
  std::string error = step(comm, [&] {
    if (job.partition.unit() != std::uint64_t{job.options.block_entries} * kV6PartBlocks)
      throw std::logic_error("the partition is not in whole groups of kV6PartBlocks blocks");
    encoder.emplace(
        job.path.string(), job.rules, job.stones, job.counts, job.marks, true, job.options);
  });
  if (!error.empty())
    return {error, false};
  const std::pair<std::uint64_t, std::uint64_t> blocks = blocks_of(job, comm.rank);
  const std::uint64_t first = blocks.first, last = blocks.second;
  const std::uint64_t part_first = job.partition.begin(comm.rank);
  // Pass 1: the codes from the whole layer's token counts.
  V6TokenCounts counts;
  error = step(comm,
               [&] { counts = encoder->count(job.source, part_first, first, last, job.executor); });
  if (!error.empty())
    return {error, false};
  MPI_Allreduce(MPI_IN_PLACE,
                counts.values.data(),
                static_cast<int>(counts.values.size()),
                MPI_UINT64_T,
                MPI_SUM,
                MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE,
                counts.depths.data(),
                static_cast<int>(counts.depths.size()),
                MPI_UINT64_T,
                MPI_SUM,
                MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE,
                counts.deepest.data(),
                static_cast<int>(counts.deepest.size()),
                MPI_UINT64_T,
                MPI_SUM,
                MPI_COMM_WORLD);
  // Pass 2: this rank's blocks, coded and placed.
  V6Part part;
  error = step(comm, [&] {
    encoder->set_codes(counts);
    part =
        encoder->encode(job.source, part_first, first, last, job.executor, [&](std::uint64_t done) {
          if (comm.rank == 0 && job.progress && last > first)
            job.progress(0.5 * static_cast<double>(done) / static_cast<double>(last - first));
        });
  });
  if (!error.empty())
    return {error, false};
  std::array<std::uint64_t, 2> start{};
  const V6Streams streams = agree_streams(comm, part, start);
  error = step(comm, [&] { part.place(start, streams.width); });
  if (!error.empty())
    return {error, false};
  const Placed placed{job, *encoder, part, streams};
  WriteResult result;
  result.error = job.mode == WriteMode::kGather ? gather(placed) : mpi_io(placed);
  result.recompute = encoder->info().recompute;
  return result;
}

}  // namespace sowdb::mpi
