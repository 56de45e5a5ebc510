// The bridge from the engines' Program interface to a workload's one template: a workload
// derives from ProgramOf<Self> and defines `template <class Driver> void on(Driver&) const`,
// branching on the driver type where an engine needs its own shape (the uniprocessor engine
// interleaves tasks itself; the others spawn them).
#pragma once

#include "pagesim/engine/native/driver.h"
#include "pagesim/engine/uniprocessor/driver.h"
#include "pagesim/engine/virtual/driver.h"

namespace pagesim::workload {

template <class Self>
class ProgramOf : public engine::Program {
 public:
  void run(engine::UniprocessorDriver& d) const override { self().on(d); }
  void run(engine::NativeDriver<true>& d) const override { self().on(d); }
  void run(engine::NativeDriver<false>& d) const override { self().on(d); }
  void run(engine::VirtualDriver& d) const override { self().on(d); }

 private:
  const Self& self() const { return static_cast<const Self&>(*this); }
};

template <class D>
inline constexpr bool is_uniprocessor = std::is_same_v<D, engine::UniprocessorDriver>;
template <class D>
inline constexpr bool is_virtual = std::is_same_v<D, engine::VirtualDriver>;

}  // namespace pagesim::workload
