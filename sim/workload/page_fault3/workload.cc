// will-it-scale's page_fault3 (tests/page_fault3.c): MAP_SHARED of the task's own 128 MiB tmp file,
// one write per 4 KiB page (the page-cache page mapped and dirtied), munmap. The body, shared with
// the other page fault tests, is in sim/workload/page_fault/.
#include "pagesim/workload/page_fault.h"

namespace pagesim::workload {

WorkloadInfo page_fault3_workload() { return page_fault_workload(PfMapping::file_shared); }

}  // namespace pagesim::workload
