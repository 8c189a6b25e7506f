#!/usr/bin/python3
"""Python baseline for issue 8: the midpoint DLA step for the knife edge written the usual way,
with numpy and scipy.optimize.fsolve (finite-difference Jacobian), against dalembert.

    /usr/bin/python3 bench/python_dla_baseline.py [--steps 2000] [--build build]

1. Integrates the knife edge on the inclined plane (m = J = 1, g = 1/2, k = 0, eps = 0; the
   catalogue defaults, q0 = (0, 0, 0), v0 = (1/2, 0, 1)) with h = 0.1 for --steps steps and
   times the loop (time.perf_counter).
2. Runs `build/dalembert run knife-edge --method dla --h 0.1 --steps N --out ... --summary ...`
   and checks that the two trajectories agree (max |q_py - q_cpp| over all steps, must be < 1e-10).
3. Times dalembert's step twice (wall time; CPU time too where available, which is the fairer
   measure on a loaded machine): the run's wall time (summary key wall_time_seconds, includes
   the per-step observation: energy, constraint, CSV row) over --cpp-steps steps, and, when
   build/bench/bench_steps exists, the Google Benchmark of one step (Step/knife-edge/dla).
Prints the per-step times and the ratios python / C++. Exit status 1 if the trajectories differ.
Uses Debian's python3-numpy and python3-scipy (scripts/install-deps.sh), hence /usr/bin/python3.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.optimize import fsolve

# Knife edge (include/dalembert/models/knife_edge.hpp), catalogue defaults.
MASS, INERTIA, SLOPE, SPRING, EPS = 1.0, 1.0, 0.5, 0.0, 0.0
G = np.array([MASS, MASS, INERTIA])


def grad_potential(q):
    """V = -m g x + k/2 (x^2 + y^2)."""
    return np.array([-MASS * SLOPE + SPRING * q[0], SPRING * q[1], 0.0])


def constraint_row(q):
    """M(q) = (sin phi, -(cos phi - eps), 0)."""
    return np.array([np.sin(q[2]), -(np.cos(q[2]) - EPS), 0.0])


def residual(x, q0, p, h):
    """Midpoint DLA in position-momentum form, unknowns (q1, lambda):
    p + D1 L_d(q0, q1) - M(q0)^T lambda = 0,   M(q_m) (q1 - q0)/h = 0."""
    q1, lam = x[:3], x[3]
    v = (q1 - q0) / h
    qm = 0.5 * (q0 + q1)
    d1 = -G * v - 0.5 * h * grad_potential(qm)
    out = np.empty(4)
    out[:3] = p + d1 - constraint_row(q0) * lam
    out[3] = constraint_row(qm) @ v
    return out


def step(q, p, v_last, lam, h):
    guess = np.concatenate([q + h * v_last, [lam]])
    x, info, ier, msg = fsolve(residual, guess, args=(q, p, h), xtol=1e-13, full_output=True)
    if ier != 1 and np.max(np.abs(info["fvec"])) > 1e-11:
        raise RuntimeError(f"fsolve failed: {msg}")
    q1, lam1 = x[:3], x[3]
    v = (q1 - q) / h
    p1 = G * v - 0.5 * h * grad_potential(0.5 * (q + q1))  # D2 L_d(q0, q1)
    return q1, p1, v, lam1


def integrate(steps, h):
    q = np.zeros(3)
    v = np.array([0.5, 0.0, 1.0])
    p = G * v
    lam = 0.0
    out = [q.copy()]
    start, start_cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        q, p, v, lam = step(q, p, v, lam, h)
        out.append(q)
    elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return np.array(out), elapsed, elapsed_cpu


def run_cli(build, steps, h, tmp, every):
    traj = os.path.join(tmp, "knife.csv")
    summary = os.path.join(tmp, "knife.json")
    cmd = [os.path.join(build, "dalembert"), "run", "knife-edge", "--method", "dla", "--h", repr(h),
           "--steps", str(steps), "--every", str(every), "--out", traj, "--summary", summary]
    subprocess.run(cmd, check=True)
    with open(summary) as f:
        s = json.load(f)
    with open(traj) as f:
        rows = list(csv.DictReader(f))
    q = np.array([[float(r["x"]), float(r["y"]), float(r["phi"])] for r in rows])
    return q, s["wall_time_seconds"], " ".join(cmd)


def bench_step_ns(build):
    exe = os.path.join(build, "bench", "bench_steps")
    if not os.path.exists(exe):
        return None
    res = subprocess.run([exe, "--benchmark_filter=^Step/knife-edge/dla$", "--benchmark_repetitions=5",
                          "--benchmark_report_aggregates_only=true", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True)
    for b in json.loads(res.stdout)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
            return b["real_time"] * scale, b["cpu_time"] * scale
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=2000, help="steps of the python run and of the check")
    ap.add_argument("--cpp-steps", type=int, default=200000, help="steps of the timed dalembert run")
    ap.add_argument("--h", type=float, default=0.1)
    ap.add_argument("--build", default="build")
    ap.add_argument("--no-bench", action="store_true", help="do not run build/bench/bench_steps (the ctest check)")
    args = ap.parse_args()

    q_py, t_py, cpu_py = integrate(args.steps, args.h)
    with tempfile.TemporaryDirectory() as tmp:
        q_cpp, _, cmd = run_cli(args.build, args.steps, args.h, tmp, 1)
        _, wall, timed_cmd = run_cli(args.build, args.cpp_steps, args.h, tmp, args.cpp_steps)
    if q_cpp.shape != q_py.shape:
        print(f"shape mismatch: python {q_py.shape}, dalembert {q_cpp.shape}")
        return 1
    diff = float(np.max(np.abs(q_py - q_cpp)))
    py_ns = t_py / args.steps * 1e9
    py_cpu_ns = cpu_py / args.steps * 1e9
    cli_ns = wall / args.cpp_steps * 1e9
    print(f"trajectory check: {cmd}")
    print(f"  max |q_python - q_dalembert| over {args.steps} steps = {diff:.3e}  (required < 1e-10)")
    print(f"python  numpy + scipy.optimize.fsolve : {py_ns:12.0f} ns/step wall, {py_cpu_ns:.0f} ns/step CPU  ({args.steps} steps)")
    print(f"dalembert run (wall_time_seconds)     : {cli_ns:12.1f} ns/step  ({args.cpp_steps} steps, with observation)")
    print(f"  ratio python / dalembert run        : {py_ns / cli_ns:12.0f}x")
    ns = None if args.no_bench else bench_step_ns(args.build)
    if ns is not None:
        real, cpu = ns
        print(f"bench_steps Step/knife-edge/dla median: {real:12.1f} ns/step wall, {cpu:.1f} ns/step CPU")
        print(f"  ratio python / benchmarked step     : {py_ns / real:12.0f}x wall, {py_cpu_ns / cpu:.0f}x CPU")
    else:
        print("(bench_steps not run: benchmark ratio skipped)")
    return 0 if diff < 1e-10 else 1


if __name__ == "__main__":
    sys.exit(main())
