// The registered scheduler policies (include/pagesim/engine/virtual/sched.h). The cfs and numa policies
// follow 5.17's kernel/sched/fair.c decisions, simplified as docs/model.md ("Scheduler") says.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "pagesim/error.h"
#include "pagesim/engine/virtual/sched.h"

namespace pagesim {

unsigned Runqueues::node_running(unsigned node) const {
  unsigned n = 0;
  for (unsigned c = 0; c < nr_cpus(); ++c)
    if (cpu_node[c] == node) n += nr_running(c);
  return n;
}

void Runqueues::move_queued(unsigned task, unsigned dst) {
  std::deque<unsigned>& q = cpus[task_cpu[task]].queued;
  q.erase(std::find(q.begin(), q.end(), task));
  cpus[dst].queued.push_back(task);
  task_cpu[task] = dst;
}

unsigned Runqueues::node_cpus(unsigned node) const {
  return static_cast<unsigned>(std::count(cpu_node.begin(), cpu_node.end(), node));
}

namespace {

bool claimed(unsigned cpu, const std::vector<Migration>* out) {
  return out && std::any_of(out->begin(), out->end(), [&](const Migration& m) { return m.cpu == cpu; });
}

// select_idle_core / select_idle_cpu: an idle CPU of `node` whose sibling is idle too, else
// any idle CPU, scanning from `from` + 1 and wrapping (for_each_cpu_wrap); CPUs that `out`
// already moves a task to are not idle. -1: none.
int idle_cpu_in(const Runqueues& rq, unsigned node, unsigned from, const std::vector<Migration>* out = nullptr) {
  const unsigned n = rq.nr_cpus();
  int any = -1;
  for (unsigned i = 1; i <= n; ++i) {
    const unsigned c = (from + i) % n;
    if (rq.cpu_node[c] != node || !rq.idle(c) || claimed(c, out)) continue;
    if (rq.idle(rq.sibling[c])) return static_cast<int>(c);
    if (any < 0) any = static_cast<int>(c);
  }
  return any;
}

// The CPU of `node` with the most queued tasks (ties: the lowest index); -1 when none queues.
int busiest_queue(const Runqueues& rq, unsigned node) {
  int best = -1;
  size_t most = 0;
  for (unsigned c = 0; c < rq.nr_cpus(); ++c)
    if (rq.cpu_node[c] == node && rq.cpus[c].queued.size() > most) most = rq.cpus[c].queued.size(), best = static_cast<int>(c);
  return best;
}

class Pinned final : public SchedPolicy {
 public:
  std::string_view name() const override { return "pinned"; }
  unsigned fork(const Runqueues& rq, unsigned task, unsigned, ps_t) override { return task % rq.nr_cpus(); }
};

class Cfs : public SchedPolicy {
 public:
  explicit Cfs(const SchedParams& p) : p_(p) {}
  std::string_view name() const override { return "cfs"; }
  ps_t tick_period() const override { return p_.tick_ps; }
  ps_t slice() const override { return p_.min_granularity_ps; }

  // sched_balance_fork -> find_idlest_group at the NUMA level: stay on the parent's node while
  // allow_numa_imbalance (running < 25% of the node's CPUs), else the node with the most idle
  // CPUs; then find_idlest_cpu: an idle core, an idle CPU, else the least loaded CPU.
  unsigned fork(const Runqueues& rq, unsigned, unsigned parent_cpu, ps_t) override {
    const unsigned local = rq.cpu_node[parent_cpu];
    unsigned node = local;
    if (!(rq.node_running(local) + 1 < rq.node_cpus(local) / 4)) {
      unsigned best_idle = 0;
      for (unsigned n = 0; n < nr_nodes(rq); ++n) {
        const unsigned idle = rq.node_cpus(n) - std::min(rq.node_cpus(n), rq.node_running(n));
        if (idle > best_idle || (idle == best_idle && n == local)) best_idle = idle, node = n;
      }
    }
    if (const int c = idle_cpu_in(rq, node, parent_cpu); c >= 0) return static_cast<unsigned>(c);
    unsigned best = parent_cpu;
    for (unsigned c = 0; c < rq.nr_cpus(); ++c)
      if (rq.cpu_node[c] == node && (rq.cpu_node[best] != node || rq.nr_running(c) < rq.nr_running(best))) best = c;
    return best;
  }

