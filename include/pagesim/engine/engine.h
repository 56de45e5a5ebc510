// What an engine is given for one run, and what it runs.
//
// An engine owns the CPUs, the clock and the OS services; a workload owns what runs on them. The
// engine hands the workload a driver (uniprocessor/driver.h, native/driver.h, virtual/driver.h:
// spawn tasks, barriers, phase marks, the clock, OS services), and the workload reaches it
// through the Program interface below, one entry per driver. No engine names a workload.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pagesim/config/params.h"
#include "pagesim/exec/stop.h"
#include "pagesim/mm/machine.h"
#include "pagesim/mm/machine_spec.h"
#include "pagesim/result/metrics.h"
#include "pagesim/result/run_result.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim::engine {

// How far a run has come, as its workload tells it (DriverBase::progress).
struct RunProgress {
  std::string_view what;  // the unit counted: "ops", "iterations", "faults"
  uint64_t done = 0, total = 0;
  double virtual_s = -1;  // the virtual engine's clock; < 0 on the host-timed engines
};

// One run as an engine sees it.
struct RunInput {
  mm::Machine& machine;
  uint64_t seed;
  bool short_mode;                 // tests: workloads scale their operation counts down
  // The scenario's `engine:` options, every engine's (registry.h): each engine reads its own.
  const config::Params& options;
  // The machine file's model, loaded once with the scenario (EngineInfo::uses_machine_model);
  // null for the engines that use none.
  const vt::MachineModel* model;
  const std::string& source;       // the scenario file: for messages and relative input paths
  run::RunResult& result;
  StopRequest stop = {};           // checked at the engines' safe points (exec/stop.h)
  std::function<void(const RunProgress&)> progress = {};  // may be empty
  // Virtual engine: checks the workload's parameters against `model`, before any task runs
  // (WorkloadInfo::check_model); may be empty.
  std::function<void(const vt::MachineModel&)> check_model = {};
};

class UniprocessorDriver;
template <bool Track>
class NativeDriver;
class VirtualDriver;

// A workload as the engines run it: one entry per driver. Workloads implement it through
// workload::ProgramOf, which forwards every driver to one template.
class Program {
 public:
  virtual ~Program() = default;
  virtual void run(UniprocessorDriver& d) const = 0;
  virtual void run(NativeDriver<true>& d) const = 0;
  virtual void run(NativeDriver<false>& d) const = 0;
  virtual void run(VirtualDriver& d) const = 0;
};

// The engines' entry points (one folder each; registered in sim/engine/engines.def).
void run_uniprocessor(const RunInput& in, const Program& p);
void run_native(const RunInput& in, const Program& p);
void run_virtual(const RunInput& in, const Program& p);

// How the virtual engine places the scenario's CPUs on the machine file's sockets, cores and SMT
// threads: one line for the report and the JSON, and the nodes with more CPUs than a socket of
// the file has threads (then `warning` says so; the model adds the cores it lacks).
struct VirtualTopology {
  std::string statement;
  unsigned cores_per_socket = 0;  // the cores the model gives each socket
  std::vector<unsigned> oversubscribed_nodes;
  std::string warning;
};
VirtualTopology virtual_topology(const mm::MachineSpec& spec, const vt::MachineModel& model);

// An input file an engine option names (machine file, placement trace): as given when absolute
// or found from the working directory, else next to the scenario file `source`; `file` as
// given when neither exists.
std::string input_path(const std::string& source, const std::string& file);
// Where engine.machine_file is looked for, in order: where input_path looks, then among the
// shipped machine files by name (config::shipped_candidates: NAME or NAME.yaml).
std::vector<std::filesystem::path> machine_file_candidates(const std::string& source, const std::string& file);

// The metrics the engines report themselves, assembled by the engine registry's library
// (sim/engine/registry/engine_metrics.cc) from each engine's declarations (engine_metrics.h).
std::vector<run::MetricInfo> engine_metrics();

}  // namespace pagesim::engine
