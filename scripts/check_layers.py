#!/usr/bin/env python3
"""Fails on an include that runs up a layer (docs/layout.md draws the layers).

core/ is folders from the bottom up; a file in one may include from its own
folder and from folders below it, never above. Above core: mps/ sees core;
runtime/ sees core and mps; solvers/ see core only; apps/ and examples/ see
what they link. Every include of a project header is checked, quoted or
<mpsfw/...>; system headers are not. Usage: check_layers.py [ROOT]
(default: the repository this script is in). Exit 0 when every include keeps
to the rule, 1 with one line per include that does not. Headers of the
installed folders (core, mps, runtime, solvers) must be included as
<mpsfw/core/...>: "core/..." would make an installed header find a user's
own core/... first. The examples include only the API's headers
(MPSFW_PUBLIC_HEADERS in cmake/MpsfwPublicHeaders.cmake): what they use, a
user's solver may use, and it is installed.
"""
import os
import re
import sys

CORE_LAYERS = ["base", "parallel", "mesh", "device", "io", "input", "comm", "particles", "grid",
               "driver"]
# What each top-level folder may include from, besides itself ("core" means
# every layer of core).
TOP_SEES = {
    "core": {"core"},
    "mps": {"core", "mps"},
    "runtime": {"core", "mps", "runtime"},
    "solvers": {"core", "solvers"},
    "apps": {"core", "mps", "runtime", "solvers", "apps"},
    "examples": {"core", "runtime", "examples"},
}
# The folders whose headers are installed (under include/mpsfw/): included as
# <mpsfw/core/...> everywhere, never "core/...".
INSTALLED = {"core", "mps", "runtime", "solvers"}
SOURCE = re.compile(r"\.(c|cc|cpp|cxx|h|hpp|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def place(path):
    """(top folder, core layer or None) of a repository path."""
    parts = path.split("/")
    top = parts[0]
    if top == "core" and len(parts) > 2:
        return top, parts[1]
    return top, None


def target_of(root, here, bracket, name):
    """The repository path an include names, or None for a system header."""
    if bracket == "<":
        if not name.startswith("mpsfw/"):
            return None
        return name[len("mpsfw/"):]
    local = os.path.normpath(os.path.join(os.path.dirname(here), name))
    if os.path.exists(os.path.join(root, local)):
        return local
    if os.path.exists(os.path.join(root, name)):
        return name
    return None


def violation(here, target):
    """Why including `target` from `here` runs up a layer, or None."""
    top, layer = place(here)
    ttop, tlayer = place(target)
    if top not in TOP_SEES:
        return None  # tests, bench, generated code: anything
    if ttop not in TOP_SEES[top]:
        return "%s/ may not include from %s/" % (top, ttop)
    if top == "core" and ttop == "core":
        if layer is None or tlayer is None:
            return "core/ holds only layer folders (%s)" % ", ".join(CORE_LAYERS)
        if layer not in CORE_LAYERS or tlayer not in CORE_LAYERS:
            return "core/%s is not a layer (%s)" % (
                layer if layer not in CORE_LAYERS else tlayer, ", ".join(CORE_LAYERS))
        if CORE_LAYERS.index(tlayer) > CORE_LAYERS.index(layer):
            return "core/%s is above core/%s" % (tlayer, layer)
    return None


def public_headers(root):
    """The API's headers: MPSFW_PUBLIC_HEADERS of cmake/MpsfwPublicHeaders.cmake."""
    with open(os.path.join(root, "cmake", "MpsfwPublicHeaders.cmake"), encoding="utf-8") as f:
        text = "\n".join(line.split("#")[0] for line in f)
    block = re.search(r"set\(MPSFW_PUBLIC_HEADERS(.*?)\)", text, re.S)
    if not block:
        sys.exit("check_layers: no set(MPSFW_PUBLIC_HEADERS ...) in cmake/MpsfwPublicHeaders.cmake")
    return set(block.group(1).split())


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    bad = []
    checked = 0
    api = public_headers(root)
    for top in TOP_SEES:
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not SOURCE.search(name):
                    continue
                here = os.path.relpath(os.path.join(folder, name), root)
                with open(os.path.join(root, here), encoding="utf-8") as text:
                    for number, line in enumerate(text, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        if m.group(1) == '"' and m.group(2).split("/")[0] in INSTALLED:
                            # Found through include/mpsfw/, a user's own core/... could stand in.
                            bad.append("%s:%d: includes \"%s\": write <mpsfw/%s>"
                                       % (here, number, m.group(2), m.group(2)))
                            continue
                        target = target_of(root, here, m.group(1), m.group(2))
                        if target is None:
                            continue
                        checked += 1
                        why = violation(here, target)
                        if not why and top == "examples" and target.split("/")[0] in INSTALLED \
                                and target not in api:
                            why = ("not an API header (cmake/MpsfwPublicHeaders.cmake): a user's "
                                   "copy of this example could not rely on it")
                        if why:
                            bad.append("%s:%d: includes %s: %s" % (here, number, target, why))
    for line in bad:
        print(line)
    if bad:
        print("check_layers: %d include(s) break the rules above (docs/layout.md)" % len(bad))
        return 1
    if checked == 0:
        print("check_layers: no project includes found under %s" % root)
        return 1
    print("check_layers: %d includes keep to the layers" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
