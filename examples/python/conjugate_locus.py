#!/usr/bin/env python3
"""The first-conjugate locus of a point of the double pendulum, and the trajectories that reach it
(docs/jacobi-fields.md, figure docs/figures/conjugate_locus.png).

    PYTHONPATH=build/python python3 examples/python/conjugate_locus.py [--directions N] [--out FILE]

From the bottom of models/double-pendulum.toml, q0 = 0 (both angles at rest), at speed 1
in every direction of the plane of velocities, the first point conjugate to q0 along each
trajectory: where the Jacobi fields from (0, w) lose rank. Prints the earliest and latest
conjugate times and draws the locus in (theta1, theta2) with every eighth trajectory up to it.
"""
import argparse
import os

import numpy as np

import dalembert

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "..", "models", "double-pendulum.toml")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directions", type=int, default=128)
    parser.add_argument("--out", default=None, help="PNG file of the figure (default: none)")
    args = parser.parse_args()
    pendulum = dalembert.model_file(MODEL)
    q0 = np.zeros(pendulum.n)
    locus = dalembert.conjugate_locus(pendulum, q0=q0, t_end=10.0, directions=args.directions)
    found = ~np.isnan(locus.t)
    print("directions with a conjugate point in (0, 10]: %d of %d" % (found.sum(), len(locus.t)))
    print("first conjugate time: from %.6f to %.6f" % (np.nanmin(locus.t), np.nanmax(locus.t)))
    if args.out:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5.5, 5))
        for i in range(0, len(locus.t), 8):
            if not found[i]:
                continue
            v0 = np.cos(locus.angle[i]) * locus.plane[:, 0] + np.sin(locus.angle[i]) * locus.plane[:, 1]
            r = dalembert.run(pendulum, "rk4", h=locus.t[i] / 400, steps=400, q0=q0, v0=v0)
            ax.plot(r.q[:, 0], r.q[:, 1], color="0.75", lw=0.8)
        ax.plot(np.append(locus.q[found, 0], locus.q[found, 0][0]),
                np.append(locus.q[found, 1], locus.q[found, 1][0]), color="C3", lw=1.5,
                label="first conjugate points")
        ax.plot(*q0, "ko", label="q0")
        ax.set_xlabel("theta1")
        ax.set_ylabel("theta2")
        ax.set_title("double pendulum: first-conjugate locus of q0 at speed 1")
        ax.set_aspect("equal")
        ax.legend(loc="upper right", fontsize=8)
        fig.tight_layout()
        fig.savefig(args.out, dpi=110)
        print("figure:", args.out)


if __name__ == "__main__":
    main()
