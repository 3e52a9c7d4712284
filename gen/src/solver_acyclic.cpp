// The acyclic layer solver (Kalah family, wari-us): one depth-first pass.
#include <sys/mman.h>
#include <tbb/concurrent_hash_map.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "parallel_loops.h"
#include "solver_internal.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/internal/solver_hooks.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen::solver_internal {
namespace {

// Kalah-family and wari-us layers are acyclic: an in-layer move sows only the mover's own pits
// towards the store (reaching the store would gain a seed), so the seeds of each side only move
// on towards their store. There a depth-first pass computes each position once from its
// children, with no predecessor search and no thresholds; the result is the same as the
// retrograde analysis would give (solver.h defines both from the same recursion).
class AcyclicSolver {
 public:
  AcyclicSolver(const RuleSet& rules,
                int stones,
                const SmallerValues& smaller,
                const SolveOptions& options)
      : rules_(rules),
        stones_(stones),
        k_(rules_.board_pits()),
        kalah_(rules.family == Family::kKalah),
        capture_empty_opposite_(rules.capture_empty_opposite),
        overflow_(options.depth_overflow),
        marks_(stones, options),
        rank_(k_, stones) {
    size_ = layer_size(k_, stones_);
    for (int m = 0; m < stones_; ++m)
      smaller_[m] = smaller(m);
    value_ = huge_vector(size_, kUnknown);
    if (marks_.on()) {
      mark_.reset(new std::uint8_t[size_]);
      advise_huge_pages(mark_.get(), size_);
    }
    depth_ = DepthTable::Bytes(static_cast<std::uint8_t*>(std::malloc(size_ + 1)));
    if (!depth_)
      throw std::bad_alloc();
    advise_huge_pages(depth_.get(), size_);
  }

  Layer run(const std::function<void(double)>& progress) {
    // Positions go in tiles: a run of kTile mover's sides (the low digits of the index) by a run
    // of kTile opponent's sides (the high digits), so that the tile's own entries and its
    // children's entries each fill a few hundred cache lines instead of one line per look-up. A
    // child's mover is the parent's opponent: the children of one move from the tile's positions
    // form a similar tile of the child's layer, with the two runs swapped. In index order (one
    // mover's run per opponent's side) every child look-up missed the cache: about 1.35 times
    // slower on Kalah 6x4 layers 0..17.
    //
    // Tiles go by increasing diagonal A + B (A, B: the tile's run numbers, side rank / kTile). A
    // move that stays in the layer sows the mover's seeds towards higher pits, which lowers the
    // prefix sums of the side and so its rank, and leaves the opponent's side alone: from (a, b)
    // it leads to (b, a') with rank(a') < rank(a), in a tile of diagonal <= the parent's. On the
    // same diagonal the child lies in the mirror tile (the two runs swapped, the other seed
    // count), so a tile and its mirror go together, walked by increasing rank(a) + rank(b)
    // within the pair: then every in-layer child is solved before its parent. (Walking the seed
    // counts in order left 40% of the positions to the depth-first recursion of finish(), whose
    // look-ups are random; it stays as a fallback, so correctness never rests on this order.)
    const int p = rules_.pits_per_side();
    std::vector<std::vector<Tile>> diagonals;
    for (int k = 0; 2 * k <= stones_; ++k) {
      const std::uint64_t runs_a = (layer_size(p, k) + kTile - 1) / kTile;
      const std::uint64_t runs_b = (layer_size(p, stones_ - k) + kTile - 1) / kTile;
      if (diagonals.size() < runs_a + runs_b - 1)
        diagonals.resize(runs_a + runs_b - 1);
      for (std::uint64_t a = 0; a < runs_a; ++a) {
        // With as many seeds on each side, the tile (a, b) is the mirror of (b, a).
        for (std::uint64_t b = 2 * k == stones_ ? a : 0; b < runs_b; ++b) {
          diagonals[a + b].push_back(
              {k, static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)});
        }
      }
    }
    std::uint64_t pairs = 0;
    for (const auto& d : diagonals)
      pairs += d.size();
    std::atomic<std::uint64_t> done{0};
    const auto main_thread = std::this_thread::get_id();
    for (const std::vector<Tile>& pass : diagonals) {
      parallel::for_ranges(std::size_t{0}, pass.size(), std::size_t{1}, [&](const auto& r) {
        // One frame per level of the fallback recursion; a deque keeps references valid as it
        // grows.
        std::deque<Frame>& stack = stacks_.local();
        PairScratch& scratch = scratch_.local();
        for (std::size_t c = r.begin(); c != r.end(); ++c) {
          solve_pair(pass[c], scratch, stack);
          const std::uint64_t now = done.fetch_add(1) + 1;
          if (progress && std::this_thread::get_id() == main_thread)
            progress(static_cast<double>(now) / static_cast<double>(pairs));
        }
      });
    }
    auto overflow = overflow_.sorted();
    Layer layer;
    layer.stones = stones_;
    layer.value = std::move(value_);
    layer.depth = DepthTable(std::move(depth_), size_, std::move(overflow), overflow_.byte());
    if (mark_) {
      // One byte per position while solving (a thread that solves a position again writes the
      // same byte), one bit in the result.
      layer.recompute.assign((size_ + 63) / 64, 0);
      parallel::for_ranges(std::uint64_t{0},
                           std::uint64_t{layer.recompute.size()},
                           std::uint64_t{1} << 10,
                           [&](const auto& r) {
                             for (std::uint64_t w = r.begin(); w != r.end(); ++w) {
                               std::uint64_t bits = 0;
                               const std::uint64_t first = w * 64;
                               const std::uint64_t n = std::min<std::uint64_t>(64, size_ - first);
                               for (std::uint64_t b = 0; b < n; ++b)
                                 bits |= std::uint64_t{mark_[first + b]} << b;
                               layer.recompute[w] = bits;
                             }
                           });
      mark_.reset();
    }
    return layer;
  }

