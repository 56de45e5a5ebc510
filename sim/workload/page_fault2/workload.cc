// will-it-scale's page_fault2 (tests/page_fault2.c): MAP_PRIVATE of the task's own 128 MiB tmp
// file, one write per 4 KiB page (a COW copy of the page-cache page), munmap. The body, shared with
// the other page fault tests, is in sim/workload/page_fault/.
#include "pagesim/workload/page_fault.h"

namespace pagesim::workload {

WorkloadInfo page_fault2_workload() { return page_fault_workload(PfMapping::file_private); }

}  // namespace pagesim::workload
