// Presets and the canonical variant text `PRESET/PxS[/OPTION=VALUE,...]` (docs/RULES.md, presets).
#include "sowdb/probe/variant.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sowdb {
namespace {

struct ExpectedPreset {
  const char* name;
  Family family;
  bool skip_origin;
  GrandSlam grand_slam;  // Oware family only
  bool capture_empty_opposite;
  KalahEnd end;
};

// The preset tables of docs/RULES.md.
constexpr ExpectedPreset kExpected[] = {
    {"oware", Family::kOware, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove},
    {"abapa", Family::kOware, true, GrandSlam::kNoCapture, false, KalahEnd::kNoMove},
    {"warri", Family::kOware, true, GrandSlam::kNoCapture, false, KalahEnd::kNoMove},
    {"wari-modar", Family::kOware, true, GrandSlam::kNoCapture, false, KalahEnd::kNoMove},
    {"ayo", Family::kOware, true, GrandSlam::kCapture, false, KalahEnd::kNoMove},
    {"wari-pbm", Family::kOware, true, GrandSlam::kCapture, false, KalahEnd::kNoMove},
    {"wari-kc", Family::kOware, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove},
    {"kalah", Family::kKalah, false, GrandSlam::kCapture, false, KalahEnd::kNoMove},
    {"kalah-tournament", Family::kKalah, false, GrandSlam::kCapture, false, KalahEnd::kEmptySide},
    {"kalah-irving", Family::kKalah, false, GrandSlam::kCapture, true, KalahEnd::kEmptySide},
    {"wari-us", Family::kWariUs, false, GrandSlam::kCapture, false, KalahEnd::kNoMove},
};

TEST(Variant, EveryPresetOfVariantsMdIsThereWithItsRules) {
  ASSERT_EQ(presets().size(), std::size(kExpected));
  for (std::size_t i = 0; i < std::size(kExpected); ++i) {
    const ExpectedPreset& e = kExpected[i];
    SCOPED_TRACE(e.name);
    EXPECT_EQ(presets()[i].name, e.name);
    const Preset* p = find_preset(e.name);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->rules.family, e.family);
    EXPECT_EQ(p->rules.pits_per_side, 6);
    EXPECT_EQ(p->rules.skip_origin, e.skip_origin);
    if (e.family == Family::kOware) {
      EXPECT_EQ(p->rules.grand_slam, e.grand_slam);
    }
    EXPECT_EQ(p->rules.capture_empty_opposite, e.capture_empty_opposite);
    EXPECT_EQ(p->rules.end, e.end);
    EXPECT_EQ(p->rules, p->rules.normalised());
    EXPECT_FALSE(p->source.empty());
    EXPECT_FALSE(p->description.empty());
  }
  EXPECT_EQ(find_preset("kalah-Irving"), nullptr);
  EXPECT_EQ(find_preset(""), nullptr);
}

TEST(Variant, EveryPresetParsesToItsStandardBoard) {
  for (const Preset& p : presets()) {
    SCOPED_TRACE(p.name);
    std::string error;
    std::optional<Variant> v = parse_variant(p.name, &error);
    ASSERT_TRUE(v.has_value()) << error;
    EXPECT_EQ(v->preset, p.name);
    EXPECT_EQ(v->rules, p.rules);
    EXPECT_EQ(v->seeds_per_pit, 4);
    EXPECT_EQ(v->total_stones(), 48);
    EXPECT_EQ(v->to_string(), std::string(p.name) + "/6x4");
    EXPECT_EQ(parse_variant(std::string(p.name) + "/6x4"), v);
  }
}

