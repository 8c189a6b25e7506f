#!/usr/bin/env python3
"""The benchmark bicycle's stability against its speed (docs/bicycle.md): the eigenvalues of upright
straight running at speeds 0 to 10 m/s, from the steady-motion linearisation of the nonlinear
Whipple bicycle (dalembert.whipple_bicycle, built from sympy.physics.mechanics bodies), the weave
and capsize speeds between which it is self-stable, and the figure of eigenvalues against speed.

    PYTHONPATH=build/python python3 examples/python/whipple_bicycle.py --out DIR

Writes DIR/eigenvalues.csv (v, then the real and imaginary parts of each of the four modes, largest
real part first), DIR/speeds.json ({"weave": ..., "capsize": ...}, m/s) and, with matplotlib,
DIR/eigenvalues.png. The model is interpreted (DALEMBERT_CC=none) unless --compile: a linearisation
needs few evaluations, and compiling the bicycle's kernels takes the system compiler about 2
minutes (once; then they are cached).
"""
import argparse
import csv
import json
import os

import numpy as np
from scipy.optimize import brentq


def upright(v, rR=0.3, rF=0.35):
    """(q0, v0) of running upright and straight ahead at v: the wheels turn at v/rR and v/rF."""
    return [0.0] * 8, [v, 0, 0, 0, 0, 0, v / rR, v / rF]


def modes(bicycle, v):
    """The four modes of upright running at v: the eigenvalues of the linearisation but the two
    zeros of the symmetry reduction and of the holonomic constraint's level."""
    q0, v0 = upright(v)
    steady = bicycle.steady_motion(q0=q0, v0=v0, symmetric=["x", "y", "rear", "front"], rotation=["x", "y", "yaw"])
    eigenvalues = np.array(steady.eigenvalues)
    four = eigenvalues[np.argsort(np.abs(eigenvalues))][2:]
    return four[np.lexsort((four.imag, -four.real))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="folder for eigenvalues.csv, speeds.json, eigenvalues.png")
    parser.add_argument("--compile", action="store_true", help="compile the model's kernels (2 minutes, once)")
    args = parser.parse_args()
    if not args.compile:
        os.environ["DALEMBERT_CC"] = "none"
    import dalembert

    bicycle = dalembert.whipple_bicycle()
    speeds = np.round(np.arange(0.0, 10.0 + 1e-9, 0.05), 10)
    table = [modes(bicycle, v) for v in speeds]
    weave = brentq(lambda v: max(e.real for e in modes(bicycle, v) if abs(e.imag) > 1e-6), 4.0, 4.5,
                   xtol=1e-12)
    capsize = brentq(lambda v: max(e.real for e in modes(bicycle, v) if abs(e.imag) <= 1e-6), 5.5, 6.5,
                     xtol=1e-12)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "eigenvalues.csv"), "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["v"] + ["%s_%d" % (part, k) for k in range(1, 5) for part in ("re", "im")])
        for v, four in zip(speeds, table):
            out.writerow([repr(float(v))] + [repr(float(x)) for e in four for x in (e.real, e.imag)])
    with open(os.path.join(args.out, "speeds.json"), "w") as f:
        json.dump({"weave": weave, "capsize": capsize}, f, indent=2)
    print("weave speed %.12f m/s, capsize speed %.12f m/s" % (weave, capsize))
    print("self-stable between them; at 5 m/s the modes are", ", ".join("%.6f%+.6fi" % (e.real, e.imag)
                                                                         for e in modes(bicycle, 5.0)))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    values = np.array(table)
    fig, ax = plt.subplots(figsize=(7, 5))
    for k in range(4):
        ax.plot(speeds, values[:, k].real, "k.", markersize=2)
        ax.plot(speeds, np.abs(values[:, k].imag), ".", color="tab:blue", markersize=2)
    for v, name in ((weave, "weave"), (capsize, "capsize")):
        ax.axvline(v, color="gray", lw=0.8, ls="--")
        ax.text(v, 9.5, " %s %.3f" % (name, v), fontsize=8)
    ax.axhline(0, color="gray", lw=0.5)
    ax.set_ylim(-10, 10)
    ax.set_xlabel("speed v (m/s)")
    ax.set_ylabel("eigenvalues (1/s): real parts black, |imaginary| blue")
    ax.set_title("Benchmark Whipple bicycle, upright straight running")
    fig.savefig(os.path.join(args.out, "eigenvalues.png"), dpi=120, bbox_inches="tight")


if __name__ == "__main__":
    main()
