// VirtualEngine: the fibers, their causality (a task runs only while its clock is the
// earliest) and the run loop. The scheduler core (run queues, fork, wake-ups, the tick) is
// Scheduler (scheduler.cc), the lock queues LockQueues, the memory traffic TrafficTimeline.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "fiber_stack.h"
#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/error.h"

namespace pagesim {

namespace ctx = boost::context;

namespace {

constexpr size_t kStackBytes = 1u << 20;  // model code is shallow; ASan frames are large

}  // namespace

// One socket per node, as many cores as the largest node's CPUs need.
cache::CacheGeometry VirtualEngine::geometry_for(const mm::MachineSpec& spec, const vt::MachineModel& model) {
  cache::CacheGeometry g = model.geometry;
  const unsigned nodes = static_cast<unsigned>(spec.nodes.size());
  unsigned per_node = 1;
  for (const mm::NodeSpec& n : spec.nodes) per_node = std::max(per_node, n.cpus);
  if (nodes > model.geometry.sockets)
    throw InputError(fmt::format("virtual engine: the machine has {} nodes but the machine file {} has {} socket{}, one per node",
                                 nodes, model.file, model.geometry.sockets, model.geometry.sockets == 1 ? "" : "s"));
  g.sockets = nodes;
  g.cores_per_socket = (per_node + g.threads_per_core - 1) / g.threads_per_core;
  g.numbering = cache::CpuNumbering::socket_major;
  if (const std::string err = g.validate(); !err.empty())
    throw InputError(fmt::format("virtual engine: the machine ({} nodes, up to {} CPUs per node) does not fit the cache "
                                 "model with {} threads per core: {}",
                                 nodes, per_node, g.threads_per_core, err));
  return g;
}

RangePrices::RangePrices(const vt::MachineModel& model) {
  for (unsigned o = 0; o < cache::kNumOutcomes; ++o) {
    overlapped[o] = model.latency(static_cast<cache::Outcome>(o)) / model.mlp;
    streamed[o] = model.latency(static_cast<cache::Outcome>(o)) / model.stream_mlp;
  }
}

VirtualEngine::VirtualEngine(mm::Machine& m, vt::MachineModel model, VirtualOptions opt, std::unique_ptr<SchedPolicy> policy)
    : m_(m), model_(std::move(model)), prices_(model_), opt_(opt), sched_(*this, opt_.sched, std::move(policy)),
      // The report reads the cache model's counts by outcome, kind, site and lock, never per line.
      cache_(geometry_for(m.spec(), model_), cache::PerLineContention::dropped),
      stacks_(std::make_unique<FiberStackPool>(kStackBytes)), locks_(model_), traffic_(model_) {
  if (opt_.sched.parent_cpu >= m.nr_cpus())
    throw InputError(fmt::format("virtual engine: the parent CPU {} is not one of the {} vCPUs", opt_.sched.parent_cpu, m.nr_cpus()));
  // vCPU c of node n is the model's CPU n * (cores * threads) + its index within the node:
  // SMT siblings are adjacent, as socket_major numbering places them.
  const cache::CacheGeometry& g = cache_.geometry();
  std::vector<unsigned> seen(m.nr_nodes(), 0), first(m.nr_nodes(), 0);
  for (unsigned c = 0; c < m.nr_cpus(); ++c) {
    const unsigned n = m.cpu_to_node(c);
    if (!seen[n]) first[n] = c;
    model_cpu_.push_back(n * g.cores_per_socket * g.threads_per_core + seen[n]++);
  }
  for (unsigned c = 0; c < m.nr_cpus(); ++c) {
    const unsigned n = m.cpu_to_node(c), i = (model_cpu_[c] % (g.cores_per_socket * g.threads_per_core));
    const unsigned sib = g.threads_per_core == 2 ? (i ^ 1u) : i;  // adjacent SMT siblings
    sched_.add_cpu(n, sib < seen[n] ? first[n] + sib : c);
  }
}

VirtualEngine::~VirtualEngine() = default;

size_t VirtualEngine::fiber_stacks_mapped() const { return stacks_->mapped(); }

void VirtualEngine::block(VirtualCpu& t) { t.caller_ = std::move(t.caller_).resume(); }

ps_t VirtualEngine::now() const {
  ps_t t = 0;
  for (const auto& c : tasks_) t = std::max(t, c->clock_);
  return t;
}

// sync() found a balance tick due or another task earlier than t.
void VirtualEngine::sync_slow(VirtualCpu& t) {
  if (sched_.next_tick() <= t.clock_) return yield(t);  // a balance tick comes first
  const Key& next = ready_.top();
  if (opt_.slack_ps && next.first + opt_.slack_ps >= t.clock_) {
    slack_accesses_++;
    return;
  }
  causality_yields_++;
  yield(t);
}

void VirtualEngine::yield(VirtualCpu& t) {
  if (switch_to_earliest(t)) return;
  make_ready(t);
  block(t);
}

// What run()'s loop would do after make_ready(t) and block(t), in one heap operation and one
// fiber switch: the task resumed learns the scheduler's continuation from t (t holds it while
// it runs) and t's own continuation is kept for whoever resumes t next.
bool VirtualEngine::switch_to_earliest(VirtualCpu& t) {
  if (ready_.empty()) return false;
  const Key mine{t.clock_, t.task_};
  const Key& next = ready_.top();
  if (mine < next || sched_.next_tick() <= next.first) return false;
  VirtualCpu& n = *tasks_[ready_.replace_top(mine).second];
  current_ = n.task_;
  ctx::fiber scheduler = std::move(t.caller_);
  t.caller_ = std::move(n.self_).resume_with([&t, &scheduler](ctx::fiber&& from) {
    t.self_ = std::move(from);
    return std::move(scheduler);
  });
  return true;
}

void VirtualEngine::run(unsigned nr_tasks, const std::function<void(VirtualCpu&)>& fn) {
  while (tasks_.size() < nr_tasks) {
    tasks_.push_back(std::make_unique<VirtualCpu>(*this, static_cast<unsigned>(tasks_.size())));
    sched_.add_task();
  }
  error_ = nullptr;
  // A new run starts together: every task at the latest clock so far, forked by the parent.
  const ps_t start = now();
  for (unsigned i = 0; i < nr_tasks; ++i) {
    VirtualCpu& c = *tasks_[i];
    c.done_ = false;
    c.self_ = ctx::fiber(std::allocator_arg, FiberStack(*stacks_, &c.stack_lowest_), [this, &c, &fn](ctx::fiber&& main) {
      c.caller_ = std::move(main);
      try {
        fn(c);
      } catch (const ctx::detail::forced_unwind&) {
        const char here = 0;
        forget_dead_frames(c.stack_lowest_, &here);
        throw;
      } catch (...) {
        if (!error_) error_ = std::current_exception();
      }
      sched_.finished(c);
      return std::move(c.caller_);
    });
  }
  sched_.start_run(nr_tasks, start);
  while (!ready_.empty() && !error_) {
    if (opt_.stop.requested()) {  // a safe point between two slices of virtual time
      error_ = std::make_exception_ptr(StopRequest::interrupted());
      break;
    }
    if (sched_.next_tick() <= ready_.top().first) {
      sched_.tick();
      continue;
    }
    current_ = ready_.top().second;
    ready_.pop();
    // The task that comes back may not be the one resumed (switch_to_earliest).
    ctx::fiber back = std::move(tasks_[current_]->self_).resume();
    tasks_[current_]->self_ = std::move(back);
  }
  // Unwind whatever is still suspended (after an error or a deadlock).
  std::vector<unsigned> stuck;
  for (unsigned i = 0; i < nr_tasks; ++i)
    if (!tasks_[i]->done_) stuck.push_back(i);
  ready_.clear();
  for (unsigned i : stuck) tasks_[i]->self_ = ctx::fiber();
  locks_.abandon();
  sched_.abandon();
  if (error_) std::rethrow_exception(error_);
  if (!stuck.empty())
    throw ModelError(fmt::format("virtual engine: deadlock: {} tasks blocked forever (first: task {})", stuck.size(), stuck[0]));
}

}  // namespace pagesim
