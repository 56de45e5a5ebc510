// VirtualEngine: the fibers, their causality (a task runs only while its clock is the
// earliest) and the run loop. The scheduler's run queues, fork and wake-ups are in scheduler.cc.
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
    : m_(m), model_(std::move(model)), prices_(model_), opt_(opt), policy_(std::move(policy)),
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
  rq_.cpus.resize(m.nr_cpus());
  cpu_busy_.assign(m.nr_cpus(), 0);
  for (unsigned c = 0; c < m.nr_cpus(); ++c) {
    const unsigned n = m.cpu_to_node(c), i = (model_cpu_[c] % (g.cores_per_socket * g.threads_per_core));
    rq_.cpu_node.push_back(n);
    const unsigned sib = g.threads_per_core == 2 ? (i ^ 1u) : i;  // adjacent SMT siblings
    rq_.sibling.push_back(sib < seen[n] ? first[n] + sib : c);
  }
}

VirtualEngine::~VirtualEngine() = default;

size_t VirtualEngine::fiber_stacks_mapped() const { return stacks_->mapped(); }

ps_t VirtualEngine::now() const {
  ps_t t = 0;
  for (const auto& c : tasks_) t = std::max(t, c->clock_);
  return t;
}

// sync() found a balance tick due or another task earlier than t.
void VirtualEngine::sync_slow(VirtualCpu& t) {
  if (next_tick_ <= t.clock_) return yield(t);  // a balance tick comes first
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
  if (mine < next || next_tick_ <= next.first) return false;
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
    rq_.task_cpu.push_back(0), rq_.task_home.push_back(0), rq_.task_forked.push_back(0), rq_.task_asleep.push_back(false);
    rq_.task_runtime.push_back(0);
  }
  error_ = nullptr;
  live_ = nr_tasks;
  barrier_waiting_.clear();
  // A new run starts together: every task at the latest clock so far, forked by the parent.
  const ps_t start = now();
  // No balance ticks: a next tick that never comes, so that sync() tests one clock.
  next_tick_ = policy_->tick_period() ? start + policy_->tick_period() : std::numeric_limits<ps_t>::max();
  std::vector<unsigned> ids(nr_tasks);
  for (unsigned i = 0; i < nr_tasks; ++i) ids[i] = i;
  fork_all(ids, start, /*children_sleep=*/false);
  for (unsigned i = 0; i < nr_tasks; ++i) {
    VirtualCpu& c = *tasks_[i];
    rq_.task_asleep[i] = false;
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
      finished(c);
      return std::move(c.caller_);
    });
    if (enqueue(c, start)) make_ready(c);
  }
  while (!ready_.empty() && !error_) {
    if (opt_.stop.requested()) {  // a safe point between two slices of virtual time
      error_ = std::make_exception_ptr(StopRequest::interrupted());
      break;
    }
    if (next_tick_ <= ready_.top().first) {
      tick();
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
  for (Runqueues::Cpu& c : rq_.cpus) c.curr = -1, c.queued.clear();
  barrier_waiting_.clear();
  if (error_) std::rethrow_exception(error_);
  if (!stuck.empty())
    throw ModelError(fmt::format("virtual engine: deadlock: {} tasks blocked forever (first: task {})", stuck.size(), stuck[0]));
}

}  // namespace pagesim