 private:
  static constexpr std::int8_t kUnknown = -128;  // no value is -128: |value| <= 127
  static constexpr int kMaxChain = 4096;
  static constexpr int kGroup = 16;
  // A tile: up to kTile mover's sides by up to kTile opponent's sides.
  static constexpr std::uint64_t kTile = 128;

  struct Tile {
    int k;               // seeds on the mover's side
    std::uint32_t a, b;  // run numbers of the mover's and the opponent's sides
  };

  // One position being solved: its moves and where their children's values are.
  struct Frame {
    Pits board;
    int moves;      // legal moves; 0 for a finished game
    bool minority;  // the mover holds fewer than half of the seeds (SmallerMarks::minority)
    std::uint8_t pit[kMaxPitsPerSide];
    std::uint8_t gain[kMaxPitsPerSide];
    bool extra_turn[kMaxPitsPerSide];
    std::uint64_t child_index[kMaxPitsPerSide];
    const std::int8_t* child_layer[kMaxPitsPerSide];
  };

  void add_move(Frame& f, const Move& m) const {
    add_move(f, m.pit, m.gain(), m.extra_turn, rank_(m.child));
  }

  void add_move(Frame& f, int pit, int gain, bool extra_turn, std::uint64_t child_index) const {
    const int j = f.moves++;
    f.pit[j] = static_cast<std::uint8_t>(pit);
    f.gain[j] = static_cast<std::uint8_t>(gain);
    f.extra_turn[j] = extra_turn;
    f.child_index[j] = child_index;
    f.child_layer[j] = gain == 0 ? value_.data() : smaller_[stones_ - gain];
    __builtin_prefetch(f.child_layer[j] + child_index);
    // finish() reads the depth of an in-layer child that keeps the value.
    if (gain == 0)
      __builtin_prefetch(depth_.get() + child_index);
  }

  // The moves of a Kalah tile whose child index splits into a part from the mover's side and a
  // part from the opponent's side, each computed once per side instead of once per position.
  // The index sums over the child's pits a table entry picked by the prefix sum up to the pit;
  // the first P pits form one part and the last P - 1 the other, whose prefix sums start at the
  // seed count of the first P. Three kinds of move split so:
  //  - quiet (no seed reaches the store, no capture): the child is the opponent's side as it
  //    is, then the mover's side after sowing; whether the last seed captures is the one test
  //    that needs both sides, made per position;
  //  - ending in the store (an extra turn, one seed gained): the mover's side after sowing, then
  //    the opponent's side, in the layer one seed down;
  //  - passing the store and ending on the opponent's side after r <= P seeds there: the
  //    opponent's side with one more seed in its first r pits, then the mover's side after
  //    sowing, one seed down.
  // Everything else (captures, sowings that come round to the mover's side) goes through the
  // general move generator. All three kinds are read off the rules' own sowing tables.
  class TileMoves {
   public:
    static constexpr std::uint8_t kNoCapture = 255;
    // The opponent's side's parts, by slot: 0 for a quiet move (the side as the child's first P
    // pits), 1 for a move ending in the store (the side as the last P pits, one seed down), 1 + r
    // for a move passing the store with r seeds on the opponent's side.
    static constexpr std::size_t kSlots = kMaxPitsPerSide + 2;

