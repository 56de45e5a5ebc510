#!/usr/bin/env python3
"""-DPAGESIM_PGO=ON (cmake/pgo.cmake) configures a build whose objects are compiled with the
profile and wait for the training run, and refuses to go with the sanitizers; tools/pgo-train
refuses a wrong argument count with exit 2. Configures only: the build and the training take
minutes (docs/performance.md, "Build flags"). Exits 1 with the failed check.
    tests/pgo_configure_test.py [SOURCE_DIR]
"""
import json
import os
import subprocess
import sys
import tempfile


def configure(root, build, *args):
    cmd = ["cmake", "-S", root, "-B", build, "-G", "Ninja", "-DCMAKE_CXX_COMPILER=g++", "-DPAGESIM_BUILD_BENCH=OFF", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as build:
        r = configure(root, build, "-DPAGESIM_PGO=ON")
        if r.returncode != 0:
            sys.exit(f"PAGESIM_PGO=ON does not configure: {r.stderr}")
        stamp = os.path.join(build, "pgo", "trained.stamp")
        profile = os.path.join(build, "pgo", "profile")
        with open(os.path.join(build, "compile_commands.json")) as f:
            commands = json.load(f)
        model = [c["command"] for c in commands if c["file"].endswith("sim/cache/cache_model.cc")]
        if not model or f"-fprofile-use={profile}" not in model[0] or f"-fprofile-prefix-path={build}" not in model[0]:
            sys.exit(f"cache_model.cc is not compiled with the profile: {model}")
        with open(os.path.join(build, "build.ninja")) as f:
            ninja = f.read()
        edge = next((l for l in ninja.splitlines() if l.startswith("build ") and "cache_model.cc.o:" in l), "")
        implicit = edge.split(" | ", 1)[1].split(" || ")[0].split() if " | " in edge else []
        if stamp not in implicit and os.path.relpath(stamp, build) not in implicit:
            sys.exit(f"cache_model.cc.o is not rebuilt with the profile: {edge!r}")
        if "tools/pgo-train" not in ninja:
            sys.exit("no training step in build.ninja")
    with tempfile.TemporaryDirectory() as build:
        r = configure(root, build, "-DPAGESIM_PGO=ON", "-DPAGESIM_SANITIZE=thread")
        if r.returncode == 0 or "PAGESIM_PGO" not in r.stderr:
            sys.exit(f"PAGESIM_PGO with a sanitizer: exit {r.returncode}, stderr {r.stderr!r}")
    r = subprocess.run([os.path.join(root, "tools", "pgo-train")], capture_output=True, text=True, timeout=60)
    if r.returncode != 2 or "usage: tools/pgo-train" not in r.stderr:
        sys.exit(f"pgo-train without arguments: exit {r.returncode}, stderr {r.stderr!r}")
    print("ok")


if __name__ == "__main__":
    main()
