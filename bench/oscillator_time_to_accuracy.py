#!/usr/bin/python3
"""Time to a position error of 1e-8 at T = 10 on the chaotic oscillator in 11 coordinates
(models/chaotic-oscillator.toml): every method of the command line against scipy's DOP853 and
Radau on the same equations, side by side in one run (docs/benchmarks.md, "Time to accuracy on
the oscillator").

    /usr/bin/python3 bench/oscillator_time_to_accuracy.py [--build build] [--target 1e-8] [--repeats 5]

The oscillator (McLachlan and Perlmutter 2006) has G = I, V(q) = |q|²/2 + Σ yᵢ²zᵢ²/2 + z₁²z₂²/2 and
one constraint x' + Σ yᵢ zᵢ' = 0, that is M(q) = (1, 0, …, 0, y₁, …, y₅). For scipy its equations are
written out by hand: a = −∇V + Mᵀλ with λ = (M∇V − Σ yᵢ' zᵢ') / (M Mᵀ), the force that keeps
M(q) a + (dM/dt) v = 0. The reference q(T) is DOP853 at tolerances of 1e-13 on these equations,
checked against `dalembert run --method reference` (Bulirsch–Stoer).

For each method of `dalembert run` the number of steps N (h = T/N) doubles from 4 until
|q_N − q(T)|∞ ≤ target, then is bisected to the fewest that reach it; its time is the summary's
wall_time_seconds at that N (the steps, without the process's start or the cached model's loading).
For scipy the tolerance rtol = atol runs down a quarter of a decade at a time until the error is
reached, and its time is solve_ivp's wall time at that tolerance. The times are medians over
--repeats rounds, each of which times every solver in turn. One core: run it under `taskset -c 1`.

--figure PATH also sweeps each method's N (doubling from 4) and each scipy solver's tolerance (half a
decade at a time from 1e-3) until the error is below 1e-11 or a run takes 2 s, and draws the error
against the time (work against precision) into PATH, with the points in a CSV beside it
(matplotlib: Debian's /usr/bin/python3).
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.integrate import solve_ivp

MODEL = "models/chaotic-oscillator.toml"
Q0 = np.array([0.1, 0.2, -0.3, 0.4, -0.1, 0.25, 0.3, 0.1, -0.2, 0.35, -0.15])
V0 = np.array([-0.19, 0.1, 0.2, -0.1, 0.3, 0.05, 0.4, -0.3, 0.2, 0.1, -0.2])
N_COORDINATES = 11
# (label, method, its options): the command line's single-trajectory methods on a model file.
METHODS = [("dla", "dla", []), ("mla", "mla", []), ("gf", "gf", []),
           ("mclachlan-perlmutter", "mclachlan-perlmutter", []),
           ("discrete-gradient", "discrete-gradient", []),
           ("spark, 3 stages", "spark", ["--stages", "3"]), ("spark, 4 stages", "spark", ["--stages", "4"]),
           ("spark, 5 stages", "spark", ["--stages", "5"]), ("rk4", "rk4", [])]


def oscillator_field(t, state):
    """The constrained oscillator's first-order field, the constraint force written out by hand."""
    q, v = state[:N_COORDINATES], state[N_COORDINATES:]
    y, z = q[1:6], q[6:11]
    grad = q.copy()
    grad[1:6] += y * z * z
    grad[6:11] += y * y * z
    grad[6] += z[0] * z[1] * z[1]
    grad[7] += z[0] * z[0] * z[1]
    m = np.zeros(N_COORDINATES)
    m[0] = 1.0
    m[6:11] = y
    multiplier = (m @ grad - v[1:6] @ v[6:11]) / (m @ m)
    return np.concatenate((v, -grad + multiplier * m))


def scipy_final_position(method, tolerance, t_end):
    solution = solve_ivp(oscillator_field, (0.0, t_end), np.concatenate((Q0, V0)), method=method,
                         rtol=tolerance, atol=tolerance, t_eval=[t_end])
    if not solution.success:
        raise RuntimeError(f"{method} at tolerance {tolerance}: {solution.message}")
    return solution.y[:N_COORDINATES, -1], solution.nfev


def dalembert_run(build, method, options, steps, t_end, directory):
    out, summary = os.path.join(directory, "run.csv"), os.path.join(directory, "run.json")
    command = [os.path.join(build, "dalembert"), "run", MODEL, "--method", method, *options,
               "--h", repr(t_end / steps), "--t-end", repr(t_end), "--every", str(steps),
               "--out", out, "--summary", summary]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as rows:
        last = list(csv.reader(rows))[-1]
    with open(summary) as file:
        wall = json.load(file)["wall_time_seconds"]
    return np.array([float(x) for x in last[1:1 + N_COORDINATES]]), wall


