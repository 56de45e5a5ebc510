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

}  // namespace pagesim
