#include "sowdb/probe/variant.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

namespace sowdb {
namespace {

constexpr RuleSet oware_rules(GrandSlam gs) {
  RuleSet r;
  r.family = Family::kOware;
  r.pits_per_side = 6;
  r.skip_origin = true;
  r.grand_slam = gs;
  return r.normalised();
}

constexpr RuleSet kalah_rules(bool capture_empty_opposite, KalahEnd end) {
  RuleSet r;
  r.family = Family::kKalah;
  r.pits_per_side = 6;
  r.skip_origin = false;
  r.capture_empty_opposite = capture_empty_opposite;
  r.end = end;
  return r.normalised();
}

constexpr RuleSet wari_us_rules() {
  RuleSet r;
  r.family = Family::kWariUs;
  r.pits_per_side = 6;
  r.skip_origin = false;
  return r.normalised();
}

constexpr std::array kPresets = {
    Preset{"oware",
           oware_rules(GrandSlam::kForbidden),
           "Romein & Bal's Awari databases; seed 002 (Kids and Caboodles)",
           "grand slam forbidden unless every legal move is one"},
    Preset{"abapa",
           oware_rules(GrandSlam::kNoCapture),
           "Oware Abapa tournament rules; seed 000 (Warri Society), seed 003",
           "a grand slam is legal but captures nothing"},
    Preset{"warri",
           oware_rules(GrandSlam::kNoCapture),
           "seed 000 (Warri Society), seed 003; the rules of abapa",
           "a grand slam is legal but captures nothing"},
    Preset{"wari-modar",
           oware_rules(GrandSlam::kNoCapture),
           "seed 003 (Modar Neznanich); the rules of abapa",
           "a grand slam is legal but captures nothing"},
    Preset{"ayo",
           oware_rules(GrandSlam::kCapture),
           "seed 000's note on Ayo; seed 004",
           "a grand slam captures every seed on the opponent's side"},
    Preset{"wari-pbm",
           oware_rules(GrandSlam::kCapture),
           "seed 004 (pbmserv Wari); the rules of ayo",
           "a grand slam captures every seed on the opponent's side"},
    Preset{"wari-kc",
           oware_rules(GrandSlam::kForbidden),
           "seed 002 (Kids and Caboodles); the rules of oware",
           "grand slam forbidden unless every legal move is one"},
    Preset{"kalah",
           kalah_rules(false, KalahEnd::kNoMove),
           "seed 001 (single lap mancala)",
           "game ends when the mover has no seeds; the other takes their side"},
    Preset{"kalah-tournament",
           kalah_rules(false, KalahEnd::kEmptySide),
           "the usual published Kalah rules",
           "game ends as soon as either side is empty"},
    Preset{"kalah-irving",
           kalah_rules(true, KalahEnd::kEmptySide),
           "Irving, Donkers & Uiterwijk, Solving Kalah (2000)",
           "as kalah-tournament; a lone last seed is captured even opposite an empty pit"},
    Preset{"wari-us",
           wari_us_rules(),
           "seed 003's alternate rules (U.S. sets)",
           "store sown into; captures exactly 2 opposite; capture chains sow on clockwise"},
};

std::string_view on_off(bool b) {
  return b ? "on" : "off";
}

bool parse_int(std::string_view s, int& out) {
  if (s.empty() || s.size() > 6)
    return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool fail(std::string* error, std::string message) {
  if (error)
    *error = std::move(message);
  return false;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos - start));
    if (pos == std::string_view::npos)
      break;
    start = pos + 1;
  }
  return parts;
}

bool parse_bool(std::string_view v, bool& out) {
  if (v == "on") {
    out = true;
  } else if (v == "off") {
    out = false;
  } else {
    return false;
  }
  return true;
}

bool apply_option(std::string_view item, RuleSet& rules, std::string* error) {
  auto eq = item.find('=');
  if (eq == std::string_view::npos) {
    return fail(error, "option '" + std::string(item) + "' is not of the form name=value");
  }
  std::string_view name = item.substr(0, eq);
  std::string_view value = item.substr(eq + 1);
  auto bad_value = [&](std::string_view allowed) {
    return fail(error,
                "option " + std::string(name) + " takes " + std::string(allowed) + ", not '" +
                    std::string(value) + "'");
  };
  auto not_for_family = [&] {
    return fail(error,
                "option " + std::string(name) + " does not apply to the " +
                    std::string(to_string(rules.family)) + " family");
  };
  if (name == "skip_origin") {
    if (!parse_bool(value, rules.skip_origin))
      return bad_value("on|off");
  } else if (name == "grand_slam") {
    if (rules.family != Family::kOware)
      return not_for_family();
    if (value == "capture") {
      rules.grand_slam = GrandSlam::kCapture;
    } else if (value == "no_capture") {
      rules.grand_slam = GrandSlam::kNoCapture;
    } else if (value == "forbidden") {
      rules.grand_slam = GrandSlam::kForbidden;
    } else {
      return bad_value("capture|no_capture|forbidden");
    }
  } else if (name == "capture_empty_opposite") {
    if (rules.family != Family::kKalah)
      return not_for_family();
    if (!parse_bool(value, rules.capture_empty_opposite))
      return bad_value("on|off");
  } else if (name == "end") {
    if (rules.family != Family::kKalah)
      return not_for_family();
    if (value == "no_move") {
      rules.end = KalahEnd::kNoMove;
    } else if (value == "empty_side") {
      rules.end = KalahEnd::kEmptySide;
    } else {
      return bad_value("no_move|empty_side");
    }
  } else {
    return fail(error,
                "unknown option '" + std::string(name) +
                    "' (options: skip_origin, grand_slam, capture_empty_opposite, end)");
  }
  return true;
}

}  // namespace

