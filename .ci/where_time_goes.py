#!/usr/bin/env python3
"""Where a build folder's time went: ninja's job seconds by kind of step, and ctest's by kind of test.

    python3 .ci/where_time_goes.py build/ci [--top N]

Reads <build>/.ninja_log (one line per output; a step with several outputs counts once, its latest
run only) and <build>/Testing/Temporary/CTestCostData.txt (each test's last time). A job's seconds
are wall seconds: with more jobs than free cores they hold waiting too, so compare shares, or runs
on an equally quiet machine. For CI's budget (.ci/run): the kinds say which part of the build to cut.
"""
import argparse
import collections
import os
import re
import sys

# (kind, regular expression on the step's first output), first match wins.
STEP_KINDS = [
    ("variant kernel libraries (mutants, valid, open stubs, stand-ins)",
     r"_(mutant|valid|open_stub|stand_in)\w*_cpu\.dir/"),
    ("cpu kernel copies (cpu_sources.py)", r"/cpu_sources/"),
    ("section tests.cpp objects", r"_tests_(solution|exercise)_(cpu|cuda)\.dir/"),
    ("remote.cpp objects (checker, runner)", r"_(checker|runner)_(cpu|cuda)\.dir/"),
    ("nvcc: exercise stubs (check only)", r"_exercise_cuda\.dir/.*\.(ptx|o)$"),
    ("nvcc: benchmarks (check only)", r"/bench/.*\.(ptx|o)$"),
    ("nvcc: solutions and given code", r"\.cu\.o$"),
    ("solution and given cpu kernel libraries", r"_(solution|given)_cpu\.dir/"),
    ("exercise cpu kernel libraries", r"_exercise_cpu\.dir/"),
    ("GoogleTest", r"googletest"),
    ("emulator tests", r"common/emu/CMakeFiles/scanlab_emu_tests"),
    ("emulator library", r"common/emu/"),
    ("harness, cli and their tests", r"^common/"),
    ("docs (target docs, its runs)", r"(^|/)docs/"),
    ("other compiles (programs' main.cpp, ...)", r"\.o$"),
    ("links (and test discovery after each)", r""),
]
TEST_KINDS = [
    ("mutants, valid variants, open stubs", r"^[0-9.]+\.(mutant|valid|open)\."),
    ("solutions' grading and section tests", r"^[0-9.]+\.solution\."),
    ("docs and plots", r"^(docs|plots)\."),
    ("the lab's Python tests", r"^(harness\.lab|lab)\."),
    ("emulator", r"^Emu"),
    ("harness", r"^harness\."),
    ("other", r""),
]


def first_match(kinds, name):
    return next(kind for kind, pattern in kinds if re.search(pattern, name))


def ninja_steps(log):
    latest = {}  # output -> (start, end, hash): ninja appends, so the last line of an output wins
    with open(log) as f:
        for line in f:
            if line.startswith("#"):
                continue
            start, end, _, output, command_hash = line.rstrip("\n").split("\t")
            latest[output] = (int(start), int(end), command_hash)
    steps = collections.defaultdict(list)
    for output, key in latest.items():
        steps[key].append(output)
    return [((end - start) / 1000, sorted(outputs)[0]) for (start, end, _), outputs in steps.items()]


def show(title, rows, kinds, top):
    sums, counts = collections.Counter(), collections.Counter()
    for seconds, name in rows:
        kind = first_match(kinds, name)
        sums[kind] += seconds
        counts[kind] += 1
    total = sum(sums.values()) or 1
    print(f"{title}: {total:.0f} s in {len(rows)}")
    for kind, seconds in sums.most_common():
        print(f"  {seconds:8.1f} s {100 * seconds / total:5.1f}% {counts[kind]:5d}  {kind}")
    for seconds, name in sorted(rows, reverse=True)[:top]:
        print(f"  {seconds:8.1f} s  {name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", help="a build folder (build/ci, build/asan, ...)")
    parser.add_argument("--top", type=int, default=10, help="also list the N longest steps and tests")
    args = parser.parse_args()
    log = os.path.join(args.build, ".ninja_log")
    costs = os.path.join(args.build, "Testing", "Temporary", "CTestCostData.txt")
    if not os.path.isfile(log):
        sys.exit(f"where_time_goes.py: {log} not found (build with Ninja first)")
    show("ninja job seconds", ninja_steps(log), STEP_KINDS, args.top)
    if os.path.isfile(costs):
        rows = []
        with open(costs) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3:  # name, runs, seconds (the failed tests' list follows "---")
                    rows.append((float(parts[2]), parts[0]))
        show("ctest seconds (each test's last run)", rows, TEST_KINDS, args.top)


if __name__ == "__main__":
    main()
