"""Steady motions of the rolling disk (models/rolling-disk.toml) and the vertical disk: upright
rolling against its closed form, steady turning found by Gauss-Newton and checked against the
reference solver, and the eigenvalues of the linearisation in the rotating frame against the
monodromy of the Jacobi fields (docs/methods.md, Steady motions and their stability).

The upright disk rolling straight at spin rate w (psi_t = w along phi = 0) tilts as
    lambda^2 = (m g R - C (C + m R^2) w^2 / A) / (A + m R^2),
so it is stable (lambda imaginary) for w^2 > m g R A / (C (C + m R^2)), g / (3 R) for the uniform
disk, and falls otherwise.
"""
import math

import numpy as np
import pytest
import scipy.linalg

import dalembert

PARAMETERS = dict(m=2.0, R=0.5, A=0.125, C=0.25, g=9.81)


@pytest.fixture(scope="module")
def disk(source_dir):
    return dalembert.model_file(str(source_dir / "models" / "rolling-disk.toml"), **PARAMETERS)


def tilt_rate_squared(w, m, R, A, C, g):
    return (m * g * R - C * (C + m * R * R) * w * w / A) / (A + m * R * R)


@pytest.mark.parametrize("w", [1.0, 4.0, -3.0])
def test_upright_rolling_tilts_as_its_closed_form(disk, w):
    R = PARAMETERS["R"]
    s = disk.steady_motion(q0=[0.3, -0.2, 0, 0, 0.7], v0=[R * w, 0, 0, 0, w], symmetric=["x", "y", "psi"])
    lam2 = tilt_rate_squared(w, **PARAMETERS)
    lam = math.sqrt(abs(lam2))
    expected = [lam, -lam] if lam2 > 0 else [complex(0, lam), complex(0, -lam)]
    for x in expected:
        assert np.min(np.abs(s.eigenvalues - x)) < 1e-10 * lam
    # the heading and the spin rate are neutral: a Jordan block, within the resolution of zero
    others = [x for x in s.eigenvalues if min(abs(x - e) for e in expected) > 1e-6]
    assert len(others) == 3 and all(abs(x) < s.resolution for x in others)
    assert s.growing_modes == (1 if lam2 > 0 else 0)
    assert s.rates == pytest.approx({"x": R * w, "y": 0.0, "psi": w}, abs=1e-14)
    # the rotation of the plane turning phi leaves the spin's pair, one direction fewer
    r = disk.steady_motion(q0=[0.3, -0.2, 0, 0, 0.7], v0=[R * w, 0, 0, 0, w], symmetric=["x", "y", "psi"],
                           rotation=["x", "y", "phi"])
    assert len(r.eigenvalues) == 4 and r.rates["rotation"] == pytest.approx(0.0, abs=1e-14)
    for x in expected:
        assert np.min(np.abs(r.eigenvalues - x)) < 1e-10 * lam


def rotating_frame(rates, n=5, x=0, y=1, angle=3, coordinates=("x", "y", "psi")):
    """A_w and b_w of the disk's symmetry: translations of `coordinates`, rotation of (x, y)."""
    index = {"x": 0, "y": 1, "theta": 2, "phi": 3, "psi": 4}
    A, b = np.zeros((n, n)), np.zeros(n)
    for c in coordinates:
        b[index[c]] += rates[c]
    A[x, y], A[y, x] = -rates["rotation"], rates["rotation"]
    b[angle] += rates["rotation"]
    return A, b


@pytest.fixture(scope="module")
def turning(disk):
    """The disk tilted by 0.3 spinning at psi_t = 6, its turning rate found by Gauss-Newton."""
    return disk.steady_motion(q0=[0.2, 0.1, 0.3, 0.5, 0], v0=[6 * 0.5 * math.cos(0.5), 6 * 0.5 * math.sin(0.5), 0, 1, 6],
                              symmetric=["x", "y", "psi"], rotation=["x", "y", "phi"], find=True,
                              hold=["theta", "psi_t"])


