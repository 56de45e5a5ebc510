#include "pagesim/result/run_result.h"

namespace pagesim::run {

void check_invariants_into(const mm::Machine& m, uint64_t& checks, std::vector<std::string>& violations) {
  const mm::InvariantReport r = mm::check_invariants(m);
  checks++;
  violations.insert(violations.end(), r.violations.begin(), r.violations.end());
}

}  // namespace pagesim::run