  // select_task_rq_fair for a wake-up: wake_affine (wake_affine_idle), then select_idle_sibling.
  unsigned wake(const Runqueues& rq, unsigned, unsigned prev, unsigned waker, bool sync, ps_t) override {
    unsigned target = prev;
    if (waker != prev) {
      if (rq.idle(waker) && rq.cpu_node[waker] == rq.cpu_node[prev])
        target = rq.idle(prev) ? prev : waker;
      else if (sync && rq.nr_running(waker) == 1)
        target = waker;
      // else: prev (idle, or wake_affine_weight keeps it there)
    }
    if (rq.idle(target)) return target;
    if (prev != target && rq.cpu_node[prev] == rq.cpu_node[target] && rq.idle(prev)) return prev;
    const int c = idle_cpu_in(rq, rq.cpu_node[target], target);
    return c >= 0 ? static_cast<unsigned>(c) : target;
  }

  void newidle(Runqueues& rq, unsigned cpu, ps_t) override {
    if (const int src = busiest_queue(rq, rq.cpu_node[cpu]); src >= 0) pull(rq, static_cast<unsigned>(src), cpu);
  }

  // Idle CPUs balance (nohz idle balance): the LLC domain every llc_balance,
  // pulling a queued task of their node; the NUMA domain every numa_balance, pulling a queued
  // task of the other node, or, after repeated failures with the other node running more
  // tasks than it has CPUs to spare, pushing one of its running tasks here (active balance).
  void tick(Runqueues& rq, ps_t now, std::vector<Migration>& out) override {
    const unsigned n = rq.nr_cpus();
    if (next_llc_.size() != n) {
      next_llc_.resize(n), next_numa_.resize(n);
      for (unsigned c = 0; c < n; ++c) {  // staggered, as each CPU's last_balance is
        next_llc_[c] = now + p_.llc_balance_ps * c / n;
        next_numa_[c] = now + p_.numa_balance_ps * c / n;
      }
    }
    for (unsigned c = 0; c < n; ++c) {
      const bool llc_due = now >= next_llc_[c], numa_due = now >= next_numa_[c];
      if (llc_due) next_llc_[c] = now + p_.llc_balance_ps;
      if (numa_due) next_numa_[c] = now + p_.numa_balance_ps;
      if (!rq.idle(c)) continue;
      const unsigned node = rq.cpu_node[c];
      if (llc_due)
        if (const int src = busiest_queue(rq, node); src >= 0) {
          pull(rq, static_cast<unsigned>(src), c);
          continue;
        }
      if (numa_due) numa_balance(rq, c, out);
    }
  }

 protected:
  static unsigned nr_nodes(const Runqueues& rq) { return *std::max_element(rq.cpu_node.begin(), rq.cpu_node.end()) + 1; }

  // detach_tasks: the last queued task (the tail of cfs_tasks) moves to dst.
  static void pull(Runqueues& rq, unsigned src, unsigned dst) { rq.move_queued(rq.cpus[src].queued.back(), dst); }

  void numa_balance(Runqueues& rq, unsigned c, std::vector<Migration>& out) {
    const unsigned node = rq.cpu_node[c];
    for (unsigned other = 0; other < nr_nodes(rq); ++other) {
      if (other == node) continue;
      if (const int src = busiest_queue(rq, other); src >= 0) {
        rq.cpus[c].balance_failed = 0;
        return pull(rq, static_cast<unsigned>(src), c);
      }
      // calculate_imbalance: half the difference in running tasks, none while the busiest
      // node runs fewer than 25% of its CPUs (adjust_numa_imbalance).
      const unsigned busy = rq.node_running(other), mine = rq.node_running(node);
      if (busy < rq.node_cpus(other) / 4 || busy <= mine + 1) continue;
      if (++rq.cpus[c].balance_failed <= p_.active_balance_after) continue;
      rq.cpus[c].balance_failed = 0;
      for (unsigned s = rq.nr_cpus(); s-- > 0;)  // active_load_balance_cpu_stop
        if (rq.cpu_node[s] == other && rq.cpus[s].curr >= 0 && !moving(rq.cpus[s].curr, out)) {
          const auto t = static_cast<unsigned>(rq.cpus[s].curr);
          out.push_back({t, c});
          return;
        }
    }
  }

  static bool moving(int task, const std::vector<Migration>& out) {
    return std::any_of(out.begin(), out.end(), [&](const Migration& m) { return static_cast<int>(m.task) == task; });
  }

  SchedParams p_;
  std::vector<ps_t> next_llc_, next_numa_;
};

// cfs plus NUMA balancing (task_numa_work every scan period after the scan delay, then
// task_numa_migrate toward the preferred node: an idle CPU there, or a swap with a task that
// prefers this node).
class Numa final : public Cfs {
 public:
  explicit Numa(const SchedParams& p) : Cfs(p) {}
  std::string_view name() const override { return "numa"; }

