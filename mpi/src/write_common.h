// What the per-rank writers of every format version share (dist_write.cpp, dist_write_v6.cpp):
// agreeing on a failure, MPI's error text, the size of one message. Not installed.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "exchange.h"

namespace sowdb::mpi {

/// Bytes per message (and per MPI-IO call): well below the 2^31 one MPI call carries.
inline constexpr std::uint64_t kMessageBytes = std::uint64_t{64} << 20;

/// The first failure over the ranks, on every rank (collective): empty when no rank failed,
/// else the message of the lowest failing rank, naming it when it is not rank 0.
inline std::string agree(const Comm& comm, const std::string& mine) {
  int in = mine.empty() ? comm.size : comm.rank;
  int who = comm.size;
  MPI_Allreduce(&in, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (who == comm.size)
    return {};
  int length = static_cast<int>(mine.size());
  MPI_Bcast(&length, 1, MPI_INT, who, MPI_COMM_WORLD);
  std::string message =
      comm.rank == who ? mine : std::string(static_cast<std::size_t>(length), ' ');
  MPI_Bcast(message.data(), length, MPI_CHAR, who, MPI_COMM_WORLD);
  return who == 0 ? message : "rank " + std::to_string(who) + ": " + message;
}

/// MPI's text for error code `code`.
inline std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace sowdb::mpi
