#!/usr/bin/env python3
"""tools/compare-results.py leaves out what docs/output.md marks host-timed, and only that.

A native run that differs only in host-timed metrics (the seed experiments' clear_gbs and
clear_min_s, irq_off_{site}_avg_ns) compares equal; the same run on the virtual engine, or a
difference in a count, does not. Exits 1 with the failed case.
    tests/tools/compare_results_test.py [SOURCE_DIR]
"""
import copy
import importlib.util
import json
import os
import subprocess
import sys
import tempfile


def result(engine, metrics):
    return {"schema": "pagesim/1", "scenario": {"name": "t", "outputs": {}}, "compare": [],
            "runs": [{"engine": engine, "wall_s": 1.0, "metrics": metrics}]}


def equal(tool, a, b):
    with tempfile.TemporaryDirectory() as d:
        paths = [os.path.join(d, n) for n in ("a.json", "b.json")]
        for p, doc in zip(paths, (a, b)):
            with open(p, "w") as f:
                json.dump(doc, f)
        return subprocess.run([sys.executable, tool, *paths], capture_output=True).returncode == 0


def load_tool(tool):
    spec = importlib.util.spec_from_file_location("compare_results", tool)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(src):
    tool = os.path.join(src, "tools", "compare-results.py")
    # A placeholder row (`irq_off_{site}_avg_ns`) stands for every site, and for nothing else.
    metric = load_tool(tool).HOST_METRIC
    names = [("irq_off_rmqueue_pcplist_avg_ns", True), ("pagesim.irq_off_free_huge_page_max_ns", True),
             ("irq_off_rmqueue_pcplist_count", False), ("clear_gbs", True), ("fault_pages_node0", False)]
    wrong = [n for n, want in names if bool(metric.search(n)) != want]
    for n in wrong:
        print("host-timed pattern wrong for:", n)
    base = {"clear_gbs": 8.4, "clear_min_s": 0.62, "irq_off_rmqueue_pcplist_avg_ns": 361.0, "fault_pages_node0": 16128}
    timed = dict(base, clear_gbs=9.4, clear_min_s=0.57, irq_off_rmqueue_pcplist_avg_ns=420.0)
    counted = dict(base, fault_pages_node0=16129)
    cases = [
        ("native, host-timed metrics differ", equal(tool, result("native", base), result("native", timed)), True),
        ("virtual, the same metrics differ", equal(tool, result("virtual", base), result("virtual", timed)), False),
        ("native, a count differs", equal(tool, result("native", base), result("native", counted)), False),
        ("native, identical", equal(tool, result("native", base), copy.deepcopy(result("native", base))), True),
    ]
    failed = [name for name, got, want in cases if got != want]
    for name in failed:
        print("compare-results.py got the wrong answer for:", name)
    return 1 if failed or wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
