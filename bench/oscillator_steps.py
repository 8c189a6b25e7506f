#!/usr/bin/python3
"""CPU time of a step of each method on the chaotic oscillator's model files of 11, 21 and 31
coordinates (bench/oscillator_model.py), and its ratio to `dla`'s step (docs/benchmarks.md,
"Larger model files").

    python3 bench/oscillator_steps.py [--dalembert build/dalembert] [--rounds 5] [--methods rk4,mla,...]

A method's step is the CPU time of `dalembert run FILE --method M --h 0.01 --steps S` with no rows
written, less that of a run of one step (the start: loading the cached model), over S − 1; S is
4000, 2000 and 1000 at 11, 21 and 31 coordinates, half as many for `spark` and
`discrete-gradient`. In each round the methods run in turn, `dla` first, on core 1 (taskset), so
that a ratio compares runs close in time; the table gives medians over the rounds of the times and
of the ratios, with the ratios' range. The model cache is a private temporary directory, filled
before the timed runs.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = {5: 4000, 10: 2000, 15: 1000}  # pairs K -> steps; the file has 2K + 1 coordinates
SLOW = ("spark", "discrete-gradient")
METHODS = "rk4,fim,mclachlan-perlmutter,mla,gf,gf-sym,gf-cp,spark,discrete-gradient"


def cpu_seconds(command, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["taskset", "-c", "1"] + command, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dalembert", default=os.path.join(HERE, "..", "build", "dalembert"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--methods", default=METHODS)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1, got %d" % args.rounds)
    methods = ["dla"] + [m for m in args.methods.split(",") if m and m != "dla"]
    with tempfile.TemporaryDirectory() as work:
        cache = os.path.join(work, "cache")
        os.mkdir(cache, 0o700)
        env = dict(os.environ, DALEMBERT_CACHE_DIR=cache)
        print("| method | 11 | 21 | 31 | / dla at 11, 21, 31 (range) |")
        print("|---|---|---|---|---|")
        rows = {m: ([], []) for m in methods}
        for K, steps in STEPS.items():
            path = os.path.join(work, "oscillator-%d.toml" % (2 * K + 1))
            with open(path, "w") as out:
                subprocess.run([sys.executable, os.path.join(HERE, "oscillator_model.py"), str(K)], check=True,
                               stdout=out)
            # Compile the file's kernels into the cache before any run is timed.
            subprocess.run([args.dalembert, "run", path, "--method", "dla", "--h", "0.01", "--steps", "1"],
                           check=True, stdout=subprocess.DEVNULL, env=env)
            times = {m: [] for m in methods}
            for _ in range(args.rounds):
                for m in methods:
                    n = steps // 2 if m in SLOW else steps
                    run = [args.dalembert, "run", path, "--method", m, "--h", "0.01", "--every", str(10**9)]
                    whole = cpu_seconds(run + ["--steps", str(n)], env)
                    start = cpu_seconds(run + ["--steps", "1"], env)
                    times[m].append((whole - start) / (n - 1) * 1e6)
            for m in methods:
                ratios = [t / d for t, d in zip(times[m], times["dla"])]
                rows[m][0].append(statistics.median(times[m]))
                rows[m][1].append("%.2f (%.2f–%.2f)" % (statistics.median(ratios), min(ratios), max(ratios)))
        for m in methods:
            us, ratios = rows[m]
            print("| %s | %s | %s |" % (m, " | ".join("%.1f" % t for t in us), ", ".join(ratios)))


if __name__ == "__main__":
    main()
