// `pagesim compare A.json B.json...`: the comparison table redrawn from saved results, as LKP
// compares the results of two commits.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>

#include "commands.h"
#include "pagesim/error.h"
#include "pagesim/report/report.h"

namespace pagesim::cli {

std::string result_json(const std::string& arg) {
  return std::filesystem::is_directory(arg) ? (std::filesystem::path(arg) / "result.json").string() : arg;
}

std::string result_workload(const nlohmann::json& scenario) {
  return (scenario.is_array() ? scenario.at(0) : scenario).at("workload").at("name").get<std::string>();
}

namespace {

struct Loaded {
  std::vector<run::RunResult> runs;
  std::string workload;  // the first file's
};

// Every file's runs, in file order. A variant that an earlier file already has is renamed
// "FILE:variant", so that the same scenario saved at two commits compares column by column.
Loaded load_results(const std::vector<std::string>& args) {
  Loaded l;
  std::set<std::string> seen;
  for (const std::string& arg : args) {
    const std::string file = result_json(arg);
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(report::read_text_file(file));
      if (l.workload.empty()) l.workload = result_workload(doc.at("scenario"));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(fmt::format("{}: not a pagesim/1 result: {}", file, e.what()));
    }
    std::vector<run::RunResult> runs = report::runs_from_json(doc, file);
    std::set<std::string> mine;
    for (const run::RunResult& r : runs) mine.insert(r.variant);
    for (run::RunResult& r : runs)
      if (seen.count(r.variant)) r.variant = fmt::format("{}:{}", arg, r.variant);
    for (const run::RunResult& r : runs) seen.insert(r.variant);
    seen.insert(mine.begin(), mine.end());
    l.runs.insert(l.runs.end(), std::make_move_iterator(runs.begin()), std::make_move_iterator(runs.end()));
  }
  return l;
}

}  // namespace

int compare(const CompareArgs& a) {
  const Loaded l = load_results(a.results);
  fmt::print("{}", report::compare_table(l.runs, report::compare_options(l.workload, a.all, a.rows)));
  return 0;
}

}  // namespace pagesim::cli
