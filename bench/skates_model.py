#!/usr/bin/env python3
"""Writes a model file of N skates (knife edges) on a plane, each joined to the next by a spring:
3N coordinates and N constraints, for measuring how model files scale.

    python3 bench/skates_model.py 10 > /tmp/skates-10.toml     # 30 coordinates
"""
import sys


def model(count):
    names = [f"{c}{i}" for i in range(1, count + 1) for c in ("x", "y", "th")]
    kinetic = " + ".join(f"m/2*(x{i}_t^2 + y{i}_t^2) + J/2*th{i}_t^2" for i in range(1, count + 1))
    springs = " + ".join(f"k/2*(sqrt((x{i + 1} - x{i})^2 + (y{i + 1} - y{i})^2) - l)^2" for i in range(1, count))
    constraints = ", ".join(f'"y{i}_t*cos(th{i}) - x{i}_t*sin(th{i})"' for i in range(1, count + 1))
    q, v = [], []
    for i in range(count):
        heading = 0.1 * i
        q += [f"{1.1 * i}", "0", f"{heading}"]
        v += [f"0.5*cos({heading})", f"0.5*sin({heading})", f"{0.05 * (i % 3 - 1)}"]
    lagrangian = kinetic + (" - (" + springs + ")" if springs else "")
    return "\n".join([
        f'name = "skates-{count}"',
        f'summary = "{count} skates on a plane, each joined to the next by a spring"',
        "coordinates = [" + ", ".join(f'"{n}"' for n in names) + "]",
        f'lagrangian = "{lagrangian}"',
        f"constraints = [{constraints}]",
        "parameters = { m = 1.0, J = 0.5, k = 2.0, l = 1.0 }",
        "[initial]",
        "q = [" + ", ".join(f'"{x}"' for x in q) + "]",
        "v = [" + ", ".join(f'"{x}"' for x in v) + "]",
        ""])


if __name__ == "__main__":
    sys.stdout.write(model(int(sys.argv[1]) if len(sys.argv) > 1 else 10))
