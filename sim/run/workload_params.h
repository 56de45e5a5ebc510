// Workload parameters of a scenario, resolved for the engines (one definition, every engine).
#pragma once

#include <algorithm>

#include "pagesim/mm/fault_inject.h"
#include "pagesim/scenario/scenario.h"
#include "pagesim/workload/churn.h"
#include "pagesim/workload/random_mixed.h"

namespace pagesim::run {

inline workload::RandomMixedParams random_mixed_params(const scenario::Scenario& sc, uint64_t seed, bool short_mode) {
  const workload::Params& p = sc.params;
  workload::RandomMixedParams r;
  r.ops = static_cast<uint64_t>(p.integer("ops"));
  if (short_mode) r.ops = std::min<uint64_t>(r.ops, 5000);
  r.seed = seed;
  r.free_fraction = p.number("free_fraction");
  r.max_live_pages = static_cast<uint64_t>(p.integer("max_live")) / mm::PAGE_SIZE;
  r.fault_rate = p.number("fault_rate");
  r.fault.field = *mm::parse_fault_field(p.string("fault_field"));
  r.fault.subpage = static_cast<int>(p.integer("fault_subpage"));
  r.fault_on_pcp = p.number("fault_on_pcp");
  r.check_every = static_cast<uint64_t>(p.integer("check_every"));
  return r;
}

// pcp_churn or thp_alloc.
inline workload::ChurnParams churn_params(const scenario::Scenario& sc, bool short_mode) {
  uint64_t iterations = static_cast<uint64_t>(sc.params.integer("iterations"));
  if (short_mode) iterations = std::min<uint64_t>(iterations, 20);
  if (sc.workload == "thp_alloc") return workload::thp_alloc_params(iterations, static_cast<uint32_t>(sc.params.integer("batch")));
  return workload::pcp_churn_params(iterations, static_cast<uint32_t>(sc.params.integer("pages")));
}

}  // namespace pagesim::run
