// The `workload` section: a registered workload and its typed parameters.
#include <fmt/format.h>

#include "pagesim/config/diagnostics.h"
#include "sections.h"

namespace pagesim::scenario::detail {

WorkloadSection read_workload(const Node& n, const std::vector<workload::WorkloadInfo>& workloads) {
  const MapView m(n, "workload", {"name", "params"});
  std::vector<std::string> names;
  for (const workload::WorkloadInfo& w : workloads) names.push_back(w.name);
  WorkloadSection out;
  out.name = read_choice(m.require("name"), m.path("name"), names, "a registered workload:");
  const workload::WorkloadInfo* info = nullptr;
  for (const workload::WorkloadInfo& w : workloads)
    if (w.name == out.name) info = &w;

  std::vector<std::string> declared;
  for (const config::ParamSpec& p : info->params) declared.push_back(p.name);
  const Node absent{Node::Kind::null, {}, false, n.pos, {}, {}};
  const MapView params(m.has("params") ? *m.get("params") : absent, m.path("params"), declared);
  std::map<std::string, config::ParamValue> values;
  out.resolved["name"] = out.name;
  nlohmann::ordered_json& pj = out.resolved["params"] = nlohmann::ordered_json::object();
  for (const config::ParamSpec& p : info->params) {
    const Node* v = params.get(p.name);
    values[p.name] = v ? read_param(*v, params.path(p.name), p) : p.default_value;
    out.param_pos[p.name] = v ? v->pos : n.pos;
    pj[p.name] = param_json(p, values[p.name]);
  }
  out.params = config::Params(std::move(values));
  out.engines = info->engines;
  out.info = info;
  return out;
}

}  // namespace pagesim::scenario::detail
