// usemem's parameters: policy_nodes, a node list as numactl reads it, checked when the scenario
// loads; the choice parameters, read once into their enums.
#include <gtest/gtest.h>

#include <iterator>
#include <map>

#include "pagesim/error.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"
#include "pagesim/workload/registry.h"
#include "usemem/usemem_params.h"

namespace pagesim::workload {
namespace {

// A 2-node machine running usemem with `params` (a YAML flow map), loaded as `pagesim` loads it.
scenario::ScenarioSet load_usemem(const std::string& params) {
  scenario::LoadOptions opt;
  opt.engines = run::engine_names();
  return scenario::load_string("machine: {nodes: 2, cpus_per_node: 2, memory_per_node: 256M}\n"
                               "workload: {name: usemem, params: " + params + "}\n",
                               "u.yaml", opt);
}

std::optional<uint64_t> nodes(const std::string& list, unsigned nr_nodes = 4) {
  std::string why;
  return parse_nodelist(list, nr_nodes, why);
}

TEST(UsememPolicyNodes, ListsAndRangesAsNumactlReadsThem) {
  EXPECT_EQ(nodes("0"), 0b1u);
  EXPECT_EQ(nodes("1"), 0b10u);
  EXPECT_EQ(nodes("0,1"), 0b11u);
  EXPECT_EQ(nodes("1-3"), 0b1110u);
  EXPECT_EQ(nodes("0,2-3"), 0b1101u);
  EXPECT_EQ(nodes("3-3"), 0b1000u);
}

// "12" is node twelve, not nodes 1 and 2: on a 4-node machine there is none.
TEST(UsememPolicyNodes, MultiDigitNodeIsOneNode) {
  std::string why;
  EXPECT_FALSE(parse_nodelist("12", 4, why));
  EXPECT_NE(why.find("node 12 does not exist"), std::string::npos) << why;
  EXPECT_EQ(nodes("12", 16), uint64_t{1} << 12);
}

TEST(UsememPolicyNodes, MalformedListsAreRefused) {
  for (const char* bad : {"", ",", "0,", "-1", "1-", "2-1", "0;1", "a", "0 1", "4"}) EXPECT_FALSE(nodes(bad)) << bad;
}

TEST(UsememPolicyNodes, ScenarioLoadNamesTheKeyAndItsPosition) {
  try {
    load_usemem("{mempolicy: bind, policy_nodes: '12'}");
    ADD_FAILURE() << "policy_nodes '12' accepted on 2 nodes";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("u.yaml:2:", 0), 0u) << msg;
    EXPECT_NE(msg.find("workload.params.policy_nodes: '12' is not a list of nodes of this machine (0-1): node 12 does not exist"),
              std::string::npos)
        << msg;
  }
}

// The declared choices are the enums' names, and each reads back as its enum.
TEST(UsememChoices, EachDeclaredChoiceReadsAsItsEnum) {
  const WorkloadInfo& w = *find_workload("usemem");
  std::map<std::string, config::ParamValue> defaults;
  for (const config::ParamSpec& p : w.params) defaults[p.name] = p.default_value;
  const config::Params base(defaults);
  for (const config::ParamSpec& p : w.params) {
    if (p.name == "mempolicy") {
      ASSERT_EQ(p.choices.size(), std::size(kMempolicies));
      for (size_t i = 0; i < p.choices.size(); ++i)
        EXPECT_EQ(usemem_choices(base.with("mempolicy", p.choices[i])).mempolicy, kMempolicies[i].second) << p.choices[i];
    }
    if (p.name == "clear_huge_page") {
      ASSERT_EQ(p.choices.size(), std::size(kClearModes));
      for (size_t i = 0; i < p.choices.size(); ++i)
        EXPECT_EQ(usemem_choices(base.with("clear_huge_page", p.choices[i])).clear_huge_page, kClearModes[i]) << p.choices[i];
    }
  }
  EXPECT_EQ(usemem_choices(base).mempolicy, mm::MpolMode::local);
  EXPECT_EQ(usemem_choices(base).clear_huge_page, vt::ClearMode::per_subpage);
}

TEST(UsememChoices, ALoadedScenarioReadsAsTheEnums) {
  const UsememChoices c = usemem_choices(load_usemem("{mempolicy: interleave, clear_huge_page: multi_page}").front().params);
  EXPECT_EQ(c.mempolicy, mm::MpolMode::interleave);
  EXPECT_EQ(c.clear_huge_page, vt::ClearMode::multi_page);
}

}  // namespace
}  // namespace pagesim::workload
