// Reports: the human summary, the LKP comparison table, JSON ("pagesim/1"), CSV and plots.
// docs/output.md documents the JSON schema; tests check output against it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "pagesim/result/run_result.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/scenario.h"

namespace pagesim::report {

// Which comparison rows (pagesim run, compare and merge: --all, --rows).
struct CompareOptions {
  // The workload's headline metric (workload::WorkloadInfo::headline, a runs[].metrics name),
  // printed first whether it changed or not; "" for none.
  std::string headline;
  // Every row: also those that did not change beyond the noise, and the model's bookkeeping
  // (run::MetricInfo::bookkeeping) in its section. Otherwise a closing line counts them.
  bool all = false;
  // A regular expression (ECMAScript, searched in the row's stat and label): only the rows it
  // matches, changed or not, bookkeeping included. "" for no selection.
  std::string rows;
};
// Throws InputError naming --rows when `opt.rows` is not a regular expression.
void check_compare_options(const CompareOptions& opt);
// The options for a workload by name: its declared headline, --all and --rows.
CompareOptions compare_options(const std::string& workload, bool all, const std::string& rows);

// The headline (the default): the scenario, a line per variant with its invariant checks and
// bad-page count, the runs' notes, then the comparison table (`opt`). Verbose: per variant its
// metrics, zones, locks, placement, cache counters and every "Bad page state" line, then the
// comparison table with every row.
std::string human(const scenario::ScenarioSet& set, const std::vector<run::RunResult>& runs, bool verbose = false,
                  CompareOptions opt = {});

// The kernel test robot's comparison: "base avg ±stddev%  %change  variant avg ±stddev%  metric",
// averaged over repeats; stddev printed only above 2%, as LKP does. One block per sweep point;
// in each, the headline, then the rows that changed beyond the noise, then (opt.all) the rest,
// then (opt.all) the model's bookkeeping in a section of its own. Throws InputError for a bad
// opt.rows.
std::string compare_table(const std::vector<run::RunResult>& runs, const CompareOptions& opt = {});
// The model beside the scenario's `reference:` figures (the robot's, a seed's): one row per
// reference figure, each model cell calibrated, predicted, measured (host-timed on a host
// engine) or "not run" (no run was taken where the figure was), then the reference's notes.
// `sc` is the first sweep point: a row's `at` picks its point. "" without a reference or when
// no run is of a variant it names.
std::string reference_table(const scenario::Scenario& sc, const std::vector<run::RunResult>& runs);
// The same rows as JSON objects for "compare".
nlohmann::ordered_json compare_json(const std::vector<run::RunResult>& runs);

// The full JSON document: schema, scenario (resolved), runs, compare, interrupted, and for one
// shard of a set (run::Shard) which one. docs/output.md documents every key.
nlohmann::ordered_json to_json(const scenario::ScenarioSet& set, const std::vector<run::RunResult>& runs,
                               bool interrupted, const run::Shard& shard = {});
// The same over a scenario already in its JSON form (a document's "scenario", for merge).
nlohmann::ordered_json result_document(nlohmann::ordered_json scenario, const std::vector<run::RunResult>& runs,
                                       bool interrupted, const run::Shard& shard = {});

// Shards of one set (`pagesim merge`): every document's "shard" says K of N, each K once, all
// of the same scenario (its `outputs` aside), seed and pagesim version. Returns the whole
// set's document, its runs back in run order, as the unsharded run would have written it.
// Throws InputError naming the files and the first difference.
struct Merged {
  nlohmann::ordered_json doc;
  std::vector<run::RunResult> runs;
};
Merged merge_shards(const std::vector<std::string>& json_files);
// One run as it appears under "runs" (everything but the procfs text).
nlohmann::ordered_json run_to_json(const run::RunResult& r);
// Reads the "runs" of a to_json document back (the inverse of run_to_json). Throws InputError
// naming `source` (a file name, for messages) when the document does not have that shape.
std::vector<run::RunResult> runs_from_json(const nlohmann::json& doc, const std::string& source);
// One row per run and metric: variant,engine,repeat,sweep_key,sweep_value,metric,value.
std::string to_csv(const std::vector<run::RunResult>& runs);

// The whole text of `path`, or of standard input for "-". Throws InputError naming the path
// and the reason when it cannot be read.
std::string read_text_file(const std::string& path);

// Writes `content` to `path`. A regular file (or a new one) is replaced atomically: a temporary
// file in the same directory, fsync, then rename; a symlink is followed, so the file it names is
// replaced and the link stays a link. A device, FIFO or socket (/dev/null, /dev/stdout's
// target) is written through and never replaced; "-" is standard output. Throws InputError
// (naming the path) when it cannot, a directory included.
void write_file_atomic(const std::string& path, const std::string& content);

// Writes buddyinfo, zoneinfo, vmstat, pagetypeinfo, lock_stat and dmesg of each run under
// dir/[<sweep_key>=<value>/]<variant>/<repeat>/; files whose snapshot is empty (the run was not
// captured) are skipped. Path components are made filesystem-safe. The tree is written beside
// `dir` and swapped in whole: no folder of an earlier run stays, and a failure leaves the
// earlier tree as it was. Throws InputError naming the path that could not be written.
void write_proc_dir(const std::string& dir, const std::vector<run::RunResult>& runs);

// Renders PNG and SVG plots of a result JSON through gnuplot into out_dir. Returns the files
// written. Throws InputError for a missing or malformed JSON file.
std::vector<std::string> plot(const std::string& json_file, const std::string& out_dir);

}  // namespace pagesim::report
