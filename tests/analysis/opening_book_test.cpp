// The opening book (build_book): walked again here over complete tables, every position of the
// book side within the plies is in the proof store with its exact value and a best move that
// complete tables call best (and, with worths, every move's worth); the other side's positions
// are followed move by move; a rerun finds everything; a build stopped part way resumes.
#include "sowdb/analysis/opening_book.h"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "generated_tables.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb::test {
namespace {

struct BookCase {
  std::string variant;  // PRESET/PxS
  int partial;          // the top layer of the tables the book is proved over
  int plies;
};

std::string book_case_name(const ::testing::TestParamInfo<BookCase>& info) {
  std::string n = info.param.variant;
  for (char& c : n) {
    if (c == '/' || c == '-')
      c = '_';
  }
  return n;
}

// What the walk over complete tables counts, to compare with the build's report.
struct Walk {
  std::uint64_t book = 0;       // book side's positions above the partial tables
  std::uint64_t by_tables = 0;  // positions the partial tables hold
};

class OpeningBook : public ::testing::TestWithParam<BookCase> {
 protected:
  void SetUp() override {
    variant_ = variant_of(GetParam().variant);
    complete_ = TableSet::open(generated_dir({GetParam().variant, variant_.total_stones()}));
    partial_ = TableSet::open(generated_dir({GetParam().variant, GetParam().partial}));
  }

  BookRequest request(bool worths) const {
    BookRequest r;
    r.variant = variant_;
    r.plies = GetParam().plies;
    r.worths = worths;
    r.threads = 1;
    return r;
  }

