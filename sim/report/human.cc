// The human-readable report: per variant a summary, then the LKP comparison.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "pagesim/report/report.h"
#include "stats.h"

namespace pagesim::report {

namespace {

// A whole number as one (100111, not 100111.00 or 1e+05); otherwise 4 significant digits,
// never in exponent form above 1 (1024000.5 -> 1024000).
std::string format_value(const Summary& s) {
  std::string v = s.avg == std::trunc(s.avg) && std::fabs(s.avg) < 1e15 ? fmt::format("{}", static_cast<long long>(s.avg))
                  : std::fabs(s.avg) >= 1000                            ? fmt::format("{:.0f}", s.avg)
                                                                        : fmt::format("{:.4g}", s.avg);
  if (s.stddev_pct() > 0) v += fmt::format(" \u00b1{:.1f}%", s.stddev_pct());
  return v;
}

void summary(std::string& out, const VariantRuns& v) {
  std::vector<std::string> names;
  for (const run::RunResult* r : v.runs)
    for (const auto& [name, value] : r->metrics)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::sort(names.begin(), names.end());
  out += fmt::format("  metrics (mean over {} run{}; ± is the population stddev):\n", v.runs.size(), v.runs.size() == 1 ? "" : "s");
  for (const std::string& name : names) out += fmt::format("    {:<32} {}\n", name, format_value(metric_summary(v, name)));
}

void zones(std::string& out, const run::RunResult& r) {
  out += fmt::format("  zones (repeat {}, pages):\n", r.repeat);
  out += fmt::format("    {:<14} {:>10} {:>10} {:>10} {:>8} {:>10} {:>8} {:>8} {:>8}\n", "zone", "managed", "nr_free",
                     "on lists", "pcp", "allocated", "leaked", "drift", "deferred");
  for (const mm::ZoneCensus& z : r.zones)
    out += fmt::format("    {:<14} {:>10} {:>10} {:>10} {:>8} {:>10} {:>8} {:>8} {:>8}\n",
                       fmt::format("node{}/{}", z.node, mm::zone_name(z.zone)), z.managed_pages, z.nr_free_pages,
                       z.free_list_pages, z.pcp_pages, z.allocated_pages, z.leaked_pages, z.leaked_unaccounted,
                       z.deferred_pages);
  if (!r.proc.buddyinfo.empty()) {
    out += "  buddyinfo:\n";
    size_t start = 0;
    for (size_t nl; (nl = r.proc.buddyinfo.find('\n', start)) != std::string::npos; start = nl + 1)
      out += "    " + r.proc.buddyinfo.substr(start, nl - start) + "\n";
  }
}

// Each zone's pagesets (pcp->high and batch, and 6.x's high_min and high_max), CPUs with the
// same values on one line.
void pagesets(std::string& out, const run::RunResult& r) {
  if (r.pcp.empty()) return;
  out += fmt::format("  pagesets (repeat {}, at the end; pages):\n", r.repeat);
  out += fmt::format("    {:<14} {:<12} {:>8} {:>8} {:>8} {:>8}\n", "zone", "cpus", "high", "batch", "high_min", "high_max");
  const auto same = [](const run::PcpSetting& a, const run::PcpSetting& b) {
    return a.node == b.node && a.zone == b.zone && a.high == b.high && a.batch == b.batch && a.high_min == b.high_min &&
           a.high_max == b.high_max;
  };
  for (size_t i = 0; i < r.pcp.size();) {
    size_t j = i + 1;
    while (j < r.pcp.size() && same(r.pcp[i], r.pcp[j]) && r.pcp[j].cpu == r.pcp[j - 1].cpu + 1) ++j;
    const run::PcpSetting& p = r.pcp[i];
    const std::string cpus = j - i == 1 ? fmt::format("{}", p.cpu) : fmt::format("{}-{}", p.cpu, r.pcp[j - 1].cpu);
    out += fmt::format("    {:<14} {:<12} {:>8} {:>8} {:>8} {:>8}\n", fmt::format("node{}/{}", p.node, mm::zone_name(p.zone)), cpus,
                       p.high, p.batch, p.high_max ? fmt::format("{}", p.high_min) : "-",
                       p.high_max ? fmt::format("{}", p.high_max) : "-");
    i = j;
  }
}

void locks(std::string& out, const run::RunResult& r) {
  if (r.locks.empty()) return;
  out += fmt::format("  locks (repeat {}; times in us):\n", r.repeat);
  out += fmt::format("    {:<16} {:<14} {:>12} {:>11} {:>12} {:>10} {:>12} {:>10}\n", "class", "instance", "acquisitions",
                     "contentions", "wait-total", "wait-max", "hold-total", "hold-max");
  for (const run::LockStat& l : r.locks)
    out += fmt::format("    {:<16} {:<14} {:>12} {:>11} {:>12.2f} {:>10.2f} {:>12.2f} {:>10.2f}\n", l.name, l.instance,
                       l.acquisitions, l.contentions, l.wait_ns_total / 1e3, l.wait_ns_max / 1e3, l.hold_ns_total / 1e3,
                       l.hold_ns_max / 1e3);
}

// The workload's own section (usemem: its tasks' placement), when it keeps records.
void workload_section(std::string& out, const run::RunResult& r) {
  if (r.workload_result) out += r.workload_result->human_section(r.repeat);
}

void cache(std::string& out, const run::RunResult& r) {
  out += fmt::format("  cache (repeat {}): {}\n", r.repeat, r.cache.model.empty() ? "none" : r.cache.model);
  for (const auto& [name, n] : r.cache.counters) out += fmt::format("    {:<40} {:>14}\n", name, n);
  if (r.cache.hw_available) {
    for (const auto& [name, n] : r.cache.hw) out += fmt::format("    hw.{:<37} {:>14}\n", name, n);
  } else {
    out += fmt::format("    hardware counters: unavailable ({})\n", r.cache.hw_reason);
  }
}

// A report of several lines, each indented by four spaces, the first after `lead`.
std::string indented(const std::string& lead, const std::string& text) {
  std::string out = "    " + lead;
  for (char c : text) out += c == '\n' ? std::string("\n    ") + std::string(lead.size(), ' ') : std::string(1, c);
  return out + "\n";
}

// A Bad page report without dump_page's "raw: " and "head: " hex dump lines, for the one
// report the summary shows (the compound "head:..." line has no space after the colon).
std::string without_hex_dump(const std::string& report) {
  std::string out;
  for (size_t at = 0; at < report.size();) {
    const size_t end = std::min(report.find('\n', at), report.size());
    const std::string_view line(report.data() + at, end - at);
    if (!line.starts_with("raw: ") && !line.starts_with("head: ")) out.append(line).append("\n");
    at = end + 1;
  }
  if (!out.empty()) out.pop_back();
  return out;
}

// A variant's runs added up: invariant checks, violations, Bad page lines.
struct Tally {
  uint64_t checks = 0;
  size_t violations = 0, bad_pages = 0;
  explicit Tally(const VariantRuns& v) {
    for (const run::RunResult* r : v.runs) {
      checks += r->invariant_checks;
      violations += r->violations.size();
      bad_pages += r->bad_page_reports.size();
    }
  }
};

const char* plural(size_t n) { return n == 1 ? "" : "s"; }

// Which of a variant's runs are another variant's results (run/reuse.h), and why.
void reused_lines(std::string& out, const VariantRuns& v) {
  std::map<std::pair<std::string, mm::VariantKnobs>, std::vector<unsigned>> repeats;  // (from, knobs) -> repeats
  for (const run::RunResult* r : v.runs)
    if (r->reused) repeats[{r->reused->from, r->reused->knobs}].push_back(r->repeat);
  for (const auto& [from, reps] : repeats) {
    const std::string why = from.second ? fmt::format("which never acted on {}, the only knobs in which the two differ",
                                                      fmt::join(mm::variant_knob_names(from.second), " or "))
                                        : std::string("whose kernel config is the same");
    out += fmt::format("    repeat{} {}: {}'s results for the same seed{}, {} (--no-reuse runs them)\n", plural(reps.size()),
                       fmt::join(reps, ", "), from.first, plural(reps.size()), why);
  }
}

void health(std::string& out, const VariantRuns& v) {
  const Tally t(v);
  out += fmt::format("  invariants: {} checks, {} violation{}\n", t.checks, t.violations, plural(t.violations));
  for (const run::RunResult* r : v.runs)
    for (const std::string& s : r->violations) out += fmt::format("    repeat {}: {}\n", r->repeat, s);
  for (const run::RunResult* r : v.runs)
    for (const std::string& s : r->bad_page_reports) out += indented(fmt::format("repeat {}: ", r->repeat), s);
  if (!v.runs.empty() && !v.runs.front()->memmap_backing.empty())
    out += fmt::format("  memmap backing: {}\n", v.runs.front()->memmap_backing);
  if (!v.runs.empty())
    for (const std::string& note : v.runs.front()->notes) out += fmt::format("  note: {}\n", note);
  mm::VariantKnobs acted = 0;  // over the variant's runs
  for (const run::RunResult* r : v.runs) acted |= r->variant_reads;
  const auto never = static_cast<mm::VariantKnobs>(mm::kAllVariantKnobs & ~acted);
  out += fmt::format("  variant knobs acted on: {}; never: {}\n", acted ? fmt::format("{}", fmt::join(mm::variant_knob_names(acted), ", ")) : "none",
                     never ? fmt::format("{}", fmt::join(mm::variant_knob_names(never), ", ")) : "none");
  reused_lines(out, v);
}

// The headline view's line per variant: its invariant checks, violations and Bad page count.
void health_line(std::string& out, const VariantRuns& v) {
  const Tally t(v);
  out += fmt::format("  {:<28} invariants: {} checks, {} violation{}; {} \"Bad page state\" report{}\n", v.variant, t.checks,
                     t.violations, plural(t.violations), t.bad_pages, plural(t.bad_pages));
  for (const run::RunResult* r : v.runs)
    for (const std::string& s : r->violations) out += fmt::format("    repeat {}: {}\n", r->repeat, s);
  reused_lines(out, v);
}

// The runs a signal stopped part-way, which every table below leaves out.
void partial_runs(std::string& out, const std::vector<run::RunResult>& runs) {
  std::vector<std::string> names;
  for (const run::RunResult& r : runs)
    if (r.interrupted) names.push_back(fmt::format("{} repeat {}", r.variant, r.repeat));
  if (!names.empty())
    out += fmt::format("interrupted: {} partial run{} ({}), left out of every table below\n\n", names.size(),
                       plural(names.size()), fmt::join(names, ", "));
}

}  // namespace

std::string human(const scenario::ScenarioSet& set, const std::vector<run::RunResult>& runs, bool verbose,
                  CompareOptions opt) {
  std::string out;
  if (!set.empty()) {
    const scenario::Scenario& sc = set.front();
    out += fmt::format("scenario: {}{}\n", sc.file, sc.description.empty() ? "" : " - " + sc.description);
    out += fmt::format("workload: {}, engine: {}, {} variant{} x {} repeat{}", sc.workload, sc.engine,
                       sc.variants.size(), sc.variants.size() == 1 ? "" : "s", sc.repeats, sc.repeats == 1 ? "" : "s");
    if (!sc.sweep.key.empty()) {
      std::vector<std::string> values;
      for (const scenario::Scenario& s : set) values.push_back(s.sweep.value);
      out += fmt::format(", sweep {} = {}", sc.sweep.key, fmt::join(values, ", "));
    }
    out += "\n";
    // The virtual engine's inputs as the resolved scenario records them (scenario::load).
    const nlohmann::ordered_json& e = sc.resolved.contains("engine") ? sc.resolved["engine"] : nlohmann::ordered_json();
    if (e.contains("machine_file_used"))
      out += fmt::format("machine file: {} (sha1 {})\ntopology: {}\n", e["machine_file_used"].get<std::string>(),
                         e["machine_file_sha1"].get<std::string>(), e["topology"].get<std::string>());
    out += "\n";
  }
  partial_runs(out, runs);
  if (!verbose) {
    for (const SweepGroup& g : group_runs(runs)) {
      if (!g.key.empty()) out += fmt::format("{} = {}:\n", g.key, g.value);
      for (const VariantRuns& v : g.variants) health_line(out, v);
    }
    std::vector<std::string> notes;
    for (const run::RunResult& r : runs)
      for (const std::string& n : r.notes)
        if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
    for (const std::string& n : notes) out += fmt::format("  note: {}\n", n);
    for (const run::RunResult& r : runs)
      if (!r.bad_page_reports.empty()) {
        out += fmt::format("  the first Bad page report ({} repeat {}; all, with the hex dump: --verbose, or --proc DIR/.../dmesg):\n",
                           r.variant, r.repeat);
        out += indented("", without_hex_dump(r.bad_page_reports.front()));
        break;
      }
    out += "  (per-variant metrics, zones, locks, cache counters and every Bad page line: --verbose)\n\n";
    out += compare_table(runs, opt);
    return set.empty() ? out : out + reference_table(set.front(), runs);
  }
  for (const SweepGroup& g : group_runs(runs)) {
    if (!g.key.empty()) out += fmt::format("=== {} = {} ===\n\n", g.key, g.value);
    for (const VariantRuns& v : g.variants) {
      out += fmt::format("--- {} ---\n", v.variant);
      summary(out, v);
      const run::RunResult& first = *v.runs.front();
      zones(out, first);
      pagesets(out, first);
      locks(out, first);
      workload_section(out, first);
      cache(out, first);
      health(out, v);
      out += '\n';
    }
  }
  opt.all = true;
  out += compare_table(runs, opt);
  return set.empty() ? out : out + reference_table(set.front(), runs);
}

}  // namespace pagesim::report