TEST(Variant, CanonicalTextRoundTripsForEveryBoardAndOption) {
  int checked = 0;
  for (const Preset& p : presets()) {
    std::vector<std::string> option_sets = {"", "skip_origin=on", "skip_origin=off"};
    if (p.rules.family == Family::kOware) {
      for (const char* gs : {"capture", "no_capture", "forbidden"}) {
        option_sets.push_back(std::string("grand_slam=") + gs);
        option_sets.push_back(std::string("skip_origin=off,grand_slam=") + gs);
      }
    }
    if (p.rules.family == Family::kKalah) {
      for (const char* ceo : {"on", "off"}) {
        for (const char* end : {"no_move", "empty_side"}) {
          option_sets.push_back(std::string("capture_empty_opposite=") + ceo + ",end=" + end);
          option_sets.push_back(std::string("end=") + end + ",skip_origin=on," +
                                "capture_empty_opposite=" + ceo);
        }
      }
    }
    for (int pits = 1; pits <= 8; ++pits) {
      for (int seeds : {1, 2, 3, 4, 5, 7}) {
        if (2 * pits * seeds > kMaxBoardStones)
          continue;
        for (const std::string& opts : option_sets) {
          std::string text = std::string(p.name) + "/" + std::to_string(pits) + "x" +
                             std::to_string(seeds) + (opts.empty() ? "" : "/" + opts);
          SCOPED_TRACE(text);
          std::string error;
          std::optional<Variant> v = parse_variant(text, &error);
          ASSERT_TRUE(v.has_value()) << error;
          EXPECT_EQ(v->rules.pits_per_side, pits);
          EXPECT_EQ(v->seeds_per_pit, seeds);
          EXPECT_EQ(v->total_stones(), 2 * pits * seeds);
          EXPECT_EQ(v->rules, v->rules.normalised());
          const std::string canonical = v->to_string();
          std::optional<Variant> again = parse_variant(canonical, &error);
          ASSERT_TRUE(again.has_value()) << canonical << ": " << error;
          EXPECT_EQ(*again, *v);
          EXPECT_EQ(again->to_string(), canonical);
          // Options equal to the preset's are left out of the canonical text.
          const bool same_as_preset =
              v->rules.skip_origin == p.rules.skip_origin &&
              v->rules.grand_slam == p.rules.grand_slam &&
              v->rules.capture_empty_opposite == p.rules.capture_empty_opposite &&
              v->rules.end == p.rules.end;
          EXPECT_EQ(canonical.find('=') == std::string::npos, same_as_preset) << canonical;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(Variant, OptionsChangeTheRules) {
  std::optional<Variant> v = parse_variant("oware/4x3/grand_slam=capture,skip_origin=off");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->preset, "oware");
  EXPECT_EQ(v->rules.family, Family::kOware);
  EXPECT_EQ(v->rules.pits_per_side, 4);
  EXPECT_EQ(v->seeds_per_pit, 3);
  EXPECT_EQ(v->rules.grand_slam, GrandSlam::kCapture);
  EXPECT_FALSE(v->rules.skip_origin);
  // Fixed option order in the canonical text, whatever order the input used.
  EXPECT_EQ(v->to_string(), "oware/4x3/skip_origin=off,grand_slam=capture");

  v = parse_variant("kalah/6x4/end=empty_side,capture_empty_opposite=on");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->rules.end, KalahEnd::kEmptySide);
  EXPECT_TRUE(v->rules.capture_empty_opposite);
  EXPECT_EQ(v->rules, find_preset("kalah-irving")->rules);
  EXPECT_EQ(v->to_string(), "kalah/6x4/capture_empty_opposite=on,end=empty_side");
  // The same rules under another name are another variant (each answers to its own name).
  EXPECT_NE(*v, *parse_variant("kalah-irving"));

  v = parse_variant("kalah-irving/6x4/capture_empty_opposite=off,end=no_move");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->rules, find_preset("kalah")->rules);

  v = parse_variant("wari-us/3x2/skip_origin=on");
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(v->rules.skip_origin);
  EXPECT_EQ(v->to_string(), "wari-us/3x2/skip_origin=on");

  // Setting an option to the preset's value changes nothing.
  EXPECT_EQ(parse_variant("abapa/6x4/grand_slam=no_capture"), parse_variant("abapa"));
  // The largest board that fits: 2 * 8 * 15 = 240 seeds; 2 * 1 * 127 = 254.
  EXPECT_TRUE(parse_variant("oware/8x15").has_value());
  EXPECT_TRUE(parse_variant("oware/1x127").has_value());
}

TEST(Variant, OptionValueNames) {
  EXPECT_EQ(to_string(Family::kOware), "oware");
  EXPECT_EQ(to_string(Family::kKalah), "kalah");
  EXPECT_EQ(to_string(Family::kWariUs), "wari-us");
  EXPECT_EQ(to_string(GrandSlam::kCapture), "capture");
  EXPECT_EQ(to_string(GrandSlam::kNoCapture), "no_capture");
  EXPECT_EQ(to_string(GrandSlam::kForbidden), "forbidden");
  EXPECT_EQ(to_string(KalahEnd::kNoMove), "no_move");
  EXPECT_EQ(to_string(KalahEnd::kEmptySide), "empty_side");
}

struct BadInput {
  const char* text;
  const char* mentions;  // a word the error must contain
};

TEST(Variant, BadInputGivesNulloptAndOneLineError) {
  const BadInput bad[] = {
      {"nosuch", "nosuch"},
      {"", "unknown"},
      {"Oware", "Oware"},
      {"oware/0x4", "1..8"},
      {"oware/9x4", "1..8"},
      {"oware/-1x4", "1..8"},
      {"oware/6x0", "seeds"},
      {"oware/6x-2", "seeds"},
      {"oware/6", "PxS"},
      {"oware/x4", "PxS"},
      {"oware/6x", "PxS"},
      {"oware/6x4x2", "PxS"},
      {"oware/six", "PxS"},
      {"oware/", "PxS"},
      {"oware/8x16", "255"},
      {"kalah/4x32", "255"},
      {"oware/1x128", "255"},
      {"oware/6x99999999", "PxS"},
      {"oware/6x4/", "name=value"},
      {"oware/6x4/grand_slam", "name=value"},
      {"oware/6x4/grand_slam=maybe", "grand_slam"},
      {"oware/6x4/skip_origin=yes", "skip_origin"},
      {"oware/6x4/colour=red", "colour"},
      {"oware/6x4/grand_slam=capture,", "name=value"},
      {"oware/6x4/end=empty_side", "family"},
      {"oware/6x4/capture_empty_opposite=on", "family"},
      {"kalah/6x4/grand_slam=capture", "family"},
      {"kalah/6x4/end=sometimes", "end"},
      {"kalah/6x4/capture_empty_opposite=1", "capture_empty_opposite"},
      {"wari-us/6x4/grand_slam=forbidden", "family"},
      {"wari-us/6x4/end=empty_side", "family"},
      {"wari-us/6x4/capture_empty_opposite=on", "family"},
      {"oware/6x4/skip_origin=on/x", "/"},
      {"oware/6x4/skip_origin=on,skip_origin=off", "twice"},
      {"kalah/6x4/end=empty_side,capture_empty_opposite=on,end=mover", "twice"},
  };
  for (const BadInput& b : bad) {
    SCOPED_TRACE(b.text);
    std::string error;
    EXPECT_EQ(parse_variant(b.text, &error), std::nullopt);
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_NE(error.find(b.mentions), std::string::npos) << error;
    // Without an error string it still fails and does not crash.
    EXPECT_EQ(parse_variant(b.text), std::nullopt);
  }
}

}  // namespace
}  // namespace sowdb
