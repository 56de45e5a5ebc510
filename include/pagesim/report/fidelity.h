// `pagesim replay`'s report: per event kind and order, the kernel's count beside each
// profile's, their ratio and a pass or fail against ±15%; the same as JSON; the pcp count of
// one CPU over time, kernel against model, as a plot (docs/replay.md).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "pagesim/replay/replay.h"

namespace pagesim::report {

inline constexpr double kFidelityTolerance = 0.15;

// |model - kernel| <= 15% of kernel; a kind the kernel never shows passes only at zero.
bool fidelity_pass(uint64_t kernel, uint64_t model);

// The header (trace, zone, each profile's anchor and starting pcp) and the table, one model
// column group per result (all of the same trace).
std::string fidelity_table(const trace::Trace& t, const std::vector<replay::ReplayResult>& results);
// Whether every refill and drain row of `r` passes (the criterion).
bool fidelity_ok(const replay::ReplayResult& r);

// schema "pagesim-replay/1" (docs/replay.md).
nlohmann::ordered_json fidelity_json(const trace::Trace& t, const std::string& zoneinfo,
                                     const std::vector<replay::ReplayResult>& results);

// pcp-count-cpuN.{png,svg} (and .dat, .gp) in out_dir. Returns the pictures. Throws when
// gnuplot is missing or fails.
std::vector<std::string> plot_pcp_series(const std::string& out_dir, const std::vector<replay::ReplayResult>& results);

}  // namespace pagesim::report
