#!/usr/bin/env python3
"""An independent reference for model files with 5, 6 and 11 coordinates, and the orders of every
method family on them (docs/model-files.md, "Model files of any size").

The three systems of models/rolling-disk.toml (n = 5, m = 2), models/two-skates.toml (6, 2) and
models/chaotic-oscillator.toml (11, 1) are written again here in numpy, as L(q, v) and the
constraints c(q, v) = M(q) v. Nothing of dalembert is used: no GiNaC, no generated code, no
automatic differentiation. The Lagrange-d'Alembert equations of L = 1/2 v^T G(q) v - V(q),

    G a = -(dG/dt) v + 1/2 d/dq (v^T G v) - dV/dq + M^T lambda,     M a = -(dM/dt) v,

are assembled with exact derivatives: G(q) and M(q) by polarisation of L and c (exact for a
quadratic and a linear function of v, up to rounding), their derivatives along q by the complex
step f'(q) u = Im f(q + i eps u) / eps (no cancellation), and integrated by scipy's DOP853 with
tolerances of 1e-13. Each method of `dalembert run` is then run at four step sizes, and the fitted
order of its error in q at t = T is checked against docs/methods.md.

    python3 tests/python/model_file_reference.py --dalembert build/dalembert --models models
Exit status 0 when every order holds, 1 otherwise.
"""
import argparse
import csv
import io
import math
import subprocess
import sys

import numpy as np
from scipy.integrate import solve_ivp

EPS = 1e-30  # complex step


def rolling_disk():
    m, R, A, C, g = 1.0, 1.0, 0.25, 0.5, 1.0

    def L(q, v):
        x, y, th, ph, ps = q
        xt, yt, tht, pht, pst = v
        vx = xt + R * (np.cos(th) * np.sin(ph) * tht + np.sin(th) * np.cos(ph) * pht)
        vy = yt + R * (-np.cos(th) * np.cos(ph) * tht + np.sin(th) * np.sin(ph) * pht)
        vz = -R * np.sin(th) * tht
        return (m / 2 * (vx**2 + vy**2 + vz**2) + A / 2 * (tht**2 + np.cos(th)**2 * pht**2)
                + C / 2 * (np.sin(th) * pht + pst)**2 - m * g * R * np.cos(th))

    def c(q, v):
        ph = q[3]
        return np.array([v[0] - R * np.cos(ph) * v[4], v[1] - R * np.sin(ph) * v[4]])

    q0 = np.array([0, 0, 0.3, 0, 0.0])
    v0 = np.array([2 * R, 0, 0.1, 0.5, 2])
    return "rolling-disk", L, c, q0, v0, 2.0


def two_skates():
    m, J, k, l = 1.0, 0.5, 2.0, 1.0

    def L(q, v):
        x1, y1, t1, x2, y2, t2 = q
        d = np.sqrt((x1 - x2)**2 + (y1 - y2)**2)
        return (m / 2 * (v[0]**2 + v[1]**2 + v[3]**2 + v[4]**2) + J / 2 * (v[2]**2 + v[5]**2)
                - k / 2 * (d - l)**2)

    def c(q, v):
        return np.array([v[1] * np.cos(q[2]) - v[0] * np.sin(q[2]), v[4] * np.cos(q[5]) - v[3] * np.sin(q[5])])

    q0 = np.array([0, 0, 0, 1.5, 0, 1.0])
    v0 = np.array([1, 0, 0.3, 0.5 * math.cos(1), 0.5 * math.sin(1), -0.2])
    return "two-skates", L, c, q0, v0, 2.0


def chaotic_oscillator():
    def L(q, v):
        y, z = q[1:6], q[6:11]
        V = np.sum(q**2) / 2 + np.sum(y**2 * z**2) / 2 + z[0]**2 * z[1]**2 / 2
        return np.sum(v**2) / 2 - V

    def c(q, v):
        return np.array([v[0] + np.dot(q[1:6], v[6:11])])

    q0 = np.array([0.1, 0.2, -0.3, 0.4, -0.1, 0.25, 0.3, 0.1, -0.2, 0.35, -0.15])
    v0 = np.array([-0.19, 0.1, 0.2, -0.1, 0.3, 0.05, 0.4, -0.3, 0.2, 0.1, -0.2])
    return "chaotic-oscillator", L, c, q0, v0, 2.0


def metric(L, q):
    """G(q) = d^2 L / dv^2 by polarisation: exact for L quadratic in v."""
    n = len(q)
    zero = np.zeros(n)
    L0 = L(q, zero)
    E = np.eye(n)
    Li = [L(q, E[i]) for i in range(n)]
    G = np.empty((n, n), dtype=np.result_type(q, float))
    for i in range(n):
        for j in range(n):
            G[i, j] = L(q, E[i] + E[j]) - Li[i] - Li[j] + L0
    return G


