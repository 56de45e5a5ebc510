#include "pagesim/report/fidelity.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "gnuplot.h"
#include "pagesim/report/report.h"

namespace pagesim::report {

using replay::Kind;
using replay::ReplayResult;

namespace {

constexpr Kind kTableKinds[] = {Kind::refill, Kind::drain, Kind::buddy, Kind::alloc, Kind::free};

// The rows that carry a count on either side.
std::vector<std::pair<Kind, unsigned>> rows_of(const std::vector<ReplayResult>& rs) {
  std::vector<std::pair<Kind, unsigned>> rows;
  if (rs.empty()) return rows;
  for (Kind k : kTableKinds)
    for (unsigned o = 0; o < replay::kOrders; ++o) {
      bool any = rs.front().kernel.at(k, o) != 0;
      for (const ReplayResult& r : rs) any = any || r.model.at(k, o) != 0;
      if (any) rows.emplace_back(k, o);
    }
  return rows;
}

std::string ratio_text(uint64_t kernel, uint64_t model) {
  if (kernel == 0) return model == 0 ? "1.000" : "inf";
  return fmt::format("{:.3f}", static_cast<double>(model) / static_cast<double>(kernel));
}

std::string pcp_line(const ReplayResult& r) {
  std::string s;
  for (unsigned c = 0; c < r.nr_cpus; ++c)
    s += fmt::format("{}cpu{} {} (high {} in [{}, {}])", c ? ", " : "", c, r.initial_pcp_count[c], r.high[c], r.high_min[c],
                     r.high_max[c]);
  return s;
}

}  // namespace

bool fidelity_pass(uint64_t kernel, uint64_t model) {
  const double k = static_cast<double>(kernel), m = static_cast<double>(model);
  return std::abs(m - k) <= kFidelityTolerance * k + 1e-9;
}

bool fidelity_ok(const ReplayResult& r) {
  for (Kind k : {Kind::refill, Kind::drain})
    for (unsigned o = 0; o < replay::kOrders; ++o)
      if (!fidelity_pass(r.kernel.at(k, o), r.model.at(k, o))) return false;
  return true;
}

std::string fidelity_table(const trace::Trace& t, const std::vector<ReplayResult>& rs) {
  std::string out;
  if (rs.empty()) return out;
  const ReplayResult& first = rs.front();
  out += fmt::format("{}: {} events, {} CPUs; zone {} ({} managed pages), batch {}\n", t.source, t.events.size(),
                     first.nr_cpus, first.zone, first.managed_pages, first.batch);
  out += fmt::format("replayed {} allocations and {} frees ({} of blocks allocated before the trace); "
                     "not replayed: {} failed allocations, {} events outside the zone\n",
                     first.allocs, first.frees, first.pretrace_frees, first.failed_allocs, first.other_zone_events);
  for (const ReplayResult& r : rs) {
    out += fmt::format("{}: pcp at the first event ({} anchor: {}): {}\n", r.preset, replay::anchor_name(r.anchor),
                       r.anchor_reason, pcp_line(r));
    if (r.decays || r.decay == replay::Decay::off)
      out += fmt::format("{}: vmstat's decay_pcp_high ({}): {} calls\n", r.preset, replay::decay_name(r.decay), r.decays);
    if (r.model_alloc_failures) out += fmt::format("{}: {} allocations failed in the model\n", r.preset, r.model_alloc_failures);
  }
  out += "\nblocks per event kind and order (kernel units: one event, one block); pass = within ±15% of the kernel\n";
  out += fmt::format("{:<7}{:>6}{:>10}", "kind", "order", "kernel");
  for (const ReplayResult& r : rs) out += fmt::format("  {:>10}{:>8}{:>6}", r.preset, "ratio", "");
  out += "\n";
  for (const auto& [k, o] : rows_of(rs)) {
    const uint64_t kern = first.kernel.at(k, o);
    out += fmt::format("{:<7}{:>6}{:>10}", replay::kind_name(k), o, kern);
    for (const ReplayResult& r : rs) {
      const uint64_t mod = r.model.at(k, o);
      out += fmt::format("  {:>10}{:>8}{:>6}", mod, ratio_text(kern, mod), fidelity_pass(kern, mod) ? "pass" : "FAIL");
    }
    out += "\n";
  }
  for (const ReplayResult& r : rs)
    out += fmt::format("{}: refill and drain blocks {} within ±15% at every order\n", r.preset,
                       fidelity_ok(r) ? "are" : "are NOT");
  return out;
}

nlohmann::ordered_json fidelity_json(const trace::Trace& t, const std::string& zoneinfo, const std::vector<ReplayResult>& rs) {
  nlohmann::ordered_json j;
  j["schema"] = "pagesim-replay/1";
  j["trace"] = t.source;
  j["zoneinfo"] = zoneinfo;
  j["events"] = t.events.size();
  j["tolerance"] = kFidelityTolerance;
  j["profiles"] = nlohmann::ordered_json::array();
  for (const ReplayResult& r : rs) {
    nlohmann::ordered_json p;
    p["preset"] = r.preset;
    p["zone"] = r.zone;
    p["managed_pages"] = r.managed_pages;
    p["cpus"] = r.nr_cpus;
    p["anchor"] = replay::anchor_name(r.anchor);
    p["anchor_reason"] = r.anchor_reason;
    p["decay"] = replay::decay_name(r.decay);
    p["decay_calls"] = r.decays;
    p["batch"] = r.batch;
    p["initial"] = nlohmann::ordered_json::array();
    for (unsigned c = 0; c < r.nr_cpus; ++c)
      p["initial"].push_back({{"cpu", c}, {"count", r.initial_pcp_count[c]}, {"high", r.high[c]},
                              {"high_min", r.high_min[c]}, {"high_max", r.high_max[c]}});
    p["replayed"] = {{"allocs", r.allocs}, {"frees", r.frees}, {"pretrace_frees", r.pretrace_frees},
                     {"failed_allocs", r.failed_allocs}, {"other_zone_events", r.other_zone_events},
                     {"model_alloc_failures", r.model_alloc_failures}};
    p["rows"] = nlohmann::ordered_json::array();
    for (const auto& [k, o] : rows_of({r})) {
      const uint64_t kern = r.kernel.at(k, o), mod = r.model.at(k, o);
      nlohmann::ordered_json row{{"kind", replay::kind_name(k)}, {"order", o}, {"kernel", kern}, {"model", mod}};
      row["ratio"] = kern ? nlohmann::ordered_json(static_cast<double>(mod) / static_cast<double>(kern)) : nlohmann::ordered_json();
      row["pass"] = fidelity_pass(kern, mod);
      p["rows"].push_back(std::move(row));
    }
    p["pass"] = fidelity_ok(r);
    nlohmann::ordered_json pts = nlohmann::ordered_json::array();
    for (const replay::SeriesPoint& s : r.series) pts.push_back({s.ts, s.kernel, s.model});
    p["pcp_series"] = {{"cpu", r.series_cpu}, {"columns", {"ts", "kernel", "model"}}, {"points", std::move(pts)}};
    j["profiles"].push_back(std::move(p));
  }
  return j;
}

std::vector<std::string> plot_pcp_series(const std::string& out_dir, const std::vector<ReplayResult>& rs) {
  if (rs.empty()) return {};
  namespace fs = std::filesystem;
  fs::create_directories(out_dir);
  const unsigned cpu = rs.front().series_cpu;
  const std::string name = fmt::format("pcp-count-cpu{}", cpu);
  // One data block per series, blank-line separated: the kernel's, then each profile's.
  std::string dat = "# ts kernel\n";
  for (const replay::SeriesPoint& s : rs.front().series) dat += fmt::format("{:.6f} {}\n", s.ts, s.kernel);
  for (const ReplayResult& r : rs) {
    dat += fmt::format("\n\n# ts model {}\n", r.preset);
    for (const replay::SeriesPoint& s : r.series) dat += fmt::format("{:.6f} {}\n", s.ts, s.model);
  }
  const std::string dat_path = fs::absolute(fs::path(out_dir) / (name + ".dat")).string();
  write_file_atomic(dat_path, dat);
  std::string body = fmt::format(
      "set title {}\nset xlabel 'trace time (s)'\nset ylabel 'pages on the pcp lists'\nset grid\nset key top left\n"
      "plot {} index 0 using 1:2 with steps lw 2 title 'kernel (from its events)'",
      gp_quote(fmt::format("pcp count of CPU {}, kernel against model", cpu)), gp_quote(dat_path));
  for (size_t i = 0; i < rs.size(); ++i)
    body += fmt::format(", {} index {} using 1:2 with steps lw 1 title {}", gp_quote(dat_path), i + 1,
                        gp_quote("model " + rs[i].preset));
  body += "\n";
  return render(out_dir, name, body, 1000, 500);
}

}  // namespace pagesim::report
