// will-it-scale's page_fault1 (tests/page_fault1.c): 128 MiB MAP_PRIVATE|MAP_ANONYMOUS, one
// write per 4 KiB page, munmap. The body is shared with page_fault2 and 3 (sim/workload/page_fault/).
#include "pagesim/workload/page_fault.h"

namespace pagesim::workload {

WorkloadInfo page_fault1_workload() {
  return page_fault_workload("page_fault1",
                             "will-it-scale page_fault1: anonymous private 128M, a zeroed page allocated per write fault, freed at munmap",
                             PfMapping::anon_private);
}

}  // namespace pagesim::workload
