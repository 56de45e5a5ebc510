#!/usr/bin/env python3
"""`cpack -G DEB` on the build (cmake/package.cmake), the package unpacked with `dpkg-deb -x` into
a temporary folder, and its pagesim run from there: --version, list (its scenarios are the
package's) and a shipped scenario validated by name. The control fields: the version the build
took from git, and the runtime dependencies dpkg-shlibdeps found. Exits 1 with the failed check,
77 (ctest's skip) when dpkg-dev is missing (tools/setup.sh installs it).
    tests/deb_test.py BUILD_DIR
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd, cwd, timeout=300):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r.stdout


def check(ok, what):
    if not ok:
        sys.exit(what)


def main():
    build = os.path.abspath(sys.argv[1])
    for tool in ("cpack", "dpkg-deb", "dpkg-shlibdeps"):
        if not shutil.which(tool):
            print(f"{tool} is not installed (tools/setup.sh installs dpkg-dev)")
            sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        out, root, work = (os.path.join(tmp, d) for d in ("out", "root", "work"))
        os.makedirs(work)
        run(["cpack", "-G", "DEB", "--config", os.path.join(build, "CPackConfig.cmake"), "-B", out], cwd=work)
        debs = glob.glob(os.path.join(out, "*.deb"))
        check(len(debs) == 1, f"cpack made {debs}")
        with open(os.path.join(build, "tools", "package_version.txt")) as f:
            version = f.read().strip()
        check(run(["dpkg-deb", "-f", debs[0], "Version"], cwd=work).strip() == version, f"the package's version is not {version}")
        depends = run(["dpkg-deb", "-f", debs[0], "Depends"], cwd=work)
        check("libc6" in depends and "libyaml-cpp" in depends, f"Depends: {depends!r}")

        run(["dpkg-deb", "-x", debs[0], root], cwd=work)
        pagesim = os.path.join(root, "usr", "bin", "pagesim")
        check(run([pagesim, "--version"], cwd=work).startswith("pagesim "), "pagesim --version")
        listed = run([pagesim, "list"], cwd=work)
        scenarios = os.path.join(root, "usr", "share", "pagesim", "scenarios")
        check(f"each is {scenarios}/NAME.yaml" in listed, f"pagesim list does not name {scenarios}:\n{listed[-1500:]}")
        validated = run([pagesim, "validate", "virtual-thp-128"], cwd=work)
        check(validated.startswith(os.path.join(scenarios, "virtual-thp-128.yaml") + ": ok:"), f"validate: {validated!r}")
        for f in ("share/man/man1/pagesim.1.gz", "share/bash-completion/completions/pagesim", "share/doc/pagesim/copyright",
                  "share/doc/pagesim/changelog.gz", "share/pagesim/machines/icx-8358-2s.yaml"):
            check(os.path.isfile(os.path.join(root, "usr", f)), f"the package has no /usr/{f}")
    print("ok")


if __name__ == "__main__":
    main()
