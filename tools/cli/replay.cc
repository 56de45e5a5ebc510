// `pagesim replay`: a kernel kmem trace through the model, and the fidelity table.
#include <fmt/format.h>

#include <sstream>

#include "commands.h"
#include "pagesim/error.h"
#include "pagesim/report/fidelity.h"
#include "pagesim/report/report.h"

namespace pagesim::cli {

namespace {

replay::Anchor anchor_of(const std::string& s) {
  if (s == "auto") return replay::Anchor::automatic;
  if (s == "start") return replay::Anchor::start;
  if (s == "end") return replay::Anchor::end;
  if (s == "fit") return replay::Anchor::fit;
  if (s == "min") return replay::Anchor::min;
  throw InputError(fmt::format("--anchor: '{}' is not one of auto|start|end|fit|min", s));
}

replay::Decay decay_of(const std::string& s) {
  for (replay::Decay d : {replay::Decay::automatic, replay::Decay::trace, replay::Decay::timer, replay::Decay::off})
    if (s == replay::decay_name(d)) return d;
  throw InputError(fmt::format("--decay: '{}' is not one of auto|trace|timer|off", s));
}

}  // namespace

int replay(const ReplayArgs& a) {
  // Everything is read and replayed before anything is written: bad input leaves no partial output.
  const replay::Anchor anchor = anchor_of(a.anchor);
  const replay::Decay decay = decay_of(a.decay);
  const trace::Trace t = trace::read_ftrace(a.trace);
  const replay::ZoneInfoFile zi = a.zoneinfo.empty() ? replay::ZoneInfoFile{} : replay::read_zoneinfo(a.zoneinfo);
  std::vector<std::string> presets = a.profiles;
  if (presets.empty()) presets = {"v6.18", "v5.17"};
  std::vector<replay::ReplayResult> results;
  for (size_t i = 0; i < presets.size(); ++i) {
    replay::ReplayOptions o;
    o.preset = presets[i];
    o.anchor = anchor;
    o.decay = decay;
    o.series_cpu = a.cpu;
    o.keep_model_trace = i == 0 && !a.emit_trace.empty();
    results.push_back(replay::replay(t, zi, o));
  }
  std::string emitted;
  if (!a.emit_trace.empty()) {
    std::ostringstream s;
    trace::write_ftrace(s, results.front().model_trace);
    emitted = s.str();
  }
  if (!a.json.empty())
    report::write_file_atomic(a.json, report::fidelity_json(t, zi.source, results).dump(2) + "\n");
  if (!a.emit_trace.empty()) report::write_file_atomic(a.emit_trace, emitted);
  if (!a.quiet) fmt::print("{}", report::fidelity_table(t, results));
  if (!a.plot_dir.empty()) {
    for (const std::string& f : report::plot_pcp_series(a.plot_dir, results))
      if (!a.quiet) fmt::print("wrote {}\n", f);
  }
  return 0;
}

}  // namespace pagesim::cli
