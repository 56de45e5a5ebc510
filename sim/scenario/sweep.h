// Sweeps: a list of values where the schema wants one scalar makes one scenario per value.
//
// Sweepable: any scalar under `machine`, `kernel.knobs.*`, `workload.params.*`, and the
// top-level `seed` and `warmup_ops`. At most one key per file is swept.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pagesim/config/tree.h"

namespace pagesim::scenario::detail {

using namespace pagesim::config;  // the tree, schema and diagnostics the sections are read with

struct SweepSite {
  std::string key;              // "machine.cpus_per_node", "machine.nodes[1].cpus"
  std::vector<size_t> route;    // entry or item index at each level, from the root
  const Node* list = nullptr;   // the list of values, inside the tree it was found in
};

// The swept key of the tree, if any. Throws InputError for a second swept key and for a
// value given twice.
std::optional<SweepSite> find_sweep(const Node& root);

// A copy of `root` with the swept list replaced by its i-th value.
Node sweep_point(const Node& root, const SweepSite& site, size_t i);

}  // namespace pagesim::scenario::detail
