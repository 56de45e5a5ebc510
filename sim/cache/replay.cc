// Offline replay of the native engine's per-CPU access logs.
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "pagesim/cache/cache_model.h"
#include "pagesim/error.h"

namespace pagesim::cache {

void CacheModel::replay(std::span<const std::vector<TimedAccess>> logs) {
  if (logs.size() > geometry().cpus())
    throw ModelError("cache replay: " + std::to_string(logs.size()) + " logs for " +
                     std::to_string(geometry().cpus()) + " CPUs");
  // A k-way merge on (tsc, cpu): a total order, so the result depends only on the logs.
  using Head = std::pair<uint64_t, unsigned>;
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (unsigned c = 0; c < logs.size(); ++c)
    if (!logs[c].empty()) heads.push({logs[c].front().tsc, c});
  std::vector<size_t> next(logs.size(), 0);
  while (!heads.empty()) {
    const unsigned c = heads.top().second;
    heads.pop();
    const std::vector<TimedAccess>& log = logs[c];
    size_t& i = next[c];
    // Stay on this CPU while it is still the earliest: no heap round trip per access.
    do {
      const TimedAccess& a = log[i++];
      access(c, a.line, a.node, a.kind, {a.site, a.ctx, a.line_kind});
    } while (i < log.size() && (heads.empty() || Head{log[i].tsc, c} < heads.top()));
    if (i < log.size()) heads.push({log[i].tsc, c});
  }
}

}  // namespace pagesim::cache
