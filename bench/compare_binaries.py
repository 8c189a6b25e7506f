#!/usr/bin/env python3
"""Interleaved comparison of two bench_steps binaries (before and after a change).

    python3 bench/compare_binaries.py BEFORE AFTER 'Step/(particle|knife-edge)(-at-run-time)?/(dla|rk4)$'

Runs each binary on core 1 (taskset -c 1) with --benchmark_min_time=0.1 over three rounds,
alternating which goes first, and prints for every benchmark the median CPU time of each (ns) and
before / after.
"""
import json
import statistics
import subprocess
import sys


def run(binary, pattern):
    out = subprocess.run(["taskset", "-c", "1", binary, "--benchmark_filter=" + pattern,
                          "--benchmark_min_time=0.1", "--benchmark_format=json"],
                         capture_output=True, text=True, check=True).stdout
    return {b["name"]: b["cpu_time"] for b in json.loads(out)["benchmarks"]}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    before, after, pattern = sys.argv[1:]
    times = {before: {}, after: {}}
    for round_ in range(3):
        order = (before, after) if round_ % 2 == 0 else (after, before)
        for binary in order:
            for name, t in run(binary, pattern).items():
                times[binary].setdefault(name, []).append(t)
    for name, samples in times[after].items():
        b = statistics.median(times[before].get(name, [float("nan")]))
        a = statistics.median(samples)
        print(f"{name:45s} {b:10.0f} {a:10.0f}  {b / a:6.2f}x")


if __name__ == "__main__":
    main()
