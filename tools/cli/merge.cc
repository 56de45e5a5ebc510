// `pagesim merge`: shards of one set back into one result (report::merge_shards), and
// `pagesim slurm`: the sbatch script that runs a set's shards as a job array and merges them.
#include <fmt/format.h>

#include <filesystem>

#include "commands.h"
#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "pagesim/scenario/load.h"

namespace pagesim::cli {

namespace {

namespace fs = std::filesystem;

// Each shard's proc/ tree holds its own runs' folders: together they are the set's tree.
void merge_proc_trees(const std::vector<std::string>& shards, const fs::path& out) {
  for (const std::string& s : shards) {
    const fs::path proc = fs::path(s) / "proc";
    if (!fs::is_directory(proc)) continue;
    std::error_code ec;
    fs::copy(proc, out, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    if (ec) throw InputError(fmt::format("merge: cannot copy {} into {}: {}", proc.string(), out.string(), ec.message()));
  }
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

int merge(const MergeArgs& a) {
  report::check_compare_options({"", a.all, a.rows});
  std::vector<std::string> files;
  for (const std::string& s : a.shards) files.push_back(result_json(s));
  const report::Merged m = report::merge_shards(files);
  std::error_code ec;
  fs::create_directories(a.out_dir, ec);
  if (ec) throw InputError(fmt::format("--out {}: cannot create the directory: {}", a.out_dir, ec.message()));
  const fs::path out(a.out_dir);
  report::write_file_atomic((out / "result.json").string(), m.doc.dump(2) + "\n");
  report::write_file_atomic((out / "result.csv").string(), report::to_csv(m.runs));
  merge_proc_trees(a.shards, out / "proc");
  if (!a.quiet) {
    const std::string workload = result_workload(nlohmann::json(m.doc["scenario"]));
    fmt::print("{}", report::compare_table(m.runs, report::compare_options(workload, a.all, a.rows)));
  }
  fmt::print(stderr, "pagesim: merged {} shards ({} runs) into {}\n", files.size(), m.runs.size(), a.out_dir);
  if (m.doc.value("interrupted", false)) fmt::print(stderr, "pagesim: warning: a shard was interrupted; the merged set is not whole\n");
  return 0;
}

int slurm(const SlurmArgs& a) {
  if (a.shards < 1) throw InputError(fmt::format("--shards {}: at least 1", a.shards));
  std::string sets;
  for (const std::string& s : a.sets) sets += " --set " + quote(s);
  const std::string self = a.pagesim.empty() ? fs::absolute("/proc/self/exe").string() : a.pagesim;
  const std::string bin = fs::exists(self) ? fs::canonical(self).string() : self;
  const std::string out = fs::absolute(a.out_dir).lexically_normal().string(), scenario = fs::absolute(scenario::find_file(a.scenario)).string();
  // #SBATCH lines are not read by a shell: the path goes in as it is, so it must need no quoting.
  if (out.find_first_of(" \t\n'\"$`\\%") != std::string::npos)
    throw InputError(fmt::format("--out {}: sbatch directives cannot quote a path with spaces, quotes, '$' or '%'", out));
  // Slurm opens each job's output file before the job runs: the directory must exist first.
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw InputError(fmt::format("--out {}: cannot create the directory: {}", out, ec.message()));
  // The array job runs shard $SLURM_ARRAY_TASK_ID; the merge job waits for every element
  // (afterok: none failed) and is submitted by the script itself, so one sbatch starts both.
  std::string script = fmt::format(
      "#!/bin/bash\n"
      "# pagesim slurm {scenario} --shards {n}: {n} shards as a job array, then their merge.\n"
      "# Submit with: sbatch THIS_FILE   (the merged result lands in {out}/merged)\n"
      "#SBATCH --job-name=pagesim\n"
      "#SBATCH --array=0-{last}\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task={cpus}\n"
      "#SBATCH --output={out}/slurm-%A_%a.out\n"
      "set -euo pipefail\n"
      "if [ \"${{SLURM_ARRAY_TASK_ID}}\" = 0 ]; then\n"
      "  sbatch --job-name=pagesim-merge --dependency=afterok:${{SLURM_ARRAY_JOB_ID}} --ntasks=1 \\\n"
      "    --output={out}/slurm-merge-%j.out \\\n"
      "    --wrap={merge}\n"
      "fi\n"
      "exec {bin} run {sq}{sets} --shard ${{SLURM_ARRAY_TASK_ID}}/{n} --quiet --out {out}/shard-${{SLURM_ARRAY_TASK_ID}}\n",
      fmt::arg("scenario", a.scenario), fmt::arg("n", a.shards), fmt::arg("last", a.shards - 1), fmt::arg("cpus", a.cpus_per_task),
      fmt::arg("out", out), fmt::arg("bin", quote(bin)), fmt::arg("sq", quote(scenario)), fmt::arg("sets", sets),
      fmt::arg("merge", quote(fmt::format("{} merge {}/shard-* --quiet --out {}/merged", quote(bin), out, out))));
  if (a.script.empty() || a.script == "-")
    fmt::print("{}", script);
  else
    report::write_file_atomic(a.script, script);
  return 0;
}

}  // namespace pagesim::cli
