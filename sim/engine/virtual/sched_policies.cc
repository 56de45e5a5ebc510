// The registered scheduler policies (include/pagesim/engine/virtual/sched.h). The cfs and numa policies
// follow 5.17's kernel/sched/fair.c decisions, simplified as docs/model.md ("Scheduler") says.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "pagesim/error.h"
#include "pagesim/rng.h"
#include "pagesim/engine/virtual/numa_balancing.h"
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

unsigned Runqueues::node_spare(unsigned node) const {
  const unsigned cpus = node_cpus(node);
  return cpus - std::min(cpus, node_running(node));
}

ps_t Runqueues::runtime(unsigned task, ps_t now) const {
  const Cpu& c = cpus[task_cpu[task]];
  const bool running = c.curr == static_cast<int>(task);
  return task_runtime[task] + (running && now > c.curr_since ? now - c.curr_since : 0);
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

// find_busiest_queue: the CPU of `node` with the most tasks among those running more than one
// (only those have a task to give; ties: the lowest index); -1 when none.
int busiest_queue(const Runqueues& rq, unsigned node) {
  int best = -1;
  unsigned most = 1;
  for (unsigned c = 0; c < rq.nr_cpus(); ++c)
    if (rq.cpu_node[c] == node && !rq.cpus[c].queued.empty() && rq.nr_running(c) > most)
      most = rq.nr_running(c), best = static_cast<int>(c);
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
  // sched_slice: sysctl_sched_latency shared among the runnable tasks, at least the minimum
  // granularity (__sched_period stretches the period instead: the same slice).
  ps_t slice(unsigned nr_running) const override {
    return std::max(p_.min_granularity_ps, p_.latency_ps / std::max(1u, nr_running));
  }

  // sched_balance_fork -> find_idlest_group at the NUMA level: stay on the parent's node while
  // allow_numa_imbalance (it runs fewer than a quarter of the NUMA domain's span, all CPUs),
  // else the node with the most idle CPUs; then find_idlest_group_cpu: of the idle CPUs, the
  // one idle most recently (equal exit latencies: the latest idle_stamp), else the least
  // loaded CPU.
  unsigned fork(const Runqueues& rq, unsigned, unsigned parent_cpu, ps_t) override {
    const unsigned local = rq.cpu_node[parent_cpu];
    unsigned node = local;
    if (!(rq.node_running(local) < rq.nr_cpus() / 4)) {
      unsigned best_idle = 0;
      for (unsigned n = 0; n < nr_nodes(rq); ++n) {
        const unsigned idle = rq.node_spare(n);
        if (idle > best_idle || (idle == best_idle && n == local)) best_idle = idle, node = n;
      }
    }
    int latest = -1;
    for (unsigned i = 1; i <= rq.nr_cpus(); ++i) {
      const unsigned c = (parent_cpu + i) % rq.nr_cpus();
      if (rq.cpu_node[c] == node && rq.idle(c) && (latest < 0 || rq.cpus[c].idle_since > rq.cpus[static_cast<unsigned>(latest)].idle_since))
        latest = static_cast<int>(c);
    }
    if (latest >= 0) return static_cast<unsigned>(latest);
    unsigned best = parent_cpu;
    for (unsigned c = 0; c < rq.nr_cpus(); ++c)
      if (rq.cpu_node[c] == node && (rq.cpu_node[best] != node || rq.nr_running(c) < rq.nr_running(best))) best = c;
    return best;
  }

  // select_task_rq_fair for a wake-up: wake_affine when the waker is not prev, then
  // select_idle_sibling around the target.
  unsigned wake(const Runqueues& rq, unsigned, unsigned prev, unsigned waker, bool sync, ps_t) override {
    const unsigned target = waker == prev ? prev : wake_affine(rq, waker, prev, sync);
    if (rq.idle(target)) return target;
    if (prev != target && rq.cpu_node[prev] == rq.cpu_node[target] && rq.idle(prev)) return prev;
    const int c = idle_cpu_in(rq, rq.cpu_node[target], target);
    return c >= 0 ? static_cast<unsigned>(c) : target;
  }

  void newidle(Runqueues& rq, unsigned cpu, ps_t) override {
    if (const int src = busiest_queue(rq, rq.cpu_node[cpu]); src >= 0) pull(rq, static_cast<unsigned>(src), cpu, 1);
  }

  // Idle CPUs balance (nohz idle balance) each domain when its interval has passed since its
  // last balance: the MC domain (the node's LLC) and the NUMA domain. A balance that moves
  // nothing doubles the domain's interval up to max_interval; one that moves resets it to
  // min_interval (load_balance). Busy CPUs' balancing (busy_factor 16: every 1-2 s) is not
  // modelled (docs/model.md, "Scheduler").
  void tick(Runqueues& rq, ps_t now, std::vector<Migration>& out) override {
    const unsigned n = rq.nr_cpus();
    if (dom_[0].next.size() != n || rq.forks_began != drawn_for_) init_domains(rq, now);
    for (unsigned c = 0; c < n; ++c) {
      for (unsigned d = 0; d < 2; ++d) {
        Domain& dom = dom_[d];
        if (now < dom.next[c]) continue;
        const bool moved = rq.idle(c) && should_we_balance(rq, c, d) && (d == 0 ? llc_balance(rq, c) : numa_balance(rq, c, out));
        dom.interval[c] = moved ? dom.min_interval : std::min(dom.max_interval, dom.interval[c] * 2);
        dom.next[c] = now + dom.interval[c];
      }
    }
  }

 protected:
  static unsigned nr_nodes(const Runqueues& rq) { return *std::max_element(rq.cpu_node.begin(), rq.cpu_node.end()) + 1; }

  // wake_affine: wake_affine_idle, then wake_affine_weight; no answer keeps prev.
  unsigned wake_affine(const Runqueues& rq, unsigned this_cpu, unsigned prev, bool sync) const {
    // wake_affine_idle
    if (rq.idle(this_cpu) && rq.cpu_node[this_cpu] == rq.cpu_node[prev]) return rq.idle(prev) ? prev : this_cpu;
    if (sync && rq.nr_running(this_cpu) == 1) return this_cpu;
    if (rq.idle(prev)) return prev;
    // wake_affine_weight with every task's load one unit: this CPU's load without the
    // (sync) waker plus the wakee, against prev's load without the wakee's blocked load,
    // biased by half the domain's imbalance_pct.
    const uint64_t this_eff = uint64_t{rq.nr_running(this_cpu) - (sync ? 1u : 0u) + 1} * 100;
    const uint64_t prev_eff = uint64_t{rq.nr_running(prev)} * (100 + (p_.imbalance_pct - 100) / 2) + (sync ? 1 : 0);
    return this_eff < prev_eff ? this_cpu : prev;
  }

  // should_we_balance: in a domain, only the first idle CPU of the local group balances: the
  // first idle CPU of its core (MC, whose groups are the cores) or of its node (NUMA).
  static bool should_we_balance(const Runqueues& rq, unsigned c, unsigned domain) {
    if (domain == 0) return !(rq.sibling[c] < c && rq.idle(rq.sibling[c]));
    for (unsigned o = 0; o < c; ++o)
      if (rq.cpu_node[o] == rq.cpu_node[c] && rq.idle(o)) return false;
    return true;
  }

  // The MC domain: calculate_imbalance with prefer_sibling, half the difference in running
  // tasks, from the busiest CPU of the node.
  bool llc_balance(Runqueues& rq, unsigned c) {
    const int src = busiest_queue(rq, rq.cpu_node[c]);
    if (src < 0) return false;
    pull(rq, static_cast<unsigned>(src), c, rq.nr_running(static_cast<unsigned>(src)) / 2);
    return true;
  }

  // The NUMA domain, from the first idle CPU of its node. An overloaded busiest node (more
  // running than CPUs) gives queued tasks up to the spare capacity (migrate_util; woken
  // children carry little utilisation, so detach_tasks' loop_max, sysctl_sched_nr_migrate,
  // bounds a pull). Otherwise the imbalance is half the difference in idle CPUs, which
  // adjust_numa_imbalance zeroes when it is at most 2 and the busiest node runs fewer than a
  // quarter of its CPUs; only running tasks are left to move, by active balance once
  // nr_balance_failed > cache_nice_tries + 2.
  bool numa_balance(Runqueues& rq, unsigned c, std::vector<Migration>& out) {
    const unsigned node = rq.cpu_node[c];
    for (unsigned other = 0; other < nr_nodes(rq); ++other) {
      if (other == node) continue;
      const unsigned busy = rq.node_running(other);
      if (busy > rq.node_cpus(other)) {
        const int src = busiest_queue(rq, other);
        if (src < 0) continue;
        if (pull(rq, static_cast<unsigned>(src), c, std::min(p_.nr_migrate, rq.node_spare(node)))) {
          failed_[c] = 0;
          return true;
        }
        failed_[c]++;  // every candidate refused: the next balance may override the refusal
        continue;
      }
      const unsigned idle_here = rq.node_spare(node), idle_there = rq.node_spare(other);
      const unsigned imbalance = idle_here > idle_there ? (idle_here - idle_there) / 2 : 0;
      if (imbalance == 0 || (busy < rq.node_cpus(other) / 4 && imbalance <= 2)) continue;
      if (++failed_[c] <= p_.cache_nice_tries + 2) continue;
      failed_[c] = 0;
      for (unsigned s = rq.nr_cpus(); s-- > 0;)  // active_load_balance_cpu_stop
        if (rq.cpu_node[s] == other && rq.cpus[s].curr >= 0 && !moving(rq.cpus[s].curr, out) &&
            !degrades_locality(static_cast<unsigned>(rq.cpus[s].curr), other, true)) {
          out.push_back({static_cast<unsigned>(rq.cpus[s].curr), c});
          return true;
        }
    }
    return false;
  }

  // detach_tasks: up to `max` queued tasks from the tail of src's list move to dst, skipping
  // those for which the move degrades NUMA locality (can_migrate_task). Returns how many.
  unsigned pull(Runqueues& rq, unsigned src, unsigned dst, unsigned max) {
    unsigned moved = 0;
    const bool cross = rq.cpu_node[src] != rq.cpu_node[dst];
    for (size_t i = rq.cpus[src].queued.size(); i-- > 0 && moved < max;) {
      const unsigned t = rq.cpus[src].queued[i];
      if (cross && degrades_locality(t, rq.cpu_node[src], failed_.empty() || failed_[dst] <= p_.cache_nice_tries)) continue;
      rq.move_queued(t, dst);
      moved++;
    }
    return moved;
  }

  // migrate_degrades_locality: leaving its preferred node; refused while the domain's
  // nr_balance_failed <= cache_nice_tries (`refuse`).
  virtual bool degrades_locality(unsigned task, unsigned src_node, bool refuse) const {
    (void)task, (void)src_node, (void)refuse;
    return false;
  }

  static bool moving(int task, const std::vector<Migration>& out) {
    return std::any_of(out.begin(), out.end(), [&](const Migration& m) { return static_cast<int>(m.task) == task; });
  }

  // sd_init's intervals: sd_weight ms to 2 x sd_weight ms. Where each idle CPU's last_balance
  // stands when a parent begins forking is not known: the box balanced before the run, and LKP
  // runs each iteration as a new usemem after a shell gap in which no busy CPU kicks the nohz
  // balancer (nohz_balancer_kick), which the model does not run. So every fork batch draws each
  // CPU's phase afresh, from the run's seed and the batch's number, within the window; the
  // interval stands at its maximum, where an idle box's failed balances leave it.
  void init_domains(const Runqueues& rq, ps_t now) {
    const unsigned n = rq.nr_cpus();
    const ps_t ms = 1000000000;
    const unsigned weight[2] = {rq.node_cpus(0), n};
    Rng rng(p_.seed ^ (uint64_t{batches_++} << 32), 0x62616c616e6365ull);
    drawn_for_ = rq.forks_began;
    for (unsigned d = 0; d < 2; ++d) {
      Domain& dom = dom_[d];
      dom.min_interval = weight[d] * ms, dom.max_interval = 2 * weight[d] * ms;
      dom.interval.assign(n, dom.max_interval);
      dom.next.resize(n);
      const ps_t window = p_.balance_window_ps ? p_.balance_window_ps : dom.max_interval;
      for (unsigned c = 0; c < n; ++c) dom.next[c] = now + rng.below(window);
    }
    failed_.assign(n, 0);
  }

  struct Domain {
    ps_t min_interval = 0, max_interval = 0;
    std::vector<ps_t> interval, next;  // per CPU: sd->balance_interval, last_balance + interval
  };
  SchedParams p_;
  Domain dom_[2];                // MC, NUMA
  std::vector<unsigned> failed_;  // per CPU: the NUMA domain's nr_balance_failed
  ps_t drawn_for_ = 0;            // the fork batch (Runqueues::forks_began) the phases were drawn for
  uint64_t batches_ = 0;          // fork batches seen: each draws its own phases
};

// cfs plus NUMA balancing. numa_home picks the rule: kernel (numa_balancing.h, then
// task_numa_migrate toward the preferred node), fork_node (the ablation: each task is sent
// back to the node it was forked on once the scan delay has passed since its fork) or none.
class Numa final : public Cfs {
 public:
  explicit Numa(const SchedParams& p) : Cfs(p), home_(parse_home(p.numa_home)), nb_(p) {}
  std::string_view name() const override { return "numa"; }
  const NumaBalancingStats* numa_stats() const override { return &nb_.stats(); }

  unsigned fork(const Runqueues& rq, unsigned task, unsigned parent_cpu, ps_t now) override {
    const unsigned cpu = Cfs::fork(rq, task, parent_cpu, now);
    nb_.fork(task, rq.cpu_node[cpu], nr_nodes(rq));
    return cpu;
  }

  void tick(Runqueues& rq, ps_t now, std::vector<Migration>& out) override {
    Cfs::tick(rq, now, out);
    if (home_ == Home::none) return;
    if (next_scan_.size() != rq.task_cpu.size()) next_scan_.assign(rq.task_cpu.size(), 0);
    for (unsigned t = 0; t < rq.task_cpu.size(); ++t) {
      const unsigned cpu = rq.task_cpu[t];
      if (rq.task_asleep[t] || moving(static_cast<int>(t), out) || rq.cpus[cpu].curr != static_cast<int>(t)) continue;
      int want = -1;
      if (home_ == Home::kernel) {
        if (nb_.tick(t, rq.cpu_node[cpu], rq.runtime(t, now), now)) want = nb_.preferred(t);
      } else {  // fork_node
        next_scan_[t] = std::max(next_scan_[t], rq.task_forked[t] + p_.numa_scan_delay_ps);
        if (now < next_scan_[t]) continue;
        next_scan_[t] = now + p_.numa_scan_period_ps;
        if (rq.cpu_node[cpu] != rq.task_home[t]) want = static_cast<int>(rq.task_home[t]);
      }
      if (want >= 0) task_numa_migrate(rq, t, static_cast<unsigned>(want), out);
    }
  }

 private:
  enum class Home { kernel, fork_node, none };  // numa_home_names(), in order
  static Home parse_home(const std::string& name) {
    const auto& names = numa_home_names();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) throw InputError(fmt::format("engine.numa_home: unknown rule '{}'", name));
    return static_cast<Home>(it - names.begin());
  }

  int preferred(unsigned t, const Runqueues& rq) const {
    return home_ == Home::kernel ? nb_.preferred(t) : static_cast<int>(rq.task_home[t]);
  }

  bool degrades_locality(unsigned task, unsigned src_node, bool refuse) const override {
    return refuse && home_ == Home::kernel && nb_.preferred(task) == static_cast<int>(src_node);
  }

  // task_numa_migrate / task_numa_find_cpu: an idle CPU on the preferred node when moving
  // there leaves no imbalance (adjust_numa_imbalance), else a swap with a task running there
  // that prefers this task's node.
  void task_numa_migrate(const Runqueues& rq, unsigned t, unsigned home, std::vector<Migration>& out) {
    const unsigned cpu = rq.task_cpu[t], src = rq.cpu_node[cpu];
    const int dst_running = static_cast<int>(rq.node_running(home)) + 1, src_running = static_cast<int>(rq.node_running(src)) - 1;
    const int imbalance = std::max(0, dst_running - src_running);
    const bool no_imbalance = imbalance == 0 || (dst_running < static_cast<int>(rq.node_cpus(home) / 4) && imbalance <= 2);
    if (const int dst = idle_cpu_in(rq, home, cpu, &out); dst >= 0 && (no_imbalance || home_ == Home::fork_node)) {
      out.push_back({t, static_cast<unsigned>(dst)});
      nb_.stats().task_moves++;
      return;
    }
    for (unsigned c = 0; c < rq.nr_cpus(); ++c) {
      const int other = rq.cpus[c].curr;
      if (rq.cpu_node[c] != home || other < 0 || moving(other, out)) continue;
      if (preferred(static_cast<unsigned>(other), rq) != static_cast<int>(src)) continue;
      out.push_back({t, c});
      out.push_back({static_cast<unsigned>(other), cpu});
      nb_.stats().swaps++;
      return;
    }
  }

  Home home_;
  NumaBalancing nb_;
  std::vector<ps_t> next_scan_;  // fork_node: the next pass, in time since fork
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
