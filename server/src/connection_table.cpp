#include "connection_table.h"

namespace sowdb::server {

ConnectionTable::Admit ConnectionTable::admit(const std::string& client) {
  std::shared_ptr<void> evicted;
  Waiter* w = nullptr;
  {
    const std::lock_guard lock(mutex_);
    const auto it = per_client_.find(client);
    if (it != per_client_.end() && it->second >= per_client_cap_)
      return Admit::kClientCap;
    if (open_.load(std::memory_order_relaxed) >= max_) {
      w = take_oldest(evicted);
      if (w == nullptr)
        return Admit::kFull;
      // The longest idle goes: its release comes when it has closed, so the table may pass its
      // bound by the evictions in flight, never by more.
    }
    open_.fetch_add(1, std::memory_order_relaxed);
    ++per_client_[client];
  }
  // `evicted` keeps the connection (and so `w`, its member) alive until its close is posted.
  if (w != nullptr)
    w->close(evicted);
  return Admit::kYes;
}

void ConnectionTable::release(const std::string& client) {
  const std::lock_guard lock(mutex_);
  open_.fetch_sub(1, std::memory_order_relaxed);
  const auto it = per_client_.find(client);
  if (it != per_client_.end() && --it->second == 0)
    per_client_.erase(it);
}

void ConnectionTable::idle(Waiter& w) {
  const std::lock_guard lock(mutex_);
  if (w.linked_)
    return;
  w.prev_ = tail_;
  w.next_ = nullptr;
  (tail_ != nullptr ? tail_->next_ : head_) = &w;
  tail_ = &w;
  w.linked_ = true;
}

void ConnectionTable::busy(Waiter& w) {
  const std::lock_guard lock(mutex_);
  if (w.linked_)
    unlink(w);
}

void ConnectionTable::unlink(Waiter& w) {
  (w.prev_ != nullptr ? w.prev_->next_ : head_) = w.next_;
  (w.next_ != nullptr ? w.next_->prev_ : tail_) = w.prev_;
  w.prev_ = w.next_ = nullptr;
  w.linked_ = false;
}

ConnectionTable::Waiter* ConnectionTable::take_oldest(std::shared_ptr<void>& owner) {
  while (head_ != nullptr) {
    Waiter& w = *head_;
    unlink(w);
    // A connection whose last owner is gone is being destroyed: its destructor waits for this
    // lock to leave the list, so it is skipped (it frees its place by itself).
    owner = w.owner.lock();
    if (owner)
      return &w;
  }
  return nullptr;
}

}  // namespace sowdb::server
