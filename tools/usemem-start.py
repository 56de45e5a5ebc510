#!/usr/bin/env python3
"""The first 200 ms of each usemem iteration, read from a virtual run's result.json
(runs[].tasks[].iterations[].start, written by `pagesim run --out DIR`).

For each variant (repeat 0 unless --repeat), prints:
  - how many tasks were on each node at fork, after the start pipe's wake-up, at mmap start
    and end, at the first fault and at NUMA balancing's passes 1 and 2;
  - the huge pages the tasks reserved on each node, HugePages_Surp per node when the last
    mmap returned, and the tasks per node at their first fault;
  - the spinning inside mmap on hugetlb_lock and zone->lock, per task;
  - the tasks on each node every 25 ms from the fork (the start pipe's wake-up, then idle
    balancing spreading them).
With --plot FILE.png, draws per variant the tasks on node 1 and the reservations completed
on each node over the first 200 ms (gnuplot).

Usage: tools/usemem-start.py RESULT.json [--repeat R] [--iteration I] [--plot OUT.png]
Standard library only (gnuplot for --plot)."""
import argparse
import collections
import sys

import result_json

STEPS = [("fork", "fork_node"), ("wake", "wake_node"), ("mmap start", "mmap_start_node"),
         ("mmap end", "mmap_end_node"), ("first fault", "first_fault_node"),
         ("NUMA pass 1", "pass1_node"), ("NUMA pass 2", "pass2_node")]


def starts(run, it):
    return [t["iterations"][it]["start"] for t in run["tasks"]
            if len(t["iterations"]) > it and "start" in t["iterations"][it]]


def fork_ns(run, it):
    """The virtual time of iteration `it`'s fork: the (it+2)-th instant at which every task
    was placed at once (the first is the engine's own start)."""
    count = collections.Counter(mv["at_ns"] for t in run["tasks"] for mv in t["timeline"])
    forks = sorted(at for at, n in count.items() if n >= len(run["tasks"]))
    return forks[it + 1] if len(forks) > it + 1 else None


def nodes_at(run, t0_ns, at_ms, cpus_per_node):
    """Tasks per node at t0 + at_ms, from each task's placement timeline."""
    per = collections.Counter()
    for t in run["tasks"]:
        cpu = None
        for mv in t["timeline"]:
            if mv["at_ns"] <= t0_ns + at_ms * 1e6:
                cpu = mv["cpu"]
        if cpu is not None:
            per[cpu // cpus_per_node] += 1
    return per


def report(run, it, nodes, cpus_per_node):
    st = starts(run, it)
    if not st:
        return None
    print(f"== {run['variant']} (repeat {run['repeat']}, iteration {it}): {len(st)} tasks")
    for name, key in STEPS:
        c = collections.Counter(s[key] for s in st if s[key] >= 0)
        when = {"mmap start": "mmap_start_us", "mmap end": "mmap_end_us", "first fault": "first_fault_us",
                "NUMA pass 1": "pass1_us", "NUMA pass 2": "pass2_us"}.get(name)
        times = sorted(s[when] for s in st if when and s[when] >= 0)
        span = f"   {times[0] / 1000:8.1f} - {times[-1] / 1000:8.1f} ms" if times else ""
        print(f"  {name:<12} " + "  ".join(f"node{n} {c[n]:4d}" for n in range(nodes)) + span)
    reserved = [sum(s["reserved_node_pages"][n] for s in st) for n in range(nodes)]
    m = run["metrics"]
    surp = [m.get(f"hugepages_surp_after_mmap_node{n}_it{it}") for n in range(nodes)]
    print("  reserved     " + "  ".join(f"node{n} {reserved[n]:6d}" for n in range(nodes)) + " huge pages")
    if None not in surp:
        print("  HugePages_Surp after the last mmap: " + "  ".join(f"node{n} {int(surp[n])}" for n in range(nodes)))
    spin_h = sum(s["spin_hugetlb_lock_us"] for s in st) / len(st) / 1000
    spin_z = sum(s["spin_zone_lock_us"] for s in st) / len(st) / 1000
    mmap = sum(s["mmap_end_us"] - s["mmap_start_us"] for s in st) / len(st) / 1000
    print(f"  per task: mmap {mmap:.2f} ms, spinning {spin_h:.2f} ms on hugetlb_lock, {spin_z:.2f} ms on zone->lock")
    t0 = fork_ns(run, it)
    series = []
    if t0 is not None:
        line = []
        for ms in range(0, 201, 25):
            per = nodes_at(run, t0, ms, cpus_per_node)
            line.append(f"{ms}ms " + "/".join(str(per[n]) for n in range(nodes)))
        print("  tasks per node: " + ", ".join(line))
        for ms in range(0, 201, 2):
            per = nodes_at(run, t0, ms, cpus_per_node)
            done = [sum(1 for s in st if 0 <= s["mmap_end_us"] <= ms * 1000 and s["mmap_end_node"] == n) for n in range(nodes)]
            series.append((ms, per[1] if nodes > 1 else 0, *done))
    return series


def plot(all_series, out):
    """One panel per variant; gnuplot reads each plot's inline data ('-') after its command."""
    body = [f"set terminal pngcairo size 1000,{320 * len(all_series)}", f"set output '{out}'",
            f"set multiplot layout {len(all_series)},1", "set xlabel 'ms after the fork'", "set key top left",
            "set xrange [0:200]"]
    for name, series in all_series:
        cols = len(series[0])
        rows = "\n".join(" ".join(str(v) for v in r) for r in series) + "\ne"
        curves = ["'-' using 1:2 with steps lw 2 title 'tasks on node 1'"]
        curves += [f"'-' using 1:{c} with steps title 'mmap done on node {c - 3}'" for c in range(3, cols + 1)]
        body.append(f"set title '{name}: tasks on node 1 and reservations completed'")
        body.append("plot " + ", ".join(curves))
        body += [rows] * len(curves)
    result_json.gnuplot(body, "usemem-start.py")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("result")
    ap.add_argument("--repeat", type=int, default=0)
    ap.add_argument("--iteration", type=int, default=0)
    ap.add_argument("--plot")
    a = ap.parse_args()
    d = result_json.load(a.result)
    runs = [r for r in d.get("runs", []) if r.get("repeat") == a.repeat and r.get("tasks")]
    if not runs:
        print(f"{a.result}: no usemem task placements for repeat {a.repeat} (a virtual run's result.json)", file=sys.stderr)
        sys.exit(2)
    all_series = []
    for run in runs:
        nodes = max(len(t["iterations"][0]["fault_node_pages"]) for t in run["tasks"] if t["iterations"])
        cpus_per_node = result_json.cpus_per_node(d) or max(1, len(run["tasks"]) // max(1, nodes))
        series = report(run, a.iteration, nodes, cpus_per_node)
        if series:
            all_series.append((run["variant"], series))
    if a.plot and all_series:
        plot(all_series, a.plot)
        print(f"plot: {a.plot}")


if __name__ == "__main__":
    main()