def fewest_steps(error_at, target):
    """The fewest N with error_at(N) <= target: doubling, then bisection."""
    low, high = None, 4
    while error_at(high) > target:
        low, high = high, 2 * high
        if high > 1 << 22:
            raise RuntimeError("no step count up to 2^22 reaches the target")
    low = low or high // 2
    while high - low > max(1, high // 100):
        middle = (low + high) // 2
        low, high = (low, middle) if error_at(middle) <= target else (middle, high)
    return high


def sweep(build, reference, t_end, repeats, directory):
    """(solver, setting, error, seconds) along each method's N and each scipy solver's tolerance."""
    points = []
    for label, method, options in METHODS:
        steps = 4
        while steps <= 1 << 17:
            try:
                q, _ = dalembert_run(build, method, options, steps, t_end, directory)
            except subprocess.CalledProcessError:  # Newton's failure at a large step: a larger N
                steps *= 2
                continue
            error = np.max(np.abs(q - reference))
            seconds = statistics.median(dalembert_run(build, method, options, steps, t_end, directory)[1]
                                        for _ in range(repeats))
            points.append((label, steps, error, seconds))
            if error < 1e-11 or seconds > 2.0:
                break
            steps *= 2
        print(f"{label}: swept", file=sys.stderr)
    for method in ("DOP853", "Radau"):
        for exponent in np.arange(3.0, 13.01, 0.5):
            tolerance = 10.0**-exponent
            q, _ = scipy_final_position(method, tolerance, t_end)
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                scipy_final_position(method, tolerance, t_end)
                times.append(time.perf_counter() - start)
            error = np.max(np.abs(q - reference))
            points.append((f"scipy {method}", tolerance, error, statistics.median(times)))
            if error < 1e-11 or points[-1][3] > 2.0:
                break
        print(f"scipy {method}: swept", file=sys.stderr)
    return points


def draw(path, points, target):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(7, 5))
    labels = list(dict.fromkeys(p[0] for p in points))
    colours = list(plt.get_cmap("tab10").colors) + ["black", "0.55"]
    for index, label in enumerate(labels):
        # errors above 1 (rk4 and SPARK-3 at the largest steps) say nothing about precision
        line = [(p[3], p[2]) for p in points if p[0] == label and 0 < p[2] <= 1]
        style = "--" if label.startswith("scipy") else "-"
        axes.loglog([t * 1e3 for t, _ in line], [e for _, e in line], style, marker="o", markersize=3,
                    color=colours[index % len(colours)], label=label)
    axes.axhline(target, color="k", linewidth=0.8, linestyle=":")
    axes.set_xlabel("time of the run (ms)")
    axes.set_ylabel("|q_N − q(T)|∞ at T = 10")
    axes.set_title("Chaotic oscillator, 11 coordinates: work against precision")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--target", type=float, default=1e-8)
    parser.add_argument("--t-end", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--figure", help="also sweep every solver and draw error against time here (a .png)")
    arguments = parser.parse_args()
    if arguments.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {arguments.repeats}")
    t_end, target = arguments.t_end, arguments.target

    reference, _ = scipy_final_position("DOP853", 1e-13, t_end)
    with tempfile.TemporaryDirectory() as directory:
        check, _ = dalembert_run(arguments.build, "reference", [], 100, t_end, directory)
        print(f"reference: DOP853 at 1e-13; |q - q_dalembert_reference|inf = "
              f"{np.max(np.abs(check - reference)):.1e}", file=sys.stderr)
        # First each solver's setting: the fewest steps, the loosest tolerance that reach the target.
        settings = []  # (label, timed run, setting's text, error)
        for label, method, options in METHODS:
            def error_at(steps):
                try:
                    q, _ = dalembert_run(arguments.build, method, options, steps, t_end, directory)
                except subprocess.CalledProcessError:  # Newton's failure at a large step
                    return np.inf
                return np.max(np.abs(q - reference))
            steps = fewest_steps(error_at, target)
            settings.append((label, lambda method=method, options=options, steps=steps: dalembert_run(
                arguments.build, method, options, steps, t_end, directory)[1], f"N = {steps}", error_at(steps)))
            print(settings[-1][0], settings[-1][2], file=sys.stderr)
        for method in ("DOP853", "Radau"):
            exponent = 4.0
            while True:
                tolerance = 10.0**-exponent
                q, evaluations = scipy_final_position(method, tolerance, t_end)
                if np.max(np.abs(q - reference)) <= target or exponent > 13:
                    break
                exponent += 0.25

            def scipy_seconds(method=method, tolerance=tolerance):
                start = time.perf_counter()
                scipy_final_position(method, tolerance, t_end)
                return time.perf_counter() - start
            settings.append((f"scipy {method}", scipy_seconds, f"tol = {tolerance:.1e}, {evaluations} evaluations",
                             np.max(np.abs(q - reference))))
            print(settings[-1][0], settings[-1][2], file=sys.stderr)
        # Then the times, every solver in turn in each round, so that the machine's changes of speed
        # reach them all alike.
        times = {label: [] for label, *_ in settings}
        for _ in range(arguments.repeats):
            for label, seconds, *_ in settings:
                times[label].append(seconds())
        rows = [(label, setting, error, statistics.median(times[label])) for label, _, setting, error in settings]
        if arguments.figure:
            points = sweep(arguments.build, reference, t_end, arguments.repeats, directory)

    best = min(rows[:-3], key=lambda row: row[3])  # the structure-preserving methods: not rk4, scipy
    print(f"Error |q_N - q(T)|inf <= {target:g} at T = {t_end:g}, {MODEL}, median of {arguments.repeats}\n")
    print("| method | steps or tolerance | error | time (ms) | time / best structure-preserving |")
    print("|---|---|---|---|---|")
    for label, setting, error, seconds in rows:
        print(f"| {label} | {setting} | {error:.1e} | {1e3 * seconds:.2f} | {seconds / best[3]:.1f} |")
    if arguments.figure:
        with open(os.path.splitext(arguments.figure)[0] + ".csv", "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["solver", "steps_or_tolerance", "error", "seconds"])
            writer.writerows((label, setting, f"{error:.3e}", f"{seconds:.6f}")
                             for label, setting, error, seconds in points)
        draw(arguments.figure, points, target)


if __name__ == "__main__":
    main()
