#!/usr/bin/env python3
"""No layer includes or links a layer above it (docs/architecture.md, "Layers").

Every source and header under include/pagesim/, sim/ and tools/ belongs to the layer of its
folder; each "pagesim/<layer>/..." or relative include names the layer it reaches. A file may
include its own layer and those below; the three engines are siblings and include none of each
other. The same holds for the libraries: each folder's CMakeLists.txt builds its layer's
library (pagesim_<folder>, pagesim_engine_<name>), and its target_link_libraries may name only
libraries of its own layer and those below. Prints one line per upward include or link and
exits 1 when there is any.
    tests/layering_test.py [SOURCE_DIR]
"""
import os
import re
import sys

# Bottom to top. "engine/<name>" folders rank above "engine" (what the engines share).
LAYERS = ["", "config", "exec", "mm", "trace", "cache", "vt", "result", "engine", "engine/*", "engine/registry", "workload",
          "scenario", "run", "replay", "report", "tools"]
ENGINES = {"uniprocessor", "native", "virtual"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ADD_LIBRARY = re.compile(r'add_library\(\s*(pagesim_\w+)')
LINK = re.compile(r'target_link_libraries\(\s*([\w-]+)([^)]*)\)', re.S)


def layer_of(rel):
    """The layer of a path relative to the source root, or None outside the layered tree."""
    parts = rel.split("/")
    if parts[0] == "include" and parts[1:2] == ["pagesim"]:
        parts = parts[2:]
    elif parts[0] == "sim":
        parts = parts[1:]
    elif parts[0] == "tools":
        return "tools"
    else:
        return None
    if len(parts) == 1:
        return ""  # error.h, rng.h, version.h, huge_region.h
    if parts[0] == "engine" and len(parts) > 2 and (parts[1] in ENGINES or parts[1] == "registry"):
        return "engine/" + parts[1]
    return parts[0]


def is_engine(layer):
    """One of the three sibling engines' layers."""
    return layer.startswith("engine/") and layer[len("engine/"):] in ENGINES


def rank(layer):
    return LAYERS.index("engine/*" if is_engine(layer) else layer)


def target_of(src_rel, inc):
    """The layer an include reaches: "pagesim/..." from include/, a relative path from the file."""
    if inc.startswith("pagesim/"):
        return layer_of("include/" + inc)
    joined = os.path.normpath(os.path.join(os.path.dirname(src_rel), inc))
    return layer_of(joined)


def violations(root):
    out = []
    for top in ("include/pagesim", "sim", "tools"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".h", ".cc", ".def")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                own = layer_of(rel)
                if own is None or own not in LAYERS and not is_engine(own):
                    out.append(f"{rel}: in no known layer (add its folder to LAYERS)")
                    continue
                text = open(os.path.join(root, rel), encoding="utf-8").read()
                for inc in INCLUDE.findall(text):
                    dst = target_of(rel, inc)
                    if dst is None or dst == own:
                        continue
                    if dst not in LAYERS and not is_engine(dst):
                        out.append(f"{rel}: includes {inc}, in no known layer")
                    elif rank(dst) > rank(own) or (is_engine(dst) and is_engine(own)):
                        out.append(f"{rel}: layer '{own}' includes {inc} from layer '{dst}' above or beside it")
    return out


def cmake_files(root):
    for top in ("sim", "tools"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            if "CMakeLists.txt" in files:
                rel = os.path.relpath(os.path.join(dirpath, "CMakeLists.txt"), root)
                yield rel, open(os.path.join(root, rel), encoding="utf-8").read()


def link_violations(root):
    """Upward links: a folder's target linking a pagesim library of a layer above it."""
    library_layer = {}
    for rel, text in cmake_files(root):
        for lib in ADD_LIBRARY.findall(text):
            library_layer[lib] = layer_of(rel)
    out = []
    for rel, text in cmake_files(root):
        own = layer_of(rel)
        if own == "":
            continue  # sim/CMakeLists.txt only adds the folders
        for target, items in LINK.findall(text):
            for lib in re.findall(r'\bpagesim_\w+', items):
                dst = library_layer.get(lib)
                if dst is None:
                    out.append(f"{rel}: {target} links {lib}, which no folder's add_library builds")
                elif dst != own and (rank(dst) > rank(own) or (is_engine(dst) and is_engine(own))):
                    out.append(f"{rel}: {target} (layer '{own}') links {lib} from layer '{dst}' above or beside it")
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    bad = violations(root) + link_violations(root)
    for line in bad:
        print(line)
    print(f"layering: {len(bad)} upward include{'s' if len(bad) != 1 else ''} or link{'s' if len(bad) != 1 else ''}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
