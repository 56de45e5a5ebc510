// check_input(): a trace and a zoneinfo from different machines, or a trace with nothing to
// replay, are refused with the first line that shows it.
#include "input_checks.h"

#include <fmt/format.h>

#include <algorithm>

#include "pagesim/error.h"

namespace pagesim::replay::detail {

namespace {

// The traced machine's CPUs, and what says so: the zoneinfo's pagesets (zoneinfo_show_print
// prints one per online CPU), else the trace header's #P:N. 0 when neither does.
unsigned machine_cpus(const trace::Trace& t, const ZoneInfoFile& zi, std::string& said_by) {
  for (const ZoneInfo& z : zi.zones) {
    if (z.pagesets.empty()) continue;
    unsigned n = 0;
    for (const PagesetInfo& p : z.pagesets) n = std::max(n, p.cpu + 1);
    said_by = fmt::format("{}:{} (zone {}) has pagesets for {} CPUs", zi.source, z.line, z.name, n);
    return n;
  }
  said_by = fmt::format("its header says #P:{}", t.nr_cpus);
  return t.nr_cpus;
}

}  // namespace

void check_input(const trace::Trace& t, const ZoneInfoFile& zi) {
  std::string said_by;
  const unsigned ncpu = machine_cpus(t, zi, said_by);
  bool any_alloc = false;
  for (const trace::Event& e : t.events) {
    if (ncpu && e.cpu >= ncpu)
      throw InputError(fmt::format("{}:{}: CPU {}, but {}: the trace and the machine differ", t.source, e.line, e.cpu, said_by));
    if (e.kind == trace::EventKind::vmstat_update || e.failed) continue;
    any_alloc |= e.kind == trace::EventKind::mm_page_alloc;
    if (!zi.zones.empty() && !zi.zone_of(e.pfn))
      throw InputError(fmt::format("{}:{}: pfn={:#x} lies in no zone of {}: the zoneinfo is from another machine than the trace",
                                   t.source, e.line, e.pfn, zi.source));
  }
  if (!any_alloc)
    throw InputError(fmt::format("{}: no successful mm_page_alloc: nothing to replay (was the kmem event enabled?)", t.source));
}

}  // namespace pagesim::replay::detail
