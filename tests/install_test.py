#!/usr/bin/env python3
"""`cmake --install` into a temporary prefix, the prefix then copied elsewhere and run from a
third directory, so that nothing points back at the build: the installed pagesim finds its
shipped scenario by name and the machine file beside it (share/pagesim), `pagesim list` says
they are in the copied prefix, the man page renders without warnings, and the bash completion
offers `run` after `pagesim r<TAB>`. Exits 1 with the failed check, 77 (ctest's skip) when
man-db or bash is missing (tools/setup.sh installs both).
    tests/install_test.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd, cwd, timeout=300, env=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r


def check(ok, what):
    if not ok:
        sys.exit(what)


def main():
    build, source = (os.path.abspath(a) for a in sys.argv[1:3])
    for tool in ("man", "bash"):
        if not shutil.which(tool):
            print(f"{tool} is not installed (tools/setup.sh installs it)")
            sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        stage, prefix, work = (os.path.join(tmp, d) for d in ("stage", "moved/prefix", "work"))
        run(["cmake", "--install", build, "--prefix", stage], cwd=tmp)
        shutil.copytree(stage, prefix, symlinks=True)
        shutil.rmtree(stage)
        os.makedirs(work)
        pagesim = os.path.join(prefix, "bin", "pagesim")
        share = os.path.join(prefix, "share")

        version = run([pagesim, "--version"], cwd=work).stdout
        check(version.startswith("pagesim ") and "commit " in version, f"--version: {version!r}")

        listed = run([pagesim, "list"], cwd=work).stdout
        scenarios = os.path.join(share, "pagesim", "scenarios")
        check(f"each is {scenarios}/NAME.yaml" in listed, f"pagesim list does not name {scenarios}:\n{listed[-1500:]}")
        check(source not in listed, f"pagesim list names the source tree {source}")
        check("\n  anon-w-rand-hugetlb " in listed, "pagesim list does not list anon-w-rand-hugetlb")

        # By name: the shipped scenario, and through it the default machine file, from the prefix.
        # One preset of its four: about 5 s (all four: 12 s; 46 s and 160 s under .ci/run's ASan).
        run([pagesim, "run", "anon-w-rand-hugetlb", "--set", "repeats=1", "--set", "workload.params.iterations=1",
             "--set", "kernel.presets=[v5.17]", "--quiet", "--json", "r.json"], cwd=work)
        with open(os.path.join(work, "r.json")) as f:
            result = json.load(f)
        check([r["variant"] for r in result["runs"]] == ["v5.17"], f"runs: {[r['variant'] for r in result['runs']]}")

        missing = subprocess.run([pagesim, "run", "no-such-scenario"], cwd=work, capture_output=True, text=True, timeout=60)
        check(missing.returncode == 2 and f"{scenarios}/no-such-scenario.yaml" in missing.stderr,
              f"an unknown name: exit {missing.returncode}, {missing.stderr!r}")

        page = os.path.join(share, "man", "man1", "pagesim.1.gz")
        man = run(["man", "--warnings", "-l", page], cwd=work, env=dict(os.environ, MANWIDTH="80"))
        check(man.stderr == "", f"man --warnings: {man.stderr}")
        for want in ("PAGESIM RUN", "EXIT STATUS", "FILES", "--set"):
            check(want in man.stdout, f"the man page has no {want!r}")

        completion = os.path.join(share, "bash-completion", "completions", "pagesim")
        line = f"{pagesim} r"
        script = (f'source "{completion}"; COMP_WORDS=("{pagesim}" r); COMP_CWORD=1; COMP_LINE="{line}"; '
                  f'COMP_POINT={len(line)}; _pagesim; compgen -W "${{COMPREPLY[*]}}" -- r')
        offered = run(["bash", "--norc", "--noprofile", "-c", script], cwd=work).stdout.split()
        check("run" in offered, f"pagesim r<TAB> offers {offered}")
    print("ok")


if __name__ == "__main__":
    main()