def test_gauss_newton_finds_a_steady_turn_that_the_reference_solver_keeps(disk, turning):
    s = turning
    assert 1 <= s.iterations <= 10
    assert s.q0[2] == pytest.approx(0.3, abs=1e-15) and s.v0[4] == pytest.approx(6.0, abs=1e-14)
    assert abs(s.v0[2]) < 1e-13 and s.rates["rotation"] == pytest.approx(s.v0[3], rel=1e-12)
    A, b = rotating_frame(s.rates)
    # q(t) = exp(t xi) q0: the affine flow of q_t = A q + b, as one matrix exponential
    Z = np.zeros((6, 6))
    Z[:5, :5], Z[:5, 5] = A, b
    r = dalembert.run(disk, "reference", h=0.1, steps=30, q0=s.q0, v0=s.v0)
    worst = 0.0
    for t, q in zip(r.t, r.q):
        predicted = (scipy.linalg.expm(t * Z) @ np.append(s.q0, 1.0))[:5]
        worst = max(worst, np.max(np.abs(q - predicted)))
    assert worst < 1e-9, worst
    assert np.max(np.abs(r.q[:, 2] - 0.3)) < 1e-10


def test_the_rotating_frame_s_eigenvalues_are_those_of_the_jacobi_fields_monodromy(disk, turning):
    # Over T the Jacobi fields from a basis of the linearised constraint, turned back by the
    # symmetry's motion, are exp(T L) on ker K: its eigenvalues are exp(T lambda) for the motion's
    # eigenvalues, exp(T mu) for L on the orbit's tangents (1, 1 and exp(+-i W T): the translations
    # of the plane turn at the rotation's rate W) and 0 for the m = 2 directions the projection
    # onto ker K takes out.
    s, T, n = turning, 0.4, 5
    A, _ = rotating_frame(s.rates)
    back = scipy.linalg.expm(-T * A)
    columns = []
    for j in range(2 * n):
        e = np.eye(2 * n)[j]
        W = dalembert.jacobi_field(disk, q0=s.q0, v0=s.v0, dq0=e[:n], dv0=e[n:], times=[0.0, T], project_dv0=True)
        columns.append(np.concatenate([back @ W.W[-1], back @ W.W_dot[-1]]))
    monodromy = np.array(columns).T
    found = list(np.linalg.eigvals(monodromy))
    # the tilt's oscillation, away from the Jordan blocks at 1, to the fields' tolerance
    for x in s.eigenvalues[np.abs(s.eigenvalues) > 1]:
        assert np.min(np.abs(np.array(found) - np.exp(T * x))) < 1e-10
    W_rot = s.rates["rotation"]
    expected = [0, 0, 1, 1, np.exp(1j * W_rot * T), np.exp(-1j * W_rot * T)] + list(np.exp(T * s.eigenvalues))
    assert len(found) == len(expected) == 2 * n
    worst = 0.0
    for x in expected:  # each expected eigenvalue matched to its nearest, once
        i = int(np.argmin([abs(x - y) for y in found]))
        worst = max(worst, abs(x - found.pop(i)))
    assert worst < 1e-6, worst  # the Jordan blocks at 1 split by the square root of the fields' error
    assert len(s.eigenvalues) == 4 and s.growing_modes == 0


def test_the_vertical_disk_s_circles_are_steady_under_the_rotation():
    disk = dalembert.system("vertical-disk")
    R, Omega, omega = 1.0, 1.0, 2.0  # the default start: rolling rate 1, turning rate 2, from the origin
    s = disk.steady_motion(symmetric=["x", "y", "theta"], rotation=["x", "y", "phi"])
    assert s.rates == pytest.approx({"x": R * Omega, "y": 0.0, "theta": Omega, "rotation": omega}, abs=1e-14)
    assert len(s.eigenvalues) == 2 and np.all(np.abs(s.eigenvalues) < s.resolution) and s.growing_modes == 0
    with pytest.raises(dalembert.BadInput, match="not a steady motion: the acceleration of coordinate 1 is 2, not 0"):
        disk.steady_motion(symmetric=["x", "y", "theta", "phi"])  # x and y accelerate


