#include "pagesim/report/procfs.h"

#include <fmt/format.h>

namespace pagesim::report {

std::string buddyinfo(const mm::Machine& m) {
  std::string out;
  for (const mm::Zone* z : m.populated_zones()) {
    out += fmt::format("Node {}, zone {:>8} ", z->node, z->name());
    for (unsigned o = 0; o < mm::MAX_ORDER; ++o) out += fmt::format("{:6} ", z->free_area[o].nr_free);
    out += "\n";
  }
  return out;
}

}  // namespace pagesim::report
