#include "connection_table.h"

#include <utility>

namespace sowdb::server {

ConnectionTable::Admit ConnectionTable::admit(const std::string& client) {
  std::function<void()> close;
  {
    const std::lock_guard lock(mutex_);
    const auto it = per_client_.find(client);
    if (it != per_client_.end() && it->second >= per_client_cap_)
      return Admit::kClientCap;
    if (open_ >= max_) {
      if (idle_.empty())
        return Admit::kFull;
      // The longest idle goes: its release comes when it has closed, so the table may pass its
      // bound by the evictions in flight, never by more.
      close = std::move(idle_.begin()->second);
      idle_.erase(idle_.begin());
    }
    ++open_;
    ++per_client_[client];
  }
  if (close)
    close();
  return Admit::kYes;
}

void ConnectionTable::release(const std::string& client) {
  const std::lock_guard lock(mutex_);
  --open_;
  const auto it = per_client_.find(client);
  if (it != per_client_.end() && --it->second == 0)
    per_client_.erase(it);
}

bool ConnectionTable::pressed() const {
  const std::lock_guard lock(mutex_);
  return open_ * 4 >= max_ * 3;
}

std::size_t ConnectionTable::open() const {
  const std::lock_guard lock(mutex_);
  return open_;
}

std::uint64_t ConnectionTable::idle(std::function<void()> close) {
  const std::lock_guard lock(mutex_);
  const std::uint64_t id = next_id_++;
  idle_.emplace(id, std::move(close));
  return id;
}

void ConnectionTable::busy(std::uint64_t id) {
  if (id == 0)
    return;
  std::function<void()> dropped;  // destroyed outside the lock: it holds a weak session
  const std::lock_guard lock(mutex_);
  const auto it = idle_.find(id);
  if (it != idle_.end()) {
    dropped = std::move(it->second);
    idle_.erase(it);
  }
}

}  // namespace sowdb::server
