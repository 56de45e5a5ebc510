// What `pagesim calibrate` writes and prints, and where it refuses to write.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "pagesim/error.h"
#include "pagesim/version.h"
#include "pagesim/vt/calibrate.h"

namespace pagesim::vt {

namespace {

using Values = std::vector<std::pair<std::string, std::string>>;

const std::string& value_of(const Values& values, const std::string& key) {
  for (const auto& [k, v] : values)
    if (k == key) return v;
  throw std::logic_error("calibrate: '" + key + "' is not a key of the machine file");
}

std::string not_measured_line(const NotMeasured& n, const Values& values) {
  return fmt::format("not measured: {}: {}; value written: {} (assumed, {})", n.key, n.reason, value_of(values, n.key), n.why_value);
}

}  // namespace

std::string render_calibration(const Calibration& c) {
  const Values values = machine_file_values(c.model);
  std::string out = fmt::format("# This host, measured by `pagesim calibrate` (pagesim {}) on {:%Y-%m-%d}.\n", PAGESIM_VERSION,
                                fmt::localtime(std::time(nullptr)));
  out += fmt::format("# CPU: {}, {} online CPU(s). Measured on a possibly shared or virtual machine: the figures vary\n",
                     c.host.cpu_model.empty() ? "unknown model" : c.host.cpu_model, c.host.cpus);
  out += "# from run to run. docs/machine-model.md (\"pagesim calibrate\") describes each measurement and fallback.\n#\n";
  for (const Measured& x : c.measured) out += fmt::format("# measured: {}: {}\n", x.key, x.how);
  out += "#\n";
  for (const NotMeasured& n : c.not_measured) out += "# " + not_measured_line(n, values) + "\n";
  return out + render_machine_model(c.model);
}

std::string calibration_summary(const Calibration& c) {
  const Values values = machine_file_values(c.model);
  std::string out = "Measured:\n";
  for (const Measured& x : c.measured) out += fmt::format("  {} = {}  ({})\n", x.key, value_of(values, x.key), x.how);
  out += fmt::format("Not measured ({}; fallback values written):\n", c.not_measured.size());
  for (const NotMeasured& n : c.not_measured) out += "  " + not_measured_line(n, values) + "\n";
  return out;
}

void refuse_shipped_machines_dir(const std::string& out) {
  namespace fs = std::filesystem;
  // weakly_canonical resolves symlinks and ".." as far as the path exists; lexically past that.
  const auto resolved = [](const fs::path& p) {
    std::error_code ec;
    const fs::path r = fs::weakly_canonical(fs::absolute(p), ec);
    return ec ? fs::absolute(p).lexically_normal() : r;
  };
  const fs::path dir = resolved(fs::path(default_machine_file()).parent_path());
  const fs::path target = resolved(out);
  // Component-wise prefix: "machines2/x.yaml" is not inside "machines".
  if (std::mismatch(dir.begin(), dir.end(), target.begin(), target.end()).first == dir.end())
    throw InputError(fmt::format("refusing to write '{}': it is in the shipped machines directory {}, which calibrate never "
                                 "writes to; choose a path outside it (the default is host.yaml in the working directory)",
                                 out, dir.string()));
}

}  // namespace pagesim::vt
