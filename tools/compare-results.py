#!/usr/bin/env python3
"""Compares pagesim result JSONs (schema pagesim/1), wall-clock fields aside.

    tools/compare-results.py BASE.json NEW.json [BASE2.json NEW2.json ...]

For a refactor that must not change behaviour: runs, zones, locks, cache counters, vmstat, tasks,
notes and compare rows must be identical. Left out everywhere: `wall_s` and the scenario's
`outputs`. Left out on the uniprocessor and native engines, whose times come from the host clock:
the metrics docs/output.md marks host-timed, lock wait/hold times and histograms, IRQ-off times,
and the compare rows of those. On the virtual engine every value must match. Prints each
difference and exits 1 when there is any.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def host_timed_metrics():
    """The metrics docs/output.md marks host-timed, as one regex ({site} and the like match any name)."""
    names, inside = [], False
    with open(os.path.join(ROOT, "docs", "output.md")) as f:
        for line in f:
            inside = {"<!-- metrics:begin -->\n": True, "<!-- metrics:end -->\n": False}.get(line, inside)
            m = re.match(r"\| `([^`]+)` \|", line)
            if inside and m and "Host-timed" in line:
                names.append(re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(m.group(1))))
    return re.compile(r"(?:^|\.)(?:" + "|".join(names) + r")$")


HOST_METRIC = host_timed_metrics()
# Host-clock fields outside docs/output.md's metric table: lock wait and hold times and their
# histograms, the host's CPU count, and the vm-scalability compare rows.
HOST_TIMED = re.compile(r"(log2_ns|vm-scalability\.|wait_ns|hold_ns|waittime|holdtime|host_cpus)")


def host_timed(key):
    return bool(HOST_TIMED.search(key) or HOST_METRIC.search(key))


def walk(a, b, path, host, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k == "wall_s" or (host and host_timed(k)):
                continue
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'new' if k in b else 'base'}")
                continue
            walk(a[k], b[k], f"{path}.{k}", host, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} vs {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", host, out)
    elif a != b:
        out.append(f"{path}: {a!r} vs {b!r}")


def compare(base_file, new_file):
    a, b = json.load(open(base_file)), json.load(open(new_file))
    out = []
    if len(a["runs"]) != len(b["runs"]):
        out.append(f"runs: {len(a['runs'])} vs {len(b['runs'])}")
    host = False
    for i, (ra, rb) in enumerate(zip(a["runs"], b["runs"])):
        h = ra["engine"] in ("uniprocessor", "native")
        host |= h
        walk(ra, rb, f"runs[{i}]", h, out)
    if len(a["compare"]) != len(b["compare"]):
        out.append(f"compare: {len(a['compare'])} vs {len(b['compare'])} rows")
    for i, (ca, cb) in enumerate(zip(a["compare"], b["compare"])):
        if not (host and host_timed(ca["metric"])):
            walk(ca, cb, f"compare[{i}]({ca['metric']})", False, out)
    for doc in (a, b):
        doc["scenario"].pop("outputs", None)
    walk(a["scenario"], b["scenario"], "scenario", False, out)
    print(f"{new_file}: {'equal' if not out else f'{len(out)} differences'}")
    for line in out[:20]:
        print("   ", line)
    return not out


def main(args):
    if len(args) < 2 or len(args) % 2:
        sys.exit(__doc__)
    ok = all([compare(args[i], args[i + 1]) for i in range(0, len(args), 2)])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
