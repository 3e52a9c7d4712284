#include "stdin_lines.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace sowdb::cli {

bool ready(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  int r;
  do {
    r = ::poll(&p, 1, timeout_ms);
  } while (r < 0 && errno == EINTR);
  return r > 0;
}

bool StdinLines::next(InputLine& line, bool wait) {
  for (;;) {
    if (take_line(line))
      return true;
    if (eof_) {
      if (skipping_) {
        finish_long_line(line, false);
        return true;
      }
      if (at_ == buffer_.size())
        return false;
      // A last line without '\n' (take_line has taken one too long).
      line.text.assign(buffer_, at_, std::string::npos);
      line.too_long = 0;
      at_ = scanned_ = buffer_.size();
      drop_cr(line.text);
      ++lines_;
      return true;
    }
    // A regular file is always readable, so this never waits there.
    if (!wait && !ready(STDIN_FILENO, POLLIN, 0))
      return false;
    fill();
  }
}

bool StdinLines::take_line(InputLine& line) {
  if (skipping_)
    return skip_long_line(line);
  // Bytes before scanned_ hold no '\n': a long line is searched once, not once per read.
  const std::size_t newline = buffer_.find('\n', scanned_);
  const std::size_t end = newline == std::string::npos ? buffer_.size() : newline;
  if (end - at_ > kMaxLineBytes) {
    long_line_.text.assign(buffer_, at_, kEchoedInput);
    skipping_ = true;
    return skip_long_line(line);
  }
  if (newline == std::string::npos) {
    scanned_ = buffer_.size();
    return false;
  }
  line.text.assign(buffer_, at_, newline - at_);
  line.too_long = 0;
  at_ = scanned_ = newline + 1;
  drop_cr(line.text);
  ++lines_;
  return true;
}

bool StdinLines::skip_long_line(InputLine& line) {
  const std::size_t newline = buffer_.find('\n', at_);
  const std::size_t end = newline == std::string::npos ? buffer_.size() : newline;
  if (end > at_) {
    long_line_.too_long += end - at_;
    last_cr_ = buffer_[end - 1] == '\r';
  }
  at_ = scanned_ = end;
  if (newline == std::string::npos) {
    if (long_line_.too_long > kMaxUnendingLine) {
      throw std::runtime_error("line " + std::to_string(lines_ + 1) +
                               ": line too long: no line end in " +
                               std::to_string(long_line_.too_long) + " bytes");
    }
    return false;
  }
  at_ = scanned_ = newline + 1;
  finish_long_line(line, true);
  return true;
}

void StdinLines::finish_long_line(InputLine& line, bool ended) {
  if (ended && last_cr_)
    --long_line_.too_long;  // a "\r\n" line end
  line = std::move(long_line_);
  long_line_ = InputLine{};
  skipping_ = last_cr_ = false;
  ++lines_;
}

void StdinLines::drop_cr(std::string& line) {
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
}

void StdinLines::fill() {
  buffer_.erase(0, at_);
  scanned_ -= at_;
  at_ = 0;
  char chunk[1 << 16];
  ssize_t got;
  for (;;) {
    got = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (got >= 0)
      break;
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      break;
    ready(STDIN_FILENO, POLLIN, -1);  // left non-blocking by whoever started us
  }
  if (got < 0)
    throw std::runtime_error(std::string("reading standard input: ") + std::strerror(errno));
  if (got == 0)
    eof_ = true;
  buffer_.append(chunk, static_cast<std::size_t>(got));
}

void write_stdout(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t put = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (put >= 0) {
      done += static_cast<std::size_t>(put);
      continue;
    }
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw std::runtime_error(std::string("writing standard output: ") + std::strerror(errno));
    ready(STDOUT_FILENO, POLLOUT, -1);
  }
}

}  // namespace sowdb::cli
