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
|q_N − q(T)|∞ ≤ target, then is bisected to the fewest that reach it; the time is the median over
--repeats runs of that N of the summary's wall_time_seconds (the steps, without the process's
start or the cached model's loading). For scipy the tolerance rtol = atol runs down a quarter of a
decade at a time until the error is reached, and the time is the median of solve_ivp's wall time
at that tolerance. One core: run it under `taskset -c 1`.
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--target", type=float, default=1e-8)
    parser.add_argument("--t-end", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    t_end, target = arguments.t_end, arguments.target

    reference, _ = scipy_final_position("DOP853", 1e-13, t_end)
    with tempfile.TemporaryDirectory() as directory:
        check, _ = dalembert_run(arguments.build, "reference", [], 100, t_end, directory)
        print(f"reference: DOP853 at 1e-13; |q - q_dalembert_reference|inf = "
              f"{np.max(np.abs(check - reference)):.1e}", file=sys.stderr)
        rows = []
        for label, method, options in METHODS:
            def error_at(steps):
                try:
                    q, _ = dalembert_run(arguments.build, method, options, steps, t_end, directory)
                except subprocess.CalledProcessError:  # Newton's failure at a large step
                    return np.inf
                return np.max(np.abs(q - reference))
            steps = fewest_steps(error_at, target)
            times = [dalembert_run(arguments.build, method, options, steps, t_end, directory)[1]
                     for _ in range(arguments.repeats)]
            rows.append((label, f"N = {steps}", error_at(steps), statistics.median(times)))
            print(rows[-1], file=sys.stderr)

    for method in ("DOP853", "Radau"):
        exponent = 4.0
        while True:
            tolerance = 10.0**-exponent
            q, evaluations = scipy_final_position(method, tolerance, t_end)
            if np.max(np.abs(q - reference)) <= target or exponent > 13:
                break
            exponent += 0.25
        times = []
        for _ in range(arguments.repeats):
            start = time.perf_counter()
            scipy_final_position(method, tolerance, t_end)
            times.append(time.perf_counter() - start)
        rows.append((f"scipy {method}", f"tol = {tolerance:.1e}, {evaluations} evaluations",
                     np.max(np.abs(q - reference)), statistics.median(times)))
        print(rows[-1], file=sys.stderr)

    best = min(rows[:-3], key=lambda row: row[3])  # the structure-preserving methods: not rk4, scipy
    print(f"Error |q_N - q(T)|inf <= {target:g} at T = {t_end:g}, {MODEL}, median of {arguments.repeats}\n")
    print("| method | steps or tolerance | error | time (ms) | time / best structure-preserving |")
    print("|---|---|---|---|---|")
    for label, setting, error, seconds in rows:
        print(f"| {label} | {setting} | {error:.1e} | {1e3 * seconds:.2f} | {seconds / best[3]:.1f} |")


if __name__ == "__main__":
    main()
