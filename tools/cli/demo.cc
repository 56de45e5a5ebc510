// `pagesim demo`: the built-in experiment, random_mixed under every preset, printed raw.
#include <fmt/format.h>

#include "commands.h"
#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "pagesim/mm/config.h"
#include "pagesim/mm/invariants.h"
#include "pagesim/report/procfs.h"
#include "pagesim/version.h"
#include "pagesim/workload/random_mixed.h"

namespace pagesim::cli {

// Random mixed-order traffic on a small 2-node machine under every preset (mm::preset_names():
// the four 5.x ones and v6.18), with injected bad pages so that the variants differ. v6.18
// checks pages only with check_pages_enabled, which the demo leaves off: it finds none.
int demo(uint64_t ops, uint64_t seed) {
  const mm::MachineSpec spec = mm::MachineSpec::uniform(2, 2, 1ull << 30, /*low_zones=*/false);
  fmt::print("pagesim {}: random_mixed, {} ops, seed {}, 2 nodes x 2 CPUs x 1 GiB\n\n", PAGESIM_VERSION, ops, seed);
  int rc = 0;
  for (const std::string& preset : mm::preset_names()) {
    mm::Machine m(spec, *mm::preset_config(preset));
    UniprocessorExec<true> ex(m);
    workload::RandomMixedParams p;
    p.ops = ops;
    p.seed = seed;
    p.fault_rate = 0.002;
    p.fault.subpage = -1;
    p.max_live_pages = m.spec().total_pages() / 4;
    const workload::RandomMixedResult r = workload::run_random_mixed(m, ex, p);
    uint64_t ev[mm::NR_VM_EVENT_ITEMS] = {};
    for (const mm::Zone* z : m.populated_zones())
      for (unsigned c = 0; c < m.nr_cpus(); ++c)
        for (unsigned i = 0; i < mm::NR_VM_EVENT_ITEMS; ++i) ev[i] += z->cpu[c].events[i];
    fmt::print("== {} ==\n", preset);
    fmt::print("  allocs {}  frees {}  failed {}  faults injected {}\n", r.allocs, r.frees, r.alloc_failures, r.faults_injected);
    for (unsigned i : {mm::PGALLOC, mm::PGFREE, mm::PCP_REFILL, mm::PCP_DRAIN, mm::BAD_PAGE, mm::LEAKED_BLOCKS, mm::LEAKED_PAGES})
      fmt::print("  {:<14} {}\n", mm::vm_event_name(i), ev[i]);
    const AccessCounters& a = ex.accesses();
    fmt::print("  struct-page lines: {} inside zone->lock, {} with IRQs off (pcp), {} outside any lock\n",
               a.struct_page_by_context[static_cast<unsigned>(LockContext::zone_lock)],
               a.struct_page_by_context[static_cast<unsigned>(LockContext::irq_off)],
               a.struct_page_by_context[static_cast<unsigned>(LockContext::none)]);
    for (const mm::Zone* z : m.populated_zones()) {
      const mm::ZoneCensus c = mm::zone_census(*z);
      fmt::print("  node {} {:<7} managed {} nr_free_pages {} free-list {} deferred {} leaked {} (unaccounted {})\n", c.node,
                 z->name(), c.managed_pages, c.nr_free_pages, c.free_list_pages, c.deferred_pages, c.leaked_pages,
                 c.leaked_unaccounted);
    }
    fmt::print("  invariants: {} checks, {} violations\n", r.invariant_checks, r.violations.size());
    for (const std::string& v : r.violations) fmt::print("    {}\n", v);
    fmt::print("  /proc/buddyinfo:\n{}\n", report::buddyinfo(m));
    if (!r.violations.empty()) rc = 1;
  }
  return rc;
}

}  // namespace pagesim::cli
