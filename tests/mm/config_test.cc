// The profile table, the presets and the knob table (sim/mm/config.cc).
#include <algorithm>

#include "test_util.h"

namespace pagesim::test {
namespace {

using B = mm::KernelBehaviours;

// Every behaviour, by name. A behaviour added to KernelBehaviours without a row here fails the
// static_assert (each is one bool).
struct Predicate {
  const char* name;
  bool B::*member;
};
constexpr Predicate kPredicates[] = {
    {"zone_locked_trace_in_rmqueue_smallest", &B::zone_locked_trace_in_rmqueue_smallest},
    {"pcp_spinlock", &B::pcp_spinlock},
    {"thp_pcp_lists_by_movability", &B::thp_pcp_lists_by_movability},
    {"pcp_events_count_pages", &B::pcp_events_count_pages},
    {"checks_only_when_enabled", &B::checks_only_when_enabled},
    {"pcp_movable_ignores_alloc_cma", &B::pcp_movable_ignores_alloc_cma},
    {"pcp_high_autotune", &B::pcp_high_autotune},
    {"pcp_drain_in_chunks", &B::pcp_drain_in_chunks},
    {"free_to_pageblock_type", &B::free_to_pageblock_type},
};
static_assert(sizeof(B) == std::size(kPredicates));

// Each predicate's value per preset: the 5.x presets have none of the behaviours, v6.18 all.
TEST(Config, EachBehaviourPerPreset) {
  const std::pair<const char*, bool> kExpected[] = {
      {"v5.17", false}, {"v5.17+eric", false}, {"v5.17+mel", false}, {"v5.18", false}, {"v6.18", true}};
  std::vector<std::string> listed;
  for (const auto& [p, on] : kExpected) {
    listed.emplace_back(p);
    const mm::KernelConfig cfg = preset(p);
    for (const Predicate& b : kPredicates) EXPECT_EQ(cfg.behaviour.*b.member, on) << p << ": " << b.name;
  }
  EXPECT_EQ(listed, mm::preset_names()) << "every preset has its row";
}

TEST(Config, DefaultConfigIsTheV5_17Profile) {
  const mm::KernelConfig c;
  EXPECT_EQ(mm::get_knob(c, "profile"), "v5.17");
  EXPECT_EQ(c.behaviour, preset("v5.17").behaviour);
  for (const mm::KnobInfo& k : mm::knob_infos()) EXPECT_EQ(mm::get_knob(c, k.name), mm::get_knob(preset("v5.17"), k.name)) << k.name;
}

// Setting the profile sets its behaviours and the knobs it fixes; the knobs it leaves free keep
// their values.
TEST(Config, TheProfileKnobSetsBehavioursAndFixedKnobs) {
  mm::KernelConfig c = preset("v5.17");
  ASSERT_EQ(mm::set_knob(c, "profile", "v6.18"), "");
  EXPECT_EQ(c.behaviour, preset("v6.18").behaviour);
  EXPECT_EQ(mm::get_knob(c, "free_pcppages_bulk"), "v5.18");
  EXPECT_EQ(mm::get_knob(c, "buddy_check"), "under_lock") << "not fixed: the preset's value stays";
  ASSERT_EQ(mm::set_knob(c, "profile", "v5.17"), "");
  EXPECT_EQ(c.behaviour, B{});
  EXPECT_EQ(mm::get_knob(c, "free_pcppages_bulk"), "v5.18") << "5.17 fixes nothing";
  EXPECT_NE(mm::set_knob(c, "profile", "v6.1"), "");
}

TEST(Config, AKnobTheProfileFixesIsRefusedOtherwise) {
  const mm::KernelConfig v6 = preset("v6.18");
  EXPECT_EQ(mm::check_fixed_knob(v6, "free_pcppages_bulk", "v5.17"),
            "its kernel profile v6.18 fixes free_pcppages_bulk to v5.18");
  EXPECT_EQ(mm::check_fixed_knob(v6, "free_pcppages_bulk", "v5.18"), "");
  EXPECT_EQ(mm::check_fixed_knob(v6, "buddy_check", "under_lock"), "") << "a knob the profile leaves free";
  EXPECT_EQ(mm::check_fixed_knob(preset("v5.17"), "free_pcppages_bulk", "v5.17"), "");
  for (const mm::FixedKnob& f : mm::fixed_knobs()) {
    mm::KernelConfig c;
    ASSERT_EQ(mm::set_knob(c, "profile", f.profile), "") << f.profile;
    EXPECT_EQ(mm::get_knob(c, f.knob), f.value) << f.profile << " sets what it fixes";
    EXPECT_EQ(mm::check_fixed_knob(c, f.knob, f.value), "");
  }
}

// The values a knob's `values` text names: each alternative of "a|b", and the bounds of "lo..hi".
std::vector<std::string> sample_values(std::string_view values) {
  std::vector<std::string> out;
  for (size_t start = 0;;) {
    const size_t bar = std::min(values.find('|', start), values.find(" or ", start));
    std::string_view v = values.substr(start, bar - start);
    if (const size_t dots = v.find(".."); dots != std::string_view::npos) {
      const std::string lo(v.substr(0, dots));
      out.push_back(lo);
      out.push_back(dots + 2 < v.size() ? std::string(v.substr(dots + 2)) : std::to_string(std::stoul(lo) + 1000));
    } else {
      out.emplace_back(v);
    }
    if (bar == std::string_view::npos) return out;
    start = bar + (values[bar] == '|' ? 1 : 4);
  }
}

// Every knob is settable and readable by name, over every value it names, and writes its own
// member only: the others read as before (the profile also sets the knobs it fixes).
TEST(Config, KnobTableRoundTrip) {
  for (const mm::KnobInfo& k : mm::knob_infos()) {
    const std::vector<std::string> values = sample_values(k.values);
    EXPECT_GE(values.size(), 2u) << k.name << ": " << k.values;
    for (const std::string& v : values) {
      mm::KernelConfig c = preset("v5.17");
      const mm::KernelConfig before = c;
      ASSERT_EQ(mm::set_knob(c, k.name, v), "") << k.name << "=" << v;
      EXPECT_EQ(mm::get_knob(c, k.name), v) << k.name;
      for (const mm::KnobInfo& other : mm::knob_infos()) {
        const bool fixed = std::any_of(mm::fixed_knobs().begin(), mm::fixed_knobs().end(), [&](const mm::FixedKnob& f) {
          return k.name == "profile" && f.profile == v && f.knob == other.name;
        });
        if (other.name != k.name && !fixed)
          EXPECT_EQ(mm::get_knob(c, other.name), mm::get_knob(before, other.name)) << k.name << "=" << v << " wrote " << other.name;
      }
    }
  }
  mm::KernelConfig c;
  EXPECT_EQ(mm::set_knob(c, "nosuch", "1"), "unknown knob 'nosuch'");
  EXPECT_EQ(mm::get_knob(c, "nosuch"), "");
}

}  // namespace
}  // namespace pagesim::test
