// The pagesim subcommands. Each returns the process exit code (0 ok, 1 run failed, 2 bad input,
// 128 + signal when interrupted) or throws InputError / ModelError, which main maps to 2 / 1.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace pagesim::cli {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> sets;  // --set key=value
  std::string json, csv, out_dir, proc_dir;
  bool quiet = false;
  bool verbose = false;  // per-variant detail and the whole comparison table
  bool all = false;      // --all: every comparison row
  std::string rows;      // --rows REGEX: the comparison rows it matches
  bool strict = false;   // --strict: a warning is an error (exit 2, nothing runs)
  unsigned jobs = 0;  // runs at once (not the native engine's); 0: as many as the host fits
  std::string shard;  // --shard K/N: the K-th of N disjoint slices of the runs ("": all)
  bool no_reuse = false;  // --no-reuse: run even the runs run::run_all would reuse
};
int run(const RunArgs& a);

// Shards of one set (their --out directories or result.json files) into one result in out_dir.
struct MergeArgs {
  std::vector<std::string> shards;
  std::string out_dir;
  bool quiet = false;
  bool all = false;  // --all and --rows, as for run
  std::string rows;
};
int merge(const MergeArgs& a);

// The comparison table of saved results (their files, or --out directories), as `run` prints it.
struct CompareArgs {
  std::vector<std::string> results;
  bool all = false;
  std::string rows;
};
int compare(const CompareArgs& a);
// A result argument: a --out directory (its result.json) or the JSON file itself.
std::string result_json(const std::string& arg);
// The workload of a result document's "scenario" (the first sweep point's for a sweep).
std::string result_workload(const nlohmann::json& scenario);

// An sbatch script that runs a scenario's shards as a Slurm job array and merges them.
struct SlurmArgs {
  std::string scenario;
  std::vector<std::string> sets;
  unsigned shards = 0;
  std::string out_dir = "pagesim-slurm";
  std::string script;   // "" or "-": standard output
  std::string pagesim;  // the binary the jobs run ("": this one)
  unsigned cpus_per_task = 1;
};
int slurm(const SlurmArgs& a);

struct ValidateArgs {
  std::string scenario;
  std::vector<std::string> sets;
  bool resolved = false;
  bool strict = false;
};
int validate(const ValidateArgs& a);

// A kernel kmem trace replayed through the model under each profile (docs/replay.md).
struct ReplayArgs {
  std::string trace;
  std::string zoneinfo;               // "": one zone over the trace's pfns, the model's pagesets
  std::vector<std::string> profiles;  // presets; none: v6.18 and v5.17
  std::string anchor = "auto";        // auto|start|end|fit|min
  std::string decay = "auto";         // auto|trace|timer|off
  int cpu = -1;                       // the CPU whose pcp count is plotted (-1: the busiest)
  std::string json, emit_trace, plot_dir;
  bool quiet = false;
};
int replay(const ReplayArgs& a);

// Everything a scenario can name; `metrics_markdown`: only the declared metrics, as docs/output.md's table.
int list(bool metrics_markdown = false);

int plot(const std::string& json_file, const std::string& out_dir);

// The built-in experiment that predates scenario files (kept for quick checks).
int demo(uint64_t ops, uint64_t seed);

// Measures this host into a machine file at `out` (never inside the shipped machines/).
struct CalibrateArgs {
  std::string out = "host.yaml";
  bool quick = false;  // small buffers, few repetitions: seconds, indicative figures
};
int calibrate(const CalibrateArgs& a);

}  // namespace pagesim::cli
