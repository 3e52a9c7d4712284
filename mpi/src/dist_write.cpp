#include "dist_write.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "dist_write_v6.h"
#include "free_memory.h"
#include "sowdb/format/layer_parts.h"
#include "sowdb/gen/parallel.h"
#include "write_common.h"

namespace sowdb::mpi {
namespace fs = std::filesystem;

namespace {

constexpr int kTag = 9;
// Blocks compressed per executor call: bounds the compressed bytes held before they are kept.
constexpr std::size_t kBlocksPerBatch = 256;

// The layer as the encoder reads this rank's part: values, marks (under the all-moves rule, as
// gen writes them) and the depths from their byte and the list of deep ones.
LayerSource source_of(const LayerPart& part, bool marks) {
  LayerSource source;
  source.values = part.value;
  if (marks)
    source.recompute = part.mark;
  source.all_moves = true;
  source.fill_depths = [&part](std::uint64_t first, std::span<std::uint16_t> out) {
    for (std::size_t j = 0; j < out.size(); ++j) {
      const std::uint8_t d = part.depth[first + j];
      if (d != part.deep_byte) {
        out[j] = d;
        continue;
      }
      const auto it = std::lower_bound(
          part.deep.begin(), part.deep.end(), std::pair{first + j, std::uint16_t{0}});
      if (it == part.deep.end() || it->first != first + j)
        throw std::logic_error("a deep depth is missing from the list");
      out[j] = it->second;
    }
  };
  return source;
}

// Groups of whole blocks of at most kMessageBytes (one block at least): [begin, end) indices
// into `sums`. Sender and receiver compute the same groups from the same summaries.
std::vector<std::pair<std::size_t, std::size_t>> groups(std::span<const BlockSummary> sums) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t begin = 0;
  std::uint64_t bytes = 0;
  for (std::size_t b = 0; b < sums.size(); ++b) {
    const std::uint64_t size = std::uint64_t{sums[b].value_size} + sums[b].depth_size;
    if (b > begin && bytes + size > kMessageBytes) {
      out.emplace_back(begin, b);
      begin = b;
      bytes = 0;
    }
    bytes += size;
  }
  if (begin < sums.size())
    out.emplace_back(begin, sums.size());
  return out;
}

std::uint64_t bytes_of(std::span<const BlockSummary> sums) {
  std::uint64_t total = 0;
  for (const BlockSummary& s : sums)
    total += std::uint64_t{s.value_size} + s.depth_size;
  return total;
}

// One rank's compressed blocks: their summaries and their frames, concatenated.
struct Compressed {
  std::vector<BlockSummary> sums;
  std::vector<std::byte> data;