  // The book's walk again, its best moves read from the store, each position checked against
  // the complete tables.
  Walk check_store(ProofStore& store, bool worths) const {
    const Rules& engine = complete_->engine();
    Pits start{};
    for (int i = 0; i < engine.board_pits(); ++i)
      start[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(variant_.seeds_per_pit);
    std::deque<std::pair<std::pair<Pits, bool>, int>> queue{{{start, true}, 0},
                                                            {{start, false}, 0}};
    std::set<std::pair<Pits, bool>> seen{{start, true}, {start, false}};
    Walk walk;
    while (!queue.empty()) {
      const auto [node, ply] = queue.front();
      const auto& [board, book_moves] = node;
      queue.pop_front();
      int seeds = 0;
      for (int i = 0; i < engine.board_pits(); ++i)
        seeds += board[static_cast<std::size_t>(i)];
      MoveList legal;
      if (seeds <= partial_->max_stones()) {
        ++walk.by_tables;
        continue;
      }
      if (engine.legal_moves(board, legal) == 0)
        continue;
      // A copy: clang before 16 (clang-tidy here is 14) cannot capture a structured binding in
      // a lambda (C++20's P1091).
      const int depth = ply;
      auto follow = [&](const Move& m, bool book_next) {
        if (depth < GetParam().plies && seen.insert({m.child, book_next}).second)
          queue.push_back({{m.child, book_next}, depth + 1});
      };
      if (!book_moves) {
        for (const Move& m : legal)
          follow(m, !m.extra_turn);
        continue;
      }
      ++walk.book;
      int value = 0;
      MoveWorths worth_of;
      if (complete_->value(board, value) != ProbeStatus::kOk ||
          complete_->moves(board, worth_of) != ProbeStatus::kOk) {
        ADD_FAILURE() << "complete tables fail at ply " << ply;
        continue;
      }
      auto worth = [&](int pit) {
        for (int i = 0; i < worth_of.size; ++i) {
          if (worth_of.moves[static_cast<std::size_t>(i)].move.pit == pit)
            return worth_of.moves[static_cast<std::size_t>(i)].worth;
        }
        ADD_FAILURE() << "pit " << pit << " is no legal move";
        return 1000;
      };
      const std::optional<ProofRecord> rec = store.lookup(board);
      if (!rec) {
        ADD_FAILURE() << "not in the book at ply " << ply;
        continue;
      }
      EXPECT_TRUE(rec->value.exact());
      EXPECT_EQ(rec->value.lower, value) << "ply " << ply;
      Move best;
      if (!engine.play(board, rec->best_pit, best)) {
        ADD_FAILURE() << "the book's move is not legal at ply " << ply;
        continue;
      }
      EXPECT_EQ(worth(rec->best_pit), value) << "the book's move is not best at ply " << ply;
      if (worths) {
        for (const Move& m : legal) {
          const auto& b = rec->moves[static_cast<std::size_t>(m.pit)];
          EXPECT_TRUE(b && b->exact()) << "pit " << m.pit << " at ply " << ply;
          if (b) {
            EXPECT_EQ(b->lower, worth(m.pit)) << "pit " << m.pit << " at ply " << ply;
          }
        }
      }
      follow(best, best.extra_turn);
    }
    return walk;
  }

  Variant variant_;
  std::unique_ptr<TableSet> complete_;
  std::unique_ptr<TableSet> partial_;
};

TEST_P(OpeningBook, EveryPositionProvedAsCompleteTablesSay) {
  TempDir dir("book");
  ProofStore store(dir.path() / "book.sowproof", variant_.rules);
  const BookReport r = build_book(*partial_, store, request(false));
  EXPECT_FALSE(r.stopped);
  EXPECT_EQ(r.unproved, 0u);
  EXPECT_GT(r.proved, 0u);
  const Walk walk = check_store(store, false);
  EXPECT_EQ(r.proved, walk.book);
  std::uint64_t by_tables = 0;
  for (const BookPly& p : r.plies)
    by_tables += p.by_tables;
  EXPECT_EQ(by_tables, walk.by_tables);

  // A rerun proves nothing again: every position is found in the store.
  const BookReport again = build_book(*partial_, store, request(false));
  EXPECT_EQ(again.proved, 0u);
  EXPECT_EQ(again.stored, r.proved);
  EXPECT_EQ(again.positions, 0u);
}

TEST_P(OpeningBook, WorthsAreEveryMovesExactWorth) {
  TempDir dir("book");
  ProofStore store(dir.path() / "book.sowproof", variant_.rules);
  const BookReport r = build_book(*partial_, store, request(true));
  EXPECT_EQ(r.unproved, 0u);
  EXPECT_EQ(r.proved, check_store(store, true).book);
}

TEST_P(OpeningBook, AStoppedBuildResumes) {
  TempDir dir("book");
  ProofStore store(dir.path() / "book.sowproof", variant_.rules);
  std::atomic<int> asked{0};
  BookRequest stopping = request(false);
  // Stopped at the first question after a few settle: the searches ask often, so this stops
  // inside the walk, not after it.
  stopping.stop = [&] { return ++asked > 40; };
  const BookReport first = build_book(*partial_, store, stopping);
  const BookReport rest = build_book(*partial_, store, request(false));
  EXPECT_FALSE(rest.stopped);
  EXPECT_EQ(rest.unproved, 0u);
  const Walk walk = check_store(store, false);
  EXPECT_EQ(rest.proved + rest.stored, walk.book);
  if (first.stopped) {
    EXPECT_GT(rest.proved, 0u);
  }
}

TEST(OpeningBookRefusals, BadRequestsAreRefused) {
  TempDir dir("book");
  const Variant v = variant_of("kalah/3x2");
  const std::unique_ptr<TableSet> set = TableSet::open(generated_dir({"kalah/3x2", 4}));
  ProofStore store(dir.path() / "book.sowproof", v.rules);
  BookRequest r;
  r.variant = v;
  r.plies = -1;
  EXPECT_THROW(build_book(*set, store, r), Refused);
  r.plies = 2;
  r.variant = variant_of("oware/3x2");
  try {
    build_book(*set, store, r);
    ADD_FAILURE() << "tables of other rules were taken";
  } catch (const Refused& e) {
    EXPECT_EQ(e.refusal().kind, RefusalKind::kBadRequest);
  }
  ProofStore unusable("", v.rules);
  r.variant = v;
  try {
    build_book(*set, unusable, r);
    ADD_FAILURE() << "an unusable store was taken";
  } catch (const Refused& e) {
    EXPECT_EQ(e.refusal().kind, RefusalKind::kIoFailure);
  }
}

INSTANTIATE_TEST_SUITE_P(Boards,
                         OpeningBook,
                         ::testing::Values(BookCase{"kalah-irving/4x3", 10, 6},
                                           BookCase{"kalah/4x2", 6, 8},
                                           BookCase{"wari-us/3x3", 8, 6},
                                           BookCase{"oware/3x2", 5, 6},
                                           BookCase{"abapa/2x3", 7, 6}),
                         book_case_name);

}  // namespace
}  // namespace sowdb::test