def test_what_steady_motion_refuses(disk):
    start = dict(q0=[0, 0, 0, 0, 0], v0=[1, 0, 0, 0, 2])
    with pytest.raises(dalembert.BadInput, match="--hold: what to hold is for --find"):
        disk.steady_motion(symmetric=["x", "y", "psi"], hold=["theta"], **start)
    with pytest.raises(dalembert.BadInput, match="give two coordinates and optionally an angle"):
        disk.steady_motion(symmetric=["psi"], rotation=["x"], **start)
    with pytest.raises(dalembert.BadInput, match="has no coordinate 'tilt'"):
        disk.steady_motion(symmetric=["x", "y", "psi"], find=True, hold=["tilt"], **start)
    with pytest.raises(dalembert.BadInput, match="rotation must be a list of coordinate names"):
        disk.steady_motion(symmetric=["x", "y", "psi"], rotation="x,y", **start)
    with pytest.raises(dalembert.BadInput, match="find must be True or False"):
        disk.steady_motion(symmetric=["x", "y", "psi"], find=1, **start)
    # the rotation without turning the heading is no symmetry: the constraint turns with phi
    with pytest.raises(dalembert.BadInput, match="it is not a symmetry"):
        disk.steady_motion(symmetric=["x", "y", "psi"], rotation=["x", "y"], **start)
    with pytest.raises(dalembert.BadInput, match="no steady motion found near"):
        disk.steady_motion(q0=[0, 0, 0.3, 0, 0], v0=[1, 0, 0, 0, 2], symmetric=["x", "y", "psi"], find=True,
                           hold=["theta"])


# Each stepper method's own steady turn near the continuous one, with the tilt and the spin rate
# held: one step takes its state to itself turned by the rotation, the turning rate and the tilt
# oscillation at that state converge to the continuous ones at the method's order (halving h from
# 0.02). dla's momentum p+_k = D2 L_d(q_{k-1}, q_k) carries its step's constraint impulse, so its
# state is the two-point start from the position its motion had a step before.
ORDERS = {"dla": 2, "mla": 2, "mclachlan-perlmutter": 2, "discrete-gradient": 2, "spark": 4, "rk4": 4}


@pytest.mark.parametrize("method", sorted(ORDERS))
def test_each_step_s_own_steady_turn_converges_at_its_order(disk, turning, method):
    pair = turning.eigenvalues[np.argmax(np.abs(turning.eigenvalues.imag))]
    errors, turning_errors = [], []
    for h in (0.02, 0.01):
        stepper = dalembert.stepper(disk, method, h=h, q0=turning.q0, v0=turning.v0)
        d = dalembert.discrete_steady_motion(stepper, symmetric=["x", "y", "psi"], rotation=["x", "y", "phi"],
                                             hold=["theta", "psi_t"])
        assert len(d.eigenvalues) == len(turning.eigenvalues)
        assert d.q0[2] == pytest.approx(0.3, abs=1e-15) and d.rates["psi"] == pytest.approx(6.0, rel=1e-13)
        assert np.array_equal(stepper.q, turning.q0), "the stepper is not moved"
        turning_errors.append(abs(d.rates["rotation"] - turning.rates["rotation"]))
        errors.append(np.min(np.abs(d.eigenvalues - pair)))
    order = math.log2(errors[0] / errors[1])
    print("steady turn", method, "tilt pair", errors, order, "turning rate", turning_errors)
    assert abs(order - ORDERS[method]) < 0.2, (errors, order)
    # The step's turning rate is within O(h^p) of the continuous one: at its order, or at round-off
    # where the held tilt and spin fix it as they do the continuous one (dla, mla), or where the
    # step's steady motions, off the constraint at a level of M v it does not keep (rk4), leave it
    # free.
    if turning_errors[0] > 1e-9:
        order = math.log2(turning_errors[0] / turning_errors[1])
        assert abs(order - ORDERS[method]) < 0.2, (turning_errors, order)
    else:
        assert max(turning_errors) < 1e-9, turning_errors


def test_a_step_s_steady_motion_is_sought_from_a_steady_state(disk, turning):
    # at half the speeds the tilted disk is no longer balanced: it falls
    stepper = dalembert.stepper(disk, "dla", h=0.02, q0=turning.q0, v0=0.5 * turning.v0)
    with pytest.raises(dalembert.BadInput, match="not a steady motion: the acceleration of coordinate"):
        dalembert.discrete_steady_motion(stepper, symmetric=["x", "y", "psi"], rotation=["x", "y", "phi"])
    with pytest.raises(dalembert.BadInput, match="has no coordinate 'tilt'"):
        dalembert.discrete_steady_motion(stepper, symmetric=["x", "y", "psi"], rotation=["x", "y", "phi"],
                                         hold=["tilt"])
