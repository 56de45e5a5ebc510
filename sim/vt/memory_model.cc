#include "pagesim/vt/memory_model.h"

#include <algorithm>
#include <cmath>

#include "pagesim/vt/memory_traffic.h"

namespace pagesim::vt {

StoreLoopResult store_loop(const MachineModel& m, const std::vector<StoreLoopTask>& tasks) {
  MemoryTraffic traffic(m);
  for (unsigned t = 0; t < tasks.size(); ++t) traffic.set_loop(t, tasks[t].node, tasks[t].cpu_share, tasks[t].pages_per_node);
  const unsigned nodes = traffic.nodes();
  StoreLoopResult r;
  for (unsigned t = 0; t < tasks.size(); ++t) {
    const StoreLoopTask& task = tasks[t];
    uint64_t pages = 0, remote = 0;
    for (unsigned h = 0; h < task.pages_per_node.size(); ++h) (h == task.node ? pages : remote) += task.pages_per_node[h];
    pages += remote;
    r.remote_share.push_back(pages ? static_cast<double>(remote) / static_cast<double>(pages) : 0);
    r.time_ps.push_back(pages ? static_cast<ps_t>(std::llround(static_cast<double>(task.stores) * traffic.store_ps(t))) : 0);
  }
  for (unsigned h = 0; h < nodes; ++h) {
    const MemoryTraffic::NodeLoad load = traffic.node_load(h);
    r.dram_utilisation.push_back(load.utilisation);
    r.transactions_per_s.push_back(load.transactions_per_s);
    r.directory_writes_per_s.push_back(load.directory_writes_per_s);
    r.local_ns.push_back(traffic.miss_ps(h, h) / 1000);
    double worst = 0;
    for (unsigned c = 0; c < nodes; ++c)
      if (c != h) worst = std::max(worst, traffic.miss_ps(c, h) / 1000);
    r.remote_ns.push_back(worst);
  }
  return r;
}

}  // namespace pagesim::vt
