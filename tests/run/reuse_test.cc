// Reuse (run/reuse.h): a variant's run that provably repeats an earlier variant's run of the same
// seed takes its result, and that result is the one running it gives.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pagesim/mm/config.h"
#include "pagesim/report/report.h"
#include "pagesim/run/reuse.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"

namespace pagesim::run {
namespace {

scenario::ScenarioSet load(const std::string& workload, const std::string& engine, unsigned jobs_repeats = 2) {
  scenario::LoadOptions opt;
  opt.engines = engine_names();
  return scenario::load_string("machine: {nodes: 1, cpus_per_node: 2, memory_per_node: 128M}\n"
                               "kernel: {presets: [v5.17, v5.17+mel, v5.17+eric, v5.18]}\n"
                               "workload: " + workload + "\nengine: " + engine + "\nrepeats: " + std::to_string(jobs_repeats) + "\n",
                               "reuse.yaml", opt);
}

std::vector<RunResult> run(const scenario::ScenarioSet& set, bool reuse, unsigned jobs) {
  RunOptions opt;
  opt.short_mode = true;
  opt.reuse = reuse;
  opt.jobs = jobs;
  return run_all(set, opt);
}

// The run without what the host decides: its wall time, its memmap's backing (hugetlb pages
// another process reserved or freed) and where a reused result came from.
nlohmann::ordered_json without_host_fields(const RunResult& r) {
  nlohmann::ordered_json j = report::run_to_json(r);
  for (const char* host : {"wall_s", "memmap_backing", "reused"}) j.erase(host);
  return j;
}

TEST(Reuse, VariantKnobsAreTheOnlyDifferenceAllowed) {
  const mm::KernelConfig base = *mm::preset_config("v5.17");
  EXPECT_EQ(mm::variant_difference(base, *mm::preset_config("v5.17+eric")),
            mm::variant_bit(mm::VariantKnob::buddy_check) | mm::variant_bit(mm::VariantKnob::leak_accounting));
  EXPECT_EQ(mm::variant_difference(base, *mm::preset_config("v5.17+mel")), mm::variant_bit(mm::VariantKnob::pcp_check_scope));
  EXPECT_EQ(mm::variant_difference(base, base), mm::VariantKnobs{0});
  EXPECT_EQ(mm::variant_difference(base, *mm::preset_config("v6.18")), std::nullopt);  // another profile
  mm::KernelConfig walk = *mm::preset_config("v5.17+mel");
  ASSERT_EQ(mm::set_knob(walk, "mel_walk", "zero_cost"), "");
  EXPECT_EQ(mm::variant_difference(base, walk), std::nullopt);  // an ablation is not a variant knob
  EXPECT_EQ(mm::variant_knobs_named({"leak_accounting", "buddy_check"}),
            mm::variant_difference(base, *mm::preset_config("v5.17+eric")));
  EXPECT_EQ(mm::variant_knobs_named({"mel_walk"}), std::nullopt);
}

// thp_alloc takes only order-9 blocks through the pcp: Eric's buddy-path check is never reached,
// so v5.17+eric is v5.17's run and v5.18 is v5.17+mel's; Mel's scope acts on every refill.
TEST(Reuse, AVariantWhoseKnobsNeverActedTakesTheTwinsResultUnchanged) {
  const scenario::ScenarioSet set = load("{name: thp_alloc, params: {iterations: 20}}", "virtual");
  for (unsigned jobs : {1u, 2u}) {
    const std::vector<RunResult> reused = run(set, true, jobs), ran = run(set, false, jobs);
    ASSERT_EQ(reused.size(), 8u);
    ASSERT_EQ(ran.size(), 8u);
    for (size_t i = 0; i < reused.size(); ++i) {
      const RunResult& r = reused[i];
      EXPECT_EQ(without_host_fields(r), without_host_fields(ran[i])) << r.variant << " repeat " << r.repeat;
      EXPECT_FALSE(ran[i].reused);
      if (r.variant == "v5.17+eric" || r.variant == "v5.18") {
        ASSERT_TRUE(r.reused) << r.variant;
        EXPECT_EQ(r.reused->from, r.variant == "v5.18" ? "v5.17+mel" : "v5.17");
        EXPECT_EQ(r.reused->knobs, mm::variant_bit(mm::VariantKnob::buddy_check) | mm::variant_bit(mm::VariantKnob::leak_accounting));
        EXPECT_EQ(r.wall_s, 0);
      } else {
        EXPECT_FALSE(r.reused) << r.variant;
        EXPECT_TRUE(r.variant_reads & mm::variant_bit(mm::VariantKnob::pcp_check_scope)) << r.variant;
        EXPECT_FALSE(r.variant_reads & mm::variant_bit(mm::VariantKnob::buddy_check)) << r.variant;
      }
    }
  }
}

// random_mixed allocates orders 4 to 8 through rmqueue_buddy: every variant runs.
TEST(Reuse, ARunThatReachedTheBuddyPathIsNotReused) {
  const std::vector<RunResult> runs = run(load("{name: random_mixed, params: {ops: 3000}}", "virtual", 1), true, 2);
  ASSERT_EQ(runs.size(), 4u);
  for (const RunResult& r : runs) {
    EXPECT_FALSE(r.reused) << r.variant;
    EXPECT_TRUE(r.variant_reads & mm::variant_bit(mm::VariantKnob::buddy_check)) << r.variant;
  }
}

// The uniprocessor engine's figures are host time: a run is never another's.
TEST(Reuse, OnlyADeterministicEngineReuses) {
  for (const RunResult& r : run(load("{name: thp_alloc, params: {iterations: 20}}", "uniprocessor", 1), true, 1))
    EXPECT_FALSE(r.reused) << r.variant;
}

// The JSON keeps which knobs a run acted on and where a reused result came from, and reads them
// back; --verbose prints the knobs.
TEST(Reuse, TheJsonSaysWhichRunWasReused) {
  const scenario::ScenarioSet set = load("{name: thp_alloc, params: {iterations: 20}}", "virtual", 1);
  const std::vector<RunResult> runs = run(set, true, 1);
  const nlohmann::ordered_json doc = report::to_json(set, runs, false, {});
  const nlohmann::json& eric = doc["runs"][2];
  EXPECT_EQ(eric["variant"], "v5.17+eric");
  EXPECT_EQ(eric["reused"], nlohmann::json({{"from", "v5.17"}, {"knobs", {"buddy_check", "leak_accounting"}}}));
  EXPECT_FALSE(doc["runs"][0].contains("reused"));
  EXPECT_EQ(doc["runs"][0]["variant_knobs_acted_on"], nlohmann::ordered_json({"pcp_check_scope"}));  // order-9 pcp checks only
  const std::vector<RunResult> back = report::runs_from_json(nlohmann::json::parse(doc.dump()), "reuse.json");
  ASSERT_TRUE(back[2].reused);
  EXPECT_EQ(back[2].reused->from, "v5.17");
  EXPECT_EQ(back[2].reused->knobs, runs[2].reused->knobs);
  EXPECT_EQ(back[0].variant_reads, runs[0].variant_reads);
  EXPECT_NE(report::human(set, back, true, {}).find("variant knobs acted on: pcp_check_scope; never: buddy_check, leak_accounting"),
            std::string::npos);
  EXPECT_NE(report::human(set, back, false, {}).find("v5.17's results for the same seed, which never acted on buddy_check or "
                                                     "leak_accounting"),
            std::string::npos);
}

}  // namespace
}  // namespace pagesim::run
