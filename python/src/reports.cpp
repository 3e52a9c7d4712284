// The result types of sowdb.TableSet's calls: ProbeResult (one probe, with MoveInfo and
// LineStep) and Labels (a bulk call).
#include "reports.h"

#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sowdb/analysis/position_answer.h"
#include "sowdb/analysis/report_json.h"
#include "sowdb/probe/outcome.h"

namespace sowdb::python {
namespace {

// One move of a probed position: the report's moves[index].
struct MoveView {
  Report report;
  std::size_t index = 0;
  const ReportedMove& move() const { return report->moves[index]; }
};

// One ply of a probed position's principal line: the report's line.steps[index].
struct StepView {
  Report report;
  std::size_t index = 0;
  const LineStep& step() const { return report->line.steps[index]; }
};

int board_pits(const PositionReport& r) {
  return r.variant.rules.pits();
}

// A probe's parts: MoveInfo (one legal move) and LineStep (one ply of the line).
void def_move_and_step(py::module_& m) {
  py::class_<MoveView>(m, "MoveInfo", "One legal move of a probed position.")
      .def_property_readonly(
          "pit",
          [](const MoveView& v) { return v.move().pit; },
          "The pit sown, 0..P-1 from the mover's left.")
      .def_property_readonly(
          "worth",
          [](const MoveView& v) {
            return v.move().exact() ? std::optional<int>(v.move().worth) : std::nullopt;
          },
          "Seeds the mover nets from the position by playing it, perfect play after; None "
          "while a search has not proved it.")
      .def_property_readonly(
          "lower", [](const MoveView& v) { return v.move().lower; }, "The worth is at least this.")
      .def_property_readonly(
          "upper", [](const MoveView& v) { return v.move().upper; }, "The worth is at most this.")
      .def_property_readonly(
          "depth",
          [](const MoveView& v) {
            return v.report->method == AnswerMethod::kTable ? std::optional<int>(v.move().depth)
                                                            : std::nullopt;
          },
          "Plies to realise the worth after the move (0 when it gains seeds); None after a "
          "search.")
      .def_property_readonly(
          "gain",
          [](const MoveView& v) { return v.move().gain; },
          "Seeds the move sends to the mover's store.")
      .def_property_readonly(
          "stored",
          [](const MoveView& v) { return v.move().stored; },
          "Seeds sown straight into the store.")
      .def_property_readonly(
          "captured", [](const MoveView& v) { return v.move().captured; }, "Seeds captured.")
      .def_property_readonly(
          "extra_turn",
          [](const MoveView& v) { return v.move().extra_turn; },
          "The mover moves again.")
      .def_property_readonly(
          "category",
          [](const MoveView& v) {
            return v.move().category_known
                       ? std::optional<std::string>(to_string(v.move().category))
                       : std::nullopt;
          },
          "'win', 'draw' or 'loss': the game's result after this move with the stores; None "
          "while a search's bounds do not decide it.")
      .def_property_readonly(
          "after",
          [](const MoveView& v) { return board_tuple(v.move().after, board_pits(*v.report)); },
          "The position after the move, from the side of the player to move next.")
      .def("__repr__", [](const MoveView& v) {
        const ReportedMove& i = v.move();
        return "MoveInfo(pit=" + std::to_string(i.pit) + ", worth=" + std::to_string(i.worth) +
               ", depth=" + std::to_string(i.depth) + ", category='" + to_string(i.category) + "')";
      });

  py::class_<StepView>(m, "LineStep", "One ply of a principal line.")
      .def_property_readonly(
          "mover",
          [](const StepView& v) { return v.step().mover; },
          "0: the player to move at the probed position; 1: the other.")
      .def_property_readonly(
          "pit",
          [](const StepView& v) { return v.step().pit; },
          "The pit sown, from the mover's side.")
      .def_property_readonly(
          "gain", [](const StepView& v) { return v.step().gain; }, "Seeds the move took.")
      .def_property_readonly(
          "extra_turn",
          [](const StepView& v) { return v.step().extra_turn; },
          "The same player moves again.")
      .def_property_readonly(
          "before",
          [](const StepView& v) { return board_tuple(v.step().before, board_pits(*v.report)); },
          "The position before the move, from the mover's side.");
}

// ProbeResult: one probed position. After def_move_and_step, whose types its fields return.
void def_probe_result(py::module_& m) {
  py::class_<PositionReport, Report>(
      m,
      "ProbeResult",
      "Everything the tables say about one position (TableSet.probe): the "
      "fields of `sowdb probe --json`.")
      .def_property_readonly(
          "variant",
          [](const PositionReport& r) { return r.variant.to_string(); },
          "The tables' variant.")
      .def_property_readonly(
          "board",
          [](const PositionReport& r) { return board_tuple(r.board, board_pits(r)); },
          "The position, mover first.")
      .def_readonly("stones", &PositionReport::stones, "Seeds on the board.")
      .def_property_readonly(
          "stores",
          [](const PositionReport& r) { return std::make_pair(r.store_mover, r.store_opponent); },
          "Seeds already taken, mover first.")
      .def_property_readonly(
          "value",
          [](const PositionReport& r) {
            return r.exact() ? std::optional<int>(r.value) : std::nullopt;
          },
          "Seeds the mover nets from here under perfect play; None while a search has not "
          "proved it (lower and upper bound it).")
      .def_readonly("lower", &PositionReport::lower, "The value is at least this.")
      .def_readonly("upper", &PositionReport::upper, "The value is at most this.")
      .def_property_readonly(
          "method",
          [](const PositionReport& r) { return std::string(to_string(r.method)); },
          "'table' (the tables hold the position) or 'search' (a search above them).")
      .def_property_readonly(
          "depth",
          [](const PositionReport& r) {
            return r.method == AnswerMethod::kTable ? std::optional<int>(r.depth) : std::nullopt;
          },
          "Plies to realise the value; None after a search.")
      .def_property_readonly(
          "search",
          [](const PositionReport& r) -> py::object {
            if (!r.search)
              return py::none();
            py::dict d;
            d["positions"] = r.search->positions;
            d["seconds"] = r.search->seconds;
            d["complete"] = r.search->complete;
            d["stopped_by"] = r.search->stopped_by.empty() ? py::object(py::none())
                                                           : py::str(r.search->stopped_by);
            d["stored"] = r.search->stored;
            d["tables_max"] = r.search->tables_max;
            d["best_found"] = r.search->best_found >= 0 ? py::object(py::int_(r.search->best_found))
                                                        : py::object(py::none());
            const auto seconds = [](double s) {
              return s >= 0 ? py::object(py::float_(s)) : py::object(py::none());
            };
            d["value_seconds"] = seconds(r.search->value_seconds);
            d["best_seconds"] = seconds(r.search->best_seconds);
            return d;
          },
          "None from the tables; after a search, the keys of `sowdb probe --json`'s \"search\".")
      .def_property_readonly(
          "result",
          [](const PositionReport& r) {
            return r.outcome_known ? std::optional<std::string>(to_string(r.outcome.result))
                                   : std::nullopt;
          },
          "'win', 'draw' or 'loss' for the mover; None while a search's bounds do not decide it.")
      .def_property_readonly(
          "final",
          [](const PositionReport& r) {
            return r.exact() ? std::optional(std::make_pair(r.outcome.mover, r.outcome.opponent))
                             : std::nullopt;
          },
          "The final seeds (mover, opponent) with the stores; None while the value is not "
          "proved.")
      .def_property_readonly(
          "decided",
          [](const PositionReport& r) { return r.outcome.decided; },
          "Oware family: a store already holds a majority.")
      .def_property_readonly(
          "game_over",
          [](const PositionReport& r) { return r.moves.empty(); },
          "The mover has no legal move.")
      .def_property_readonly(
          "moves",
          [](const Report& r) {
            std::vector<MoveView> out;
            for (std::size_t i = 0; i < r->moves.size(); ++i)
              out.push_back({r, i});
            return out;
          },
          "Every legal move, best first (MoveInfo).")
      .def_property_readonly(
          "best",
          [](const PositionReport& r) { return r.best(); },
          "The best move's pit; None when the game is over.")
      .def_property_readonly(
          "line",
          [](const PositionReport& r) {
            std::vector<int> pits;
            for (const LineStep& s : r.line.steps)
              pits.push_back(s.pit);
            return pits;
          },
          "The principal line's pits.")
      .def_property_readonly(
          "line_steps",
          [](const Report& r) {
            std::vector<StepView> out;
            for (std::size_t i = 0; i < r->line.steps.size(); ++i)
              out.push_back({r, i});
            return out;
          },
          "The principal line (LineStep).")
      .def_property_readonly(
          "line_end",
          [](const PositionReport& r) {
            return std::string(r.line_proved ? line_end_text(r.line.end) : "unproved");
          },
          "Why the line stopped: 'game_over', 'endless', 'max_plies', or 'unproved' where a "
          "search's proved moves end.")
      .def("__repr__", [](const PositionReport& r) {
        return "ProbeResult(value=" + std::to_string(r.value) +
               ", depth=" + std::to_string(r.depth) + ", result='" + to_string(r.outcome.result) +
               "', best=" + (r.best() ? std::to_string(*r.best()) : std::string("None")) + ")";
      });
}

// Labels: the answers of a bulk call.
void def_labels(py::module_& m) {
  py::class_<Labels>(m,
                     "Labels",
                     "The answers of a bulk call, one entry per board: `value` (int8; -128 "
                     "where the status is neither OK nor GAME_OVER), `status` (uint8, "
                     "sowdb.Status), `depth` (uint16; 65535 where neither) and `best` (int8; -1 "
                     "where the status is not OK) when asked for. GAME_OVER: a finished game "
                     "(the mover has no legal move), its final value, depth 0, best -1.")
      .def_readonly("value", &Labels::value)
      .def_readonly("status", &Labels::status)
      .def_readonly("depth", &Labels::depth)
      .def_readonly("best", &Labels::best)
      .def_property_readonly(
          "ok",
          [](const Labels& l) {
            // OK, or GAME_OVER (a finished game, its final value given).
            const auto game_over = static_cast<int>(ProbeStatus::kGameOver);
            return l.status.attr("__eq__")(0).attr("__or__")(l.status.attr("__eq__")(game_over));
          },
          "A boolean mask: the boards with a value (status OK, or GAME_OVER: a finished game).")
      .def("__len__", [](const Labels& l) { return py::len(l.value); });
}

}  // namespace

void def_probe_results(py::module_& m) {
  def_move_and_step(m);
  def_probe_result(m);
  def_labels(m);
}

}  // namespace sowdb::python
