// Kernel procfs formats, laid out as the kernel prints them, so that existing parsers work.
#pragma once

#include <string>

#include "pagesim/mm/machine.h"

namespace pagesim::report {

// /proc/buddyinfo (mm/vmstat.c frag_show_print).
std::string buddyinfo(const mm::Machine& m);

}  // namespace pagesim::report
