// The opening book: a breadth-first walk of the start's plies, the book side's positions proved
// by search_position into the proof store, the other side's followed move by move.
#include "sowdb/analysis/opening_book.h"

#include <chrono>
#include <cmath>
#include <deque>
#include <set>
#include <string>
#include <utility>

#include "elapsed.h"
#include "sowdb/analysis/position_search.h"
#include "sowdb/analysis/refusal.h"

namespace sowdb {
namespace {

using analysis_internal::Clock;
using analysis_internal::since;

// A position of the walk: whose turn it is (the book side's or the other's) is part of it, since
// the same board is settled differently for each.
struct Node {
  Pits board{};
  int ply = 0;
  bool book_moves = false;
  bool operator<(const Node& o) const {
    return std::pair(board, book_moves) < std::pair(o.board, o.book_moves);
  }
};

void check_request(const TableSet& set, ProofStore& store, const BookRequest& r) {
  if (r.plies < 0 || r.threads < 0 || !(r.seconds_per_position >= 0) ||
      !std::isfinite(r.seconds_per_position)) {
    throw Refused(RefusalKind::kBadRequest,
                  "a book needs 0 or more plies, threads and seconds per position");
  }
  if (set.objective() != Objective::kCompetitive) {
    throw Refused(RefusalKind::kWrongObjective,
                  "a book is proved over competitive tables; " + set.directory().string() +
                      " holds the co-operative objective");
  }
  if (!(set.rules() == r.variant.rules.normalised())) {
    throw Refused(
        RefusalKind::kBadRequest,
        "the tables hold " + describe(set.rules()) + ", not the rules of " + r.variant.to_string());
  }
  if (r.variant.total_stones() > 127) {
    Refusal refusal{RefusalKind::kTooManySeeds,
                    "a search keeps values of -128..127 only, and the start of " +
                        r.variant.to_string() + " has " + std::to_string(r.variant.total_stones()) +
                        " seeds"};
    refusal.seeds = r.variant.total_stones();
    refusal.max_seeds = set.max_stones();
    throw Refused(refusal);
  }
  if (const std::optional<Refusal> why = store.failure())
    throw Refused(RefusalKind::kIoFailure, "the book cannot be kept: " + why->message);
}

int seeds_of(const Rules& engine, const Pits& board) {
  int n = 0;
  for (int i = 0; i < engine.board_pits(); ++i)
    n += board[static_cast<std::size_t>(i)];
  return n;
}

class BookBuilder {
 public:
  BookBuilder(const TableSet& set,
              ProofStore& store,
              const BookRequest& request,
              const std::function<void(const BookProgress&)>& progress)
      : set_(set), store_(store), request_(request), progress_(progress) {}

  BookReport run() {
    report_.tables_max = set_.max_stones();
    // Read once for every search of the book (one read costs what a few dozen of its searches
    // do through the block caches); tables too large to read go through the caches.
    preloaded_ = gen::PreloadedValues::read(set_);
    report_.preloaded_bytes = preloaded_ ? preloaded_->bytes() : 0;
    Pits start{};
    for (int i = 0; i < set_.engine().board_pits(); ++i)
      start[static_cast<std::size_t>(i)] =
          static_cast<std::uint8_t>(request_.variant.seeds_per_pit);
    // The first player as the book side, then the second: both walks share what they settle.
    push(Node{start, 0, true});
    push(Node{start, 0, false});
    while (!queue_.empty() && !report_.stopped) {
      const Node node = queue_.front();
      queue_.pop_front();
      if (node.book_moves)
        --book_queued_;
      settle(node);
    }
    for (const BookPly& p : report_.plies) {
      report_.proved += p.proved;
      report_.stored += p.stored;
      report_.unproved += p.unproved;
      report_.positions += p.positions;
    }
    report_.seconds = since(start_);
    report_.stats = store_.stats();
    return std::move(report_);
  }

 private:
  void push(const Node& n) {
    if (n.ply > request_.plies || !seen_.insert(n).second)
      return;
    queue_.push_back(n);
    if (n.book_moves)
      ++book_queued_;
  }

  BookPly& ply(int p) {
    while (static_cast<int>(report_.plies.size()) <= p) {
      report_.plies.emplace_back();
      report_.plies.back().ply = static_cast<int>(report_.plies.size()) - 1;
    }
    return report_.plies[static_cast<std::size_t>(p)];
  }

  void settle(const Node& node) {
    const Rules& engine = set_.engine();
    BookPly& at = ply(node.ply);
    if (seeds_of(engine, node.board) <= set_.max_stones()) {
      ++at.by_tables;
      return;
    }
    MoveList legal;
    if (engine.legal_moves(node.board, legal) == 0) {
      ++at.ended;
      return;
    }
    if (!node.book_moves) {
      ++at.opponent;
      for (const Move& m : legal)
        push(Node{m.child, node.ply + 1, !m.extra_turn});
      return;
    }
    SearchBudget budget;
    budget.seconds = request_.seconds_per_position;
    budget.worths = request_.worths;
    budget.threads = request_.threads;
    budget.proofs = &store_;
    budget.stop = request_.stop;
    budget.preloaded = preloaded_;
    budget.preload_limit = 0;
    const auto t = Clock::now();
    const PositionReport r = search_position(set_, node.board, 0, 0, 0, budget);
    at.seconds += since(t);
    at.positions += r.search->positions;
    positions_ += r.search->positions;
    ++done_;
    if (!r.search->complete && request_.stop && request_.stop()) {
      report_.stopped = true;
      return;
    }
    if (r.search->stored)
      ++at.stored;
    else if (r.exact() && r.best_proved)
      ++at.proved;
    else
      ++at.unproved;
    if (r.exact() && r.best_proved) {
      Move m;
      engine.play(node.board, r.moves.front().pit, m);
      push(Node{m.child, node.ply + 1, m.extra_turn});
    }
    if (progress_) {
      BookProgress p;
      p.ply = node.ply;
      p.done = done_;
      p.queued = book_queued_;
      p.positions = positions_;
      p.seconds = since(start_);
      progress_(p);
    }
  }

  const TableSet& set_;
  ProofStore& store_;
  const BookRequest& request_;
  const std::function<void(const BookProgress&)>& progress_;
  const Clock::time_point start_ = Clock::now();
  std::deque<Node> queue_;
  std::set<Node> seen_;
  std::uint64_t book_queued_ = 0;
  std::uint64_t done_ = 0;
  std::uint64_t positions_ = 0;
  std::shared_ptr<const gen::PreloadedValues> preloaded_;
  BookReport report_;
};

}  // namespace

BookReport build_book(const TableSet& set,
                      ProofStore& store,
                      const BookRequest& request,
                      const std::function<void(const BookProgress&)>& progress) {
  check_request(set, store, request);
  return BookBuilder(set, store, request, progress).run();
}

}  // namespace sowdb
