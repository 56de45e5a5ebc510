// The workload registry: one entry per line of workloads.def, each with valid declarations.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "pagesim/workload/registry.h"

namespace pagesim::workload {
namespace {

TEST(WorkloadRegistry, SortedUniqueAndFindable) {
  const std::vector<WorkloadInfo>& all = registered_workloads();
  ASSERT_GE(all.size(), 4u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].name, all[i].name);
  for (const WorkloadInfo& w : all) EXPECT_EQ(find_workload(w.name), &w);
  EXPECT_EQ(find_workload("no_such_workload"), nullptr);
}

// A default outside its own range would make every scenario that omits the parameter invalid.
bool default_in_range(const config::ParamSpec& p) {
  double v = 0;
  if (const auto* i = std::get_if<int64_t>(&p.default_value)) v = static_cast<double>(*i);
  else if (const auto* d = std::get_if<double>(&p.default_value)) v = *d;
  else return true;
  return (!p.min || v >= *p.min) && (!p.max || v <= *p.max);
}

TEST(WorkloadRegistry, DeclarationsAreComplete) {
  for (const WorkloadInfo& w : registered_workloads()) {
    EXPECT_FALSE(w.description.empty()) << w.name;
    std::set<std::string> names;
    for (const config::ParamSpec& p : w.params) {
      EXPECT_TRUE(names.insert(p.name).second) << w.name << "." << p.name << " declared twice";
      EXPECT_FALSE(p.description.empty()) << w.name << "." << p.name;
      EXPECT_TRUE(default_in_range(p)) << w.name << "." << p.name;
    }
    EXPECT_FALSE(w.metrics.empty()) << w.name;
    for (const run::MetricInfo& m : w.metrics) EXPECT_EQ(m.owner, w.name) << m.name;
    // The headline, the comparison table's first row, is one of its own metrics.
    if (!w.headline.empty()) {
      bool declared = false;
      for (const run::MetricInfo& m : w.metrics) declared |= m.name == w.headline;
      EXPECT_TRUE(declared) << w.name << ": headline " << w.headline << " is not among its metrics";
    }
    ASSERT_TRUE(w.make) << w.name;
    std::map<std::string, config::ParamValue> defaults;  // what the loader gives when none is set
    for (const config::ParamSpec& p : w.params) defaults[p.name] = p.default_value;
    const config::Params params(defaults);
    EXPECT_NE(w.make(Args{params, 0}), nullptr) << w.name;
  }
}

}  // namespace
}  // namespace pagesim::workload
