"""A model written in Python (the tilting rolling disk, n = 5, m = 2, from sympy expressions) runs
at the orders docs/methods.md states, against the independent numpy/scipy reference of
model_file_reference.py (its own Lagrangian, exact derivatives by the complex step, DOP853 at 1e-13)."""
import numpy as np
import pytest
import sympy as sp

import dalembert
from orders import position_errors_and_order
import model_file_reference as independent


@pytest.fixture(scope="module")
def disk():
    x, y, theta, phi, psi = sp.symbols("x y theta phi psi")
    x_t, y_t, theta_t, phi_t, psi_t = sp.symbols("x_t y_t theta_t phi_t psi_t")
    m, R, A, C, g = sp.symbols("m R A C g")
    v_centre = sp.Matrix([x_t + R * (sp.cos(theta) * sp.sin(phi) * theta_t + sp.sin(theta) * sp.cos(phi) * phi_t),
                          y_t + R * (-sp.cos(theta) * sp.cos(phi) * theta_t + sp.sin(theta) * sp.sin(phi) * phi_t),
                          -R * sp.sin(theta) * theta_t])
    lagrangian = (m / 2 * v_centre.dot(v_centre) + A / 2 * (theta_t**2 + sp.cos(theta)**2 * phi_t**2)
                  + C / 2 * (sp.sin(theta) * phi_t + psi_t)**2 - m * g * R * sp.cos(theta))
    return dalembert.model(name="rolling disk", coordinates=["x", "y", "theta", "phi", "psi"], lagrangian=lagrangian,
                           constraints=[x_t - R * sp.cos(phi) * psi_t, y_t - R * sp.sin(phi) * psi_t],
                           parameters={"m": 1.0, "R": 1.0, "A": 0.25, "C": 0.5, "g": 1.0})


@pytest.fixture(scope="module")
def reference():
    system = independent.rolling_disk()
    q_end, drift = independent.reference(system)
    assert drift < 1e-11
    _, _, _, q0, v0, T = system
    return q0, v0, T, q_end


STEPS = [20, 40, 80, 160]


@pytest.mark.parametrize("method, order", [("dla", 2), ("mla", 2), ("gf", 2), ("fim", 2), ("rk4", 4)])
def test_a_python_model_converges_at_the_method_s_order(disk, reference, method, order):
    q0, v0, T, q_end = reference
    errors, fitted = position_errors_and_order(disk, method, q0, v0, T, q_end, STEPS)
    assert abs(fitted - order) <= (0.3 if order == 4 else 0.15)
    assert errors[-1] < (1e-6 if order == 4 else 1e-3)


def test_the_python_model_is_the_model_file(disk, source_dir):
    """The same system written as models/rolling-disk.toml gives the same trajectory."""
    from_file = dalembert.model_file(source_dir / "models" / "rolling-disk.toml")
    a = dalembert.run(disk, "dla", h=0.01, steps=500, q0=from_file.q0, v0=from_file.v0)
    b = dalembert.run(from_file, "dla", h=0.01, steps=500)
    assert np.max(np.abs(a.q - b.q)) < 1e-12
