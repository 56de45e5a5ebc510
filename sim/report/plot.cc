// `pagesim plot`: pictures of a result JSON through gnuplot (gnuplot.h).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

#include "gnuplot.h"
#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "pagesim/run/runner.h"
#include "paths.h"
#include "reference_rows.h"
#include "stats.h"

namespace pagesim::report {

namespace {

namespace fs = std::filesystem;

constexpr const char* kColors[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb"};

std::string color(size_t i) { return kColors[i % std::size(kColors)]; }

// A data-file string field (gnuplot reads "..." as one column).
std::string dat_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? '\'' : c;
  return out + "\"";
}

double err(const Summary& s) { return s.stddev < 0 ? 0 : s.stddev; }

bool is_number(const std::string& s, double& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// Settings every chart shares.
std::string common(const std::string& title, const std::string& ylabel) {
  return "set title " + gp_quote(title) + "\nset ylabel " + gp_quote(ylabel) +
         "\nset grid ytics\nset border 3\nset tics nomirror\nset style fill solid 0.75 border -1\n";
}

std::string xtics_for(const std::vector<std::string>& labels) {
  size_t longest = 0;
  for (const std::string& l : labels) longest = std::max(longest, l.size());
  return longest > 12 ? "set xtics rotate by -25 left\nset bmargin 7\n" : "";
}

int width_for(size_t bars) { return static_cast<int>(std::clamp<size_t>(220 + 90 * bars, 800, 1400)); }

std::vector<std::string> all_variants(const std::vector<SweepGroup>& groups) {
  std::vector<std::string> names;
  for (const SweepGroup& g : groups)
    for (const VariantRuns& v : g.variants)
      if (std::find(names.begin(), names.end(), v.variant) == names.end()) names.push_back(v.variant);
  return names;
}

const VariantRuns* find_variant(const SweepGroup& g, const std::string& name) {
  for (const VariantRuns& v : g.variants)
    if (v.variant == name) return &v;
  return nullptr;
}

class Plotter {
 public:
  Plotter(std::string out_dir, const std::vector<run::RunResult>& runs)
      : dir_(std::move(out_dir)), groups_(group_runs(runs)), variants_(all_variants(groups_)) {}

  std::vector<std::string> files;

  // One bar per variant (no sweep) or a cluster per sweep point, with stddev error bars.
  void metric_bars(const std::string& metric) {
    const std::string name = "metric-" + safe_component(metric);
    std::string dat;
    std::string plot;
    std::string body = common(metric + " per variant (mean, error bar = stddev over repeats)", metric);
    if (groups_.size() == 1) {
      for (const VariantRuns& v : groups_[0].variants) {
        const Summary s = metric_summary(v, metric);
        dat += fmt::format("{} {} {}\n", dat_string(v.variant), s.avg, err(s));
      }
      body += xtics_for(variants_) + "unset key\nset boxwidth 0.6\nset xrange [-0.6:" +
              std::to_string(groups_[0].variants.size()) + "-0.4]\nset yrange [0:*]\n";
      plot = "plot " + gp_quote(data(name, dat)) + " using 0:2:3:xtic(1) with boxerrorbars lc rgb " + gp_quote(color(0)) +
             " lw 1.5\n";
    } else {
      // No header line: histogram errorbars would count it as a row and shift the bars.
      for (const SweepGroup& g : groups_) {
        dat += dat_string(g.value);
        for (const std::string& vn : variants_) {
          const VariantRuns* v = find_variant(g, vn);
          const Summary s = v ? metric_summary(*v, metric) : Summary{};
          dat += fmt::format(" {} {}", s.avg, err(s));
        }
        dat += "\n";
      }
      body += "set style data histogram\nset style histogram errorbars gap 1 lw 1.5\nset key outside right top\n"
              "set yrange [0:*]\nset xlabel " + gp_quote(groups_[0].key) + "\n";
      const std::string path = data(name, dat);
      plot = "plot ";
      for (size_t i = 0; i < variants_.size(); ++i) {
        plot += i == 0 ? gp_quote(path) : std::string("''");
        plot += fmt::format(" using {}:{}{} title {} lc rgb {}", 2 + 2 * i, 3 + 2 * i, i == 0 ? ":xtic(1)" : "",
                            gp_quote(variants_[i]), gp_quote(color(i)));
        plot += i + 1 < variants_.size() ? ", \\\n     " : "\n";
      }
    }
    add(render(dir_, name, body + plot, width_for(variants_.size() * groups_.size()), 540));
  }

  // The metric against the swept parameter, one line per variant.
  void metric_sweep(const std::string& metric) {
    if (groups_.size() < 2) return;
    bool numeric = true;
    for (const SweepGroup& g : groups_) {
      double x;
      numeric = numeric && is_number(g.value, x);
    }
    const std::string name = "sweep-" + safe_component(metric);
    std::string dat;
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      const SweepGroup& g = groups_[gi];
      dat += numeric ? g.value : fmt::format("{} {}", gi, dat_string(g.value));
      for (const std::string& vn : variants_) {
        const VariantRuns* v = find_variant(g, vn);
        const Summary s = v ? metric_summary(*v, metric) : Summary{};
        dat += fmt::format(" {} {}", s.avg, err(s));
      }
      dat += "\n";
    }
    const std::string path = data(name, dat);
    const size_t first = numeric ? 2 : 3;  // first avg column
    std::string body = common(metric + " against " + groups_[0].key + " (mean, error bar = stddev)", metric);
    body += "set xlabel " + gp_quote(groups_[0].key) + "\nset key outside right top\n";
    // CPU and node counts double from point to point: a log2 axis spaces them evenly. Other
    // numeric sweeps start at their first point, never below zero.
    if (numeric && powers_of_two()) body += "set logscale x 2\nset offsets graph 0.05, graph 0.05, 0, 0\n";
    else if (numeric) body += fmt::format("set xrange [{}:*]\nset offsets 0, graph 0.05, 0, 0\n", groups_.front().value);
    else body += "set offsets graph 0.05, graph 0.05, 0, 0\n";
    body += "set format y '%.1s%c'\n";  // human units on y: 1.5M, 250.0k, 3.0m
    std::string plot = "plot ";
    for (size_t i = 0; i < variants_.size(); ++i) {
      plot += i == 0 ? gp_quote(path) : std::string("''");
      plot += fmt::format(" using 1:{}:{}{} with yerrorlines title {} lc rgb {} lw 2 pt 7", first + 2 * i, first + 1 + 2 * i,
                          numeric || i > 0 ? "" : ":xtic(2)", gp_quote(variants_[i]), gp_quote(color(i)));
      plot += i + 1 < variants_.size() ? ", \\\n     " : "\n";
    }
    add(render(dir_, name, body + plot, 1000, 540));
  }

  // The scenario's published figures beside the model's: one chart per metric and stat (per
  // iteration and ratio rows apart), a cluster per figure, a reference and a model bar per variant.
  void reference(const ReferenceLines& ls) {
    std::vector<std::string> charts;
    auto chart_of = [](const ReferenceLine& l) {
      return l.row->metric + (l.row->per_iteration ? "-per_iteration" : "") + (l.row->stat == "mean" ? "" : "-" + l.row->stat) +
             (l.row->relative_to.empty() ? "" : "-ratio");
    };
    for (const ReferenceLine& l : ls.lines)
      if (std::find(charts.begin(), charts.end(), chart_of(l)) == charts.end()) charts.push_back(chart_of(l));
    for (const std::string& chart : charts) {
      std::string dat;
      std::vector<std::string> tics;
      for (const ReferenceLine& l : ls.lines) {
        if (chart_of(l) != chart) continue;
        tics.push_back(l.where);
        dat += dat_string(l.where.empty() ? l.row->metric : l.where);
        for (size_t i = 0; i < ls.variants.size(); ++i) dat += fmt::format(" {} {}", l.theirs[i], l.ours[i]);
        dat += "\n";
      }
      const std::string name = "reference-" + safe_component(chart);
      const std::string path = data(name, dat);
      std::string body = common(chart + ": the reference beside the model (no bar: no figure, or not run)", chart);
      body += "set datafile missing 'nan'\nset style data histogram\nset style histogram clustered gap 1\n"
              "set key outside right top\nset yrange [0:*]\n" + xtics_for(tics);
      std::string plot = "plot ";
      for (size_t i = 0; i < ls.variants.size(); ++i)
        for (size_t k = 0; k < 2; ++k) {
          const size_t col = 2 + 2 * i + k;
          plot += col == 2 ? gp_quote(path) : std::string("''");
          const std::string title = k == 0 ? ls.variants[i].second + " (reference)" : ls.variants[i].first + " (model)";
          plot += fmt::format(" using {}{} title {} lc rgb {}", col, col == 2 ? ":xtic(1)" : "", gp_quote(title), gp_quote(color(col - 2)));
          plot += col + 1 < 2 + 2 * ls.variants.size() ? ", \\\n     " : "\n";
        }
      add(render(dir_, name, body + plot, width_for(2 * ls.variants.size() * tics.size()), 540));
    }
  }

  // Wait and hold histograms of each lock class, per sweep point, one cluster per bucket.
  void lock_histograms() {
    for (const SweepGroup& g : groups_) {
      std::vector<std::string> classes;
      for (const VariantRuns& v : g.variants)
        for (const run::RunResult* r : v.runs)
          for (const run::LockStat& l : r->locks)
            if (std::find(classes.begin(), classes.end(), l.name) == classes.end()) classes.push_back(l.name);
      for (const std::string& cls : classes) {
        lock_histogram(g, cls, true);
        lock_histogram(g, cls, false);
      }
    }
  }

 private:
  std::string data(const std::string& name, const std::string& content) {
    const std::string path = fs::absolute(fs::path(dir_) / (name + ".dat")).string();
    write_file_atomic(path, content);
    return path;
  }

  void add(const std::vector<std::string>& written) { files.insert(files.end(), written.begin(), written.end()); }

  // Bucket i holds samples in [2^i, 2^(i+1)) ns; labelled by its lower bound.
  static std::string bucket_label(size_t i) {
    const double ns = static_cast<double>(uint64_t{1} << std::min<size_t>(i, 63));
    if (ns < 1e3) return fmt::format("{:g}ns", ns);
    if (ns < 1e6) return fmt::format("{:.3g}us", ns / 1e3);
    if (ns < 1e9) return fmt::format("{:.3g}ms", ns / 1e6);
    return fmt::format("{:.3g}s", ns / 1e9);
  }

  void lock_histogram(const SweepGroup& g, const std::string& cls, bool wait) {
    // Mean count per bucket over a variant's runs, instances of the class summed.
    std::vector<std::vector<double>> hist;
    size_t buckets = 0;
    for (const VariantRuns& v : g.variants) {
      std::vector<double>& h = hist.emplace_back();
      for (const run::RunResult* r : v.runs)
        for (const run::LockStat& l : r->locks) {
          if (l.name != cls) continue;
          const std::vector<uint64_t>& src = wait ? l.wait_hist : l.hold_hist;
          if (h.size() < src.size()) h.resize(src.size());
          for (size_t i = 0; i < src.size(); ++i) h[i] += static_cast<double>(src[i]) / static_cast<double>(v.runs.size());
        }
      buckets = std::max(buckets, h.size());
    }
    size_t lo = buckets, hi = 0;  // the non-empty bucket range
    for (const auto& h : hist)
      for (size_t i = 0; i < h.size(); ++i)
        if (h[i] > 0) lo = std::min(lo, i), hi = std::max(hi, i + 1);
    if (lo >= hi) return;  // no samples: nothing to draw
    std::string dat;
    for (size_t b = lo; b < hi; ++b) {
      dat += dat_string(bucket_label(b));
      for (const auto& h : hist) dat += fmt::format(" {}", b < h.size() ? h[b] : 0.0);
      dat += "\n";
    }
    const char* what = wait ? "wait" : "hold";
    std::string name = fmt::format("lock-{}-{}", safe_component(cls), what);
    if (!g.key.empty()) name += "-" + safe_component(g.key + "=" + g.value);
    const std::string path = data(name, dat);
    std::string title = fmt::format("{} {} time histogram (log2 buckets; mean count over repeats)", cls, what);
    if (!g.key.empty()) title += fmt::format(", {} = {}", g.key, g.value);
    std::string body = common(title, wait ? "contentions" : "acquisitions");
    body += fmt::format("set xlabel {}\nset style data histogram\nset style histogram clustered gap 1\n"
                        "set key outside right top\nset yrange [0:*]\nset xtics rotate by -45 left\n",
                        gp_quote(std::string(what) + " time (bucket lower bound)"));
    std::string plot = "plot ";
    for (size_t i = 0; i < g.variants.size(); ++i) {
      plot += i == 0 ? gp_quote(path) : std::string("''");
      plot += fmt::format(" using {}{} title {} lc rgb {}", 2 + i, i == 0 ? ":xtic(1)" : "", gp_quote(g.variants[i].variant),
                          gp_quote(color(i)));
      plot += i + 1 < g.variants.size() ? ", \\\n     " : "\n";
    }
    add(render(dir_, name, body + plot, width_for((hi - lo) * g.variants.size() / 2), 540));
  }

  // Every sweep point a power of two above zero (1, 2, 4, ...): CPU and node counts.
  bool powers_of_two() const {
    for (const SweepGroup& g : groups_) {
      double x = 0;
      if (!is_number(g.value, x) || x < 1 || std::exp2(std::round(std::log2(x))) != x) return false;
    }
    return groups_.size() > 2;
  }

  std::string dir_;
  std::vector<SweepGroup> groups_;
  std::vector<std::string> variants_;
};

// The result JSON from a file, or from standard input for "-".
nlohmann::json load(const std::string& json_file) {
  const std::string text = read_text_file(json_file);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", json_file, e.what()));
  }
}

// The document's `scenario.reference` and the resolved scenario its rows are matched against;
// nullopt when it has none. A malformed one is bad input, not a crash.
std::optional<std::pair<scenario::Reference, nlohmann::ordered_json>> reference_of(const nlohmann::json& doc, const std::string& file) {
  const auto sc = doc.find("scenario");
  if (sc == doc.end() || !sc->is_object() || !sc->contains("reference")) return std::nullopt;
  try {
    nlohmann::ordered_json resolved = nlohmann::ordered_json::parse(sc->dump());
    scenario::Reference ref = scenario::reference_from_resolved(resolved.at("reference"));
    return std::make_pair(std::move(ref), std::move(resolved));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: scenario.reference: {}", file, e.what()));
  }
}

}  // namespace

std::vector<std::string> plot(const std::string& json_file, const std::string& out_dir) {
  const nlohmann::json doc = load(json_file);
  const std::vector<run::RunResult> runs = runs_from_json(doc, json_file);
  if (runs.empty()) throw InputError(fmt::format("{}: no runs to plot", json_file));
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw InputError(fmt::format("cannot create directory '{}': {}", out_dir, ec.message()));
  // Metrics that are 0 in every run carry no picture, nor do settings (run::MetricInfo::setting).
  std::set<std::string> metrics;
  for (const run::RunResult& r : runs)
    for (const auto& [name, value] : r.metrics) {
      const run::MetricInfo* info = run::find_metric(name);
      if (value != 0 && !(info && info->setting)) metrics.insert(name);
    }
  Plotter p(out_dir, runs);
  for (const std::string& m : metrics) p.metric_bars(m);
  for (const std::string& m : metrics) p.metric_sweep(m);
  p.lock_histograms();
  if (const auto ref = reference_of(doc, json_file)) p.reference(reference_lines(ref->first, ref->second, runs));
  return p.files;
}

}  // namespace pagesim::report
