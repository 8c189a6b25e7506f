#!/usr/bin/env python3
"""The tilting rolling disk, defined with sympy, run by dla and rk4 for 10^5 steps (docs/python.md).

    PYTHONPATH=build/python python3 examples/python/rolling_disk.py [--out DIR] [--steps N]

Writes DIR/rolling_disk.png (energy error against time, and the path of the contact point) and
prints the largest energy error and constraint residual of each method.
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
import sympy as sp

import dalembert

# A thin disk of mass m, radius R, moments of inertia A (about a diameter) and C (about its axle),
# rolling without slipping on a horizontal plane. (x, y): the point of contact; theta: the tilt from
# the vertical; phi: the heading; psi: the rotation about the axle.
x, y, theta, phi, psi = sp.symbols("x y theta phi psi")
x_t, y_t, theta_t, phi_t, psi_t = sp.symbols("x_t y_t theta_t phi_t psi_t")
m, R, A, C, g = sp.symbols("m R A C g")

# velocity of the centre of mass, (x + R sin(theta) sin(phi), y - R sin(theta) cos(phi), R cos(theta))'
v_centre = sp.Matrix([
    x_t + R * (sp.cos(theta) * sp.sin(phi) * theta_t + sp.sin(theta) * sp.cos(phi) * phi_t),
    y_t + R * (-sp.cos(theta) * sp.cos(phi) * theta_t + sp.sin(theta) * sp.sin(phi) * phi_t),
    -R * sp.sin(theta) * theta_t,
])
kinetic = (m / 2 * v_centre.dot(v_centre) + A / 2 * (theta_t**2 + sp.cos(theta)**2 * phi_t**2)
           + C / 2 * (sp.sin(theta) * phi_t + psi_t)**2)
potential = m * g * R * sp.cos(theta)

disk = dalembert.model(
    name="tilting rolling disk",
    coordinates=["x", "y", "theta", "phi", "psi"],
    lagrangian=kinetic - potential,
    # rolling without slipping: the contact point moves with the rim
    constraints=[x_t - R * sp.cos(phi) * psi_t, y_t - R * sp.sin(phi) * psi_t],
    parameters={"m": 1.0, "R": 1.0, "A": 0.25, "C": 0.5, "g": 1.0},
    q0=[0, 0, 0.3, 0, 0],
    v0=[2, 0, 0.1, 0.5, 2],  # rolling at psi_t = 2 along phi = 0, tilting and turning
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="directory for rolling_disk.png (default: here)")
    parser.add_argument("--steps", type=int, default=100_000)
    args = parser.parse_args()

    h = 0.01
    runs = {method: dalembert.run(disk, method, h=h, steps=args.steps, every=10) for method in ("dla", "rk4")}

    fig, (energy, path) = plt.subplots(1, 2, figsize=(11, 4.5))
    for method, run in runs.items():
        print(f"{method}: max |E - E0| = {run.summary['max_energy_error']:.2e}, "
              f"max |M(q) v| = {run.summary['max_constraint_residual']:.2e}, "
              f"{run.summary['wall_time_seconds']:.2f} s")
        energy.semilogy(run.t[1:], abs(run.energy[1:] - run.energy[0]) + 1e-17, label=method, lw=0.8)
        path.plot(run.q[:, 0], run.q[:, 1], label=method, lw=0.8)
    energy.set(xlabel="t", ylabel="|E - E0|", title=f"energy error, h = {h}")
    path.set(xlabel="x", ylabel="y", title="path of the contact point")
    path.set_aspect("equal", adjustable="datalim")
    for ax in (energy, path):
        ax.legend()
    fig.tight_layout()
    out = os.path.join(args.out, "rolling_disk.png")
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()
