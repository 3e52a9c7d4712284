// sowdb.Variant: the rules of a game on its board, enough for a game loop or a search in Python.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "interrupt.h"
#include "sowdb/analysis/bulk_probe.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/outcome.h"

namespace sowdb::python {
namespace {

// What one move did (Variant.play).
struct MoveResult {
  py::tuple board;  // the position after the move, from the side of the player to move next
  int pit = 0;
  int stored = 0;
  int captured = 0;
  int gain = 0;
  bool extra_turn = false;
  bool grand_slam = false;
  bool game_over = false;
  std::pair<int, int> stores;  // from the side of the player to move next
};

// The end of a game under perfect play (Variant.outcome).
struct Outcome {
  std::string result;  // "win", "draw" or "loss" for the mover
  double mover = 0;
  double opponent = 0;
  bool decided = false;
  int total_seeds = 0;
};

int stones_of(const Pits& b) {
  return std::accumulate(b.begin(), b.end(), 0);
}

std::vector<int> legal_pits(const Rules& rules, const Pits& board) {
  MoveList moves;
  rules.legal_moves(board, moves);
  std::vector<int> out;
  for (const Move& m : moves)
    out.push_back(m.pit);
  return out;
}

void check_stones(int stones) {
  if (stones < 0 || stones > kMaxIndexedStones)
    throw PyError(ErrorKind::kBadPosition,
                  "a layer has 0.." + std::to_string(kMaxIndexedStones) + " seeds, not " +
                      std::to_string(stones));
}

// A layer's seeds from Python: 0..kMaxIndexedStones. ERRORS PyError(kBadPosition).
int stones_arg(py::handle obj) {
  return static_cast<int>(
      whole_arg(obj, "a layer's seeds", 0, kMaxIndexedStones, ErrorKind::kBadPosition));
}

MoveResult play(const PyVariant& self,
                py::handle board_obj,
                py::handle pit_obj,
                py::handle stores_obj) {
  const Rules& rules = *self.rules;
  const Pits board = board_from(board_obj, rules);
  const std::pair<int, int> stores = stores_arg(stores_obj);
  // Any whole number is a pit to refuse as illegal below (naming the legal ones).
  const auto pit = static_cast<int>(
      clamped_whole(pit_obj, "pit", -1, rules.pits_per_side(), ErrorKind::kIllegalMove));
  if (stores.first < 0 || stores.second < 0)
    throw PyError(ErrorKind::kBadPosition, "a store holds 0 seeds or more");
  // Stores holding more seeds than the game, whatever the board: refused as the CLI's --stores
  // and the HTTP server refuse them (the probe library's check; stores below the game's seeds,
  // as 0,0 mid-game, are fine).
  GameOutcome unused;
  if (game_outcome(self.variant, 0, stores.first, stores.second, 0, unused) ==
      OutcomeStatus::kImpossible) {
    throw PyError(ErrorKind::kBadPosition,
                  "stores (" + std::to_string(stores.first) + ", " + std::to_string(stores.second) +
                      ") hold more seeds than a game of " + self.variant.to_string() +
                      ", which holds " + std::to_string(self.variant.total_stones()));
  }
  Move m;
  if (pit < 0 || pit >= rules.pits_per_side() || !rules.play(board, pit, m)) {
    std::string legal;
    for (const int p : legal_pits(rules, board))
      legal += (legal.empty() ? "" : ", ") + std::to_string(p);
    throw PyError(ErrorKind::kIllegalMove,
                  "pit " + std::string(py::str(pit_obj)) +
                      " is not a legal move here; the legal moves are [" + legal + "] (pits 0.." +
                      std::to_string(rules.pits_per_side() - 1) + " from the mover's left)");
  }
  MoveResult r;
  r.board = board_tuple(m.child, rules.board_pits());
  r.pit = m.pit;
  r.stored = m.stored;
  r.captured = m.captured;
  r.gain = m.gain();
  r.extra_turn = m.extra_turn;
  r.grand_slam = m.grand_slam;
  MoveList next;
  r.game_over = rules.legal_moves(m.child, next) == 0;
  const int mover = stores.first + m.gain();
  r.stores = m.extra_turn ? std::pair(mover, stores.second) : std::pair(stores.second, mover);
  return r;
}

Outcome outcome(const PyVariant& self,
                py::handle board_obj,
                py::handle value_obj,
                py::handle stores_obj) {
  const Rules& rules = *self.rules;
  const Pits board = board_from(board_obj, rules);
  const std::pair<int, int> stores = stores_arg(stores_obj);
  std::optional<int> value;
  if (!value_obj.is_none())
    value = static_cast<int>(
        whole_arg(value_obj, "value", -kMaxBoardStones, kMaxBoardStones, ErrorKind::kBadPosition));
  if (!value) {
    MoveList moves;
    if (rules.legal_moves(board, moves) != 0)
      throw PyError(ErrorKind::kBadPosition,
                    "the game is not over here: give the position's value (TableSet.value)");
    value = rules.final_value(board);
  }
  GameOutcome o;
  std::string error;
  if (game_outcome(
          self.variant, *value, stores.first, stores.second, stones_of(board), o, &error) !=
      OutcomeStatus::kOk)
    throw PyError(ErrorKind::kBadPosition, error);
  return {to_string(o.result), o.mover, o.opponent, o.decided, o.total_seeds};
}

py::array_t<std::uint8_t> positions(const PyVariant& self,
                                    py::handle stones_obj,
                                    py::handle indices_obj,
                                    py::handle threads_obj) {
  const int stones = stones_arg(stones_obj);
  const int threads = threads_arg(threads_obj, ErrorKind::kBadArray);
  py::module_ np = py::module_::import("numpy");
  py::array indices = np.attr("asarray")(indices_obj);
  const char kind = indices.dtype().kind();
  if (kind != 'i' && kind != 'u')
    throw PyError(
        ErrorKind::kBadArray,
        "indices must be integers, not " + indices.dtype().attr("name").cast<std::string>());
  if (kind == 'i' && indices.size() > 0 && np.attr("any")(indices.attr("__lt__")(0)).cast<bool>())
    throw PyError(ErrorKind::kBadArray, "indices must be 0 or more");
  const auto flat = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(
      indices.attr("ravel")());
  const int k = self.rules->board_pits();
  const auto n = static_cast<py::ssize_t>(flat.size());
  py::array_t<std::uint8_t> out({n, static_cast<py::ssize_t>(k)});
  const std::span<const std::uint64_t> in(flat.data(), flat.size());
  const std::span<std::uint8_t> rows(out.mutable_data(), static_cast<std::size_t>(out.size()));
  try {
    for_slices(in.size(), first_slice_rows(threads), [&](std::size_t begin, std::size_t end) {
      positions_of_indices(k,
                           stones,
                           in.subspan(begin, end - begin),
                           rows.subspan(begin * static_cast<std::size_t>(k),
                                        (end - begin) * static_cast<std::size_t>(k)),
                           threads);
    });
  } catch (const std::invalid_argument& e) {
    throw PyError(ErrorKind::kBadArray, e.what());
  }
  return out;
}

}  // namespace

PyVariant make_variant(const std::string& text, const py::object& pits, const py::object& seeds) {
  std::string full = text;
  const bool board_given = !pits.is_none() || !seeds.is_none();
  if (board_given) {
    if (text.find('/') != std::string::npos)
      throw PyError(ErrorKind::kBadVariant,
                    "'" + text +
                        "' names its board already: give the board in "
                        "the text or as pits=/seeds=, not both");
    const Preset* preset = find_preset(text);
    if (!preset) {
      std::string error;
      parse_variant(text, &error);
      throw PyError(ErrorKind::kBadVariant, error);
    }
    // Any whole number goes to the parser, which names the bounds (clamped to stay a number).
    const auto board_arg = [](const py::object& obj, const char* name, long long unset) {
      return obj.is_none() ? unset : clamped_whole(obj, name, -1, 1000, ErrorKind::kBadVariant);
    };
    const long long p = board_arg(pits, "pits", preset->rules.pits_per_side);
    const long long s = board_arg(seeds, "seeds", 4);
    full = text + "/" + std::to_string(p) + "x" + std::to_string(s);
  }
  std::string error;
  const auto v = parse_variant(full, &error);
  if (!v)
    throw PyError(ErrorKind::kBadVariant, error);
  return PyVariant(*v);
}

PyVariant variant_from(py::handle obj) {
  if (py::isinstance<PyVariant>(obj))
    return obj.cast<PyVariant>();
  if (py::isinstance<py::str>(obj))
    return make_variant(obj.cast<std::string>(), py::none(), py::none());
  throw PyError(ErrorKind::kBadVariant,
                "a variant is a sowdb.Variant or its text ('oware', "
                "'kalah/4x3'), not " +
                    py::type::of(obj).attr("__name__").cast<std::string>());
}

namespace {

// The value types Variant's methods return: MoveResult and Outcome.
void def_variant_results(py::module_& m) {
  py::class_<MoveResult>(m, "MoveResult", "What one move did (Variant.play).")
      .def_readonly("board",
                    &MoveResult::board,
                    "The position after the move, from the side of the player to move next (the "
                    "mover again after an extra turn, else the opponent).")
      .def_readonly("pit", &MoveResult::pit, "The pit sown, 0..P-1 from the mover's left.")
      .def_readonly("stored",
                    &MoveResult::stored,
                    "Seeds sown straight into the mover's store (Kalah family, wari-us).")
      .def_readonly("captured", &MoveResult::captured, "Seeds captured.")
      .def_readonly("gain", &MoveResult::gain, "stored + captured: seeds the mover took.")
      .def_readonly("extra_turn", &MoveResult::extra_turn, "The mover moves again.")
      .def_readonly("grand_slam",
                    &MoveResult::grand_slam,
                    "Oware family: the sowing would capture every opposing seed.")
      .def_readonly("game_over",
                    &MoveResult::game_over,
                    "The player to move next has no legal move: the game is over (see "
                    "Variant.outcome).")
      .def_readonly("stores",
                    &MoveResult::stores,
                    "The stores after the move, from the side of the player to move next.")
      .def("__repr__", [](const MoveResult& r) {
        return "MoveResult(pit=" + std::to_string(r.pit) + ", gain=" + std::to_string(r.gain) +
               ", extra_turn=" + (r.extra_turn ? "True" : "False") +
               ", game_over=" + (r.game_over ? "True" : "False") +
               ", board=" + std::string(py::repr(r.board)) + ")";
      });

  py::class_<Outcome>(m, "Outcome", "The end of a game under perfect play, for the mover.")
      .def_readonly("result", &Outcome::result, "'win', 'draw' or 'loss' for the mover.")
      .def_readonly(
          "mover", &Outcome::mover, "The mover's final seeds: its store plus (stones + value) / 2.")
      .def_readonly("opponent", &Outcome::opponent, "The opponent's final seeds.")
      .def_readonly("decided",
                    &Outcome::decided,
                    "Oware family: a store already holds more than half the seeds.")
      .def_readonly("total_seeds", &Outcome::total_seeds, "Seeds in the game.")
      .def("__repr__", [](const Outcome& o) {
        return "Outcome(result='" + o.result +
               "', mover=" + py::repr(py::float_(o.mover)).cast<std::string>() +
               ", opponent=" + py::repr(py::float_(o.opponent)).cast<std::string>() + ")";
      });
}

}  // namespace

void def_variant(py::module_& m) {
  def_variant_results(m);
  py::class_<PyVariant>(m,
                        "Variant",
                        "A rule system on a board: Variant('oware'), Variant('kalah', pits=4, "
                        "seeds=3) or Variant('kalah/4x3').\n\n"
                        "Boards are sequences of 2P pit counts, the mover's P pits first (from "
                        "the mover's left), then the opponent's.")
      .def(py::init(&make_variant),
           py::arg("name"),
           py::arg("pits") = py::none(),
           py::arg("seeds") = py::none(),
           "A preset ('oware', 'kalah', ...; docs/RULES.md) on P pits a side with S seeds a "
           "pit (default: the preset's board and 4 seeds), or the full text "
           "'PRESET/PxS[/OPTION=VALUE,...]'. Raises BadVariantError.")
      .def_property_readonly(
          "name",
          [](const PyVariant& v) { return v.variant.to_string(); },
          "The canonical text, e.g. 'kalah/4x3'.")
      .def_property_readonly(
          "preset", [](const PyVariant& v) { return v.variant.preset; }, "The preset's name.")
      .def_property_readonly(
          "pits", [](const PyVariant& v) { return v.rules->pits_per_side(); }, "P: pits per side.")
      .def_property_readonly(
          "board_pits",
          [](const PyVariant& v) { return v.rules->board_pits(); },
          "2P: pits on the board (the length of a board).")
      .def_property_readonly(
          "seeds",
          [](const PyVariant& v) { return v.variant.seeds_per_pit; },
          "S: seeds per pit at the start.")
      .def_property_readonly(
          "total_stones",
          [](const PyVariant& v) { return v.variant.total_stones(); },
          "2PS: seeds in the game.")
      .def(
          "start",
          [](const PyVariant& v) { return board_tuple(v.variant.start(), v.rules->board_pits()); },
          "The start position.")
      .def(
          "legal_moves",
          [](const PyVariant& v, py::handle board) {
            return legal_pits(*v.rules, board_from(board, *v.rules));
          },
          py::arg("board"),
          "The mover's legal pits, in order; empty when the game is over.")
      .def("play",
           &play,
           py::arg("board"),
           py::arg("pit"),
           py::arg("stores") = py::make_tuple(0, 0),
           "Plays `pit` (0..P-1 from the mover's left) and returns a MoveResult. `stores` are "
           "the seeds already taken, mover first (together at most the game's 2PS seeds). Raises "
           "IllegalMoveError, BadPositionError.")
      .def(
          "is_game_over",
          [](const PyVariant& v, py::handle board) {
            MoveList moves;
            return v.rules->legal_moves(board_from(board, *v.rules), moves) == 0;
          },
          py::arg("board"),
          "Whether the mover has no legal move.")
      .def(
          "final_value",
          [](const PyVariant& v, py::handle board) {
            return v.rules->final_value(board_from(board, *v.rules));
          },
          py::arg("board"),
          "The mover's seeds minus the opponent's on the board: what the end of the game gives "
          "the mover when it has no legal move.")
      .def(
          "rotate",
          [](const PyVariant& v, py::handle board) {
            return board_tuple(v.rules->rotate(board_from(board, *v.rules)), v.rules->board_pits());
          },
          py::arg("board"),
          "The board seen from the other player.")
      .def("outcome",
           &outcome,
           py::arg("board"),
           py::arg("value") = py::none(),
           py::arg("stores") = py::make_tuple(0, 0),
           "The end of the game under perfect play from a position of value `value` (a "
           "table's answer; None: the game must be over, and its final value is used) with "
           "`stores` already taken. Raises BadPositionError for stores the game cannot hold.")
      .def(
          "layer_size",
          [](const PyVariant& v, py::handle stones) {
            return layer_size(v.rules->board_pits(), stones_arg(stones));
          },
          py::arg("stones"),
          "Positions with `stones` seeds on the board (one table layer).")
      .def(
          "index",
          [](const PyVariant& v, py::handle board) {
            const Pits b = board_from(board, *v.rules);
            check_stones(stones_of(b));
            return rank(std::span<const std::uint8_t>(
                b.data(), static_cast<std::size_t>(v.rules->board_pits())));
          },
          py::arg("board"),
          "The board's index in its layer (the tables' order).")
      .def("positions",
           &positions,
           py::arg("stones"),
           py::arg("indices"),
           py::arg("threads") = 0,
           "The positions of layer `stones` with these indices, as an (N, 2P) uint8 array.")
      .def("__eq__",
           [](const PyVariant& a, const PyVariant& b) {
             return a.variant.to_string() == b.variant.to_string();
           })
      .def("__hash__", [](const PyVariant& v) { return py::hash(py::str(v.variant.to_string())); })
      .def("__str__", [](const PyVariant& v) { return v.variant.to_string(); })
      .def("__repr__",
           [](const PyVariant& v) { return "sowdb.Variant('" + v.variant.to_string() + "')"; });
}

}  // namespace sowdb::python
