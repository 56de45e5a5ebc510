// Error types that map to the CLI's exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace pagesim {

// Bad input: a scenario, a flag, a trace, or a machine that does not fit this host. Exit 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Misuse of the model API that the kernel would BUG() on (double free, pfn outside every zone).
// Exit 1.
class ModelError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// A stop request (SIGINT, SIGTERM) honoured at a safe point inside a run (exec/stop.h). The
// runner keeps the run as a partial one; the CLI exits 128 + the signal's number.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pagesim
