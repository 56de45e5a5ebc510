// Helpers for report tests: golden files and hand-made results.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "pagesim/result/run_result.h"

namespace pagesim::test {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compares `actual` with tests/report/golden/<name>. PAGESIM_UPDATE_GOLDEN=1 rewrites the file
// instead (then review the diff before committing it).
inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(PAGESIM_GOLDEN_DIR) + "/" + name;
  if (const char* u = std::getenv("PAGESIM_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(path) << actual;
    return;
  }
  EXPECT_EQ(read_text(path), actual) << "golden file " << path << " differs; PAGESIM_UPDATE_GOLDEN=1 rewrites it";
}

// A run with the given metrics, as the runner would produce for one variant and repeat.
inline run::RunResult make_run(const std::string& variant, unsigned repeat, std::map<std::string, double> metrics,
                               const std::string& sweep_key = "", const std::string& sweep_value = "") {
  run::RunResult r;
  r.variant = variant;
  r.engine = "uniprocessor";
  r.repeat = repeat;
  r.seed = 1 + repeat;
  r.sweep_key = sweep_key;
  r.sweep_value = sweep_value;
  r.metrics = std::move(metrics);
  return r;
}

}  // namespace pagesim::test
