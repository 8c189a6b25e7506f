#!/usr/bin/env python3
"""An independent GF-1/2 integrator for the knife edge, from the equations of de Leon, Martin de
Diego, Santamaria-Merino, "Geometric integrators and nonholonomic mechanics", J. Math. Phys. 45
(2004), section 4 (generating function S_alpha with the discrete constraint force), written with
plain numpy and nothing of dalembert: does the energy of GF-1/2 grow on the knife edge with a
harmonic potential (k = 2, g = 0, J = 1/2, h = 0.1) because of the scheme or because of our code?

    L = 1/2 m (x'^2 + y'^2) + 1/2 J phi'^2 - V,  V = -m g x + 1/2 k (x^2 + y^2)
    constraint  M(q) v = sin(phi) x' - cos(phi) y' = 0
    G q'' + grad V = M^T lambda,  lambda = (M G^-1 M^T)^-1 (M G^-1 grad V - (dM/dt) v)
    Lambda~(q, v) = -M^T lambda (evaluated at any v, also off the constraint)
    S(q0, q1) = h L((q0 + q1)/2, (q1 - q0)/h)
    p_k     = G v + h/2 grad V(q_mid) + h/2 Lambda~(q_mid, v)   (solved for q_{k+1}, v = (q_{k+1} - q_k)/h)
    p_{k+1} = G v - h/2 grad V(q_mid) - h/2 Lambda~(q_mid, v)
    energy  = 1/2 p^T G^-1 p + V(q),   p_0 = G v_0

Usage: /usr/bin/python3 bench/gf_knife_edge_check.py [--dalembert build/dalembert]  (prints the energy error at
t = 100, 200, 400 from this implementation and, if given, the largest difference of positions
from `dalembert run knife-edge --method gf` over the first 1000 steps).
"""
import argparse
import csv
import io
import subprocess

import numpy as np

m, J, g, k = 1.0, 0.5, 0.0, 2.0
G = np.diag([m, m, J])
Ginv = np.linalg.inv(G)


def grad_V(q):
    return np.array([-m * g + k * q[0], k * q[1], 0.0])


def V(q):
    return -m * g * q[0] + 0.5 * k * (q[0] ** 2 + q[1] ** 2)


def M(q):
    return np.array([np.sin(q[2]), -np.cos(q[2]), 0.0])


def Lambda_tilde(q, v):
    Mq = M(q)
    Mdot_v = v[2] * (np.cos(q[2]) * v[0] + np.sin(q[2]) * v[1])  # (d/dt M(q)) v
    lam = (Mq @ Ginv @ grad_V(q) - Mdot_v) / (Mq @ Ginv @ Mq)
    return -Mq * lam


def step(q0, p0, h):
    def residual(q1):
        v = (q1 - q0) / h
        mid = 0.5 * (q0 + q1)
        return G @ v + 0.5 * h * grad_V(mid) + 0.5 * h * Lambda_tilde(mid, v) - p0

    q1 = q0 + h * (Ginv @ p0)
    for _ in range(50):
        r = residual(q1)
        if np.max(np.abs(r)) < 1e-13:
            break
        Jac = np.empty((3, 3))
        for j in range(3):  # central differences
            e = np.zeros(3)
            e[j] = 1e-7
            Jac[:, j] = (residual(q1 + e) - residual(q1 - e)) / 2e-7
        correction = np.linalg.solve(Jac, r)
        q1 = q1 - correction
        if np.max(np.abs(correction)) < 1e-15 * (1 + np.max(np.abs(q1))):
            break
    else:
        raise RuntimeError("Newton did not converge")
    v = (q1 - q0) / h
    mid = 0.5 * (q0 + q1)
    p1 = G @ v - 0.5 * h * grad_V(mid) - 0.5 * h * Lambda_tilde(mid, v)
    return q1, p1


def energy(q, p):
    return 0.5 * p @ Ginv @ p + V(q)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dalembert", help="path of the dalembert executable, to compare positions")
    args = parser.parse_args()
    h, steps = 0.1, 4000
    q = np.array([0.0, 0.0, 0.0])
    p = G @ np.array([0.5, 0.0, 1.0])
    E0 = energy(q, p)
    positions = [q]
    for n in range(1, steps + 1):
        q, p = step(q, p, h)
        positions.append(q)
        if n in (1000, 2000, 4000):
            print(f"independent GF-1/2: |E - E0| at t = {n * h:g}: {abs(energy(q, p) - E0):.3g}")
    if args.dalembert:
        out = subprocess.run([args.dalembert, "run", "knife-edge", "--method", "gf", "--h", str(h), "--steps", "1000",
                              "--param", "k=2", "--param", "g=0", "--param", "J=0.5", "--out", "-", "--quiet"],
                             capture_output=True, text=True, check=False).stdout
        rows = list(csv.reader(io.StringIO(out)))
        ours = np.array([[float(x) for x in r[1:4]] for r in rows[1:]])
        difference = np.max(np.abs(ours - np.array(positions[: len(ours)])))
        print(f"largest difference of positions from dalembert's gf over 1000 steps: {difference:.3g}")


if __name__ == "__main__":
    main()
