// A trace's requests, read once per process: every run of a scenario (each preset, each
// repeat, on the runner's parallel jobs) issues the same streams, and reading a trace of
// millions of events takes seconds. Internal to sim/workload/kmem_trace.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "pagesim/workload/kmem_trace.h"

namespace pagesim::workload::kmem {

// kmem_requests(read_ftrace(path), replicate, max_requests), from the cache when the file has
// the size and modification time it had when read. Thread-safe; throws InputError.
std::shared_ptr<const KmemRequests> cached_requests(const std::string& path, unsigned replicate, uint64_t max_requests);

}  // namespace pagesim::workload::kmem
