"""A Lagrangian that depends on the time (docs/model-files.md): the knife edge on a rocking plane,
L = m/2 (x'^2 + y'^2) + J/2 phi'^2 + m g cos(W t) x with sin(phi) x' - cos(phi) y' = 0, written with
sympy's t, against an independent scipy reference of its non-autonomous Lagrange-d'Alembert
equations (written out by hand below, integrated by DOP853 at 1e-13), at the orders
docs/methods.md states."""
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import dalembert
from orders import position_errors_and_order

m, J, g, W = 1.0, 1.0, 0.5, 0.8
q0 = np.array([0.1, -0.2, 0.3])
v0 = 0.5 * np.array([np.cos(0.3), np.sin(0.3), 2.0])
T = 4.0


def reference_positions(t_end):
    """q(t_end): a = W^-1 (F + mu lambda), with F = -dV/dq = m g cos(W t) e_x, the constraint row
    mu(q) = (sin phi, -cos phi, 0) and lambda from mu.a + (d mu/dt).v = 0."""
    inverse_mass = np.array([1 / m, 1 / m, 1 / J])

    def field(t, s):
        x, y, phi, xt, yt, phit = s
        F = np.array([m * g * np.cos(W * t), 0.0, 0.0])
        mu = np.array([np.sin(phi), -np.cos(phi), 0.0])
        mu_dot_v = phit * (np.cos(phi) * xt + np.sin(phi) * yt)
        lam = -(mu @ (inverse_mass * F) + mu_dot_v) / (mu @ (inverse_mass * mu))
        return [xt, yt, phit, *(inverse_mass * (F + mu * lam))]

    sol = solve_ivp(field, (0.0, t_end), np.concatenate([q0, v0]), method="DOP853", rtol=1e-13, atol=1e-13)
    assert sol.success
    return sol.y[:3, -1]


@pytest.fixture(scope="module")
def rocking():
    x, y, phi, t = sp.symbols("x y phi t")
    x_t, y_t, phi_t = sp.symbols("x_t y_t phi_t")
    M, Jz, G, Om = sp.symbols("m J g W")
    return dalembert.model(name="rocking knife edge", coordinates=["x", "y", "phi"],
                           lagrangian=M / 2 * (x_t**2 + y_t**2) + Jz / 2 * phi_t**2 + M * G * sp.cos(Om * t) * x,
                           constraints=[sp.sin(phi) * x_t - sp.cos(phi) * y_t],
                           parameters={"m": m, "J": J, "g": g, "W": W})


STEPS = [20, 40, 80, 160]


@pytest.mark.parametrize("method, order", [("dla", 2), ("mla", 2), ("rk4", 4), ("mclachlan-perlmutter", 2),
                                           ("discrete-gradient", 2), ("spark", 4)])
def test_a_lagrangian_of_time_converges_at_the_method_s_order(rocking, method, order):
    assert rocking.lagrangian_depends_on_time and not rocking.external_force
    errors, fitted = position_errors_and_order(rocking, method, q0, v0, T, reference_positions(T), STEPS)
    assert abs(fitted - order) <= (0.3 if order == 4 else 0.15)
    assert errors[-1] < (1e-6 if order == 4 else 1e-3)


def test_the_reference_solver_agrees(rocking):
    r = dalembert.run(rocking, "reference", h=0.1, steps=40, every=40, q0=q0, v0=v0)
    assert np.max(np.abs(r.q[-1] - reference_positions(T))) < 1e-9


def test_the_python_model_is_the_model_file(rocking, source_dir):
    """The same system written as models/rocking-knife-edge.toml (its potential of t) gives the
    same trajectory."""
    from_file = dalembert.model_file(source_dir / "models" / "rocking-knife-edge.toml")
    a = dalembert.run(rocking, "dla", h=0.05, steps=200, q0=q0, v0=v0)
    b = dalembert.run(from_file, "dla", h=0.05, steps=200, q0=q0, v0=v0)
    assert np.max(np.abs(a.q - b.q)) < 1e-12
