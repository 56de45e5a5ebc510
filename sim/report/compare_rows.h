// The rows of the LKP comparison, computed once and rendered by compare_table (text) and
// compare_json (JSON), so that both always agree.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pagesim/result/run_result.h"
#include "stats.h"

namespace pagesim::report {

// Every stat of one run under its LKP-style name: "pagesim.<metric>",
// "lock_stat.<class>.<field>" (times in microseconds, as /proc/lock_stat prints them),
// "cache.<counter>" (line accesses and cache-model counts) and "proc-vmstat.<name>".
std::map<std::string, double> run_stats(const run::RunResult& r);
// The LKP name of one metric (vm-scalability.throughput, ...); "pagesim.<metric>" otherwise.
std::string stat_name(const std::string& metric);

// One quantity that variants count under different function names: the struct-page reads of
// the allocation-time checks land at check_pcp_refill under 5.17's head-only refill check and at
// check_new_pages under Mel's every-subpage walk, the same work. run_stats adds the members into
// one row named `stat`; compare_blocks labels it with the functions that counted.
struct Quantity {
  std::string stat;         // the row: "cache.struct_page_at_alloc_checks"
  std::string prefix;       // the members' common stem: "cache.struct_page_at_"
  std::vector<std::string> functions;  // the members: prefix + function
};
const std::vector<Quantity>& quantities();

struct CompareCell {
  std::string variant;
  Summary value;
  double change = 0;        // vs the base; unused for the base itself
  bool change_valid = true; // false when the base average is 0 and this one is not
};

struct CompareRow {
  std::string stat;
  std::string label;             // a Quantity's functions that counted, "check_new_pages, check_pcp_refill"
  bool bookkeeping = false;      // the model's own counts (run::MetricInfo::bookkeeping)
  bool absolute_change = false;  // names ending in '%' or '_pct': a difference in points
  bool host_timed = false;       // measured with the host clock (uniprocessor, native): noisy
  std::vector<CompareCell> cells;  // the base first
};

struct CompareBlock {
  std::string sweep_key, sweep_value;
  std::string engine;
  size_t max_repeats = 0;
  std::vector<std::string> variants;  // the base first
  std::vector<CompareRow> rows;
};

// One block per sweep point. Rows: the pagesim.*, lock_stat.*, cache.* and proc-vmstat.* stats
// that are non-zero in some run, each group by name.
std::vector<CompareBlock> compare_blocks(const std::vector<run::RunResult>& runs);

}  // namespace pagesim::report
