#!/usr/bin/python3
"""What a closed loop pays per call of Stepper.step from Python above the step itself (issue 54's
goal: at most 2 us), and what jacobians() costs (docs/benchmarks.md, *Stepper*).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_stepper_overhead.py [--steps 20000] [--rounds 7]

On models/steered-sleigh.toml with dla, h = 0.01, from the same start each time, interleaved:
  per call   N calls s.step(u), u a numpy array of one entry (the loop of a controller);
  batched    one call s.step(u, count=N): the same N steps in C++;
  jacobians  N/20 calls of s.jacobians(u).
Prints the median over the rounds of each per step, and the overhead: per call - batched.
"""
import argparse
import os
import statistics
import time

import numpy as np

import dalembert

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--method", default="dla")
    args = parser.parse_args()
    sleigh = dalembert.model_file(os.path.join(HERE, "..", "models", "steered-sleigh.toml"))
    s = dalembert.stepper(sleigh, args.method, h=0.01)
    u = np.array([0.01])
    n, per_call, batched, jacobians = args.steps, [], [], []
    for _ in range(args.rounds):
        s.reset()
        start = time.perf_counter()
        for _ in range(n):
            s.step(u)
        per_call.append((time.perf_counter() - start) / n)
        s.reset()
        start = time.perf_counter()
        s.step(u, count=n)
        batched.append((time.perf_counter() - start) / n)
        s.reset()
        start = time.perf_counter()
        for _ in range(n // 20):
            s.jacobians(u)
        jacobians.append((time.perf_counter() - start) / (n // 20))
    call, step = statistics.median(per_call), statistics.median(batched)
    print("method %s, %d steps x %d rounds, medians:" % (args.method, n, args.rounds))
    print("  step(u) per call      %.3f us" % (call * 1e6))
    print("  step(u, count=N)      %.3f us per step" % (step * 1e6))
    print("  overhead per call     %.3f us" % ((call - step) * 1e6))
    print("  jacobians(u)          %.3f us" % (statistics.median(jacobians) * 1e6))


if __name__ == "__main__":
    main()
