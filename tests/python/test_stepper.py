"""dalembert.stepper (docs/control.md): (A, B) against central differences of the stepper's own steps,
the LQR example (examples/python/steer_sleigh.py) holding an unstable steady motion, and the
refusals."""
import math
import re
import subprocess
import sys

import numpy as np
import pytest

import dalembert


@pytest.fixture(scope="module")
def sleigh(source_dir):
    return dalembert.model_file(str(source_dir / "models" / "steered-sleigh.toml"))


START = dict(q0=[0.1, -0.2, 0.3], v0=[-0.8 * math.cos(0.3), -0.8 * math.sin(0.3), 0.25])
# Variations of START that keep the blade's constraint (to second order where theta turns): along x,
# turning theta with the velocity, faster along the blade, turning faster.
START_VARIATIONS = [([1, 0, 0], [0, 0, 0]), ([0, 0, 1], [0.8 * math.sin(0.3), -0.8 * math.cos(0.3), 0]),
                    ([0, 0, 0], [math.cos(0.3), math.sin(0.3), 0]), ([0, 0, 0], [0, 0, 1])]


def a_error(s, A, start, variations, u=None):
    """The largest relative difference between A mapping each variation (dq, dv) of the start (by the
    stepper's start_tangent) and central differences (1e-6) of one step with u from the moved starts."""
    worst = 0.0
    for dq, dv in variations:
        dq, dv = np.array(dq, dtype=float), np.array(dv, dtype=float)
        states = []
        for e in (1e-6, -1e-6):
            s.reset(q0=np.array(start["q0"]) + e * dq, v0=np.array(start["v0"]) + e * dv)
            s.step(u)
            states.append(s.state)
        s.reset(**start)
        predicted = A @ s.start_tangent(dq, dv)
        worst = max(worst, np.max(np.abs(predicted - (states[0] - states[1]) / 2e-6)) / np.max(np.abs(predicted)))
    return worst


# B by the input and A along START_VARIATIONS (mapped by start_tangent) against central differences
# of one step of h = 0.1 at tau = 0.2, every method of the stepper and the options that change its
# equations: gf and gf-sym at alpha = 1/4 (two rule points, f balanced by the constraint force at
# each), fim from either start.
@pytest.mark.parametrize("method, options", [
    ("dla", {}), ("mla", {}), ("gf", {}), ("gf", {"alpha": 0.25}), ("gf-sym", {"alpha": 0.25}), ("gf-cp", {}),
    ("fim", {}), ("fim", {"fim_start": "A"}), ("mclachlan-perlmutter", {}), ("discrete-gradient", {}),
    ("spark", {}), ("rk4", {})])
def test_a_and_b_against_central_differences(sleigh, method, options):
    s = dalembert.stepper(sleigh, method, h=0.1, **START, **options)
    A, B = s.jacobians(0.2)
    assert A.shape == (6, 6) and B.shape == (6, 1)
    states = []
    for u in (0.2 + 1e-5, 0.2 - 1e-5):
        s.reset(**START)
        s.step([u])
        states.append(s.state)
    B_fd = (states[0] - states[1]) / 2e-5
    assert np.max(np.abs(B[:, 0] - B_fd)) / np.max(np.abs(B)) < 1e-7
    worst = a_error(s, A, START, START_VARIATIONS, 0.2)
    print("sleigh", method, options, worst)
    assert worst < 1e-7


def test_state_and_names(sleigh):
    s = dalembert.stepper(sleigh, "rk4", h=0.1, **START)
    assert s.input_names == ["tau"]
    assert s.state_names == ["x", "y", "theta", "x_t", "y_t", "theta_t"]  # rk4 carries the velocity
    assert np.array_equal(s.input_force, [[0.0], [0.0], [1.0]])
    s.step(0.1, count=10)
    assert s.steps == 10 and s.t == pytest.approx(1.0, abs=1e-15)
    assert np.array_equal(s.state, np.concatenate([s.q, s.v]))


def test_lqr_holds_the_backward_sleigh_straight(source_dir):
    out = subprocess.run([sys.executable, str(source_dir / "examples" / "python" / "steer_sleigh.py")],
                         capture_output=True, text=True, check=True).stdout
    mu, exact = map(float, re.search(r"unstable multiplier of A: (\S+), exp\(lambda h\) = (\S+)", out).groups())
    # the discrete rate log(mu)/h converges to the closed form 0.4 at dla's order 2; at h = 0.05
    assert abs(math.log(mu) / 0.05 - 0.4) < 1e-3
    assert exact == pytest.approx(math.exp(0.4 * 0.05), rel=1e-9)
    closed = [float(x) for x in re.search(r"closed-loop multipliers \[(.*)\]", out).group(1).split()]
    assert max(closed) < 0.99
    final = {label: (float(th), float(w)) for label, th, w in
             re.findall(r"(with LQR|without): theta = (\S+), theta_t = (\S+)", out)}
    assert abs(final["with LQR"][0]) < 1e-3 and abs(final["with LQR"][1]) < 1e-4
    assert abs(final["without"][0]) > 1.0  # it turns round and slides forwards


