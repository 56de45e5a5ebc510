// What `pagesim calibrate` reads from the OS, and the documented fallbacks for what it cannot
// measure. A fallback is derived from this host's measured figures where one bounds it, and is
// otherwise the shipped machine's assumption, said as much.
#include "calibrate_fallbacks.h"

#include <fmt/format.h>

#include <cmath>

namespace pagesim::vt {

namespace {

void not_measured(Calibration& c, std::string key, std::string reason, std::string why) {
  c.not_measured.push_back({std::move(key), std::move(reason), std::move(why)});
}

}  // namespace

bool describe_topology(Calibration& c) {
  const HostTopology& h = c.host;
  cache::CacheGeometry& g = c.model.geometry;
  g.sockets = h.sockets;
  g.cores_per_socket = h.cores_per_socket;
  g.threads_per_core = h.threads_per_core;
  if (h.from_sysfs) {
    c.measured.push_back({"topology.sockets", "distinct physical_package_id of the online CPUs in /sys/devices/system/cpu"});
    c.measured.push_back({"topology.cores_per_socket", "distinct thread_siblings_list per package"});
    c.measured.push_back({"topology.threads_per_core", fmt::format("online CPUs (sysconf: {}) / cores", h.cpus)});
  } else {
    const std::string reason = "/sys/devices/system/cpu gives no uniform package/core placement of the online CPUs";
    not_measured(c, "topology.sockets", reason, "one socket");
    not_measured(c, "topology.cores_per_socket", reason, "one core per online CPU (sysconf)");
    not_measured(c, "topology.threads_per_core", reason, "no SMT");
  }
  const auto listed = [](const HostTopology::Cache& hc) { return hc.ways > 0 && hc.bytes >= cache::kLineBytes * hc.ways; };
  const auto level = [&](const char* key, const HostTopology::Cache& hc, const char* which, cache::CacheLevel fallback,
                         const char* why) {
    if (listed(hc)) {
      c.measured.push_back({key, fmt::format("/sys/devices/system/cpu/cpu0/cache: {}, size and ways_of_associativity", which)});
      return cache::CacheLevel::of_size(hc.bytes, hc.ways);
    }
    not_measured(c, key, "/sys lists no such cache for cpu0", why);
    return fallback;
  };
  const cache::CacheGeometry shipped;  // the defaults are the shipped machine's
  g.l1d = level("caches.l1d", h.l1d, "the level-1 data cache", shipped.l1d, "the shipped machine's L1d");
  g.l2 = level("caches.l2", h.l2, "the level-2 cache", shipped.l2, "the shipped machine's L2");
  // An LLC /sys does not list is sought from the chase curve's knee (calibrate.cc).
  if (!listed(h.llc)) return false;
  g.llc = level("caches.llc", h.llc, "the level-3 instance cpu0 uses", g.l2, "the L2 again");
  return true;
}

void frequency_fallback(Calibration& c) {
  if (c.host.cpuinfo_mhz > 0) {
    c.model.freq_mhz = static_cast<uint32_t>(std::llround(c.host.cpuinfo_mhz));
    c.measured.push_back({"frequency_ghz", "/proc/cpuinfo \"cpu MHz\" of the first CPU (the clock is timed on x86-64 only)"});
    return;
  }
  c.model.freq_mhz = MachineModel{}.freq_mhz;
  not_measured(c, "frequency_ghz", "the clock is timed on x86-64 only and /proc/cpuinfo has no \"cpu MHz\"",
               "the shipped machine's base clock; every cycle figure is only as good as this guess");
}

void apply_fallbacks(Calibration& c) {
  MachineModel& m = c.model;
  const std::string remote = m.geometry.sockets == 1
                                 ? "one socket: this host has no remote memory, remote cache or inter-socket link"
                                 : "not implemented: calibrate measures from one CPU and its local memory";
  const std::string pair = "needs two threads bouncing a line between cores that run at the same time, which the vCPUs "
                           "of a shared VM do not promise (not implemented)";
  const std::string uniform = "so a multi-node scenario on this file is as fast remotely as locally";
  using cache::Outcome;
  const auto lat = [&](Outcome o) -> ps_t& { return m.latency_ps[static_cast<unsigned>(o)]; };

  const uint64_t sf_entries = static_cast<uint64_t>(std::ceil(1.2 * m.geometry.cores_per_socket * m.geometry.l2.lines()));
  m.geometry.snoop_filter = {static_cast<uint32_t>((sf_entries + 11) / 12), 12};
  not_measured(c, "caches.snoop_filter", "no interface lists it and one thread's timings do not show it",
               "1.2x the socket's L2 lines in 12 ways, the rule docs/cache-model.md uses for the shipped machine");

  lat(Outcome::llc_remote) = lat(Outcome::llc_local);
  not_measured(c, "latency.llc_remote_ns", remote, "copied from llc_local_ns, " + uniform);
  lat(Outcome::hitm_local) = lat(Outcome::llc_local);
  not_measured(c, "latency.hitm_local_ns", pair, "llc_local_ns, a lower bound: a HITM is an LLC lookup plus a snoop of the owning core");
  lat(Outcome::hitm_remote) = lat(Outcome::hitm_local);
  not_measured(c, "latency.hitm_remote_ns", remote, "copied from hitm_local_ns, " + uniform);
  lat(Outcome::dram_remote) = lat(Outcome::dram_local);
  not_measured(c, "latency.dram_remote_ns", remote, "copied from dram_local_ns, " + uniform);

  m.upi_bw_bytes_per_s = m.dram_bw_bytes_per_s;
  not_measured(c, "memory.upi_bandwidth_gbs", remote, "copied from dram_bandwidth_per_socket_gbs: the link limits no more than the memory");
  m.loaded_latency = {LoadPoint{0, 0}};
  not_measured(c, "memory.loaded_latency",
               "needs latency probes under a controlled background load from many cores (MLC's loaded-latency mode), which two "
               "shared vCPUs cannot give",
               "no rise with load on the links: the DRAM controller's queue (one channel at the measured bandwidth) prices the load");
  m.directory_writes = false;
  not_measured(c, "memory.directory_writes", remote, "none: one socket has no remote owners to record");
  const MachineModel shipped;  // the defaults are the shipped machine's
  const std::string mlp_reason = "not implemented: needs a sweep of concurrent chases, whose knee a noisy 2-vCPU VM blurs";
  m.mlp = shipped.mlp;
  not_measured(c, "memory.mlp", mlp_reason, "the shipped machine's assumption (about 10 misses in flight), not this host's");
  m.stream_mlp = shipped.stream_mlp;
  not_measured(c, "memory.stream_mlp", mlp_reason, "the shipped machine's assumption (the L2 streamer runs ahead of demand), not this host's");

  m.lock_line_same_ps = lat(Outcome::hitm_local);
  not_measured(c, "locks.line_transfer_same_socket_ns", pair, "hitm_local_ns: a handoff moves the lock's line out of the holder's core");
  m.lock_line_cross_ps = m.lock_line_same_ps;
  not_measured(c, "locks.line_transfer_cross_socket_ns", remote, "copied from line_transfer_same_socket_ns, " + uniform);
}

}  // namespace pagesim::vt
