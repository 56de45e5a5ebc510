// The bridge from the engines' Program interface to a workload's one template: a workload
// derives from ProgramOf<Self> and defines `template <class Driver> void on(Driver&) const`,
// branching on the driver type where an engine needs its own shape (the uniprocessor engine
// interleaves tasks itself; the others spawn them).
#pragma once

#include <memory>
#include <type_traits>

#include "pagesim/engine/native/driver.h"
#include "pagesim/engine/uniprocessor/driver.h"
#include "pagesim/engine/virtual/driver.h"
#include "pagesim/workload/registry.h"

namespace pagesim::workload {

template <class Self>
class ProgramOf : public engine::Program {
 public:
  explicit ProgramOf(const Args& a) : args_(a) {}

  void run(engine::UniprocessorDriver& d) const override { self().on(d); }
  void run(engine::NativeDriver<true>& d) const override { self().on(d); }
  void run(engine::NativeDriver<false>& d) const override { self().on(d); }
  void run(engine::VirtualDriver& d) const override { self().on(d); }

 protected:
  const config::Params& params() const { return args_.params; }
  uint64_t warmup_ops() const { return args_.warmup_ops; }

 private:
  const Self& self() const { return static_cast<const Self&>(*this); }
  Args args_;
};

// WorkloadInfo::make for a ProgramOf.
template <class P>
std::unique_ptr<engine::Program> make_program(const Args& a) {
  return std::make_unique<P>(a);
}

template <class D>
inline constexpr bool is_uniprocessor = std::is_same_v<D, engine::UniprocessorDriver>;
template <class D>
inline constexpr bool is_virtual = std::is_same_v<D, engine::VirtualDriver>;

}  // namespace pagesim::workload
