#!/usr/bin/python3
"""CPU time of a step of each method on the chaotic oscillator's model files (bench/oscillator_model.py),
by default of 11, 21 and 31 coordinates, its ratio to `dla`'s step and how it grows with the number
of coordinates n (docs/benchmarks.md, "Model files").

    python3 bench/oscillator_steps.py [--dalembert build/dalembert] [--rounds 5] [--methods rk4,mla,...]
    /usr/bin/python3 bench/oscillator_steps.py --sizes 3,5,11,21,31,41,61 --rounds 5 \\
        --csv docs/figures/oscillator_steps.csv --figure docs/figures/oscillator_steps.png

A method's step is the CPU time of `dalembert run FILE --method M --h 0.01 --steps S` with no rows
written, less that of a run of one step (the start: loading the cached model, up to about 1 s at 61
coordinates), over S − 1. S is set once per method and file, before the rounds, so that the steps
take at least 0.2 s of a run (from 1000 steps up): the start's spread then stays small beside them.
In each round the methods run in turn, `dla` first, on core 1 (taskset), so that a ratio compares
runs close in time; the table gives medians over the rounds of the times and of the ratios, with
the ratios' range, and the exponent p of a least-squares fit of the step's time to n^p over the
sizes from 11 coordinates on. The model cache is a private temporary directory, filled before the
timed runs. --figure draws the medians against n on logarithmic axes (matplotlib: Debian's
/usr/bin/python3).
"""
import argparse
import csv
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
METHODS = "rk4,fim,mclachlan-perlmutter,mla,gf,gf-sym,gf-cp,spark,discrete-gradient"
FIRST_STEPS = 1000
STEPPING_SECONDS = 0.2  # the least CPU time of the steps in a timed run


def cpu_seconds(command, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["taskset", "-c", "1"] + command, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def growth_exponent(sizes, times):
    """p of the least-squares line log t = p log n + c over the sizes from 11 coordinates on."""
    points = [(math.log(n), math.log(t)) for n, t in zip(sizes, times) if n >= 11]
    if len(points) < 2:
        return float("nan")
    mean_x = statistics.fmean(x for x, _ in points)
    mean_y = statistics.fmean(y for _, y in points)
    return (sum((x - mean_x) * (y - mean_y) for x, y in points)
            / sum((x - mean_x) ** 2 for x, _ in points))


def coordinate_counts(text):
    sizes = sorted({int(s) for s in text.split(",") if s})
    if not sizes or any(n < 3 or n % 2 == 0 for n in sizes):
        raise argparse.ArgumentTypeError("odd coordinate counts of at least 3 are needed, got %r" % text)
    return sizes


def draw(path, sizes, medians):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(7, 5))
    for method, times in medians.items():
        axes.loglog(sizes, times, marker="o", label=method)
    # n² through dla's step at 11 coordinates, the growth the methods are held to
    anchor = sizes.index(11) if 11 in sizes else 0
    base = medians["dla"][anchor]
    axes.loglog(sizes, [base * (n / sizes[anchor]) ** 2 for n in sizes], "k--", linewidth=1, label="n² (from dla)")
    axes.set_xlabel("coordinates n")
    axes.set_ylabel("CPU time of a step (µs)")
    axes.set_title("Chaotic oscillator model files, h = 0.01")
    axes.set_xticks(sizes)
    axes.set_xticklabels([str(n) for n in sizes])
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, ncol=2)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dalembert", default=os.path.join(HERE, "..", "build", "dalembert"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--methods", default=METHODS)
    parser.add_argument("--sizes", type=coordinate_counts, default=[11, 21, 31],
                        help="odd coordinate counts, 2K + 1 for K pairs (default 11,21,31)")
    parser.add_argument("--csv", help="write every round's time of every method and size here")
    parser.add_argument("--figure", help="draw the medians against n here (a .png)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1, got %d" % args.rounds)
    methods = ["dla"] + [m for m in args.methods.split(",") if m and m != "dla"]
    sizes = args.sizes
    medians = {m: [] for m in methods}
    ratio_text = {m: [] for m in methods}
    samples = []  # (method, coordinates, round, steps, µs)
    with tempfile.TemporaryDirectory() as work:
        cache = os.path.join(work, "cache")
        os.mkdir(cache, 0o700)
        env = dict(os.environ, DALEMBERT_CACHE_DIR=cache)
        for n in sizes:
            path = os.path.join(work, "oscillator-%d.toml" % n)
            with open(path, "w") as out:
                subprocess.run([sys.executable, os.path.join(HERE, "oscillator_model.py"), str((n - 1) // 2)],
                               check=True, stdout=out)
            # Compile the file's kernels into the cache before any run is timed.
            subprocess.run([args.dalembert, "run", path, "--method", "dla", "--h", "0.01", "--steps", "1"],
                           check=True, stdout=subprocess.DEVNULL, env=env)
            def step_seconds(method, steps):
                run = [args.dalembert, "run", path, "--method", method, "--h", "0.01", "--every", str(10**9)]
                whole = cpu_seconds(run + ["--steps", str(steps)], env)
                start = cpu_seconds(run + ["--steps", "1"], env)
                return (whole - start) / (steps - 1)

            steps = {}
            for m in methods:  # from a run whose steps take at least a quarter of the time wanted
                count = FIRST_STEPS
                while True:
                    per_step = step_seconds(m, count)
                    if per_step * count >= STEPPING_SECONDS / 4 or count >= 1 << 22:
                        break
                    count *= 4
                steps[m] = max(count, int(STEPPING_SECONDS / per_step))
            times = {m: [] for m in methods}
            for r in range(args.rounds):
                for m in methods:
                    times[m].append(step_seconds(m, steps[m]) * 1e6)
                    samples.append((m, n, r + 1, steps[m], times[m][-1]))
            for m in methods:
                ratios = [t / d for t, d in zip(times[m], times["dla"])]
                medians[m].append(statistics.median(times[m]))
                ratio_text[m].append("%.2f (%.2f–%.2f)" % (statistics.median(ratios), min(ratios), max(ratios)))
            print("%d coordinates measured" % n, file=sys.stderr)
    header = " | ".join(str(n) for n in sizes)
    print("| method | %s | growth exponent | / dla at %s (range) |" % (header, ", ".join(str(n) for n in sizes)))
    print("|---|%s---|---|" % ("---|" * len(sizes)))
    for m in methods:
        print("| %s | %s | %.1f | %s |" % (m, " | ".join("%.1f" % t for t in medians[m]),
                                          growth_exponent(sizes, medians[m]), ", ".join(ratio_text[m])))
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["method", "coordinates", "round", "steps", "step_us"])
            writer.writerows((m, n, r, count, "%.3f" % t) for m, n, r, count, t in samples)
    if args.figure:
        draw(args.figure, sizes, medians)


if __name__ == "__main__":
    main()