  void add(const EncodedBlock& b) {
    sums.push_back(BlockSummary::of(b));
    data.insert(data.end(), b.values.begin(), b.values.end());
    data.insert(data.end(), b.depths.begin(), b.depths.end());
  }
};

// What every write mode shares: the encoder and this rank's blocks.
struct Job {
  const Comm& comm;
  const fs::path& path;
  const LayerEncoder& encoder;
  const LayerSource& source;
  std::uint64_t part_first;
  std::uint64_t first_block, last_block;  // this rank's
  const Partition& partition;
  Executor executor;
  Traffic& traffic;
  const std::function<void(double)>& progress;
};

// Compresses this rank's blocks (unless `error` already holds this rank's failure), passing
// each batch to `take` in block order. Returns the first failure over the ranks (collective).
std::string encode_own_blocks(const Job& job,
                              std::string error,
                              const std::function<void(std::span<EncodedBlock>)>& take) {
  if (error.empty()) {
    try {
      job.encoder.encode(job.first_block,
                         job.last_block,
                         job.source,
                         job.part_first,
                         job.executor,
                         kBlocksPerBatch,
                         [&](std::uint64_t, std::span<EncodedBlock> blocks) { take(blocks); });
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  return agree(job.comm, error);
}

// Rank 0 writes the file through LayerFileWriter: its own blocks as it compresses them, then
// each other rank's, received in groups of whole blocks.
std::string gather(const Job& job) {
  const Comm& comm = job.comm;
  const std::uint32_t total = job.encoder.info().block_count;
  std::string error;
  std::unique_ptr<LayerFileWriter> out;
  Compressed mine;
  try {
    if (comm.rank == 0)
      out = std::make_unique<LayerFileWriter>(job.path, job.encoder.head(), total);
  } catch (const std::exception& e) {
    error = e.what();
  }
  error = encode_own_blocks(job, error, [&](std::span<EncodedBlock> blocks) {
    for (const EncodedBlock& b : blocks) {
      if (out)
        out->append(b);
      else
        mine.add(b);
    }
    if (out && job.progress)
      job.progress(static_cast<double>(out->blocks()) / total);
  });
  if (!error.empty())
    return error;
  std::vector<std::byte> buffer;
  for (int s = 1; s < comm.size; ++s) {
    if (comm.rank != 0 && comm.rank != s)
      continue;
    const std::uint64_t blocks = job.partition.first_unit(s + 1) - job.partition.first_unit(s);
    std::vector<BlockSummary> sums(comm.rank == 0 ? blocks : 0);
    const auto sums_bytes = static_cast<int>(blocks * sizeof(BlockSummary));
    if (blocks == 0)
      continue;
    if (comm.rank == s) {
      MPI_Send(mine.sums.data(), sums_bytes, MPI_BYTE, 0, kTag, MPI_COMM_WORLD);
      job.traffic.bytes += static_cast<std::uint64_t>(sums_bytes);
      ++job.traffic.messages;
      std::uint64_t at = 0;
      for (const auto& [b, e] : groups(mine.sums)) {
        const std::uint64_t size = bytes_of(std::span(mine.sums).subspan(b, e - b));
        MPI_Send(mine.data.data() + at, static_cast<int>(size), MPI_BYTE, 0, kTag, MPI_COMM_WORLD);
        job.traffic.bytes += size;
        ++job.traffic.messages;
        at += size;
      }
      mine = Compressed();
      continue;
    }
    MPI_Recv(sums.data(), sums_bytes, MPI_BYTE, s, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (const auto& [b, e] : groups(sums)) {
      const auto group = std::span<const BlockSummary>(sums).subspan(b, e - b);
      buffer.resize(bytes_of(group));
      MPI_Recv(buffer.data(),
               static_cast<int>(buffer.size()),
               MPI_BYTE,
               s,
               kTag,
               MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      // After a failed write rank 0 still receives every block, so that no rank waits on it.
      if (!error.empty())
        continue;
      try {
        out->append(group, buffer);
      } catch (const std::exception& x) {
        error = x.what();
        out.reset();  // removes the temporary
      }
      if (job.progress && out)
        job.progress(static_cast<double>(out->blocks()) / total);
    }
  }
  if (comm.rank == 0 && error.empty()) {
    try {
      out->finish();
    } catch (const std::exception& x) {
      error = x.what();
    }
  }
  return agree(comm, error);
}

// Every rank writes its blocks with MPI-IO at its offset; rank 0 finishes the file (reads the
// blocks back for the file checksum, writes the seek table and the footer, renames it).
std::string mpi_io(const Job& job) {
  const Comm& comm = job.comm;
  Compressed mine;
  std::string error = encode_own_blocks(job, {}, [&](std::span<EncodedBlock> blocks) {
    for (const EncodedBlock& b : blocks)
      mine.add(b);
    if (job.progress) {
      job.progress(
          0.5 * static_cast<double>(mine.sums.size()) /
          static_cast<double>(std::max<std::uint64_t>(1, job.last_block - job.first_block)));
    }
  });
  if (!error.empty())
    return error;
  const std::vector<std::byte> head = job.encoder.head();
  std::uint64_t size = mine.data.size(), before = 0;
  MPI_Exscan(&size, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (comm.rank == 0)
    before = 0;
  const std::uint64_t offset = head.size() + before;
  // The temporary's name has rank 0's process id, as gen's writer names its own, so that
  // prepare_output removes it if this job dies.
  long long pid = ::getpid();
  MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const std::string temp = temporary_path(job.path, static_cast<long>(pid)).string();
  MPI_File file;
  int rc = MPI_File_open(
      MPI_COMM_WORLD, temp.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
  // Opening is collective: every rank learns whether any rank failed before any writes.
  error =
      agree(comm, rc == MPI_SUCCESS ? std::string() : temp + ": cannot create: " + mpi_error(rc));
  // (A rank whose open succeeded does not close: closing is collective too, and the job ends.)
  if (!error.empty()) {
    if (comm.rank == 0)
      ::unlink(temp.c_str());
    return error;
  }
  if (comm.rank == 0) {
    rc = MPI_File_write_at(
        file, 0, head.data(), static_cast<int>(head.size()), MPI_BYTE, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      error = temp + ": write failed: " + mpi_error(rc);
  }
  std::uint64_t rounds = (size + kMessageBytes - 1) / kMessageBytes, most = 0;
  MPI_Allreduce(&rounds, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  for (std::uint64_t i = 0; i < most; ++i) {
    const std::uint64_t at = std::min(size, i * kMessageBytes);
    const auto count = static_cast<int>(std::min(kMessageBytes, size - at));
    // MPI_Offset is long long, as wide as std::uint64_t: the cast changes the sign, not the
    // width, and a table file's offsets stay far below 2^63.
    // NOLINTNEXTLINE(bugprone-misplaced-widening-cast)
    const auto where = static_cast<MPI_Offset>(offset + at);
    rc = MPI_File_write_at_all(
        file, where, mine.data.data() + at, count, MPI_BYTE, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS && error.empty())
      error = temp + ": write failed: " + mpi_error(rc);
  }
  rc = MPI_File_close(&file);
  if (rc != MPI_SUCCESS && error.empty())
    error = temp + ": close failed: " + mpi_error(rc);
  free_memory(mine.data);
  // The summaries to rank 0, which writes the seek table.
  const int sums_bytes = static_cast<int>(mine.sums.size() * sizeof(BlockSummary));
  std::vector<int> counts(static_cast<std::size_t>(comm.size)), displs(counts.size());
  MPI_Gather(&sums_bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<BlockSummary> all;
  if (comm.rank == 0) {
    int at = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      displs[r] = at;
      at += counts[r];
    }
    all.resize(static_cast<std::size_t>(at) / sizeof(BlockSummary));
  } else if (sums_bytes > 0) {
    job.traffic.bytes += static_cast<std::uint64_t>(sums_bytes);
    ++job.traffic.messages;
  }
  MPI_Gatherv(mine.sums.data(),
              sums_bytes,
              MPI_BYTE,
              all.data(),
              counts.data(),
              displs.data(),
              MPI_BYTE,
              0,
              MPI_COMM_WORLD);
  error = agree(comm, error);
  if (comm.rank == 0) {
    try {
      if (error.empty())
        finish_layer_file(temp, job.path, head.size(), all);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty())
      ::unlink(temp.c_str());
    if (job.progress)
      job.progress(1);
  }
  return agree(comm, error);
}

}  // namespace

WriteResult write_parts(const Comm& comm,
                        const fs::path& path,
                        const RuleSet& rules,
                        int stones,
                        const Partition& partition,
                        LayerPart& part,
                        const WriteOptions& options,
                        WriteMode mode,
                        Traffic& traffic,
                        const std::function<void(double)>& progress) {
  int local_mark = std::any_of(part.mark.begin(), part.mark.end(), [](auto w) { return w != 0; });
  int any_mark = 0;
  MPI_Allreduce(&local_mark, &any_mark, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_mark && part.mark.empty())
    part.mark.assign((part.value.size() + 63) / 64, 0);
  const LayerSource source = source_of(part, any_mark != 0);
  const Executor executor = options.executor ? options.executor : gen::tbb_executor();
  // The value symbols are planned from the whole layer's counts.
  ValueCounts counts = count_layer_values(source, executor);
  MPI_Allreduce(MPI_IN_PLACE, counts.all.data(), 256, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, counts.marked.data(), 256, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (options.format_version == 6) {
    const V6Job job{comm,
                    path,
                    rules,
                    stones,
                    partition,
                    source,
                    counts,
                    any_mark != 0,
                    options,
                    executor,
                    mode,
                    traffic,
                    progress};
    WriteResult result = write_parts_v6(job);
    free_memory(part.depth);
    free_memory(part.deep);
    return result;
  }
  std::optional<LayerEncoder> encoder;
  std::string error;
  try {
    if (partition.unit() != options.block_entries)
      throw std::logic_error("the partition is not in whole blocks");
    encoder.emplace(path.string(), rules, stones, counts, any_mark != 0, true, options);
  } catch (const std::exception& e) {
    error = e.what();
  }
  error = agree(comm, error);
  if (!error.empty())
    return {error, false};
  const Job job{comm,
                path,
                *encoder,
                source,
                partition.begin(comm.rank),
                partition.first_unit(comm.rank),
                partition.first_unit(comm.rank + 1),
                partition,
                executor,
                traffic,
                progress};
  WriteResult result;
  result.error = mode == WriteMode::kGather ? gather(job) : mpi_io(job);
  result.recompute = encoder->info().recompute;
  free_memory(part.depth);
  free_memory(part.deep);
  return result;
}

}  // namespace sowdb::mpi
