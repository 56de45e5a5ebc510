// The "pagesim/1" JSON document (docs/output.md) and its reader.
#include <fmt/format.h>

#include <stdexcept>

#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "pagesim/version.h"
#include "pagesim/workload/registry.h"

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

// `read_result`: the run's workload's reader of runs[].tasks (WorkloadInfo::read_result), if it has one.
// A set of variant knobs as their names, and back.
ojson knobs_json(mm::VariantKnobs knobs) {
  ojson names = ojson::array();
  for (std::string_view k : mm::variant_knob_names(knobs)) names.push_back(std::string(k));
  return names;
}
mm::VariantKnobs knobs_from_json(const nlohmann::json& names, const char* key) {
  const std::optional<mm::VariantKnobs> knobs = mm::variant_knobs_named(names.get<std::vector<std::string>>());
  if (!knobs) throw std::invalid_argument(fmt::format("{}: not a list of variant knobs (buddy_check, pcp_check_scope, leak_accounting)", key));
  return *knobs;
}

run::RunResult run_from_json(const nlohmann::json& j, const workload::ResultReader& read_result) {
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
  if (read_result && j.contains("tasks")) r.workload_result = read_result(j.at("tasks"));
  r.bad_page_reports = j.at("bad_page_reports").get<std::vector<std::string>>();
  if (j.contains("variant_knobs_acted_on")) r.variant_reads = knobs_from_json(j.at("variant_knobs_acted_on"), "runs[].variant_knobs_acted_on");
  if (j.contains("reused"))
    r.reused = run::Reused{j.at("reused").at("from").get<std::string>(), knobs_from_json(j.at("reused").at("knobs"), "runs[].reused.knobs")};
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
  j["tasks"] = r.workload_result ? r.workload_result->tasks_json() : ojson::array();
  j["notes"] = r.notes;
  j["variant_knobs_acted_on"] = knobs_json(r.variant_reads);
  if (r.reused) j["reused"] = ojson{{"from", r.reused->from}, {"knobs", knobs_json(r.reused->knobs)}};
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
    // The scenario names the workload, whose records runs[].tasks holds.
    const workload::WorkloadInfo* w =
        workload::find_workload(doc.value(nlohmann::json::json_pointer("/scenario/workload/name"), std::string()));
    std::vector<run::RunResult> runs;
    for (const auto& j : doc.at("runs")) runs.push_back(run_from_json(j, w ? w->read_result : workload::ResultReader{}));
    return runs;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a pagesim/1 result: {}", source, e.what()));
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: not a pagesim/1 result: {}", source, e.what()));
  }
}

}  // namespace pagesim::report
