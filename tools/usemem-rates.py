#!/usr/bin/env python3
"""The distribution of usemem's per-task rates (KB/s) in a run's result.json, per variant:
the 128 rates of every iteration and repeat pooled, as LKP's rate lines would give them.

Prints per variant the count, mean, LKP's upper median (the 65th-slowest of 128, per
iteration, averaged), mean/median, and deciles; with --plot FILE.png draws one histogram per
variant on a shared axis (gnuplot).

Usage: tools/usemem-rates.py RESULT.json [--bins N] [--plot OUT.png]
Standard library only (gnuplot for --plot)."""
import argparse
import statistics
import sys

import result_json


def rates(run):
    """Per iteration, the rates of the tasks that did not fail."""
    its = max((len(t["iterations"]) for t in run["tasks"]), default=0)
    return [[t["iterations"][i]["kbps"] for t in run["tasks"]
             if len(t["iterations"]) > i and not t["iterations"][i]["failed"] and t["iterations"][i].get("kbps", 0) > 0]
            for i in range(its)]


def upper_median(xs):
    return sorted(xs)[len(xs) // 2]


def plot(per_variant, bins, out):
    lo = min(min(v) for v in per_variant.values())
    hi = max(max(v) for v in per_variant.values())
    width = (hi - lo) / bins or 1
    body = [f"set terminal pngcairo size 1000,{300 * len(per_variant)}", f"set output '{out}'",
            f"set multiplot layout {len(per_variant)},1", "set style fill solid 0.6", "set boxwidth 0.9 relative",
            f"set xrange [{lo - width}:{hi + width}]", "set xlabel 'KB/s per task'", "set ylabel 'tasks'"]
    for name, xs in per_variant.items():
        counts = [0] * bins
        for x in xs:
            counts[min(bins - 1, int((x - lo) / width))] += 1
        rows = "\n".join(f"{lo + (i + 0.5) * width} {c}" for i, c in enumerate(counts)) + "\ne"
        body += [f"set title '{name}: {len(xs)} task rates'", "plot '-' using 1:2 with boxes notitle", rows]
    result_json.gnuplot(body, "usemem-rates.py")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("result")
    ap.add_argument("--bins", type=int, default=40)
    ap.add_argument("--plot")
    a = ap.parse_args()
    d = result_json.load(a.result)
    per_variant, medians = {}, {}
    for run in d.get("runs", []):
        for it in rates(run) if run.get("tasks") else []:
            if it:
                per_variant.setdefault(run["variant"], []).extend(it)
                medians.setdefault(run["variant"], []).append(upper_median(it))
    if not per_variant:
        print(f"{a.result}: no usemem task rates (a result.json of `pagesim run` with usemem)", file=sys.stderr)
        sys.exit(2)
    for name, xs in per_variant.items():
        mean, med = statistics.fmean(xs), statistics.fmean(medians[name])
        dec = statistics.quantiles(xs, n=10)
        print(f"{name}: {len(xs)} rates, mean {mean:.0f}, upper median {med:.0f}, mean/median {mean / med:.3f}, "
              f"deciles {' '.join(f'{q:.0f}' for q in dec)}")
    if a.plot:
        plot(per_variant, a.bins, a.plot)
        print(f"plot: {a.plot}")


if __name__ == "__main__":
    main()
