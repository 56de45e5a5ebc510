// Helpers for model tests: small machines, a CPU to run on, census shortcuts.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "pagesim/mm/config.h"
#include "pagesim/mm/invariants.h"
#include "pagesim/mm/machine.h"
#include "pagesim/mm/page_alloc.h"
#include "pagesim/rng.h"

namespace pagesim::test {

inline mm::KernelConfig preset(const std::string& name) { return *mm::preset_config(name); }

// A machine that never probes the host (no admission limit, 4 KiB memmap backing).
inline std::unique_ptr<mm::Machine> machine(unsigned nodes, unsigned cpus, uint64_t bytes_per_node,
                                            mm::KernelConfig cfg = preset("v5.17")) {
  return std::make_unique<mm::Machine>(mm::MachineSpec::uniform(nodes, cpus, bytes_per_node), cfg, mm::HostMemory{});
}

// A CPU to run model code on, with tracking, and the kernel "running" on it.
struct Cpu {
  explicit Cpu(mm::Machine& m, unsigned cpu = 0) : ex(m, cpu), mm(m, ex) {}
  UniprocessorExec<true> ex;
  mm::Mm<UniprocessorExec<true>> mm;
};

inline mm::Zone& normal(mm::Machine& m, unsigned node = 0) { return m.node(node).zones[mm::ZONE_NORMAL]; }

inline uint64_t events(const mm::Machine& m, mm::vm_event_item item) {
  uint64_t n = 0;
  for (const mm::Zone* z : m.populated_zones())
    for (unsigned c = 0; c < m.nr_cpus(); ++c) n += z->cpu[c].events[item];
  return n;
}

inline void expect_invariants(const mm::Machine& m) {
  const mm::InvariantReport r = mm::check_invariants(m);
  EXPECT_TRUE(r.ok()) << (r.violations.empty() ? "" : r.violations.front());
}

inline uint64_t struct_page_at(const UniprocessorExec<true>& ex, Site s) {
  return ex.accesses().struct_page_by_site[static_cast<unsigned>(s)];
}

inline constexpr mm::gfp_t kThp = mm::GFP_TRANSHUGE;

}  // namespace pagesim::test
