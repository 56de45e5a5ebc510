// Checks that a trace and a zoneinfo describe one machine and something to replay, before
// any state is built. Internal to sim/replay.
#pragma once

#include "pagesim/replay/zoneinfo.h"
#include "pagesim/trace/ftrace.h"

namespace pagesim::replay::detail {

// Throws InputError "TRACE:LINE: ..." at the first event that contradicts the machine: a CPU
// beyond the zoneinfo's pagesets (or, without them, the header's #P:N), or a pfn in no zone of
// the zoneinfo. Also throws when the trace holds no successful mm_page_alloc. An empty `zi`
// (no --zoneinfo) checks the trace alone.
void check_input(const trace::Trace& t, const ZoneInfoFile& zi);

}  // namespace pagesim::replay::detail
