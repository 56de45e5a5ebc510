// The parts of a calibration that are not timed: what the OS reports (topology, caches) and the
// fallbacks for what one process on one socket cannot measure. Each records how it was read
// (Calibration::measured) or why it was not measured and why its value was chosen
// (Calibration::not_measured).
#pragma once

#include "pagesim/vt/calibrate.h"

namespace pagesim::vt {

// c.model's topology and caches from c.host; an L1d or L2 /sys does not list gets a fallback.
// Returns whether /sys lists the LLC; if not, caches.llc is left to the caller (the chase
// curve's knee).
bool describe_topology(Calibration& c);

// frequency_ghz when the core clock cannot be timed (not x86-64): /proc/cpuinfo's "cpu MHz",
// else the shipped machine's 2.6 GHz.
void frequency_fallback(Calibration& c);

// Every figure the measurements cannot give (remote latencies, HITMs and lock-line transfers,
// the UPI bandwidth, the loaded-latency curve, MLP, the snoop filter, bytes per store miss),
// derived from the measured ones. Call after the measurements.
void apply_fallbacks(Calibration& c);

}  // namespace pagesim::vt
