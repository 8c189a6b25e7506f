"""The benchmark Whipple bicycle (dalembert.whipple_bicycle, docs/bicycle.md): its linearisation about
upright straight running, from the library's steady-motion linearisation of the nonlinear model,
against the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A 463 (2007)):
the state matrix of (roll, steer, roll rate, steer rate) that sympy's own test of its bicycle
(sympy/physics/mechanics/tests/test_kane3.py) holds to 1e-12, and the weave and capsize speeds.

The model is interpreted (DALEMBERT_CC=none: the same expressions, without the system compiler's
2 minutes); its results agree with the compiled model's to rounding."""
import numpy as np
import pytest

import dalembert
from dalembert import _bicycle

pytest.importorskip("sympy")
scipy_optimize = pytest.importorskip("scipy.optimize")

# Published with the benchmark: the speeds where the weave mode stops growing and the capsize mode
# starts to (m/s).
WEAVE_SPEED, CAPSIZE_SPEED = 4.29238253634111, 6.02426201538837


def benchmark_state_matrix(v):
    return np.array([
        [0, 0, 1, 0],
        [0, 0, 0, 1],
        [9.48977444677355, -0.891197738059089 * v**2 - 0.571523173729245, -0.105522449805691 * v,
         -0.330515398992311 * v],
        [11.7194768719633, -1.97171508499972 * v**2 + 30.9087533932407, 3.67680523332152 * v,
         -3.08486552743311 * v]])


@pytest.fixture(scope="module")
def bicycle():
    patch = pytest.MonkeyPatch()
    patch.setenv("DALEMBERT_CC", "none")
    try:
        yield dalembert.whipple_bicycle()
    finally:
        patch.undo()


def modes(bicycle, v):
    """The eigenvalues of upright straight running at speed v but the two zeros of the symmetry
    reduction and of the holonomic constraint's level (the two of smallest modulus)."""
    q0, v0 = _bicycle.upright(v)
    steady = bicycle.steady_motion(q0=q0, v0=v0, symmetric=["x", "y", "rear", "front"], rotation=["x", "y", "yaw"])
    eigenvalues = np.array(steady.eigenvalues)
    assert len(eigenvalues) == 6
    return eigenvalues[np.argsort(np.abs(eigenvalues))][2:]


def test_the_linearisation_is_the_benchmark_s(bicycle):
    for v in (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 8.0):
        ours, theirs = modes(bicycle, v), np.linalg.eigvals(benchmark_state_matrix(v))
        assert np.max([np.min(np.abs(ours - e)) for e in theirs]) < 1e-10, v


def test_the_weave_and_capsize_speeds_are_the_benchmark_s(bicycle):
    def weave(v):  # the largest real part of an oscillating mode
        m = modes(bicycle, v)
        return max(e.real for e in m if abs(e.imag) > 1e-6)

    def capsize(v):  # the largest real eigenvalue
        m = modes(bicycle, v)
        return max(e.real for e in m if abs(e.imag) <= 1e-6)

    weave_speed = scipy_optimize.brentq(weave, 4.0, 4.5, xtol=1e-10)
    capsize_speed = scipy_optimize.brentq(capsize, 5.5, 6.5, xtol=1e-10)
    assert weave_speed == pytest.approx(WEAVE_SPEED, rel=1e-7)
    assert capsize_speed == pytest.approx(CAPSIZE_SPEED, rel=1e-7)


def test_a_run_in_the_stable_range_keeps_its_constraints(bicycle):
    # Upright at 5 m/s (between the weave and capsize speeds) with a roll rate of 0.1 rad/s: the
    # lean is damped out by steering, the wheels roll and the front wheel stays on the ground.
    q0, v0 = _bicycle.upright(5.0)
    v0[3] = 0.1
    r = dalembert.run(bicycle, "dla", h=0.01, steps=300, q0=q0, v0=v0, project_v0=True)
    roll = r.q[:, 3]
    assert np.max(np.abs(roll[-50:])) < 0.2 * np.max(np.abs(roll))
    assert r.summary["max_constraint_residual"] < 1e-12
    assert np.max(np.abs(r.column("holonomic_0"))) < 1e-6
