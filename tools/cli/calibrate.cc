// `pagesim calibrate`: measure this host into a machine file (the work is vt::calibrate's).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "pagesim/vt/calibrate.h"

namespace pagesim::cli {

int calibrate(const CalibrateArgs& a) {
  namespace fs = std::filesystem;
  // Refused before the measurements, which take a while.
  vt::refuse_shipped_machines_dir(a.out);
  const fs::path out(a.out);
  if (out.filename().empty()) throw InputError(fmt::format("--out '{}': expected a file name", a.out));
  if (out.has_parent_path() && !fs::is_directory(out.parent_path()))
    throw InputError(fmt::format("--out {}: directory '{}' does not exist", a.out, out.parent_path().string()));

  vt::CalibrateOptions opt = a.quick ? vt::CalibrateOptions::quick() : vt::CalibrateOptions{};
  opt.progress = [](const std::string& what) { fmt::print(stderr, "pagesim calibrate: measuring {}\n", what); };
  vt::Calibration c = vt::calibrate(opt);
  c.model.name = out.stem().string();
  const std::string yaml = vt::render_calibration(c);
  vt::parse_machine_model(yaml, a.out);  // never write a file the virtual engine would refuse
  report::write_file_atomic(a.out, yaml);
  fmt::print("{}", vt::calibration_summary(c));
  fmt::print("wrote {}{}\n", a.out, a.quick ? " (--quick: short runs on small buffers, indicative figures only)" : "");
  return 0;
}

}  // namespace pagesim::cli
