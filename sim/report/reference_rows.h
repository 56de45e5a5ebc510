// The scenario's `reference:` rows beside the model's figures, computed once for the human
// table (reference.cc) and the plots (plot.cc), so that both always agree.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "pagesim/result/run_result.h"
#include "pagesim/scenario/scenario.h"

namespace pagesim::report {

struct ReferenceLine {
  const scenario::Reference::Row* row;
  std::string where;         // "label @ point / @ point": whose figure, taken where
  std::string name;          // where, then the stat: "Milan @ multi_page: pagesim.clear_gbs median"
  bool run = false;          // some run of the result was taken where the row's figures were
  std::vector<double> theirs, ours;  // one per ReferenceLines::variants; NaN where none
};

struct ReferenceLines {
  std::vector<std::pair<std::string, std::string>> variants;  // (model, reference name) the runs have
  std::vector<ReferenceLine> lines;
};

// `resolved` is the first sweep point's resolved scenario: a row's `at` keys other than the
// swept one are matched against it, the swept key against each run's point.
ReferenceLines reference_lines(const scenario::Reference& ref, const nlohmann::ordered_json& resolved,
                               const std::vector<run::RunResult>& runs);

}  // namespace pagesim::report
