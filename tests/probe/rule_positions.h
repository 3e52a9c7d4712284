// Random positions biased towards the cases the rules tests must see (captures, grand slams,
// feeding, empty sides, laps), and the rule configurations to run them on: every preset with
// skip_origin both ways, plus the option combinations no preset has.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sowdb/format/rule_set.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

namespace sowdb::test {

class PositionSource {
 public:
  explicit PositionSource(std::uint64_t seed) : rng_(seed) {}

  Pits next(int p) {
    const int k = 2 * p;
    Pits b{};
    const int mode = uniform(0, 7);
    switch (mode) {
      case 0:  // small counts everywhere: 2s and 3s, captures
        for (int i = 0; i < k; ++i)
          b[i] = small(0, 3);
        break;
      case 1:  // a sparse opponent: grand slams
        for (int i = 0; i < p; ++i)
          b[i] = small(0, 4);
        for (int i = p; i < k; ++i)
          b[i] = chance(60) ? 0 : small(1, 2);
        break;
      case 2:  // the opponent empty: feeding
        for (int i = 0; i < p; ++i)
          b[i] = chance(40) ? 0 : small(1, k + 3);
        break;
      case 3:  // the mover empty, or one seed left
        for (int i = p; i < k; ++i)
          b[i] = small(0, 5);
        if (chance(50))
          b[uniform(0, p - 1)] = 1;
        break;
      case 4:  // a lap: one big pit
        for (int i = 0; i < k; ++i)
          b[i] = chance(50) ? 0 : small(1, 3);
        b[uniform(0, p - 1)] = small(2 * p - 1, 4 * p + 3);
        break;
      case 5:  // a lap against a sparse or empty opponent
        for (int i = 0; i < p; ++i)
          b[i] = chance(50) ? 0 : small(1, 2);
        for (int i = p; i < k; ++i)
          b[i] = chance(70) ? 0 : 1;
        b[uniform(0, p - 1)] = small(2 * p - 1, 4 * p + 3);
        break;
      case 6:  // near the end of a game
        for (int i = 0; i < k; ++i)
          b[i] = chance(70) ? 0 : small(1, 3);
        break;
      default:  // anything
        for (int i = 0; i < k; ++i)
          b[i] = small(0, 9);
        break;
    }
    return b;
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::uint8_t small(int lo, int hi) { return static_cast<std::uint8_t>(uniform(lo, hi)); }
  bool chance(int percent) { return uniform(0, 99) < percent; }

  std::mt19937_64 rng_;
};

struct Config {
  std::string name;
  RuleSet rules;  // pits_per_side is set per board size
};

// Every preset with skip_origin both ways, plus the option combinations no preset has.
inline std::vector<Config> configs_of(Family family) {
  std::vector<Config> out;
  for (const Preset& p : presets()) {
    if (p.rules.family != family)
      continue;
    for (bool skip : {true, false}) {
      RuleSet r = p.rules;
      r.skip_origin = skip;
      out.push_back({std::string(p.name) + (skip ? "/skip_origin=on" : "/skip_origin=off"), r});
    }
  }
  if (family == Family::kKalah) {
    RuleSet r = find_preset("kalah")->rules;
    r.capture_empty_opposite = true;
    out.push_back({"kalah/capture_empty_opposite=on,end=no_move", r});
  }
  return out;
}

}  // namespace sowdb::test
