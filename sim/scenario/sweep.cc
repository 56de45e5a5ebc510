// Finding and expanding the swept key.
#include "sweep.h"

#include <fmt/format.h>

#include "pagesim/config/diagnostics.h"

namespace pagesim::scenario::detail {

namespace {

class Finder {
 public:
  void consider(const Node& n, const std::string& key, std::vector<size_t>& route, bool deep) {
    if (n.is_scalar_list()) {
      found(n, key, route);
      return;
    }
    if (!deep) return;
    if (n.kind == Node::Kind::map)
      for (size_t i = 0; i < n.entries.size(); ++i) {
        route.push_back(i);
        consider(n.entries[i].value, child_path(key, n.entries[i].key), route, true);
        route.pop_back();
      }
    if (n.kind == Node::Kind::sequence)
      for (size_t i = 0; i < n.items.size(); ++i) {
        route.push_back(i);
        consider(n.items[i], fmt::format("{}[{}]", key, i), route, true);
        route.pop_back();
      }
  }

  // The children of map `n` (at `route`), each a candidate but not searched below.
  void consider_children(const Node& n, const std::string& key, std::vector<size_t>& route) {
    if (n.kind != Node::Kind::map) return;
    for (size_t i = 0; i < n.entries.size(); ++i) {
      route.push_back(i);
      consider(n.entries[i].value, child_path(key, n.entries[i].key), route, false);
      route.pop_back();
    }
  }

  std::optional<SweepSite> result;

 private:
  void found(const Node& list, const std::string& key, const std::vector<size_t>& route) {
    if (result)
      fail(list.pos, key,
           fmt::format("only one key may be swept per scenario, and {} already is (line {}); give a single value",
                       result->key, result->list->pos.line));
    for (size_t i = 0; i < list.items.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (list.items[i].text == list.items[j].text)
          fail(list.items[i].pos, key, fmt::format("expected distinct sweep values, got '{}' twice", list.items[i].text));
    result = SweepSite{key, route, &list};
  }
};

}  // namespace

std::optional<SweepSite> find_sweep(const Node& root) {
  Finder f;
  std::vector<size_t> route;
  for (size_t i = 0; i < root.entries.size(); ++i) {
    const Entry& e = root.entries[i];
    route.push_back(i);
    if (e.key == "machine") f.consider(e.value, e.key, route, true);
    if (e.key == "seed" || e.key == "warmup_ops") f.consider(e.value, e.key, route, false);
    if (e.key == "kernel" || e.key == "workload") {
      const char* child = e.key == "kernel" ? "knobs" : "params";
      for (size_t j = 0; j < e.value.entries.size(); ++j)
        if (e.value.entries[j].key == child) {
          route.push_back(j);
          f.consider_children(e.value.entries[j].value, child_path(e.key, child), route);
          route.pop_back();
        }
    }
    route.pop_back();
  }
  return f.result;
}

Node sweep_point(const Node& root, const SweepSite& site, size_t i) {
  Node copy = root;
  Node* n = &copy;
  for (size_t step : site.route) n = n->kind == Node::Kind::map ? &n->entries[step].value : &n->items[step];
  *n = Node(site.list->items[i]);
  return copy;
}

}  // namespace pagesim::scenario::detail
