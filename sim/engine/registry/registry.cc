// The registered engines (engines.def), in its order.
#include "pagesim/engine/registry.h"

#include <map>
#include <set>
#include <stdexcept>

namespace pagesim::engine {

#define PAGESIM_ENGINE(name) EngineInfo name##_engine();
#include "../engines.def"
#undef PAGESIM_ENGINE

namespace {
std::vector<EngineInfo> build() {
  std::vector<EngineInfo> e = {
#define PAGESIM_ENGINE(name) name##_engine(),
#include "../engines.def"
#undef PAGESIM_ENGINE
  };
  std::set<std::string> names;
  for (const EngineInfo& info : e)
    for (const config::ParamSpec& o : info.options)
      if (!names.insert(o.name).second) throw std::logic_error("engine option " + o.name + " is declared twice");
  return e;
}
}  // namespace

const std::vector<EngineInfo>& registered_engines() {
  static const std::vector<EngineInfo> kEngines = build();
  return kEngines;
}

const EngineInfo* find_engine(const std::string& name) {
  for (const EngineInfo& e : registered_engines())
    if (e.name == name) return &e;
  return nullptr;
}

config::Params default_engine_options() {
  std::map<std::string, config::ParamValue> values;
  for (const EngineInfo& e : registered_engines())
    for (const config::ParamSpec& o : e.options) values[o.name] = o.default_value;
  return config::Params(std::move(values));
}

}  // namespace pagesim::engine