    // One move of one of the tile's mover's sides.
    struct TileMove {
      std::uint64_t part;  // the mover's side's part of the child index
      std::uint8_t pit;
      std::uint8_t slot;  // of the opponent's side's part
      std::uint8_t gain;
      bool extra_turn;
      bool general;       // made by the general move generator instead
      std::uint8_t land;  // quiet: the pit of a possible capture, or kNoCapture
      Pits captured;      // quiet: the mover's side after a capture at `land`
    };

    explicit TileMoves(const AcyclicSolver& solver)
        : s_(solver),
          moves_(kTile * kMaxPitsPerSide),
          count_(kTile),
          opponent_(kTile * kSlots),
          captured_(kTile * kMaxPitsPerSide) {}

    // The moves of the mover's sides `a[0..count)` (`seeds` seeds each), opposite sides of
    // `opponent_seeds` seeds.
    void set_mover_sides(const Pits* a, std::uint64_t count, int seeds, int opponent_seeds) {
      const Rules& rules = s_.rules_;
      const int p = rules.pits_per_side();
      mover_seeds_ = seeds;
      opponent_seeds_ = opponent_seeds;
      for (std::uint64_t ja = 0; ja < count; ++ja) {
        int n = 0;
        for (int x = 0; x < p; ++x) {
          const int sown = a[ja][x];
          if (sown == 0)
            continue;
          TileMove& mv = moves_[ja * kMaxPitsPerSide + static_cast<std::size_t>(n++)];
          mv.pit = static_cast<std::uint8_t>(x);
          mv.general = true;
          mv.land = kNoCapture;
          const Pits& add = internal::SolverHooks::sowing_add(rules, x, sown);
          const int stored = internal::SolverHooks::sowing_stored(rules, x, sown);
          // The path is one lap: a sowing of more seeds than a lap holds ends where its last
          // lap does (only the three kinds below read `last`, and none of them laps).
          const std::span<const std::uint8_t> path = internal::SolverHooks::sowing_path(rules, x);
          const std::uint8_t last = path[static_cast<std::size_t>(sown - 1) % path.size()];
          // Seeds reaching the opponent's side: one in each of its first r pits, or none.
          int r = 0;
          while (r < p && add[p + r] == 1)
            ++r;
          for (int i = r; i < p; ++i) {
            if (add[p + i] != 0)
              r = -1;
          }
          if (r < 0)
            continue;
          Pits after = a[ja];
          after[x] = 0;
          for (int i = 0; i < p; ++i)
            after[i] = static_cast<std::uint8_t>(after[i] + add[i]);
          if (stored == 0 && r == 0 && last < p) {
            set(mv, high_part(after, opponent_seeds), 0, 0, false);
            // kalah_move's capture: the last seed alone in an own pit.
            if (after[last] == 1) {
              mv.land = last;
              mv.captured = after;
              mv.captured[last] = 0;
            }
          } else if (stored == 1 && r == 0 && last == internal::SolverHooks::kStore) {
            set(mv, low_part(after), 1, 1, true);
          } else if (stored == 1 && r > 0 && last != internal::SolverHooks::kStore && last >= p) {
            set(mv, high_part(after, opponent_seeds + r), 1 + r, 1, false);
          }
        }
        count_[ja] = static_cast<std::uint8_t>(n);
      }
    }

