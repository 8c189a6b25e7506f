"""The benchmark Whipple bicycle (dalembert.whipple_bicycle, docs/bicycle.md): its linearisation about
upright straight running, from the library's steady-motion linearisation of the nonlinear model,
against the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A 463 (2007)):
the state matrix of (roll, steer, roll rate, steer rate) that sympy's own test of its bicycle
(sympy/physics/mechanics/tests/test_kane3.py) holds to 1e-12, the eigenvalues of the benchmark's
table 2 at 0 to 10 m/s, and the weave and capsize speeds.

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


# Table 2 of the benchmark, as printed (14 decimals): at each speed v (m/s) the real eigenvalues and
# the weave pair's real and imaginary parts (at rest, four real eigenvalues and no weave pair).
TABLE_2 = {
    0: ([-5.53094371765393, -3.13164324790656, 3.13164324790656, 5.53094371765393], None),
    1: ([-7.11008014637442, -3.13423125066578], (3.52696170990070, 0.80774027519930)),
    2: ([-8.67387984831735, -3.07158645641514], (2.68234517512745, 1.68066296590675)),
    3: ([-10.35101467245920, -2.63366137253667], (1.70675605663975, 2.31582447384325)),
    4: ([-12.15861426576450, -1.42944427361326], (0.41325331521125, 3.07910818603206)),
    5: ([-14.07838969279820, -0.32286642900409], (-0.77534188219585, 4.46486771378823)),
    6: ([-16.08537123098030, -0.00406690076970], (-1.52644486584142, 5.87673060598709)),
    7: ([-18.15788466125262, 0.10268170574766], (-2.13875644258362, 7.19525913329805)),
    8: ([-20.27940894394569, 0.14327879765713], (-2.69348683581097, 8.46037971396931)),
    9: ([-22.43788559040858, 0.15790184030917], (-3.21675402252485, 9.69377351531791)),
    10: ([-24.62459635017404, 0.16105338653172], (-3.72016840437287, 10.90681139476287)),
}


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


def test_the_eigenvalues_are_table_2_s(bicycle):
    # The table prints 14 decimals; the four modes agree to 1e-13 relative to max(1, |λ|) at every
    # speed (largest: 3.4e-14, the castering eigenvalue at 7 m/s), each mode matched to one of the
    # table's and the two sets of the same size.
    for v, (real, weave) in TABLE_2.items():
        table = [complex(e) for e in real]
        if weave:
            table += [complex(weave[0], weave[1]), complex(weave[0], -weave[1])]
        ours = modes(bicycle, float(v))
        assert len(ours) == len(table) == 4
        for e in table:
            assert np.min(np.abs(ours - e)) <= 1e-13 * max(1.0, abs(e)), (v, e)
        for e in ours:
            assert np.min(np.abs(np.array(table) - e)) <= 1e-13 * max(1.0, abs(e)), (v, e)


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
    # lean is damped out by steering, the wheels roll and the front wheel stays on the ground, its
    # height imposed on each step's new positions. Past t = 12.8 (x = 64 m) the momentum rows of
    # dla's Newton residual sit at their round-off floor, near its tolerance: Newton must stop
    # there (test (b) of solve/newton.hpp), not fail.
    q0, v0 = _bicycle.upright(5.0)
    v0[3] = 0.1
    r = dalembert.run(bicycle, "dla", h=0.01, steps=1500, every=10, q0=q0, v0=v0, project_v0=True)
    roll = r.q[:, 3]
    assert np.max(np.abs(roll[-50:])) < 0.01 * np.max(np.abs(roll))
    assert r.summary["max_constraint_residual"] < 1e-12
    assert np.max(np.abs(r.column("holonomic_0"))) < 1e-15


def test_dla_s_step_on_upright_running_has_the_modes(bicycle):
    # The dla step's own steady motion at 5 m/s. The step imposes the front contact's height on
    # its new positions, so the level of that constraint, a zero of the continuous linearisation,
    # is not one of its directions: five rates, the symmetry's zero and the four modes to O(h^2)
    # (h = 0.01), and no rate of a direction the step contracts to the constraint.
    q0, v0 = _bicycle.upright(5.0)
    d = dalembert.discrete_steady_motion(dalembert.stepper(bicycle, "dla", h=0.01, q0=q0, v0=v0),
                                         symmetric=["x", "y", "rear", "front"], rotation=["x", "y", "yaw"])
    rates = np.array(d.eigenvalues)
    assert len(rates) == 5
    assert np.min(np.abs(rates)) < 1e-9
    step_modes = rates[np.argsort(np.abs(rates))][1:]
    assert np.max([np.min(np.abs(step_modes - e)) / max(1.0, abs(e)) for e in modes(bicycle, 5.0)]) < 5e-3


def test_the_installed_model_file_is_the_package_s(source_dir):
    # models/large/whipple-bicycle.toml (what `dalembert run whipple-bicycle` and `dalembert reproduce
    # --only meijaard-bicycle` read) is python3 -m dalembert._bicycle's output: the same L,
    # constraints and initial data, compared as functions at random points (so that another sympy's
    # printing of the same expressions does not count as a difference).
    import re
    import tomllib

    import sympy as sp

    committed = tomllib.loads((source_dir / "models" / "large" / "whipple-bicycle.toml").read_text())
    generated = tomllib.loads(_bicycle.model_file_text())
    assert {k: v for k, v in committed.items() if k not in ("lagrangian", "constraints", "holonomic")} == \
        {k: v for k, v in generated.items() if k not in ("lagrangian", "constraints", "holonomic")}
    rng = np.random.default_rng(7)
    values = {}

    def evaluate(text):
        names = set(re.findall(r"[A-Za-z_]\w*", text)) - {"sin", "cos", "tan", "sqrt", "Abs", "pi", "exp"}
        for name in names:
            values.setdefault(name, rng.uniform(-1.0, 1.0))
        expression = sp.parse_expr(text.replace("^", "**"), local_dict={name: sp.Symbol(name) for name in names})
        return float(expression.subs({sp.Symbol(name): values[name] for name in names}))

    for key in ("lagrangian", "constraints", "holonomic"):
        ours, theirs = np.atleast_1d(committed[key]), np.atleast_1d(generated[key])
        assert len(ours) == len(theirs), key
        for a, b in zip(ours, theirs):
            assert evaluate(a) == pytest.approx(evaluate(b), rel=1e-12, abs=1e-12), key


def test_the_bicycle_from_bodies_and_hinges_is_the_package_s(bicycle, source_dir):
    # models/large/whipple-bicycle-from-bodies.toml: the same bicycle written as rigid bodies joined
    # by hinges (the frame on massless heading and lean bodies, the fork on the frame, each wheel on
    # its axle), inertia tensors on the frames' axes and the front contact's height a holonomic
    # constraint. Its trajectory from a leaning start with dla and rk4 is the sympy model's.
    patch = pytest.MonkeyPatch()
    patch.setenv("DALEMBERT_CC", "none")
    try:
        bodies = dalembert.model_file(source_dir / "models" / "large" / "whipple-bicycle-from-bodies.toml")
    finally:
        patch.undo()
    assert bodies.constraints == bicycle.constraints == 5
    q0, v0 = _bicycle.upright(5.0)
    v0[3] = 0.1
    for method in ("dla", "rk4"):
        a = dalembert.run(bodies, method, h=0.01, steps=200, q0=q0, v0=v0, project_v0=True)
        b = dalembert.run(bicycle, method, h=0.01, steps=200, q0=q0, v0=v0, project_v0=True)
        assert np.max(np.abs(a.q - b.q)) < 1e-12, method
        assert np.max(np.abs(a.v - b.v)) < 1e-11, method
        assert np.max(np.abs(a.column("holonomic_0"))) < 1e-15, method