  void tick(Runqueues& rq, ps_t now, std::vector<Migration>& out) override {
    Cfs::tick(rq, now, out);
    if (next_scan_.size() != rq.task_cpu.size()) next_scan_.assign(rq.task_cpu.size(), 0);
    for (unsigned t = 0; t < rq.task_cpu.size(); ++t) {
      if (rq.task_asleep[t] || moving(static_cast<int>(t), out)) continue;
      if (next_scan_[t] < rq.task_forked[t] + p_.numa_scan_delay_ps) next_scan_[t] = rq.task_forked[t] + p_.numa_scan_delay_ps;
      if (now < next_scan_[t]) continue;
      next_scan_[t] = now + p_.numa_scan_period_ps;
      const unsigned cpu = rq.task_cpu[t], home = rq.task_home[t];
      if (rq.cpu_node[cpu] == home || rq.cpus[cpu].curr != static_cast<int>(t)) continue;
      if (const int dst = idle_cpu_in(rq, home, cpu, &out); dst >= 0) {
        out.push_back({t, static_cast<unsigned>(dst)});
        continue;
      }
      for (unsigned c = 0; c < rq.nr_cpus(); ++c) {  // task_numa_find_cpu: the swap
        const int other = rq.cpus[c].curr;
        if (rq.cpu_node[c] != home || other < 0 || moving(other, out)) continue;
        if (rq.task_home[static_cast<unsigned>(other)] != rq.cpu_node[cpu]) continue;
        out.push_back({t, c});
        out.push_back({static_cast<unsigned>(other), cpu});
        break;
      }
    }
  }

 private:
  std::vector<ps_t> next_scan_;
};

class Trace final : public SchedPolicy {
 public:
  explicit Trace(const SchedParams& p) : p_(p) {
    std::ifstream in(p.trace_file);
    if (!in) throw InputError(fmt::format("{}: cannot read the placement trace (engine.sched_trace)", p.trace_file));
    std::string line;
    for (unsigned no = 1; std::getline(in, line); ++no) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream s(line);
      uint64_t ns = 0;
      unsigned task = 0, cpu = 0;
      std::string extra;
      if (!(s >> ns >> task >> cpu) || (s >> extra))
        throw InputError(fmt::format("{}:{}:1: expected \"<time_ns> <task> <cpu>\", got \"{}\"", p.trace_file, no, line));
      rows_[task][ns * 1000] = cpu;
    }
  }
  std::string_view name() const override { return "trace"; }
  ps_t tick_period() const override { return p_.tick_ps; }

  unsigned fork(const Runqueues& rq, unsigned task, unsigned, ps_t now) override { return at(rq, task, now, task % rq.nr_cpus()); }
  unsigned wake(const Runqueues& rq, unsigned task, unsigned prev, unsigned, bool, ps_t now) override { return at(rq, task, now, prev); }
  void tick(Runqueues& rq, ps_t now, std::vector<Migration>& out) override {
    for (unsigned t = 0; t < rq.task_cpu.size(); ++t) {
      if (rq.task_asleep[t]) continue;
      const unsigned c = at(rq, t, now, rq.task_cpu[t]);
      if (c == rq.task_cpu[t]) continue;
      if (rq.cpus[rq.task_cpu[t]].curr == static_cast<int>(t))
        out.push_back({t, c});
      else
        rq.move_queued(t, c);
    }
  }

 private:
  unsigned at(const Runqueues& rq, unsigned task, ps_t now, unsigned dflt) const {
    const auto it = rows_.find(task);
    if (it == rows_.end()) return dflt;
    auto row = it->second.upper_bound(now);
    if (row == it->second.begin()) return dflt;
    --row;
    if (row->second >= rq.nr_cpus())
      throw InputError(fmt::format("{}: task {} placed on CPU {}, but the machine has {} vCPUs", p_.trace_file, task,
                                   row->second, rq.nr_cpus()));
    return row->second;
  }

  SchedParams p_;
  std::map<unsigned, std::map<ps_t, unsigned>> rows_;  // task -> time -> cpu (ordered: deterministic)
};

}  // namespace

std::unique_ptr<SchedPolicy> make_sched_policy(const std::string& name, const SchedParams& p) {
  if (name == "pinned") return std::make_unique<Pinned>();
  if (name == "cfs") return std::make_unique<Cfs>(p);
  if (name == "numa") return std::make_unique<Numa>(p);
  if (name == "trace") return std::make_unique<Trace>(p);
  throw InputError(fmt::format("engine.sched: unknown scheduler policy '{}'", name));
}

}  // namespace pagesim