    // The opponent's sides `b[0..count)`.
    void set_opponent_sides(const Pits* b, std::uint64_t count) {
      const int p = s_.rules_.pits_per_side();
      for (std::uint64_t jb = 0; jb < count; ++jb) {
        std::uint64_t* part = &opponent_[jb * kSlots];
        part[0] = low_part(b[jb]);
        part[1] = high_part(b[jb], mover_seeds_ - 1);
        Pits spilled = b[jb];
        for (int r = 1; r <= p; ++r) {
          ++spilled[r - 1];
          part[1 + r] = low_part(spilled);
        }
        for (int i = 0; i < p; ++i) {
          Pits taken = b[jb];
          taken[i] = 0;
          captured_[jb * kMaxPitsPerSide + static_cast<std::size_t>(i)] = low_part(taken);
        }
      }
    }

    const TileMove* moves(std::uint64_t ja) const { return &moves_[ja * kMaxPitsPerSide]; }
    int count(std::uint64_t ja) const { return count_[ja]; }
    const std::uint64_t* opponent_parts(std::uint64_t jb) const { return &opponent_[jb * kSlots]; }

    // The child index of quiet move `mv` at opponent's side jb when it captures `taken` seeds
    // from the opponent's pit `pit`: the capture empties the landing pit and that pit, and the
    // mover's side's part depends on the seeds taken, so it is summed here.
    std::uint64_t capture_index(const TileMove& mv, std::uint64_t jb, int pit, int taken) const {
      return captured_[jb * kMaxPitsPerSide + static_cast<std::size_t>(pit)] +
             high_part(mv.captured, opponent_seeds_ - taken);
    }

   private:
    static void set(TileMove& mv, std::uint64_t part, int slot, int gain, bool extra_turn) {
      mv.general = false;
      mv.part = part;
      mv.slot = static_cast<std::uint8_t>(slot);
      mv.gain = static_cast<std::uint8_t>(gain);
      mv.extra_turn = extra_turn;
    }

    // The part of the first P pits of a child whose first P pits are `side`.
    std::uint64_t low_part(const Pits& side) const {
      const int p = s_.rules_.pits_per_side();
      return s_.rank_.part(side, 0, p, 0);
    }

    // The part of the last P pits of a child whose last P pits are `side`, after `before`
    // seeds in the first P.
    std::uint64_t high_part(const Pits& side, int before) const {
      const int p = s_.rules_.pits_per_side();
      return s_.rank_.part(side, p, p, before);
    }

    const AcyclicSolver& s_;
    int mover_seeds_ = 0;
    int opponent_seeds_ = 0;
    std::vector<TileMove> moves_;          // [ja * kMaxPitsPerSide + move]
    std::vector<std::uint8_t> count_;      // [ja]: moves
    std::vector<std::uint64_t> opponent_;  // [jb * kSlots + slot]
    std::vector<std::uint64_t> captured_;  // [jb * kMaxPitsPerSide + opponent's pit emptied]
  };

  // One tile of a pair: mover's sides by opponent's sides.
  struct TileWalk {
    const Pits* mover;
    std::uint64_t movers;
    const Pits* opponent;
    std::uint64_t opponents;
    bool fast;                             // moves from the tile's parts (TileMoves)
    std::array<std::uint64_t, kTile> row;  // index of (mover[0], opponent[j])
  };

  // Zero-initialised, so that no byte the allocator left in PerThread's memory (recycled heap
  // under either backend) can reach a board.
  struct PairScratch {
    explicit PairScratch(const AcyclicSolver& solver)
        : moves{TileMoves(solver), TileMoves(solver)} {}
    std::array<Pits, kTile> sides[2]{};
    std::array<TileMoves, 2> moves;
    // The group's frames: a deque's operator[] cost 8% of the run time here.
    std::array<Frame, kGroup> group{};
    TileWalk walk[2]{};
  };

  void start_walk(TileWalk& w, TileMoves& moves, int mover_seeds) {
    const int p = rules_.pits_per_side();
    const int opponent_seeds = stones_ - mover_seeds;
    // A side without seeds, on either side, can end the game: the general move generator
    // handles those tiles.
    w.fast = kalah_ && mover_seeds > 0 && opponent_seeds > 0;
    if (w.fast)
      moves.set_mover_sides(w.mover, w.movers, mover_seeds, opponent_seeds);
    for (std::uint64_t j = 0; j < w.opponents; ++j) {
      // The tile's mover's sides have consecutive ranks, so each opponent's side has a row of
      // consecutive entries.
      Pits board = w.mover[0];
      std::copy_n(w.opponent[j].begin(), p, board.begin() + p);
      w.row[j] = rank_(board);
    }
    if (w.fast)
      moves.set_opponent_sides(w.opponent, w.opponents);
  }

