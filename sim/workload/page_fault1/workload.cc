// will-it-scale's page_fault1 (tests/page_fault1.c): 128 MiB MAP_PRIVATE|MAP_ANONYMOUS, one write
// per 4 KiB page, munmap. The body, shared with the other page fault tests, is in
// sim/workload/page_fault/.
#include "pagesim/workload/page_fault.h"

namespace pagesim::workload {

WorkloadInfo page_fault1_workload() { return page_fault_workload(PfMapping::anon_private); }

}  // namespace pagesim::workload
