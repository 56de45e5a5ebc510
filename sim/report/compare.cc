// The kernel test robot's comparison (lkp-tests lib/compare.rb show_group / show_perf_change).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string_view>

#include "compare_rows.h"
#include "pagesim/error.h"
#include "pagesim/mm/types.h"
#include "pagesim/report/report.h"
#include "pagesim/run/runner.h"
#include "pagesim/workload/registry.h"

namespace pagesim::report {

namespace {

// lib/compare.rb column widths.
constexpr int kAbsWidth = 10, kRelWidth = 10, kErrWidth = 6;

// Stat bases in display order: the test's own stats first, as sort_stats puts them, then the
// monitors in the order of the robot's e-mail, then pagesim's own.
constexpr std::string_view kBases[] = {"vm-scalability.", "will-it-scale.", "mpstat.", "perf-stat.", "perf-profile.",
                                       "pagesim.", "lock_stat.", "cache."};
int base_rank(const std::string& stat) {
  for (int i = 0; i < static_cast<int>(std::size(kBases)); ++i)
    if (stat.starts_with(kBases[i])) return i;
  return static_cast<int>(std::size(kBases));
}

double us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

// show_perf_change: "%10.2f" under 1000, "%10.4g" over 1e8, else "%10d" (Ruby truncates).
// Unlike LKP, a non-zero average under 1 keeps three significant digits: 5.3 ms of elapsed
// time is 0.0053, never 0.00.
std::string format_avg(double avg) {
  if (avg != 0 && std::fabs(avg) < 1) return fmt::format("{:{}.3g}", avg, kAbsWidth);
  if (std::fabs(avg) < 1000) return fmt::format("{:{}.2f}", avg, kAbsWidth);
  if (std::fabs(avg) > 1e8) return fmt::format("{:{}.4g}", avg, kAbsWidth);
  return fmt::format("{:{}}", static_cast<long long>(std::trunc(avg)), kAbsWidth);
}

// " ±%3d%%" when the relative stddev is above 2%, else blanks.
std::string format_err(const Summary& s) {
  const double pct = s.stddev_pct();
  if (pct > 2) return fmt::format(" \u00b1{:{}}%", static_cast<long long>(std::trunc(pct)), kErrWidth - 3);
  return std::string(kErrWidth, ' ');
}

// A change over a zero base has no percentage: blanks, and the new value alone beside them
// (LKP would divide by its 1e-100 guard and print +8e+101%).
std::string format_change(const CompareCell& c, bool absolute) {
  if (!c.change_valid) return std::string(kRelWidth + 2, ' ');
  const bool wide = std::fabs(c.change) >= 100000;
  const std::string num = wide ? fmt::format("{:+{}.2g}", c.change, kRelWidth) : fmt::format("{:+{}.1f}", c.change, kRelWidth);
  return absolute ? num + "  " : num + "% ";
}

// A percentage (a name ending in '%' or '_pct', or a perf-profile share of cycles) changes in
// points, as LKP shows idle% and perf-profile.
bool in_points(const std::string& stat) {
  return stat.ends_with('%') || stat.ends_with("_pct") || stat.starts_with("perf-profile.");
}

void block_header(std::string& out, const CompareBlock& b) {
  out += std::string(89, '=') + "\n";
  std::string keys = "engine/repeats", values = fmt::format("{}/{}", b.engine, b.max_repeats);
  if (!b.sweep_key.empty()) {
    keys += "/" + b.sweep_key;
    values += "/" + b.sweep_value;
  }
  out += fmt::format("{}:\n  {}\n\n", keys, values);
  out += "kernel: \n";
  for (const std::string& v : b.variants) out += fmt::format("  {}\n", v);
  out += '\n';
  const int first = kAbsWidth + kErrWidth, width = first + kRelWidth + 1;
  out += fmt::format("{:>{}} ", b.variants[0].substr(0, first), first);
  for (size_t i = 1; i < b.variants.size(); ++i) out += fmt::format("{:>{}} ", b.variants[i].substr(0, width), width);
  out += '\n';
  out += std::string(first, '-') + " ";
  for (size_t i = 1; i < b.variants.size(); ++i) out += std::string(width, '-') + " ";
  out += '\n';
  // show_perf_header
  const size_t n = b.variants.size() - 1;
  out += "         %stddev";
  for (size_t i = 0; i < n; ++i) out += "     %change         %stddev";
  out += "\n             \\  ";
  for (size_t i = 0; i < n; ++i) out += "        |                \\  ";
  out += '\n';
}

}  // namespace

// The robot's stat name of a metric, so that the table diffs line by line against its e-mail;
// metrics the robot does not report keep the pagesim. prefix.
std::string stat_name(const std::string& metric) {
  static const std::map<std::string, std::string> kLkp{
      {"throughput_kib_s", "vm-scalability.throughput"},
      {"median_kib_s", "vm-scalability.median"},
      {"free_time_s", "vm-scalability.free_time"},
      {"throughput_stddev_pct", "vm-scalability.stddev%"},
      {"remote_store_share_pct", "perf-stat.overall.node-store-miss-rate%"},
      {"idle_pct", "mpstat.cpu.all.idle%"},
  };
  if (const auto it = kLkp.find(metric); it != kLkp.end()) return it->second;
  if (metric.starts_with("time.")) return "vm-scalability." + metric;
  if (metric.starts_with("proc-vmstat.") || metric.starts_with("will-it-scale.")) return metric;
  if (metric.starts_with("perf-profile.children.")) return "perf-profile.children.cycles-pp." + metric.substr(22);
  if (metric.starts_with("perf-profile.self.")) return "perf-profile.self.cycles-pp." + metric.substr(18);
  return "pagesim." + metric;
}

const std::vector<Quantity>& quantities() {
  static const std::vector<Quantity> kQuantities{
      {"cache.struct_page_at_alloc_checks", "cache.struct_page_at_", {"check_new_pages", "check_pcp_refill", "check_new_pcp"}},
  };
  return kQuantities;
}

namespace {
// The Quantity that `stat` is a member of, and the member's function; {nullptr, ""} otherwise.
std::pair<const Quantity*, std::string> member_of(const std::string& stat) {
  for (const Quantity& q : quantities())
    if (stat.starts_with(q.prefix))
      for (const std::string& f : q.functions)
        if (stat.size() == q.prefix.size() + f.size() && stat.ends_with(f)) return {&q, f};
  return {nullptr, ""};
}

// Each Quantity's functions that counted in some run, in declaration order: the row's label.
std::map<std::string, std::string> quantity_labels(const std::vector<const run::RunResult*>& runs) {
  std::map<std::string, std::set<size_t>> seen;
  for (const run::RunResult* r : runs)
    for (const auto& [name, v] : r->cache.counters)
      if (const auto [q, f] = member_of("cache." + name); q && v != 0)
        seen[q->stat].insert(std::find(q->functions.begin(), q->functions.end(), f) - q->functions.begin());
  std::map<std::string, std::string> labels;
  for (const Quantity& q : quantities()) {
    std::vector<std::string> names;
    for (size_t i : seen[q.stat]) names.push_back(q.functions[i]);
    labels[q.stat] = fmt::format("{}", fmt::join(names, ", "));
  }
  return labels;
}

// proc-vmstat.<name> for what the kernel's /proc/vmstat has; the simulator's own events
// (mm::vm_event_in_kernel) keep the pagesim. prefix, as pagesim.vmstat.<name>.
std::string vmstat_stat(const std::string& name) {
  for (unsigned i = 0; i < mm::NR_VM_EVENT_ITEMS; ++i)
    if (mm::vm_event_name(i) == name && !mm::vm_event_in_kernel(i)) return "pagesim.vmstat." + name;
  return "proc-vmstat." + name;
}

bool bookkeeping_stat(const std::string& stat) {
  if (!stat.starts_with("pagesim.")) return false;
  const run::MetricInfo* m = run::find_metric(stat.substr(8));
  return m && m->bookkeeping;
}
}  // namespace

std::map<std::string, double> run_stats(const run::RunResult& r) {
  std::map<std::string, double> s;
  for (const auto& [name, v] : r.metrics) s[stat_name(name)] = v;
  for (const run::LockStat& l : r.locks) {  // merged per class, like /proc/lock_stat
    const std::string p = "lock_stat." + l.name + ".";
    s[p + "acquisitions"] += static_cast<double>(l.acquisitions);
    s[p + "contentions"] += static_cast<double>(l.contentions);
    s[p + "acq-bounces"] += static_cast<double>(l.bounces);
    s[p + "waittime-total"] += us(l.wait_ns_total);
    s[p + "holdtime-total"] += us(l.hold_ns_total);
    s[p + "waittime-max"] = std::max(s[p + "waittime-max"], us(l.wait_ns_max));
    s[p + "holdtime-max"] = std::max(s[p + "holdtime-max"], us(l.hold_ns_max));
  }
  for (const auto& [name, v] : r.cache.counters) {
    const std::string stat = "cache." + name;
    const Quantity* q = member_of(stat).first;
    s[q ? q->stat : stat] += static_cast<double>(v);
  }
  for (const auto& [name, v] : r.vmstat) s[vmstat_stat(name)] = static_cast<double>(v);
  return s;
}

std::vector<CompareBlock> compare_blocks(const std::vector<run::RunResult>& runs) {
  std::vector<CompareBlock> blocks;
  for (const SweepGroup& g : group_runs(runs)) {
    CompareBlock b{g.key, g.value, g.variants[0].runs[0]->engine, 0, {}, {}};
    // Per variant, per run, every stat.
    std::vector<std::vector<std::map<std::string, double>>> stats;
    std::set<std::string> names;
    std::vector<const run::RunResult*> group;
    for (const VariantRuns& v : g.variants) group.insert(group.end(), v.runs.begin(), v.runs.end());
    const std::map<std::string, std::string> labels = quantity_labels(group);
    for (const VariantRuns& v : g.variants) {
      b.variants.push_back(v.variant);
      b.max_repeats = std::max(b.max_repeats, v.runs.size());
      auto& per_run = stats.emplace_back();
      for (const run::RunResult* r : v.runs) {
        per_run.push_back(run_stats(*r));
        for (const auto& [name, value] : per_run.back())
          if (value != 0) names.insert(name);  // a stat zero in every run says nothing
      }
    }
    // Stats the host clock measured: they vary from run to run (not on the virtual engine).
    std::set<std::string> host_timed;
    if (b.engine != "virtual")
      for (const VariantRuns& v : g.variants)
        for (const run::RunResult* r : v.runs) {
          for (const auto& [name, value] : r->metrics)
            if (const run::MetricInfo* m = run::find_metric(name); m && m->host_timed) host_timed.insert(stat_name(name));
          for (const run::LockStat& l : r->locks)
            for (const char* f : {"waittime-total", "waittime-max", "holdtime-total", "holdtime-max"})
              host_timed.insert("lock_stat." + l.name + "." + f);
        }
    std::vector<std::string> ordered(names.begin(), names.end());
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const std::string& a, const std::string& b) { return base_rank(a) < base_rank(b); });
    for (const std::string& name : ordered) {
      const auto label = labels.find(name);
      CompareRow row{name, label == labels.end() ? "" : label->second, bookkeeping_stat(name), in_points(name),
                     host_timed.count(name) > 0, {}};
      for (size_t i = 0; i < g.variants.size(); ++i) {
        std::vector<double> values;
        for (const auto& s : stats[i]) {
          auto it = s.find(name);
          values.push_back(it == s.end() ? 0.0 : it->second);  // missing samples are 0, as in LKP
        }
        CompareCell cell{g.variants[i].variant, summarize(values)};
        if (i > 0) {
          const double base = row.cells[0].value.avg, avg = cell.value.avg;
          if (row.absolute_change) {
            cell.change = avg - base;
          } else if (base == 0 && avg == 0) {
            cell.change = 0;  // LKP would print -100.0% here (its 1e-100 guard); it never shows such rows
          } else {
            const double b0 = base == 0 ? 1e-100 : base;  // calc_perf_change's divide-by-0 guard
            cell.change = 100.0 * (avg - b0) / b0;
            cell.change_valid = base != 0;
          }
        }
        row.cells.push_back(std::move(cell));
      }
      b.rows.push_back(std::move(row));
    }
    blocks.push_back(std::move(b));
  }
  return blocks;
}