def constraint_matrix(c, q):
    n = len(q)
    return np.array([c(q, e) for e in np.eye(n)]).T


def along(f, q, u):
    """d/ds f(q + s u) at s = 0, by the complex step."""
    return np.imag(f(q + 1j * EPS * u)) / EPS


def vector_field(L, c):
    def f(t, state):
        n = len(state) // 2
        q, v = state[:n], state[n:]
        G = metric(L, q)
        M = constraint_matrix(c, q)
        m = M.shape[0]
        Gdot_v = along(lambda s: metric(L, s), q, v) @ v
        grad_T = np.array([v @ along(lambda s: metric(L, s), q, e) @ v for e in np.eye(n)]) / 2
        grad_V = -np.array([along(lambda s: L(s, np.zeros(n)), q, e) for e in np.eye(n)])
        Mdot_v = along(lambda s: constraint_matrix(c, s), q, v) @ v
        K = np.block([[G, -M.T], [M, np.zeros((m, m))]])
        rhs = np.concatenate([-Gdot_v + grad_T - grad_V, -Mdot_v])
        a = np.linalg.solve(K, rhs)[:n]
        return np.concatenate([v, a])
    return f


def reference(system):
    name, L, c, q0, v0, T = system
    sol = solve_ivp(vector_field(L, c), (0, T), np.concatenate([q0, v0]), method="DOP853", rtol=1e-13, atol=1e-13)
    assert sol.success, sol.message
    n = len(q0)
    energy = lambda s: np.dot(s[n:], metric(L, s[:n]) @ s[n:]) - L(s[:n], s[n:])
    drift = abs(energy(sol.y[:, -1]) - energy(sol.y[:, 0]))
    return sol.y[:n, -1], drift


# method: (expected order, tolerance)
METHODS = {"dla": (2, 0.15), "mla": (2, 0.15), "gf": (2, 0.15), "gf-sym": (2, 0.15), "gf-cp": (2, 0.15),
           "fim": (2, 0.15), "mclachlan-perlmutter": (2, 0.15), "discrete-gradient": (2, 0.15), "spark": (4, 0.3), "rk4": (4, 0.3)}
STEPS = [20, 40, 80, 160]
# `exact` has no order: its step points are the continuous flow to the shooting tolerance (1e-12).
EXACT_ERROR = 1e-11


def final_positions(dalembert, path, method, T, N, n):
    out = subprocess.run([dalembert, "run", path, "--method", method, "--h", repr(T / N), "--steps", str(N),
                          "--every", str(N)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{method} on {path}: exit {out.returncode}: {out.stderr.strip()}")
    rows = list(csv.reader(io.StringIO(out.stdout)))
    return np.array([float(x) for x in rows[-1][1:1 + n]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dalembert", required=True)
    ap.add_argument("--models", required=True, help="the models/ directory")
    args = ap.parse_args()
    ok = True
    print("| model | n | m | method | errors in q at t = T, N = " + ", ".join(map(str, STEPS)) + " | order |")
    print("|---|---|---|---|---|---|")
    for system in (rolling_disk(), two_skates(), chaotic_oscillator()):
        name, L, c, q0, v0, T = system
        q_ref, drift = reference(system)
        m = len(c(q0, v0))
        print(f"<!-- {name}: reference energy drift {drift:.1e} -->")
        path = f"{args.models}/{name}.toml"
        for method, (expected, tolerance) in METHODS.items():
            try:
                errors = [np.max(np.abs(final_positions(args.dalembert, path, method, T, N, len(q0)) - q_ref))
                          for N in STEPS]
            except RuntimeError as e:
                print(f"FAIL {e}")
                ok = False
                continue
            h = np.array([T / N for N in STEPS])
            order = np.polyfit(np.log(h), np.log(errors), 1)[0]
            good = abs(order - expected) <= tolerance
            ok &= bool(good)
            print(f"| {name} | {len(q0)} | {m} | {method} | " + ", ".join(f"{e:.2e}" for e in errors) +
                  f" | {order:.2f} (expected {expected}){'' if good else ' FAIL'} |")
        error = np.max(np.abs(final_positions(args.dalembert, path, "exact", T, STEPS[0], len(q0)) - q_ref))
        good = error < EXACT_ERROR
        ok &= bool(good)
        print(f"| {name} | {len(q0)} | {m} | exact | {error:.2e} (N = {STEPS[0]}) | below {EXACT_ERROR:g}"
              f"{'' if good else ' FAIL'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
