// Bulk mode's standard input and output (`sowdb probe --json -`): lines read without waiting
// for more than has arrived, a bound on a line, and writes that wait on non-blocking
// descriptors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sowdb::cli {

/// Bytes of a bad line that bulk mode's error object echoes: enough to find the line, not a
/// copy of a 10 MB one.
constexpr std::size_t kEchoedInput = 200;

// The longest line bulk mode reads, in bytes with its '\r' if any. A position is at most 2 x 8
// pit counts; splitting a 100 MB line into words once cost 2.5 GB. A longer line gets its
// error object ("line too long") without being held in memory.
constexpr std::size_t kMaxLineBytes = 4096;

// A line still without an end after this many bytes ends the input with an error: /dev/zero
// or a binary file, not positions.
constexpr std::uint64_t kMaxUnendingLine = std::uint64_t{1} << 30;

/// One line of bulk mode's input.
struct InputLine {
  std::string text;  ///< Without its line end; for a line too long, its first kEchoedInput bytes.
  std::uint64_t too_long = 0;  ///< A line of more than kMaxLineBytes: its length; else 0.
};

// Reads standard input line by line with read(2), so that it can tell whether a whole line is
// already there without waiting for one: bulk mode answers every line that has arrived before
// it blocks for more, so a program that writes one line and waits for the answer (an engine
// using `sowdb probe` as a co-process) gets it at once, while a file or a full pipe is looked up
// in large batches spread over the threads. Of a line longer than kMaxLineBytes only the first
// bytes are kept and the rest is counted, so that no input holds more than a line's limit and a
// read's chunk in memory; a line that has no end after kMaxUnendingLine bytes (/dev/zero) ends
// the input with an error.
class StdinLines {
 public:
  /// The next line into `line`; false at the end of the input. With `wait` false it returns
  /// only a line that is there without blocking (false otherwise). Throws std::runtime_error
  /// when standard input cannot be read or a line does not end within kMaxUnendingLine bytes.
  bool next(InputLine& line, bool wait);

 private:
  bool take_line(InputLine& line);
  // Counts the bytes of the long line up to its end or the end of the buffer; true (the line in
  // `line`) at its end.
  bool skip_long_line(InputLine& line);
  void finish_long_line(InputLine& line, bool ended);
  static void drop_cr(std::string& line);
  void fill();

  std::string buffer_;
  std::size_t at_ = 0;       // start of the first line not yet returned
  std::size_t scanned_ = 0;  // buffer_[at_, scanned_) holds no '\n'
  bool eof_ = false;
  std::uint64_t lines_ = 0;  // lines returned
  bool skipping_ = false;    // inside a line too long: long_line_ counts its bytes
  bool last_cr_ = false;     // the last byte counted is '\r'
  InputLine long_line_;
};

/// Whether `fd` is ready for `events` (POLLIN, POLLOUT) within `timeout_ms` (-1: wait until it
/// is). Both ends of bulk mode may be non-blocking descriptors handed over by the caller.
bool ready(int fd, short events, int timeout_ms);

/// Writes all of `text` to standard output, waiting when it is non-blocking (a socket or a
/// terminal shared with a non-blocking standard input). Throws std::runtime_error when it
/// cannot be written.
void write_stdout(const std::string& text);

}  // namespace sowdb::cli
