#!/usr/bin/env python3
"""tools/bench-report refuses bad flags before it measures anything: exit 2 and a message
naming the flag (--runs or --rounds below 1, an --against build without its executables).
Exits 1 with the failed case.
    tests/tools/bench_report_test.py [SOURCE_DIR]
"""
import os
import subprocess
import sys
import tempfile


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tool = os.path.join(root, "tools", "bench-report")
    with tempfile.TemporaryDirectory() as empty:
        cases = [(["--runs", "0"], "--runs"), (["--rounds", "0"], "--rounds"),
                 (["--against", empty], os.path.join(empty, "pagesim"))]
        for args, named in cases:
            r = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True, timeout=60)
            if r.returncode != 2 or named not in r.stderr:
                sys.exit(f"bench-report {' '.join(args)}: exit {r.returncode}, stderr {r.stderr!r}")
    print("ok")


if __name__ == "__main__":
    main()
