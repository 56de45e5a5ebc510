#!/usr/bin/env python3
"""Per-task placement of usemem runs, read from `pagesim run --json` output (runs[].tasks).

For each run (repeat 0 unless --repeat), prints:
  - the migrations by time since their iteration's fork, and how many crossed nodes: the start
    pipe's wake-ups act at the fork, idle balancing in the first few hundred ms, NUMA
    balancing from 1 s of a task's own CPU time (docs/reproducing-anon-w-rand-hugetlb.md);
  - a least-squares fit of each task-iteration's store-loop time per store against its
    remote-store share r: ns/store = c + b*r. b/c is what a remote store costs more than a
    local one, relative to a local one, at the loads the run produced.

Usage: tools/usemem-placement.py RESULT.json [--cpus-per-node N] [--repeat R]
Standard library only."""
import argparse
import collections
import sys

import result_json


def windows(run, cpus_per_node):
    tasks = run["tasks"]
    at_count = collections.Counter(mv["at_ns"] for t in tasks for mv in t["timeline"])
    # A fork places every task at the same instant; the engine's own start (t=0) is one too.
    forks = sorted(at for at, n in at_count.items() if n >= len(tasks) and at > 0)
    names = ["<10ms", "10ms-1s", "1s-1.1s", ">=1.1s"]
    moves, cross = collections.Counter(), collections.Counter()
    for t in tasks:
        tl = t["timeline"]
        for prev, mv in zip(tl, tl[1:]):
            if mv["at_ns"] in forks or not forks or mv["at_ns"] < forks[0]:
                continue
            since = (mv["at_ns"] - max(f for f in forks if f <= mv["at_ns"])) / 1e9
            w = names[0] if since < 0.01 else names[1] if since < 1 else names[2] if since < 1.1 else names[3]
            moves[w] += 1
            cross[w] += mv["cpu"] // cpus_per_node != prev["cpu"] // cpus_per_node
    return ", ".join(f"{w}: {moves[w]} ({cross[w]} cross-node)" for w in names)


def fit(run):
    tasks = run["tasks"]
    its = [it for t in tasks for it in t["iterations"] if not it["failed"] and it["store_loop_node_s"]]
    if len(its) < 2:
        return "no store loops"
    per_task_stores = run["metrics"]["stores"] / len(its)
    xs = [it["remote_store_share_pct"] / 100 for it in its]
    ys = [sum(it["store_loop_node_s"]) / per_task_stores * 1e9 for it in its]
    n, mx, my = len(xs), sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return f"ns/store = {my:.1f} (every task has remote share {mx:.3f})"
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    c = my - b * mx
    sst = sum((y - my) ** 2 for y in ys)
    r2 = 1 - sum((y - c - b * x) ** 2 for x, y in zip(xs, ys)) / sst if sst else 1
    return f"ns/store = {c:.1f} + {b:.1f} r (b/c {b / c:.2f}, R^2 {r2:.2f}, {n} task-iterations, mean r {mx:.3f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("--cpus-per-node", type=int, default=0, help="default: the scenario's machine.cpus_per_node")
    ap.add_argument("--repeat", type=int, default=0)
    a = ap.parse_args()
    doc = result_json.load(a.result)
    cpn = a.cpus_per_node or result_json.cpus_per_node(doc)
    if cpn <= 0:
        print(f"{a.result}: no machine.cpus_per_node in the scenario; pass --cpus-per-node", file=sys.stderr)
        return 2
    for run in doc.get("runs", []):
        if run["repeat"] != a.repeat or not run.get("tasks"):
            continue
        sweep = f" [{run['sweep']['key']}={run['sweep']['value']}]" if run.get("sweep") else ""
        run_cpn = cpn
        if run.get("sweep") and run["sweep"]["key"] == "machine.cpus_per_node" and not a.cpus_per_node:
            run_cpn = int(run["sweep"]["value"])
        print(f"{run['variant']}{sweep}")
        print(f"  migrations since fork: {windows(run, run_cpn)}")
        print(f"  store loop: {fit(run)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
