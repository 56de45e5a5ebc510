// The native engine's logs through the software cache model: after a run, the CPUs' access
// logs are merged in epoch order (consistent with every lock handoff) and replayed, so the
// model explains the timing without having disturbed it.
#pragma once

#include <string>
#include <vector>

#include "pagesim/engine/native/native.h"
#include "pagesim/mm/machine.h"
#include "pagesim/result/run_result.h"

namespace pagesim::engine {

// A symbolic name for a modelled line (its 64-byte index), perf c2c style: "struct page pfn
// 0x1200", ".data+0x40 (...)", "zone node0/Normal lock", "per-cpu area of cpu 3".
std::string line_name(uint64_t line);

// Replays `logs[cpu]` into a cache model of the machine's shape (one socket per node, one core
// per CPU, Ice Lake-SP cache sizes) and adds its counts (summarize_cache_model) to `out.counters`.
void replay_native_logs(const mm::Machine& m, const std::vector<const std::vector<LoggedAccess>*>& logs,
                        run::CacheSummary& out);

}  // namespace pagesim::engine
