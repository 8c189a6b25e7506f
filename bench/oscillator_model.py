#!/usr/bin/env python3
"""Writes the chaotic quartic nonholonomic oscillator of McLachlan and Perlmutter with K pairs (y_i, z_i),
2K + 1 coordinates and one constraint, for measuring how the methods scale with the size of a model
file; K = 5 is models/chaotic-oscillator.toml's system (from other initial data). K = 1 has no
z1²z2² coupling.

    python3 bench/oscillator_model.py 15 > /tmp/oscillator-31.toml     # 31 coordinates
"""
import math
import sys


def model(pairs):
    ys = [f"y{i}" for i in range(1, pairs + 1)]
    zs = [f"z{i}" for i in range(1, pairs + 1)]
    names = ["x"] + ys + zs
    potential = ("(" + " + ".join(f"{c}^2" for c in names) + ")/2 + ("
                 + " + ".join(f"y{i}^2*z{i}^2" for i in range(1, pairs + 1)) + ")/2")
    if pairs > 1:  # the coupling that makes the motion chaotic
        potential += " + z1^2*z2^2/2"
    constraint = "x_t + " + " + ".join(f"y{i}*z{i}_t" for i in range(1, pairs + 1))
    q = [round(0.3 * math.sin(1.0 + 2.0 * j), 6) for j in range(len(names))]
    v = [round(0.3 * math.cos(0.5 + 3.0 * j), 6) for j in range(len(names))]
    v[0] = -sum(q[1 + i] * v[1 + pairs + i] for i in range(pairs))  # on the constraint
    return "\n".join([
        f'name = "oscillator-{len(names)}"',
        f'summary = "quartic nonholonomic oscillator in {len(names)} coordinates (McLachlan-Perlmutter)"',
        "coordinates = [" + ", ".join(f'"{c}"' for c in names) + "]",
        "metric = [" + ", ".join("1" for _ in names) + "]",
        f'potential = "{potential}"',
        f'constraints = ["{constraint}"]',
        "[initial]",
        "q = [" + ", ".join(repr(x) for x in q) + "]",
        "v = [" + ", ".join(repr(x) for x in v) + "]",
        ""])


if __name__ == "__main__":
    sys.stdout.write(model(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