  void solve_pair(const Tile& t, PairScratch& scratch, std::deque<Frame>& stack) {
    const int p = rules_.pits_per_side();
    const int seeds[2] = {t.k, stones_ - t.k};
    const std::uint32_t run[2] = {t.a, t.b};
    std::uint64_t count[2];
    for (int side = 0; side < 2; ++side) {
      const std::uint64_t first = std::uint64_t{run[side]} * kTile;
      count[side] = std::min(kTile, layer_size(p, seeds[side]) - first);
      Pits pits{};
      unrank(first, seeds[side], std::span(pits.data(), p));
      for (std::uint64_t j = 0; j < count[side]; ++j) {
        scratch.sides[side][j] = pits;
        next_position(std::span(pits.data(), p));
      }
    }
    const int walks = seeds[0] == seeds[1] && t.a == t.b ? 1 : 2;
    for (int w = 0; w < walks; ++w) {
      TileWalk& walk = scratch.walk[w];
      walk.mover = scratch.sides[w].data();
      walk.movers = count[w];
      walk.opponent = scratch.sides[1 - w].data();
      walk.opponents = count[1 - w];
      start_walk(walk, scratch.moves[w], seeds[w]);
    }
    // Positions go in groups: first every move and child index of the group, prefetching the
    // children's values, then the values, so that those cache misses overlap. A group may span
    // two sums of ranks: its positions are finished in walk order, a child before its parent.
    std::uint64_t index[kGroup];
    int group = 0;
    const auto flush = [&] {
      for (int g = 0; g < group; ++g) {
        finish(index[g], scratch.group[g], stack, 0);
      }
      group = 0;
    };
    for (std::uint64_t sum = 0; sum + 1 < count[0] + count[1]; ++sum) {
      for (int w = 0; w < walks; ++w) {
        const TileWalk& walk = scratch.walk[w];
        const std::uint64_t lo = sum >= walk.opponents ? sum - walk.opponents + 1 : 0;
        const std::uint64_t hi = std::min(sum + 1, walk.movers);
        for (std::uint64_t ja = lo; ja < hi; ++ja) {
          const std::uint64_t jb = sum - ja;
          Frame& f = scratch.group[group];
          index[group] = walk.row[jb] + ja;
          // The whole board, the pits past 2P included (zero in a side): rank() and
          // final_value() read all kMaxPits, and this frame may hold another board's bytes.
          const Pits& sb = walk.opponent[jb];
          f.board = walk.mover[ja];
          for (int x = 0; x < p; ++x)
            f.board[p + x] = sb[x];
          // The walk reaches each position once; the fallback recursion may have solved it
          // already, and solving it again writes the same bytes: cheaper than a load of the
          // entry per position to check.
          f.minority = 2 * seeds[w] < stones_;
          if (walk.fast)
            prepare_in_tile(f, scratch.moves[w], ja, jb);
          else
            prepare(f);
          if (++group == kGroup)
            flush();
        }
      }
    }
    flush();
  }

  // prepare() for position (ja, jb) of a Kalah tile: the moves the tile's parts give, the
  // others from the general move generator.
  void prepare_in_tile(Frame& f, const TileMoves& tile, std::uint64_t ja, std::uint64_t jb) {
    const int p = rules_.pits_per_side();
    const TileMoves::TileMove* moves = tile.moves(ja);
    const std::uint64_t* opponent = tile.opponent_parts(jb);
    f.moves = 0;
    for (int j = 0; j < tile.count(ja); ++j) {
      const TileMoves::TileMove& mv = moves[j];
      if (mv.general) {
        Move m;
        rules_.play(f.board, mv.pit, m);
        add_move(f, m);
        continue;
      }
      std::uint64_t index = mv.part + opponent[mv.slot];
      int gain = mv.gain;
      if (mv.land != TileMoves::kNoCapture) {
        const int opposite = k_ - 1 - mv.land;
        const int taken = f.board[opposite];
        if (taken != 0 || capture_empty_opposite_) {
          index = tile.capture_index(mv, jb, opposite - p, taken);
          gain = 1 + taken;
        }
      }
      add_move(f, mv.pit, gain, mv.extra_turn, index);
    }
  }

