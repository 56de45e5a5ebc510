// Writing machine files: the inverse of parse_machine_model (machine_model.cc), used by
// `pagesim calibrate`. The layout is that of machines/icx-8358-2s.yaml, without its comments.
#include <fmt/format.h>

#include <cmath>

#include "pagesim/config/units.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim::vt {

namespace {

// Fixed `places` decimals without trailing zeros: "89.1", "5", "0.071".
std::string decimal(double v, int places) {
  std::string s = fmt::format("{:.{}f}", v, places);
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string ns(ps_t ps) { return decimal(static_cast<double>(ps) / 1000.0, 3); }
std::string gbs(double bytes_per_s) { return decimal(bytes_per_s / 1e9, 6); }

// A YAML single-quoted scalar: nothing is an escape there but the doubled quote.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string level(const cache::CacheLevel& l) {
  return fmt::format("{{size: {}, ways: {}}}", config::format_size(static_cast<int64_t>(l.bytes())), l.ways);
}

// memory.dram as a flow map, in the loader's key order.
std::string dram(const DramSpec& d) {
  return fmt::format("{{channels: {}, ranks_per_channel: {}, banks_per_rank: {}, data_rate_mts: {}, row_bytes: {}, tRC_ns: {}, "
                     "tFAW_ns: {}, tRRD_S_ns: {}, tRCD_ns: {}, tRP_ns: {}, tCWL_ns: {}, tWR_ns: {}, tRFC_ns: {}, tREFI_ns: {}, "
                     "efficiency: {}}}",
                     d.channels, d.ranks_per_channel, d.banks_per_rank, decimal(d.data_rate_mts, 3),
                     config::format_size(static_cast<int64_t>(d.row_bytes)), decimal(d.tRC_ns, 3), decimal(d.tFAW_ns, 3),
                     decimal(d.tRRD_S_ns, 3), decimal(d.tRCD_ns, 3), decimal(d.tRP_ns, 3), decimal(d.tCWL_ns, 3),
                     decimal(d.tWR_ns, 3), decimal(d.tRFC_ns, 3), decimal(d.tREFI_ns, 3), decimal(d.efficiency, 6));
}

// The cycle count that cycles_to_ps turned into `ps` (its integer division loses < 0.01 cycle).
uint64_t cycles(const MachineModel& m, ps_t ps) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(ps) * m.freq_mhz / 1e6));
}

}  // namespace

std::vector<std::pair<std::string, std::string>> machine_file_values(const MachineModel& m) {
  using cache::Outcome;
  const auto lat = [&](Outcome o) { return ns(m.latency(o)); };
  std::string curve = "[";
  for (const LoadPoint& p : m.loaded_latency)
    curve += fmt::format("{}{{utilisation: {}, extra_ns: {}}}", curve.size() > 1 ? ", " : "", decimal(p.utilisation, 6), ns(p.extra_ps));
  curve += "]";
  const cache::CacheGeometry& g = m.geometry;
  std::vector<std::pair<std::string, std::string>> v{
      {"name", quoted(m.name)},
      {"topology.sockets", std::to_string(g.sockets)},
      {"topology.cores_per_socket", std::to_string(g.cores_per_socket)},
      {"topology.threads_per_core", std::to_string(g.threads_per_core)},
      {"frequency_ghz", decimal(m.freq_mhz / 1000.0, 3)},
      {"caches.l1d", level(g.l1d)},
      {"caches.l2", level(g.l2)},
      {"caches.llc", level(g.llc)},
      {"caches.snoop_filter", fmt::format("{{sets: {}, ways: {}}}", g.snoop_filter.sets, g.snoop_filter.ways)},
      {"latency.l1_cycles", std::to_string(cycles(m, m.latency(Outcome::l1)))},
      {"latency.l2_cycles", std::to_string(cycles(m, m.latency(Outcome::l2)))},
      {"latency.llc_local_ns", lat(Outcome::llc_local)},
      {"latency.llc_remote_ns", lat(Outcome::llc_remote)},
      {"latency.hitm_local_ns", lat(Outcome::hitm_local)},
      {"latency.hitm_remote_ns", lat(Outcome::hitm_remote)},
      {"latency.dram_local_ns", lat(Outcome::dram_local)},
      {"latency.dram_remote_ns", lat(Outcome::dram_remote)},
      {"memory.dram_bandwidth_per_socket_gbs", gbs(m.dram_bw_bytes_per_s)},
      {"memory.dram", dram(m.dram)},
      {"memory.directory_writes", m.directory_writes ? "true" : "false"},
      {"memory.upi_bandwidth_gbs", gbs(m.upi_bw_bytes_per_s)},
      {"memory.loaded_latency", curve},
      {"memory.clear_bandwidth_per_thread_gbs", gbs(m.clear_bw_bytes_per_s)},
      {"memory.clear_bandwidth_multi_page_per_thread_gbs", gbs(m.clear_multi_page_bw_bytes_per_s)},
      {"memory.mlp", std::to_string(m.mlp)},
      {"memory.stream_mlp", std::to_string(m.stream_mlp)},
      {"locks.line_transfer_same_socket_ns", ns(m.lock_line_same_ps)},
      {"locks.line_transfer_cross_socket_ns", ns(m.lock_line_cross_ps)},
      {"locks.uncontended_cycles", std::to_string(m.lock_uncontended_cycles)},
  };
  if (m.clear_multi_page_bw_bytes_per_s <= 0)  // optional: a file without it writes none
    std::erase_if(v, [](const auto& kv) { return kv.first == "memory.clear_bandwidth_multi_page_per_thread_gbs"; });
  if (!m.dram.channels) std::erase_if(v, [](const auto& kv) { return kv.first == "memory.dram"; });
  return v;
}

std::string render_machine_model(const MachineModel& m) {
  std::string out, section;
  for (const auto& [key, value] : machine_file_values(m)) {
    const size_t dot = key.find('.');
    if (dot == std::string::npos) {
      out += fmt::format("{}: {}\n", key, value);
      section.clear();
      continue;
    }
    if (key.compare(0, dot, section) != 0) {
      section = key.substr(0, dot);
      out += section + ":\n";
    }
    out += fmt::format("  {}: {}\n", key.substr(dot + 1), value);
  }
  return out;
}

}  // namespace pagesim::vt
