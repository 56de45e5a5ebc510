#include "pagesim/config/params.h"

#include "pagesim/error.h"

namespace pagesim::config {

namespace {
template <class T>
const T& get(const std::map<std::string, ParamValue>& values, const std::string& name) {
  auto it = values.find(name);
  if (it == values.end()) throw ModelError("parameter '" + name + "' was not declared");
  if (!std::holds_alternative<T>(it->second)) throw ModelError("parameter '" + name + "' has another type");
  return std::get<T>(it->second);
}

}  // namespace

int64_t Params::integer(const std::string& name) const { return get<int64_t>(values_, name); }
double Params::number(const std::string& name) const { return get<double>(values_, name); }
bool Params::boolean(const std::string& name) const { return get<bool>(values_, name); }
const std::string& Params::string(const std::string& name) const { return get<std::string>(values_, name); }

Params Params::with(const std::string& name, ParamValue value) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw ModelError("parameter '" + name + "' was not declared");
  if (it->second.index() != value.index()) throw ModelError("parameter '" + name + "' has another type");
  Params p = *this;
  p.values_[name] = std::move(value);
  return p;
}

}  // namespace pagesim::config
