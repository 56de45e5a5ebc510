// How the virtual engine places a scenario's CPUs on its machine file: node n is socket n, and
// a node's CPUs fill its cores in order, SMT siblings adjacent (VirtualEngine::geometry_for and
// the engine's model_cpu_ numbering).
#include <fmt/format.h>

#include <algorithm>

#include "pagesim/engine/engine.h"
#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim::engine {

VirtualTopology virtual_topology(const mm::MachineSpec& spec, const vt::MachineModel& model) {
  const cache::CacheGeometry& file = model.geometry;
  const cache::CacheGeometry used = VirtualEngine::geometry_for(spec, model);
  const unsigned threads = file.threads_per_core, per_socket = file.cores_per_socket * threads;
  VirtualTopology t;
  t.cores_per_socket = used.cores_per_socket;
  unsigned most = 0;
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    most = std::max(most, spec.nodes[n].cpus);
    if (spec.nodes[n].cpus > per_socket) t.oversubscribed_nodes.push_back(n);
  }
  const std::string sharing = threads == 1 ? "one thread per core"
                                           : fmt::format("{} SMT threads per core (a node's CPUs {}k to {}k+{} share core k)", threads,
                                                         threads, threads, threads - 1);
  t.statement = fmt::format("{} node{} of up to {} CPUs on {} ({} socket{} x {} cores x {} threads): node n is socket n, its CPUs "
                            "on cores 0-{}, {}",
                            spec.nodes.size(), spec.nodes.size() == 1 ? "" : "s", most, model.name, file.sockets,
                            file.sockets == 1 ? "" : "s", file.cores_per_socket, threads, used.cores_per_socket - 1, sharing);
  if (!t.oversubscribed_nodes.empty())
    t.warning = fmt::format("node{} {} ha{} more CPUs ({}) than a socket of {} has threads ({} cores x {}): the model adds cores "
                            "{}-{} that the machine does not have",
                            t.oversubscribed_nodes.size() == 1 ? "" : "s", fmt::join(t.oversubscribed_nodes, ", "),
                            t.oversubscribed_nodes.size() == 1 ? "s" : "ve", most, model.name, file.cores_per_socket, threads,
                            file.cores_per_socket, used.cores_per_socket - 1);
  return t;
}

}  // namespace pagesim::engine
