#!/usr/bin/env python3
"""Interleaved comparison of two benchmark binaries (bench_steps, bench_model_file: before and after
a change).

    python3 bench/compare_binaries.py BEFORE AFTER 'Step/(particle|knife-edge)(-at-run-time)?/(dla|rk4)$' [MIN_TIME]

Runs each binary on core 1 (taskset -c 1) with --benchmark_min_time=MIN_TIME (seconds, 0.1 unless
given; 1 where the steps of larger systems scatter at 0.1) over four rounds,
alternating which goes first, and prints for every benchmark the median CPU time of each (ns) and
before / after. Both run as copies at paths of the same length, and each round pads the
environment by another quarter of a page: where a process's stack and heap fall within their pages
moves a step's time by itself (the same binary took 2.8 us for Step/knife-edge/discrete-gradient
from one path and 4.2 us from a longer one), so the medians are taken over four placements.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

PADDINGS = (0, 1024, 2048, 3072)  # bytes of environment, a quarter of a page apart


def run(binary, pattern, padding, min_time):
    environment = dict(os.environ, DALEMBERT_BENCH_PADDING="x" * padding)
    out = subprocess.run(["taskset", "-c", "1", binary, "--benchmark_filter=" + pattern,
                          "--benchmark_min_time=" + min_time, "--benchmark_format=json"],
                         capture_output=True, text=True, check=True, env=environment).stdout
    return {b["name"]: b["cpu_time"] for b in json.loads(out)["benchmarks"]}


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    given_before, given_after, pattern = sys.argv[1:4]
    min_time = sys.argv[4] if len(sys.argv) == 5 else "0.1"
    try:
        if not float(min_time) > 0:
            raise ValueError
    except ValueError:
        print(f"compare_binaries.py: MIN_TIME must be a positive number of seconds, got {min_time!r}", file=sys.stderr)
        sys.exit(2)
    with tempfile.TemporaryDirectory() as scratch:
        before, after = os.path.join(scratch, "a", "bench"), os.path.join(scratch, "b", "bench")
        for given, copy in ((given_before, before), (given_after, after)):
            os.mkdir(os.path.dirname(copy))
            shutil.copy2(given, copy)
        times = {before: {}, after: {}}
        for round_, padding in enumerate(PADDINGS):
            order = (before, after) if round_ % 2 == 0 else (after, before)
            for binary in order:
                for name, t in run(binary, pattern, padding, min_time).items():
                    times[binary].setdefault(name, []).append(t)
    for name, samples in times[after].items():
        b = statistics.median(times[before].get(name, [float("nan")]))
        a = statistics.median(samples)
        print(f"{name:45s} {b:10.0f} {a:10.0f}  {b / a:6.2f}x")


if __name__ == "__main__":
    main()
