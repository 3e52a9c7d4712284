#include "sowdb/probe/tables.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/internal/count_text.h"
#include "table_set_impl.h"

namespace sowdb {
namespace fs = std::filesystem;

const char* to_string(ProbeStatus status) noexcept {
  switch (status) {
    case ProbeStatus::kOk:
      return "Ok";
    case ProbeStatus::kBadPosition:
      return "BadPosition";
    case ProbeStatus::kTooManyStones:
      return "TooManyStones";
    case ProbeStatus::kMissingTable:
      return "MissingTable";
    case ProbeStatus::kCorruptTable:
      return "CorruptTable";
    case ProbeStatus::kGameOver:
      return "GameOver";
    case ProbeStatus::kWrongObjective:
      return "WrongObjective";
    case ProbeStatus::kUnreachable:
      return "Unreachable";
  }
  return "Unknown";
}

TableSet::TableSet(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableSet::~TableSet() = default;

namespace {

// Step 1 of TableSet::open: the directory's layer files with their headers read.
std::map<int, LayerFile> scan_directory(const fs::path& dir) {
  std::error_code ec;
  if (dir.empty())
    throw TableSetError(OpenError::kNoDirectory, dir, "the table directory is an empty path");
  if (!fs::is_directory(dir, ec)) {
    throw TableSetError(
        OpenError::kNoDirectory,
        dir,
        dir.string() + ": " + (fs::exists(dir, ec) ? "not a directory" : "no such directory"));
  }
  std::map<int, LayerFile> found;
  try {
    found = read_layer_files(dir);
  } catch (const std::system_error& e) {
    throw TableSetError(OpenError::kNoDirectory,
                        dir,
                        dir.string() + ": cannot list the directory: " + e.code().message());
  }
  if (found.empty()) {
    throw TableSetError(OpenError::kNoTables,
                        dir,
                        dir.string() + ": no table files (layer-NNN.sdb) in the directory");
  }
  return found;
}

// Step 2: every readable header holds one rule set and one objective, and layer 0 is there.
LayerAgreement check_layers(const fs::path& dir, const std::map<int, LayerFile>& found) {
  const std::optional<LayerAgreement> agreed = agreed_layers(dir, found);
  if (!agreed) {
    throw TableSetError(
        OpenError::kNoTables,
        dir,
        dir.string() + ": no readable table file (" + found.begin()->second.error + ")");
  }
  if (!found.count(0)) {
    throw TableSetError(OpenError::kLayerZeroMissing,
                        dir,
                        dir.string() + ": " + layer_file_name(0) +
                            " is missing (tables must cover every seed count from 0)",
                        describe(agreed->rules));
  }
  return *agreed;
}

// One slot per layer 0..top; a gap or a header that does not read fails only the probes that
// need that layer, with the reason kept for explain().
void make_slots(TableSet::Impl& impl, const fs::path& dir, const std::map<int, LayerFile>& found) {
  for (int n = 0; n <= impl.top; ++n) {
    auto slot = std::make_unique<LayerSlot>();
    const auto it = found.find(n);
    ProbeStatus failure = ProbeStatus::kOk;
    if (it == found.end()) {
      slot->path = dir / layer_file_name(n);
      failure = ProbeStatus::kMissingTable;
      slot->error = slot->path.string() + " is missing (the directory holds layers up to " +
                    std::to_string(impl.top) + ")";
    } else {
      const LayerFile& f = it->second;
      slot->path = f.path;
      if (!f.info) {
        failure = ProbeStatus::kCorruptTable;
        slot->error = f.error;
      } else if (f.info->stones != n) {
        failure = ProbeStatus::kCorruptTable;
        slot->error = f.path.string() + ": holds " +
                      internal::count_text(f.info->stones, "seed", "seeds") + ", not the " +
                      std::to_string(n) + " of its name";
      }
    }
    if (failure != ProbeStatus::kOk) {
      slot->failure = failure;
      slot->state.store(2);
    }
    impl.slots.push_back(std::move(slot));
  }
}

// Step 3: the manifest names the variant (the seeds per pit are nowhere else) and must agree
// with every layer's header: a missing, damaged or lying one is refused, never guessed around.
Variant read_checked_manifest(const fs::path& dir,
                              const std::map<int, LayerFile>& found,
                              const RuleSet& rules) {
  const fs::path manifest = dir / kManifestName;
  const std::string held = describe(rules);
  const std::optional<ManifestContent> content = read_manifest(dir);
  if (!content) {
    throw TableSetError(OpenError::kManifestMissing, dir, manifest.string() + " is missing", held);
  }
  if (!content->error.empty()) {
    throw TableSetError(
        content->legacy ? OpenError::kManifestUnconfirmed : OpenError::kManifestDamaged,
        dir,
        manifest.string() + ": " + content->error,
        held);
  }
  for (const auto& [n, f] : found) {
    if (f.info && !(f.info->rules.normalised() == content->variant->rules.normalised())) {
      throw TableSetError(OpenError::kManifestMismatch,
                          dir,
                          manifest.string() + " names " + content->variant->to_string() + " (" +
                              describe(content->variant->rules.normalised()) + ") but " +
                              layer_file_name(n) + " holds " + held,
                          held);
    }
  }
  return *content->variant;
}

}  // namespace

std::unique_ptr<TableSet> TableSet::open(const fs::path& dir, const TableSetOptions& options) {
  const std::map<int, LayerFile> found = scan_directory(dir);
  const LayerAgreement layers = check_layers(dir, found);
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->options = options;
  impl->rules = layers.rules;
  impl->objective = layers.objective;
  impl->engine.emplace(layers.rules);
  int max = -1;
  while (found.count(max + 1))
    ++max;
  impl->max_stones = max;
  impl->top = found.rbegin()->first;
  make_slots(*impl, dir, found);
  impl->variant = read_checked_manifest(dir, found, layers.rules);
  return std::unique_ptr<TableSet>(new TableSet(std::move(impl)));
}

const Variant& TableSet::variant() const noexcept {
  return impl_->variant;
}
const RuleSet& TableSet::rules() const noexcept {
  return impl_->rules;
}
const Rules& TableSet::engine() const noexcept {
  return *impl_->engine;
}
int TableSet::max_stones() const noexcept {
  return impl_->max_stones;
}
const fs::path& TableSet::directory() const noexcept {
  return impl_->dir;
}
Objective TableSet::objective() const noexcept {
  return impl_->objective;
}

namespace {

// Checks `position` and looks it up; the outputs are written only on success. A null `depth`
// leaves the depth frames untouched.
ProbeStatus probe_position(const TableSet::Impl& impl,
                           const Pits& position,
                           int& value,
                           int* depth) noexcept {
  int n = 0;
  ProbeStatus s = impl.check(position, n);
  if (s != ProbeStatus::kOk)
    return s;
  int v = 0;
  int d = 0;
  s = impl.lookup(position, n, v, depth ? &d : nullptr);
  if (s != ProbeStatus::kOk)
    return s;
  value = v;
  if (depth)
    *depth = d;
  return ProbeStatus::kOk;
}

}  // namespace

ProbeStatus TableSet::value(const Pits& position, int& value, int& depth) const noexcept {
  return probe_position(*impl_, position, value, &depth);
}

ProbeStatus TableSet::value(const Pits& position, int& value) const noexcept {
  return probe_position(*impl_, position, value, nullptr);
}

void TableSet::prefetch(const Pits& position) const noexcept {
  int n = 0;
  if (impl_->check(position, n) != ProbeStatus::kOk)
    return;
  const LayerSlot& slot = *impl_->slots[static_cast<std::size_t>(n)];
  if (slot.state.load(std::memory_order_acquire) == 1)
    slot.reader->prefetch(impl_->index_of(position));
}

ProbeStatus TableSet::moves(const Pits& position, MoveWorths& out) const noexcept {
  int n = 0;
  ProbeStatus s = impl_->check(position, n);
  if (s != ProbeStatus::kOk)
    return s;
  MoveList list;
  impl_->engine->legal_moves(position, list);
  out.size = 0;
  for (const Move& m : list) {
    MoveWorth& mw = out.moves[out.size];
    mw.move = m;
    int child_value = 0;
    int child_depth = 0;
    const bool in_layer = m.gain() == 0;
    s = impl_->lookup(m.child, n - m.gain(), child_value, in_layer ? &child_depth : nullptr);
    if (s != ProbeStatus::kOk)
      return s;
    mw.worth = Rules::worth(m, child_value);
    mw.depth = in_layer ? child_depth : 0;
    ++out.size;
  }
  return ProbeStatus::kOk;
}

namespace {

// The move TableSet::best_move documents, for a checked position with `n` seeds. Every move's
// worth comes from value lookups alone; depths are looked up only for the moves that tie for the
// best worth, since a depth only breaks ties: most positions have one best move, and a depth
// that misses the caches costs about as much again as the value (the principal line pays this
// at every ply). `want_depth` false leaves out.depth 0 when no tie needed it.
ProbeStatus choose_best_move(const TableSet::Impl& impl,
                             const Pits& position,
                             int n,
                             bool want_depth,
                             MoveWorth& out) noexcept {
  MoveList list;
  impl.engine->legal_moves(position, list);
  if (list.size == 0)
    return ProbeStatus::kGameOver;
  std::array<int, kMaxPitsPerSide> worth{};
  int v = 0;
  for (int i = 0; i < list.size; ++i) {
    const Move& m = list.moves[i];
    int child_value = 0;
    const ProbeStatus s = impl.lookup(m.child, n - m.gain(), child_value, nullptr);
    if (s != ProbeStatus::kOk)
      return s;
    worth[i] = Rules::worth(m, child_value);
    v = i == 0 ? worth[i] : std::max(v, worth[i]);
  }
  int ties = 0;
  for (int i = 0; i < list.size; ++i)
    ties += worth[i] == v;
  const bool need_depth = want_depth || ties > 1;
  // True when `a` is preferred to `b` (both worth v); moves come in pit order, so keeping the
  // first of equals prefers the lowest pit.
  auto better = [v](const MoveWorth& a, const MoveWorth& b) {
    if (v > 0)
      return a.depth < b.depth;
    if (v < 0)
      return a.depth > b.depth;
    const bool ga = a.move.gain() > 0;
    const bool gb = b.move.gain() > 0;
    if (ga != gb)
      return ga;
    return a.depth < b.depth;
  };
  std::optional<MoveWorth> best;  // `out` is written only on success
  for (int i = 0; i < list.size; ++i) {
    if (worth[i] != v)
      continue;
    MoveWorth mw;
    mw.move = list.moves[i];
    mw.worth = v;
    if (need_depth && mw.move.gain() == 0) {
      int child_value = 0;
      const ProbeStatus s = impl.lookup(mw.move.child, n, child_value, &mw.depth);
      if (s != ProbeStatus::kOk)
        return s;
    }
    if (!best || better(mw, *best))
      best = mw;
  }
  out = *best;
  return ProbeStatus::kOk;
}

}  // namespace

ProbeStatus TableSet::best_move(const Pits& position, MoveWorth& out) const noexcept {
  int n = 0;
  const ProbeStatus s = impl_->check(position, n);
  if (s != ProbeStatus::kOk)
    return s;
  return choose_best_move(*impl_, position, n, true, out);
}

ProbeStatus TableSet::principal_line(const Pits& position,
                                     PrincipalLine& out,
                                     int max_plies) const noexcept {
  try {
    out.steps.clear();
    out.end = LineEnd::kGameOver;
    out.net_gain = 0;
    out.last = position;
    out.last_mover = 0;
    int n = 0;
    ProbeStatus s = impl_->check(position, n);
    if (s != ProbeStatus::kOk)
      return s;
    Pits pos = position;
    int mover = 0;
    // Positions since the last gain; only these can come back (a gain leaves the layer).
    std::vector<std::pair<int, Pits>> seen;
    for (;;) {
      out.last = pos;
      out.last_mover = mover;
      const std::pair<int, Pits> key{mover, pos};
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        out.end = LineEnd::kRepetition;
        return ProbeStatus::kOk;
      }
      seen.push_back(key);
      MoveWorth best;
      s = impl_->check(pos, n);
      if (s == ProbeStatus::kOk)
        s = choose_best_move(*impl_, pos, n, false, best);
      if (s == ProbeStatus::kGameOver) {
        out.end = LineEnd::kGameOver;
        return ProbeStatus::kOk;
      }
      if (s != ProbeStatus::kOk)
        return s;
      if (static_cast<int>(out.steps.size()) >= max_plies) {
        out.end = LineEnd::kMaxPlies;
        return ProbeStatus::kOk;
      }
      LineStep step;
      step.mover = mover;
      step.pit = best.move.pit;
      step.gain = best.move.gain();
      step.extra_turn = best.move.extra_turn;
      step.before = pos;
      out.steps.push_back(step);
      out.net_gain += mover == 0 ? step.gain : -step.gain;
      if (step.gain > 0)
        seen.clear();
      pos = best.move.child;
      if (!best.move.extra_turn)
        mover ^= 1;
    }
  } catch (...) {
    return ProbeStatus::kCorruptTable;
  }
}

std::string TableSet::layer_error(int stones) const {
  if (stones < 0 || stones > impl_->top)
    return {};
  LayerSlot& slot = *impl_->slots[stones];
  std::lock_guard lock(slot.mutex);
  return slot.error;
}

int TableSet::failed_layer(const Pits& position) const {
  int n = 0;
  for (int i = 0; i < kMaxPits; ++i)
    n += position[i];
  const int top = std::min(n, impl_->top);
  const int last = probe_detail::tl_failed_layer;
  if (last >= 0 && last <= top && !layer_error(last).empty())
    return last;
  for (int m = top; m >= 0; --m) {
    if (!layer_error(m).empty())
      return m;
  }
  return -1;
}

std::string TableSet::explain(ProbeStatus status, const Pits& position) const {
  const int k = impl_->rules.pits();
  int n = 0;
  bool beyond = false;
  for (int i = 0; i < kMaxPits; ++i) {
    n += position[i];
    if (i >= k && position[i] != 0)
      beyond = true;
  }
  switch (status) {
    case ProbeStatus::kOk:
      return "ok";
    case ProbeStatus::kBadPosition:
      if (beyond) {
        return "not a position of this board: seeds beyond pit " + std::to_string(k - 1) +
               " (the tables are for " + std::to_string(k) + " pits)";
      }
      return "not a position: " + std::to_string(n) + " seeds, a board holds at most " +
             std::to_string(kMaxBoardStones);
    case ProbeStatus::kTooManyStones:
      return "position has " + internal::count_text(n, "seed", "seeds") + "; tables in " +
             impl_->dir.string() + " hold up to " + std::to_string(impl_->max_stones);
    case ProbeStatus::kMissingTable:
    case ProbeStatus::kCorruptTable:
      if (const int m = failed_layer(position); m >= 0)
        return layer_error(m);
      return status == ProbeStatus::kMissingTable
                 ? "a table file is missing in " + impl_->dir.string()
                 : "a table in " + impl_->dir.string() + " failed to read";
    case ProbeStatus::kGameOver:
      return "the game is over: the mover has no legal move";
    case ProbeStatus::kWrongObjective:
      return impl_->objective == Objective::kCooperative
                 ? "the tables in " + impl_->dir.string() +
                       " are co-operative (reachable sets): they hold no competitive values"
                 : "the tables in " + impl_->dir.string() +
                       " are competitive (values and depths): they hold no co-operative sets";
    case ProbeStatus::kUnreachable:
      return "no joint line of play reaches that difference from this position";
  }
  return "unknown status";
}

}  // namespace sowdb
