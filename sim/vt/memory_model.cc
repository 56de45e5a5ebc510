#include "pagesim/vt/memory_model.h"

#include <algorithm>
#include <cmath>

namespace pagesim::vt {

ps_t clear_time_ps(const MachineModel& m, uint64_t bytes, unsigned page_node, unsigned cpu_node, unsigned sharers,
                   double thread_rate) {
  const double n = std::max(1u, sharers);
  double rate = std::min(thread_rate, m.dram_bw_bytes_per_s / n);
  if (page_node != cpu_node) rate = std::min(rate, m.upi_bw_bytes_per_s / n);
  return static_cast<ps_t>(std::llround(static_cast<double>(bytes) / rate * 1e12));
}

StoreLoopResult store_loop(const MachineModel& m, const std::vector<StoreLoopTask>& tasks) {
  const unsigned nodes = m.geometry.sockets;
  StoreLoopResult r;
  r.time_ps.assign(tasks.size(), 0);
  r.remote_share.assign(tasks.size(), 0);
  // share[t][c][h]: the part of task t's stores issued on node c to memory homed on node h.
  std::vector<std::vector<double>> share(tasks.size(), std::vector<double>(nodes * nodes, 0));
  for (size_t t = 0; t < tasks.size(); ++t) {
    uint64_t pages = 0;
    for (uint64_t p : tasks[t].pages_per_node) pages += p;
    if (!pages) continue;
    for (unsigned c = 0; c < nodes && c < tasks[t].residency.size(); ++c)
      for (unsigned h = 0; h < nodes && h < tasks[t].pages_per_node.size(); ++h) {
        const double s = tasks[t].residency[c] * static_cast<double>(tasks[t].pages_per_node[h]) / static_cast<double>(pages);
        share[t][c * nodes + h] = s;
        if (c != h) r.remote_share[t] += s;
      }
  }
  const double idle_local = static_cast<double>(m.latency(cache::Outcome::dram_local));
  const double idle_remote = static_cast<double>(m.latency(cache::Outcome::dram_remote));
  // Utilisations (for the curve, used up to 1) and stretch factors (>= 1: a saturated node or
  // link queues until its demand equals its bandwidth).
  std::vector<double> u_mem(nodes, 0), u_upi(nodes * nodes, 0);
  std::vector<double> s_mem(nodes, 1), s_upi(nodes * nodes, 1);
  std::vector<double> lat(nodes * nodes, 0);  // ps per miss from CPU node c to home h
  auto latencies = [&] {
    for (unsigned c = 0; c < nodes; ++c)
      for (unsigned h = 0; h < nodes; ++h) {
        const unsigned i = c * nodes + h;
        double l = ((c == h ? idle_local : idle_remote) + m.extra_latency_ps(std::min(1.0, u_mem[h]))) * s_mem[h];
        if (c != h) l = (l + m.extra_latency_ps(std::min(1.0, u_upi[i]))) * s_upi[i];
        lat[i] = l;
      }
  };
  auto per_store_ps = [&](size_t t) {
    double ps = 0;
    for (unsigned i = 0; i < nodes * nodes; ++i) ps += share[t][i] * lat[i];
    return ps / m.store_mlp;
  };
  // Damped fixed point: latency -> store rate -> bandwidth demand -> utilisation -> latency.
  auto update = [](double& u, double& stretch, double demand) {
    const double target = demand;  // utilisation the current rates produce
    double delta = std::abs(target - u);
    u = 0.5 * (u + target);
    if (target > 1 || stretch > 1) {
      const double next = std::max(1.0, stretch * std::sqrt(target));
      delta = std::max(delta, std::abs(next - stretch));
      stretch = next;
    }
    return delta;
  };
  constexpr unsigned kMaxIter = 500;
  for (r.iterations = 1; r.iterations <= kMaxIter; ++r.iterations) {
    latencies();
    std::vector<double> dem_mem(nodes, 0), dem_upi(nodes * nodes, 0);
    for (size_t t = 0; t < tasks.size(); ++t) {
      const double ps = per_store_ps(t);
      if (ps <= 0) continue;
      const double stores_per_s = 1e12 / ps * tasks[t].cpu_share;
      for (unsigned c = 0; c < nodes; ++c)
        for (unsigned h = 0; h < nodes; ++h) {
          const double bytes = stores_per_s * share[t][c * nodes + h] * m.bytes_per_store_miss;
          dem_mem[h] += bytes;
          if (c != h) dem_upi[c * nodes + h] += bytes;
        }
    }
    double delta = 0;
    for (unsigned h = 0; h < nodes; ++h) delta = std::max(delta, update(u_mem[h], s_mem[h], dem_mem[h] / m.dram_bw_bytes_per_s));
    for (unsigned i = 0; i < nodes * nodes; ++i)
      delta = std::max(delta, update(u_upi[i], s_upi[i], dem_upi[i] / m.upi_bw_bytes_per_s));
    if (delta < 1e-9) break;
  }
  latencies();
  for (size_t t = 0; t < tasks.size(); ++t)
    r.time_ps[t] = static_cast<ps_t>(std::llround(static_cast<double>(tasks[t].stores) * per_store_ps(t)));
  r.dram_utilisation = u_mem;
  r.lat_ps = lat;
  for (unsigned h = 0; h < nodes; ++h) {
    r.local_ns.push_back(lat[h * nodes + h] / 1000);
    double worst = 0;
    for (unsigned c = 0; c < nodes; ++c)
      if (c != h) worst = std::max(worst, lat[c * nodes + h] / 1000);
    r.remote_ns.push_back(worst);
  }
  return r;
}

}  // namespace pagesim::vt

namespace pagesim::vt {

double store_ps_on(const MachineModel& m, const StoreLoopResult& r, const std::vector<uint64_t>& pages_per_node,
                   unsigned cpu_node) {
  const unsigned nodes = m.geometry.sockets;
  uint64_t pages = 0;
  for (uint64_t p : pages_per_node) pages += p;
  if (!pages) return 0;
  double ps = 0;
  for (unsigned h = 0; h < nodes && h < pages_per_node.size(); ++h)
    ps += static_cast<double>(pages_per_node[h]) / static_cast<double>(pages) * r.lat_ps[cpu_node * nodes + h];
  return ps / m.store_mlp;
}

}  // namespace pagesim::vt
