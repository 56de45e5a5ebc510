// The "pagesim/1" JSON document (docs/output.md) and its reader.
#include <fmt/format.h>

#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "pagesim/version.h"

namespace pagesim::report {

namespace {

using ojson = nlohmann::ordered_json;

ojson zone_json(const mm::ZoneCensus& z) {
  return ojson{{"node", z.node},
               {"zone", std::string(mm::zone_name(z.zone))},
               {"managed_pages", z.managed_pages},
               {"nr_free_pages", z.nr_free_pages},
               {"free_list_pages", z.free_list_pages},
               {"pcp_pages", z.pcp_pages},
               {"allocated_pages", z.allocated_pages},
               {"leaked_pages", z.leaked_pages},
               {"deferred_pages", z.deferred_pages},
               {"leaked_unaccounted_pages", z.leaked_unaccounted}};
}

ojson lock_json(const run::LockStat& l) {
  return ojson{{"name", l.name},
               {"instance", l.instance},
               {"acquisitions", l.acquisitions},
               {"contentions", l.contentions},
               {"wait_ns_total", l.wait_ns_total},
               {"wait_ns_min", l.wait_ns_min},
               {"wait_ns_max", l.wait_ns_max},
               {"hold_ns_total", l.hold_ns_total},
               {"hold_ns_min", l.hold_ns_min},
               {"hold_ns_max", l.hold_ns_max},
               {"bounces", l.bounces},
               {"bounces_remote", l.bounces_remote},
               {"contention_points", l.contention_points},
               {"acquisition_points", l.acquisition_points},
               {"histograms", ojson{{"wait_log2_ns", l.wait_hist}, {"hold_log2_ns", l.hold_hist}}}};
}

mm::zone_type zone_from_name(const std::string& name) {
  for (unsigned zt = 0; zt < mm::MAX_NR_ZONES; ++zt)
    if (mm::zone_name(zt) == name) return static_cast<mm::zone_type>(zt);
  throw nlohmann::json::other_error::create(501, "unknown zone name '" + name + "'", nullptr);
}

ojson start_json(const run::TaskPlacement::Iteration::Start& s) {
  return {{"fork_node", s.fork_node},
          {"wake_node", s.wake_node},
          {"mmap_start_node", s.mmap_start_node},
          {"mmap_start_us", s.mmap_start_us},
          {"mmap_end_node", s.mmap_end_node},
          {"mmap_end_us", s.mmap_end_us},
          {"first_fault_node", s.first_fault_node},
          {"first_fault_us", s.first_fault_us},
          {"pass1_node", s.pass1_node},
          {"pass1_us", s.pass1_us},
          {"pass2_node", s.pass2_node},
          {"pass2_us", s.pass2_us},
          {"reserved_node_pages", s.reserved_node_pages},
          {"spin_zone_lock_us", s.spin_zone_lock_us},
          {"spin_hugetlb_lock_us", s.spin_hugetlb_lock_us}};
}

run::TaskPlacement::Iteration::Start start_from_json(const nlohmann::json& j) {
  run::TaskPlacement::Iteration::Start s;
  s.fork_node = j.at("fork_node").get<int>();
  s.wake_node = j.at("wake_node").get<int>();
  s.mmap_start_node = j.at("mmap_start_node").get<int>();
  s.mmap_start_us = j.at("mmap_start_us").get<int64_t>();
  s.mmap_end_node = j.at("mmap_end_node").get<int>();
  s.mmap_end_us = j.at("mmap_end_us").get<int64_t>();
  s.first_fault_node = j.at("first_fault_node").get<int>();
  s.first_fault_us = j.at("first_fault_us").get<int64_t>();
  s.pass1_node = j.at("pass1_node").get<int>();
  s.pass1_us = j.at("pass1_us").get<int64_t>();
  s.pass2_node = j.at("pass2_node").get<int>();
  s.pass2_us = j.at("pass2_us").get<int64_t>();
  s.reserved_node_pages = j.at("reserved_node_pages").get<std::vector<uint64_t>>();
  s.spin_zone_lock_us = j.at("spin_zone_lock_us").get<double>();
  s.spin_hugetlb_lock_us = j.at("spin_hugetlb_lock_us").get<double>();
  return s;
}

ojson tasks_json(const std::vector<run::TaskPlacement>& tasks) {
  ojson a = ojson::array();
  for (const run::TaskPlacement& t : tasks) {
    ojson timeline = ojson::array(), iterations = ojson::array();
    for (const run::TaskPlacement::Move& mv : t.timeline) timeline.push_back({{"at_ns", mv.at_ns}, {"cpu", mv.cpu}});
    for (const run::TaskPlacement::Iteration& it : t.iterations) {
      iterations.push_back({{"failed", it.failed},
                            {"reserve_node", it.reserve_node},
                            {"fault_node", it.fault_node},
                            {"fault_node_pages", it.fault_node_pages},
                            {"store_loop_node_s", it.store_loop_node_s},
                            {"remote_store_share_pct", it.remote_store_share_pct},
                            {"kbps", it.kbps}});
      if (it.start.fork_node >= 0) iterations.back()["start"] = start_json(it.start);
    }
    a.push_back({{"task", t.task}, {"timeline", std::move(timeline)}, {"iterations", std::move(iterations)}});
  }
  return a;
}

std::vector<run::TaskPlacement> tasks_from_json(const nlohmann::json& a) {
  std::vector<run::TaskPlacement> tasks;
  for (const auto& jt : a) {
    run::TaskPlacement t;
    t.task = jt.at("task").get<unsigned>();
    for (const auto& mv : jt.at("timeline")) t.timeline.push_back({mv.at("at_ns").get<uint64_t>(), mv.at("cpu").get<unsigned>()});
    for (const auto& ji : jt.at("iterations")) {
      run::TaskPlacement::Iteration it;
      it.failed = ji.at("failed").get<bool>();
      it.reserve_node = ji.at("reserve_node").get<unsigned>();
      it.fault_node = ji.at("fault_node").get<unsigned>();
      it.fault_node_pages = ji.at("fault_node_pages").get<std::vector<uint64_t>>();
      it.store_loop_node_s = ji.at("store_loop_node_s").get<std::vector<double>>();
      it.remote_store_share_pct = ji.at("remote_store_share_pct").get<double>();
      it.kbps = ji.value("kbps", 0.0);  // results saved before it was recorded have none
      if (ji.contains("start")) it.start = start_from_json(ji.at("start"));
      t.iterations.push_back(std::move(it));
    }
    tasks.push_back(std::move(t));
  }
  return tasks;
}

run::RunResult run_from_json(const nlohmann::json& j) {
  run::RunResult r;
  r.variant = j.at("variant").get<std::string>();
  r.engine = j.at("engine").get<std::string>();
  r.repeat = j.at("repeat").get<unsigned>();
  r.seed = j.at("seed").get<uint64_t>();
  if (!j.at("sweep").is_null()) {
    r.sweep_key = j["sweep"].at("key").get<std::string>();
    r.sweep_value = j["sweep"].at("value").get<std::string>();
  }
  r.interrupted = j.at("interrupted").get<bool>();
  r.metrics = j.at("metrics").get<std::map<std::string, double>>();
  for (const auto& z : j.at("zones")) {
    mm::ZoneCensus c;
    c.node = z.at("node").get<unsigned>();
    c.zone = zone_from_name(z.at("zone").get<std::string>());
    c.managed_pages = z.at("managed_pages").get<uint64_t>();
    c.nr_free_pages = z.at("nr_free_pages").get<long>();
    c.free_list_pages = z.at("free_list_pages").get<uint64_t>();
    c.pcp_pages = z.at("pcp_pages").get<uint64_t>();
    c.allocated_pages = z.at("allocated_pages").get<long>();
    c.leaked_pages = z.at("leaked_pages").get<long>();
    c.deferred_pages = z.at("deferred_pages").get<uint64_t>();
    c.leaked_unaccounted = z.at("leaked_unaccounted_pages").get<long>();
    r.zones.push_back(c);
  }
  for (const auto& l : j.at("locks")) {
    run::LockStat s;
    s.name = l.at("name").get<std::string>();
    s.instance = l.at("instance").get<std::string>();
    s.acquisitions = l.at("acquisitions").get<uint64_t>();
    s.contentions = l.at("contentions").get<uint64_t>();
    s.wait_ns_total = l.at("wait_ns_total").get<uint64_t>();
    s.wait_ns_min = l.at("wait_ns_min").get<uint64_t>();
    s.wait_ns_max = l.at("wait_ns_max").get<uint64_t>();
    s.hold_ns_total = l.at("hold_ns_total").get<uint64_t>();
    s.hold_ns_min = l.at("hold_ns_min").get<uint64_t>();
    s.hold_ns_max = l.at("hold_ns_max").get<uint64_t>();
    s.bounces = l.at("bounces").get<uint64_t>();
    s.bounces_remote = l.at("bounces_remote").get<uint64_t>();
    s.contention_points = l.at("contention_points").get<std::map<std::string, uint64_t>>();
    s.acquisition_points = l.at("acquisition_points").get<std::map<std::string, uint64_t>>();
    s.wait_hist = l.at("histograms").at("wait_log2_ns").get<std::vector<uint64_t>>();
    s.hold_hist = l.at("histograms").at("hold_log2_ns").get<std::vector<uint64_t>>();
    r.locks.push_back(std::move(s));
  }
  const auto& cache = j.at("cache");
  r.cache.model = cache.at("model").get<std::string>();
  r.cache.counters = cache.at("counters").get<std::map<std::string, uint64_t>>();
  r.cache.hw_available = cache.at("hw").at("available").get<bool>();
  r.cache.hw_reason = cache.at("hw").at("reason").get<std::string>();
  r.cache.hw = cache.at("hw").at("counters").get<std::map<std::string, uint64_t>>();
  r.invariant_checks = j.at("invariants").at("checked").get<uint64_t>();
  r.violations = j.at("invariants").at("violations").get<std::vector<std::string>>();
  r.vmstat = j.at("vmstat").get<std::map<std::string, uint64_t>>();
  r.memmap_backing = j.at("memmap_backing").get<std::string>();
  if (j.contains("notes")) r.notes = j.at("notes").get<std::vector<std::string>>();
  if (j.contains("tasks")) r.tasks = tasks_from_json(j.at("tasks"));
  r.bad_page_reports = j.at("bad_page_reports").get<std::vector<std::string>>();
  r.wall_s = j.at("wall_s").get<double>();
  return r;
}

}  // namespace

ojson run_to_json(const run::RunResult& r) {
  ojson j;
  j["variant"] = r.variant;
  j["engine"] = r.engine;
  j["repeat"] = r.repeat;
  j["seed"] = r.seed;
  j["sweep"] = r.sweep_key.empty() ? ojson(nullptr) : ojson{{"key", r.sweep_key}, {"value", r.sweep_value}};
  j["interrupted"] = r.interrupted;
  j["metrics"] = r.metrics;
  j["zones"] = ojson::array();
  for (const mm::ZoneCensus& z : r.zones) j["zones"].push_back(zone_json(z));
  j["locks"] = ojson::array();
  for (const run::LockStat& l : r.locks) j["locks"].push_back(lock_json(l));
  j["cache"] = ojson{{"model", r.cache.model},
                     {"counters", r.cache.counters},
                     {"hw", ojson{{"available", r.cache.hw_available}, {"reason", r.cache.hw_reason}, {"counters", r.cache.hw}}}};
  j["invariants"] = ojson{{"checked", r.invariant_checks}, {"violations", r.violations}};
  j["vmstat"] = r.vmstat;
  j["memmap_backing"] = r.memmap_backing;
  j["bad_page_reports"] = r.bad_page_reports;
  j["tasks"] = tasks_json(r.tasks);
  j["notes"] = r.notes;
  j["wall_s"] = r.wall_s;
  return j;
}

ojson to_json(const scenario::ScenarioSet& set, const std::vector<run::RunResult>& runs, bool interrupted,
              const run::Shard& shard) {
  ojson sc = set.empty() ? ojson::object() : set.front().resolved;
  if (sc.is_null()) sc = ojson::object();
  if (!set.empty() && !set.front().sweep.key.empty()) {
    ojson values = ojson::array();
    for (const scenario::Scenario& s : set) values.push_back(s.sweep.value);
    sc["sweep"] = ojson{{"key", set.front().sweep.key}, {"values", std::move(values)}};
  }
  return result_document(std::move(sc), runs, interrupted, shard);
}

ojson result_document(ojson scenario, const std::vector<run::RunResult>& runs, bool interrupted, const run::Shard& shard) {
  ojson doc;
  doc["schema"] = "pagesim/1";
  doc["scenario"] = std::move(scenario);
  doc["runs"] = ojson::array();
  for (const run::RunResult& r : runs) doc["runs"].push_back(run_to_json(r));
  doc["compare"] = compare_json(runs);
  doc["interrupted"] = interrupted;
  if (!shard.whole()) doc["shard"] = ojson{{"index", shard.index}, {"count", shard.count}, {"version", PAGESIM_VERSION}};
  return doc;
}

std::vector<run::RunResult> runs_from_json(const nlohmann::json& doc, const std::string& source) {
  try {
    if (doc.at("schema").get<std::string>() != "pagesim/1")
      throw InputError(fmt::format("{}: schema is '{}', expected 'pagesim/1'", source, doc["schema"].get<std::string>()));
    std::vector<run::RunResult> runs;
    for (const auto& j : doc.at("runs")) runs.push_back(run_from_json(j));
    return runs;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a pagesim/1 result: {}", source, e.what()));
  }
}

}  // namespace pagesim::report