def test_refusals(sleigh, source_dir):
    with pytest.raises(dalembert.BadInput, match="a stepper steps model files"):
        dalembert.stepper("suslov", h=0.1)
    chaplygin = dalembert.model_file(str(source_dir / "models" / "chaplygin-sleigh.toml"))
    by_name, by_file = dalembert.stepper("chaplygin-sleigh", h=0.1), dalembert.stepper(chaplygin, h=0.1)
    for _ in range(3):
        by_name.step()
        by_file.step()
    assert np.array_equal(by_name.q, by_file.q)  # the compiled sleigh steps its installed model file
    with pytest.raises(dalembert.BadInput, match="exact has no stepper"):
        dalembert.stepper(sleigh, "exact", h=0.1)
    s = dalembert.stepper(sleigh, h=0.1)
    before = s.state
    with pytest.raises(dalembert.BadInput, match=r"u has 2 value\(s\) but the model file .* has 1 input\(s\) \(tau\)"):
        s.step([0.1, 0.2])
    with pytest.raises(dalembert.BadInput, match=r"u\[0\] \(tau\) = (nan|-?inf) is not finite"):
        s.step(float("nan"))
    with pytest.raises(dalembert.BadInput, match="u must be one value per input"):
        s.step([[0.1]])
    assert np.array_equal(s.state, before) and s.steps == 0


# The ball on a turntable, whose rolling constraints are affine, x_t - r ws2 + W y = 0 and
# y_t + r ws1 - W x = 0, with the table's rate W = Omega = 1 (models/turntable-ball.toml) or
# W(t) = 1 + 0.5 sin(2 t) (models/varying-turntable-ball.toml, from t0 = 0.4): A against central
# differences of one step along variations of the start that keep both constraints exactly (they
# are linear in x, y and, at the identity attitude, in the velocities): moving the centre with the
# table's velocity there, turning about the vertical, and rolling along x. The start's variation is
# the stepper's start_tangent. The discrete gradient refuses affine constraints, and so do steady
# motions.
def turntable_start(W):
    return dict(q0=[1.0, 0.5, 1.0, 0.0, 0.0, 0.0], v0=[0.2 - 0.5 * W, -0.3 + W, 0.0, 0.15, 0.1, 0.25])


def turntable_variations(W):
    return [([1, 0, 0, 0, 0, 0], [0, W, 0, 0, 0, 0]),   # x with y_t += W dx
            ([0, 1, 0, 0, 0, 0], [-W, 0, 0, 0, 0, 0]),  # y with x_t -= W dy
            ([0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]),   # qz_t: ws3 alone
            ([0, 0, 0, 0, 0, 0], [2, 0, 0, 0, 1, 0])]   # qy_t with x_t += 2 r dqy_t


@pytest.mark.parametrize("file, t0", [("turntable-ball", 0.0), ("varying-turntable-ball", 0.4)])
@pytest.mark.parametrize("method", ["dla", "mla", "gf", "gf-sym", "gf-cp", "fim", "mclachlan-perlmutter", "spark",
                                    "rk4"])
def test_a_on_affine_constraints_against_central_differences(source_dir, file, t0, method):
    ball = dalembert.model_file(str(source_dir / "models" / (file + ".toml")))
    W = 1.0 + (0.5 * math.sin(2 * t0) if file.startswith("varying") else 0.0)
    start = turntable_start(W)
    s = dalembert.stepper(ball, method, h=0.05, t0=t0, **start)
    A, B = s.jacobians(None)
    assert A.shape == (12, 12) and B.shape == (12, 0)
    worst = a_error(s, A, start, turntable_variations(W))
    print("turntable", file, method, worst)
    assert worst < 1e-7
    with pytest.raises(dalembert.BadInput, match="the steady-motion analysis does not take affine constraints"):
        dalembert.discrete_steady_motion(s, symmetric=["x"])


def test_the_discrete_gradient_has_no_stepper_on_affine_constraints(source_dir):
    with pytest.raises(dalembert.BadInput, match="method discrete-gradient does not take affine constraints"):
        dalembert.stepper(dalembert.model_file(str(source_dir / "models" / "turntable-ball.toml")),
                          "discrete-gradient", h=0.05)


# A bead sliding under gravity on the curve y = cosh(x) - 1, a holonomic constraint that is not
# quadratic: dla, mla and the gf family impose phi(q_{k+1}) = 0 on the new positions, and A
# against central differences of one step from starts moved along the curve (off it by 1e-13, to
# second order) in its position and along it in its velocity. rk4 takes the velocity form and projects each new
# state back onto the curve (the stepper starts only on it, so A is checked along it).
@pytest.mark.parametrize("method", ["dla", "mla", "gf", "gf-sym", "gf-cp", "rk4"])
def test_a_on_a_holonomic_constraint_against_central_differences(method):
    x, u = 0.5, 0.3
    bead = dalembert.model(coordinates=["x", "y"], lagrangian="(x_t^2 + y_t^2)/2 - g*y", parameters={"g": 1.0},
                           holonomic=["y - cosh(x) + 1"], q0=[x, math.cosh(x) - 1], v0=[u, math.sinh(x) * u])
    start = dict(q0=np.array([x, math.cosh(x) - 1]), v0=np.array([u, math.sinh(x) * u]))
    s = dalembert.stepper(bead, method, h=0.1, **start)
    A, _ = s.jacobians(None)
    directions = [([1.0, math.sinh(x)], [0.0, math.cosh(x) * u]),  # along the curve, the velocity with it
                  ([0.0, 0.0], [1.0, math.sinh(x)])]                # faster along the curve
    worst = a_error(s, A, start, directions)
    print("bead", method, worst)
    assert worst < 1e-7
    s.reset(**start)
    s.step(count=100)
    phi = abs(s.q[1] - math.cosh(s.q[0]) + 1)
    assert phi < 1e-14