namespace {
// A host-timed change is shown only over 3 or more repeats and when it stands clear of the
// noise (the two sides' relative stddevs added), as LKP shows only significant changes.
bool shown_change(const CompareRow& row, const CompareBlock& b, size_t i) {
  if (!row.host_timed) return true;
  if (b.max_repeats < 3) return false;
  const Summary& base = row.cells[0].value;
  const Summary& other = row.cells[i].value;
  const double noise = std::max(0.0, base.stddev_pct()) + std::max(0.0, other.stddev_pct());
  return std::fabs(row.cells[i].change) > noise;
}

// A change beyond the noise, in some variant (the rows LKP's e-mail lists): a new stat (over a
// base of 0), or one that moved more than the two sides' stddevs added and more than
// kMinChange% (points for a percentage: kMinPoints). Host-timed rows as shown_change.
constexpr double kMinChange = 1.0, kMinPoints = 0.1;
bool changed(const CompareRow& row, const CompareBlock& b) {
  const Summary& base = row.cells[0].value;
  for (size_t i = 1; i < row.cells.size(); ++i) {
    const CompareCell& c = row.cells[i];
    if (!shown_change(row, b, i)) continue;
    if (!c.change_valid) return true;
    const double noise = row.absolute_change ? std::max(0.0, base.stddev) + std::max(0.0, c.value.stddev)
                                             : std::max(0.0, base.stddev_pct()) + std::max(0.0, c.value.stddev_pct());
    if (std::fabs(c.change) > std::max(noise, row.absolute_change ? kMinPoints : kMinChange)) return true;
  }
  return false;
}

void print_row(std::string& out, const CompareRow& row, const CompareBlock& b) {
  for (size_t i = 0; i < row.cells.size(); ++i) {
    if (i > 0) out += shown_change(row, b, i) ? format_change(row.cells[i], row.absolute_change) : std::string(kRelWidth + 2, ' ');
    out += format_avg(row.cells[i].value.avg) + format_err(row.cells[i].value);
  }
  out += fmt::format("  {}{}{}\n", row.stat, row.label.empty() ? "" : " (" + row.label + ")", row.host_timed ? "  (host clock)" : "");
}

// A block's rows in the order printed: the headline, the changed rows, the unchanged ones (with
// --all), each in stat order; the model's bookkeeping apart.
struct BlockRows {
  std::vector<const CompareRow*> shown, bookkeeping;
  size_t unchanged_left_out = 0, bookkeeping_left_out = 0;
};

BlockRows select_rows(const CompareBlock& b, const CompareOptions& opt, const std::optional<std::regex>& rows) {
  BlockRows out;
  const std::string headline = opt.headline.empty() ? "" : stat_name(opt.headline);
  std::vector<const CompareRow*> unchanged;
  for (const CompareRow& row : b.rows) {
    if (rows && !std::regex_search(row.stat, *rows) && !std::regex_search(row.label, *rows)) continue;
    if (row.bookkeeping)
      out.bookkeeping.push_back(&row);
    else if (row.stat == headline)
      out.shown.insert(out.shown.begin(), &row);
    else if (rows || changed(row, b))
      out.shown.push_back(&row);
    else
      unchanged.push_back(&row);
  }
  if (opt.all) {
    out.shown.insert(out.shown.end(), unchanged.begin(), unchanged.end());
  } else if (!rows) {
    out.unchanged_left_out = unchanged.size();
    out.bookkeeping_left_out = out.bookkeeping.size();
    out.bookkeeping.clear();
  }
  return out;
}

std::optional<std::regex> rows_regex(const std::string& rows) {
  if (rows.empty()) return std::nullopt;
  try {
    return std::regex(rows, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError(fmt::format("--rows {}: not a regular expression: {}", rows, e.what()));
  }
}
}  // namespace

void check_compare_options(const CompareOptions& opt) { rows_regex(opt.rows); }

CompareOptions compare_options(const std::string& workload, bool all, const std::string& rows) {
  const workload::WorkloadInfo* w = workload::find_workload(workload);
  CompareOptions opt{w ? w->headline : "", all, rows};
  check_compare_options(opt);
  return opt;
}

std::string compare_table(const std::vector<run::RunResult>& runs, const CompareOptions& opt) {
  const std::optional<std::regex> rows = rows_regex(opt.rows);
  std::string out;
  for (const CompareBlock& b : compare_blocks(runs)) {
    block_header(out, b);
    const BlockRows r = select_rows(b, opt, rows);
    for (const CompareRow* row : r.shown) print_row(out, *row, b);
    if (!r.bookkeeping.empty()) {
      out += "\n  the model's own bookkeeping (not a kernel quantity):\n";
      for (const CompareRow* row : r.bookkeeping) print_row(out, *row, b);
    }
    if (r.unchanged_left_out || r.bookkeeping_left_out)
      out += fmt::format("  ({} row{} unchanged within the noise{}: --all; --rows REGEX selects rows)\n", r.unchanged_left_out,
                         r.unchanged_left_out == 1 ? "" : "s",
                         r.bookkeeping_left_out ? fmt::format(", {} of the model's bookkeeping", r.bookkeeping_left_out) : "");
    out += '\n';
  }
  return out;
}

nlohmann::ordered_json compare_json(const std::vector<run::RunResult>& runs) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const CompareBlock& b : compare_blocks(runs)) {
    for (const CompareRow& row : b.rows) {
      nlohmann::ordered_json j;
      j["sweep"] = b.sweep_key.empty() ? nlohmann::ordered_json(nullptr)
                                       : nlohmann::ordered_json{{"key", b.sweep_key}, {"value", b.sweep_value}};
      j["metric"] = row.stat;
      j["label"] = row.label;
      j["bookkeeping"] = row.bookkeeping;
      j["base"] = b.variants[0];
      j["change_unit"] = row.absolute_change ? "absolute" : "percent";
      nlohmann::ordered_json values = nlohmann::ordered_json::array();
      for (size_t i = 0; i < row.cells.size(); ++i) {
        const CompareCell& c = row.cells[i];
        nlohmann::ordered_json v;
        v["variant"] = c.variant;
        v["avg"] = c.value.avg;
        v["stddev"] = c.value.stddev < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.value.stddev);
        v["stddev_pct"] = c.value.stddev < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.value.stddev_pct());
        v["samples"] = c.value.samples;
        v["change"] = (i == 0 || !c.change_valid) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.change);
        values.push_back(std::move(v));
      }
      j["values"] = std::move(values);
      rows.push_back(std::move(j));
    }
  }
  return rows;
}

}  // namespace pagesim::report
