// will-it-scale's page_fault2 (tests/page_fault2.c): MAP_PRIVATE of the task's own 128 MiB tmp
// file, one write per 4 KiB page (a COW copy of the page-cache page), munmap. The body is shared
// with page_fault1 and 3 (sim/workload/page_fault/).
#include "pagesim/workload/page_fault.h"

namespace pagesim::workload {

WorkloadInfo page_fault2_workload() {
  return page_fault_workload("page_fault2",
                             "will-it-scale page_fault2: private mapping of a 128M tmp file, a page allocated and copied per write fault",
                             PfMapping::file_private);
}

}  // namespace pagesim::workload