  void prepare(Frame& f) {
    MoveList moves;
    rules_.legal_moves(f.board, moves);
    f.moves = 0;
    for (const Move& m : moves)
      add_move(f, m);
  }

  // Two threads may solve the same position at once; both write the same bytes. `stack[chain]`
  // and up are free for the children this position has to solve first.
  void finish(std::uint64_t i, Frame& f, std::deque<Frame>& stack, int chain) {
    bool mark = marks_.on() && f.minority;
    if (f.moves == 0) {
      store(i, rules_.final_value(f.board), 0, mark);
      return;
    }
    int worth[kMaxPitsPerSide];
    int best = -1000;
    for (int j = 0; j < f.moves; ++j) {
      int child_value = aref(f.child_layer[j][f.child_index[j]]).load(std::memory_order_acquire);
      if (f.gain[j] != 0) {
        // A smaller layer: complete, its bytes possibly marked.
        const int m = stones_ - f.gain[j];
        mark = mark && !marks_.marked(m, static_cast<std::int8_t>(child_value));
        child_value = marks_.value(m, static_cast<std::int8_t>(child_value));
      } else if (child_value == kUnknown) {
        if (chain >= kMaxChain) {
          throw std::runtime_error("in-layer moves cycle in an acyclic family");
        }
        if (static_cast<int>(stack.size()) <= chain)
          stack.emplace_back();
        Frame& c = stack[chain];
        Move m;
        rules_.play(f.board, f.pit[j], m);
        c.board = m.child;
        c.minority = marks_.minority(c.board, rules_.pits_per_side());
        prepare(c);
        finish(f.child_index[j], c, stack, chain + 1);
        const std::int8_t solved =  // a value, not a character
            aref(value_[f.child_index[j]]).load(std::memory_order_acquire);
        child_value = solved;
      }
      worth[j] = Rules::worth(f.gain[j], f.extra_turn[j], child_value);
      best = std::max(best, worth[j]);
    }
    // Depths are read only for the moves that keep the value: a move that gains seeds has
    // depth 0, an in-layer move its child's.
    int depth = 0;
    if (best != 0) {
      int pick = best > 0 ? 1 << 30 : -1;
      for (int j = 0; j < f.moves; ++j) {
        if (worth[j] != best)
          continue;
        const int d = f.gain[j] == 0 ? depth_at(f.child_index[j]) : 0;
        pick = best > 0 ? std::min(pick, d) : std::max(pick, d);
      }
      depth = 1 + pick;
    }
    store(i, best, depth, mark);
  }

  int depth_at(std::uint64_t i) {
    return overflow_.decode(i, aref(depth_[i]).load(std::memory_order_relaxed));
  }

  void store(std::uint64_t i, int value, int depth, bool mark) {
    aref(depth_[i]).store(overflow_.encode(i, depth), std::memory_order_relaxed);
    if (mark_)
      aref(mark_[i]).store(mark ? 1 : 0, std::memory_order_relaxed);
    // The value goes last: a reader that sees it also sees the depth.
    aref(value_[i]).store(static_cast<std::int8_t>(value), std::memory_order_release);
  }

  Rules rules_;
  int stones_;
  int k_;
  bool kalah_;
  bool capture_empty_opposite_;
  std::uint64_t size_ = 0;
  const std::int8_t* smaller_[kMaxIndexedStones + 1] = {};
  std::vector<std::int8_t> value_;
  DepthTable::Bytes depth_;
  DepthOverflow overflow_;
  SmallerMarks marks_;
  std::unique_ptr<std::uint8_t[]> mark_;  // per position while solving, when marks_.on()
  parallel::PerThread<std::deque<Frame>> stacks_;
  parallel::PerThread<PairScratch> scratch_{[this] { return PairScratch(*this); }};
  Ranker rank_;
};

}  // namespace

Layer solve_acyclic(const RuleSet& rules,
                    int stones,
                    const SmallerValues& smaller,
                    const SolveOptions& options) {
  AcyclicSolver solver(rules, stones, smaller, options);
  return solver.run(options.progress);
}

}  // namespace sowdb::gen::solver_internal