std::span<const Preset> presets() noexcept {
  return kPresets;
}

const Preset* find_preset(std::string_view name) noexcept {
  for (const Preset& p : kPresets) {
    if (p.name == name)
      return &p;
  }
  return nullptr;
}

std::string_view to_string(Family family) noexcept {
  switch (family) {
    case Family::kOware:
      return "oware";
    case Family::kKalah:
      return "kalah";
    case Family::kWariUs:
      return "wari-us";
  }
  return "?";
}

std::string_view to_string(GrandSlam grand_slam) noexcept {
  switch (grand_slam) {
    case GrandSlam::kCapture:
      return "capture";
    case GrandSlam::kNoCapture:
      return "no_capture";
    case GrandSlam::kForbidden:
      return "forbidden";
  }
  return "?";
}

std::string_view to_string(KalahEnd end) noexcept {
  switch (end) {
    case KalahEnd::kNoMove:
      return "no_move";
    case KalahEnd::kEmptySide:
      return "empty_side";
  }
  return "?";
}

std::string Variant::to_string() const {
  std::string s =
      preset + "/" + std::to_string(rules.pits_per_side) + "x" + std::to_string(seeds_per_pit);
  const Preset* p = find_preset(preset);
  std::vector<std::string> opts;
  if (p) {
    const RuleSet& d = p->rules;
    if (rules.skip_origin != d.skip_origin) {
      opts.push_back("skip_origin=" + std::string(on_off(rules.skip_origin)));
    }
    if (rules.grand_slam != d.grand_slam) {
      opts.push_back("grand_slam=" + std::string(sowdb::to_string(rules.grand_slam)));
    }
    if (rules.capture_empty_opposite != d.capture_empty_opposite) {
      opts.push_back("capture_empty_opposite=" + std::string(on_off(rules.capture_empty_opposite)));
    }
    if (rules.end != d.end)
      opts.push_back("end=" + std::string(sowdb::to_string(rules.end)));
  }
  for (std::size_t i = 0; i < opts.size(); ++i)
    s += (i == 0 ? "/" : ",") + opts[i];
  return s;
}

std::optional<Variant> parse_variant(std::string_view text, std::string* error) {
  auto parts = split(text, '/');
  if (parts.size() > 3) {
    fail(error, "variant '" + std::string(text) + "' has too many '/' (PRESET/PxS/OPTIONS)");
    return std::nullopt;
  }
  const Preset* preset = find_preset(parts[0]);
  if (!preset) {
    std::string names;
    for (const Preset& p : kPresets)
      names += (names.empty() ? "" : ", ") + std::string(p.name);
    fail(error, "unknown variant '" + std::string(parts[0]) + "' (known: " + names + ")");
    return std::nullopt;
  }
  Variant v;
  v.preset = std::string(preset->name);
  v.rules = preset->rules;
  if (parts.size() >= 2) {
    auto x = parts[1].find('x');
    int p = 0;
    int s = 0;
    if (x == std::string_view::npos || !parse_int(parts[1].substr(0, x), p) ||
        !parse_int(parts[1].substr(x + 1), s)) {
      fail(error, "board '" + std::string(parts[1]) + "' is not of the form PxS (e.g. 6x4)");
      return std::nullopt;
    }
    if (p < 1 || p > kMaxPitsPerSide) {
      fail(error, "pits per side must be 1..8, not " + std::to_string(p));
      return std::nullopt;
    }
    if (s < 1) {
      fail(error, "seeds per pit must be at least 1, not " + std::to_string(s));
      return std::nullopt;
    }
    if (2 * p * s > kMaxBoardStones) {
      fail(error,
           "a " + std::to_string(p) + "x" + std::to_string(s) + " board holds " +
               std::to_string(2 * p * s) + " seeds; at most " + std::to_string(kMaxBoardStones) +
               " are supported");
      return std::nullopt;
    }
    v.rules.pits_per_side = static_cast<std::uint8_t>(p);
    v.seeds_per_pit = s;
  }
  if (parts.size() == 3) {
    std::vector<std::string_view> seen;
    for (std::string_view item : split(parts[2], ',')) {
      // Two settings of one option are a typo, not a preference: refuse rather than pick one.
      const std::string_view name = item.substr(0, item.find('='));
      if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
        fail(error,
             "option '" + std::string(name) + "' is given twice in '" + std::string(text) + "'");
        return std::nullopt;
      }
      seen.push_back(name);
      if (!apply_option(item, v.rules, error))
        return std::nullopt;
    }
  }
  v.rules = v.rules.normalised();
  return v;
}

Pits Variant::start() const {
  Pits board{};
  for (int i = 0; i < rules.pits(); ++i)
    board[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(seeds_per_pit);
  return board;
}

}  // namespace sowdb
