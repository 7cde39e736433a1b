#!/usr/bin/env python3
"""Checks the labels of every test ctest knows in a build (docs/TESTING.md).

Usage: check-test-labels.py CTEST BUILD_DIR

Each test must carry exactly one kind label (unit, model, gui, e2e), only known labels, and not
`unlabelled` (the label tests/CMakeLists.txt gives to gtest cases that no group of their binary
names). Prints the count per label; exit status 1 on any problem.
"""
import collections
import json
import subprocess
import sys

KINDS = {"unit", "model", "gui", "e2e"}
KNOWN = KINDS | {"cluster", "slow", "sanitize", "fuzz"}


def main():
    ctest, build = sys.argv[1:3]
    out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
    tests = json.loads(out)["tests"]
    counts, problems = collections.Counter(), []
    for t in tests:
        labels = next((p["value"] for p in t.get("properties", []) if p["name"] == "LABELS"), [])
        counts.update(labels)
        kinds = KINDS.intersection(labels)
        if len(kinds) != 1:
            problems.append(f"{t['name']}: {len(kinds)} kind labels ({', '.join(sorted(labels)) or 'none'})")
        if "unlabelled" in labels:
            problems.append(f"{t['name']}: no group of its binary names it (tests/CMakeLists.txt GROUPS)")
        if set(labels) - KNOWN - {"unlabelled"}:
            problems.append(f"{t['name']}: unknown label(s) {', '.join(sorted(set(labels) - KNOWN))}")
    for p in problems:
        print(p)
    print(f"check-test-labels: {len(tests)} tests; " + ", ".join(f"{k} {counts[k]}" for k in sorted(counts)))
    if not tests:
        print("check-test-labels: no tests found")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
