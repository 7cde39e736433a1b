#!/usr/bin/env python3
"""Checks that the precompiled <torch/torch.h> goes exactly where LibTorch is used.

Usage: check-torch-pch.py BUILD_DIR SOURCE_DIR

Reads BUILD_DIR/compile_commands.json and, for every project source, follows its #include lines
through the project's headers (the -I directories inside SOURCE_DIR). A source that uses the
precompiled header but never reaches a LibTorch header pays 3-4x its compile time for nothing; a
source in a target with the header that reaches LibTorch without it compiles all of LibTorch's
headers itself. Either is reported (with the include chain) and the exit status is 1; the fix is
the source list of gs_torch_pch() in the target's CMakeLists.txt (cmake/GraphormerTorchPch.cmake).
Sources of the app's widgets (ui/) must not reach LibTorch at all: they reach the model through
core/jobs and core/predict headers (jobs/model_summary.h), so the GUI builds without LibTorch's
headers; one that does is reported too.
"""
import json
import os
import re
import shlex
import sys

INCLUDE = re.compile(r'\s*#\s*include\s*[<"]([^>"]+)[>"]')
TORCH = ("torch/", "ATen/", "c10/", "caffe2/")
TORCH_FREE_DIRS = ("ui",)  # source directories that never compile LibTorch


def torch_chain(path, dirs, memo):
    """The include chain from `path` to a LibTorch header, or None."""
    if path in memo:
        return memo[path]
    memo[path] = None  # cycles
    chain = None
    with open(path, errors="ignore") as f:
        for line in f:
            m = INCLUDE.match(line)
            if not m:
                continue
            name = m.group(1)
            if name.startswith(TORCH):
                chain = [name]
                break
            for d in [os.path.dirname(path)] + dirs:
                candidate = os.path.normpath(os.path.join(d, name))
                if os.path.isfile(candidate):
                    sub = torch_chain(candidate, dirs, memo)
                    if sub:
                        chain = [os.path.relpath(candidate)] + sub
                    break
            if chain:
                break
    memo[path] = chain
    return chain


def main():
    build, source = (os.path.abspath(a) for a in sys.argv[1:3])
    entries = json.load(open(os.path.join(build, "compile_commands.json")))
    memo, problems, counted = {}, [], {"pch": 0, "plain": 0}
    target_has_pch = {}
    rows = []
    for e in entries:
        src = os.path.abspath(os.path.join(e["directory"], e["file"]))
        if not src.startswith(source + os.sep) or src.startswith(build) or "_autogen" in src:
            continue
        args = shlex.split(e["command"])
        target = next((a.split("CMakeFiles/")[1].split(".dir")[0] for a in args if "CMakeFiles/" in a and ".dir" in a), "?")
        uses = any("cmake_pch.hxx" in a for a in args)
        if "cmake_pch.hxx" in src:
            continue
        dirs = [a[2:] for a in args if a.startswith("-I") and os.path.abspath(a[2:]).startswith(source)]
        dirs += [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-isystem" and args[i + 1].startswith(source)]
        rows.append((target, src, uses, torch_chain(src, dirs, memo)))
        target_has_pch[target] = target_has_pch.get(target, False) or uses
    for target, src, uses, chain in rows:
        rel = os.path.relpath(src, source)
        counted["pch" if uses else "plain"] += 1
        if chain and rel.split(os.sep)[0] in TORCH_FREE_DIRS:
            problems.append(f"{target}: {rel} reaches LibTorch ({' -> '.join(chain)}); ui/ sources must not")
        elif uses and not chain:
            problems.append(f"{target}: {rel} uses the precompiled LibTorch header but includes no LibTorch header")
        elif not uses and chain and target_has_pch[target]:
            problems.append(f"{target}: {rel} reaches LibTorch ({' -> '.join(chain)}) without the precompiled header")
    for p in problems:
        print(p)
    print(f"check-torch-pch: {counted['pch']} sources with the precompiled header, {counted['plain']} without; "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
