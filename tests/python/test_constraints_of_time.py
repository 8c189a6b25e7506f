"""Affine constraints of the time, M(q) v + b(q, t) = 0 (docs/model-files.md, Affine constraints):
the ball of models/varying-turntable-ball.toml on a table turning at W(t) = Omega + eps sin(w t).
Its centre r = (x, y) obeys r' = c + k W(t) J r, J r = (-y, x), k = 2/7, with the constant
c = r'(0) - k W(0) J r(0): a linear equation in the plane, integrated here by scipy's DOP853 at
1e-13 as an independent reference, against which each method that takes such constraints converges
at its order."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import dalembert
from orders import position_errors_and_order

OMEGA, EPS, W_RATE, K = 1.0, 0.5, 2.0, 2.0 / 7.0
T = 4.0


def table_rate(t):
    return OMEGA + EPS * np.sin(W_RATE * t)


def centre(q0, v0, t0, t_end):
    """(x, y) at t_end from the start (q0, v0) at t0, by r' = c + k W(t) J r."""
    r0 = np.asarray(q0[:2], dtype=float)
    c = np.asarray(v0[:2], dtype=float) - K * table_rate(t0) * np.array([-r0[1], r0[0]])

    def field(t, r):
        return c + K * table_rate(t) * np.array([-r[1], r[0]])

    sol = solve_ivp(field, (t0, t_end), r0, method="DOP853", rtol=1e-13, atol=1e-13)
    assert sol.success
    return sol.y[:, -1]


@pytest.fixture(scope="module")
def ball(source_dir):
    return dalembert.model_file(source_dir / "models" / "varying-turntable-ball.toml")


STEPS = [20, 40, 80, 160]


@pytest.mark.parametrize("method, order", [("dla", 2), ("mla", 2), ("gf", 2), ("gf-sym", 2), ("gf-cp", 2),
                                           ("fim", 2), ("mclachlan-perlmutter", 2), ("spark", 4), ("rk4", 4)])
def test_the_centre_converges_at_the_method_s_order(ball, method, order):
    assert ball.constraints_depend_on_time
    q0, v0 = np.array(ball.q0), np.array(ball.v0)
    errors = []
    for N in STEPS:
        r = dalembert.run(ball, method, h=T / N, steps=N, every=N)
        errors.append(np.max(np.abs(r.q[-1][:2] - centre(q0, v0, 0.0, T))))
    fitted = np.polyfit(np.log([T / N for N in STEPS]), np.log(errors), 1)[0]
    print(method, ["%.2e" % e for e in errors], "order %.2f" % fitted)
    assert abs(fitted - order) <= (0.3 if order == 4 else 0.15)
    assert errors[-1] < (1e-6 if order == 4 else 1e-3)


def test_the_reference_keeps_c_and_follows_the_table_s_clock(ball):
    r = dalembert.run(ball, "reference", h=0.1, steps=40)
    assert np.max(np.abs(r.q[-1][:2] - centre(ball.q0, ball.v0, 0.0, 4.0))) < 1e-9
    for column in ("c_x", "c_y"):
        assert np.ptp(r.column(column)) < 1e-9, column
    assert np.max(r.column("constraint")) < 1e-10
    # a run from t0 sees the table at t0 + t: restarted from the middle, it continues the first
    half = dalembert.run(ball, "reference", h=0.1, steps=20)
    rest = dalembert.run(ball, "reference", h=0.1, steps=20, q0=half.q[-1], v0=half.v[-1], t0=half.t[-1])
    assert np.max(np.abs(rest.q[-1][:2] - centre(ball.q0, ball.v0, 0.0, 4.0))) < 1e-9
    assert np.max(np.abs(rest.q[-1] - r.q[-1])) < 1e-9


def test_the_exact_flow_shoots_from_each_step_s_time(ball):
    # arcs from t_k = k h keep M v + b(q, t) = 0 and meet the reference with steps of any size;
    # arcs that all started at t = 0 would see the table's rate of t = 0 at every step. The work of
    # the table's force is integrated along the arcs: the energy balance holds to the integration's
    # accuracy (the trapezoidal rule on the rows left it 0.11 off and warned at h = 0.5)
    for h, steps in ((0.5, 8), (0.25, 16)):
        r = dalembert.run(ball, "exact", h=h, steps=steps)
        assert np.max(np.abs(r.q[-1][:2] - centre(ball.q0, ball.v0, 0.0, T))) < 1e-10, h
        assert np.max(r.column("constraint")) < 1e-10, h
        for column in ("c_x", "c_y"):
            assert np.ptp(r.column(column)) < 1e-10, (column, h)
        assert r.summary["max_energy_balance_error"] < 1e-9 and r.warnings == [], h


def test_each_method_keeps_the_constraint_at_its_own_points(ball):
    # the discrete constraints hold at each method's points: M(q) v + b(q, t) = 0 at the step points
    # for mclachlan-perlmutter and spark, up to Newton's tolerance, and for the velocity of the
    # momentum that gf-cp and fim project onto the constraints at t_k, to round-off
    for method in ("mclachlan-perlmutter", "spark", "gf-cp", "fim"):
        r = dalembert.run(ball, method, h=0.05, steps=200)
        assert np.max(r.column("constraint")) < 1e-10, method


def test_methods_that_cannot_take_b_of_t_refuse(ball, source_dir):
    with pytest.raises(dalembert.BadInput, match=r"method discrete-gradient does not take affine constraints of "
                                                 r"the time.*constraints\[0\] \"x_t - r\*ws2 \+ W\*y\""):
        dalembert.run(ball, "discrete-gradient", h=0.1, steps=1)
    steady = dalembert.model_file(source_dir / "models" / "turntable-ball.toml")
    assert not steady.constraints_depend_on_time


def test_only_the_part_without_velocities_may_depend_on_the_time():
    with pytest.raises(dalembert.BadInput, match=r"the coefficient of x_t, \"cos\(t\)\", depends on the time t"):
        dalembert.model(coordinates=["x", "y"], lagrangian="(x_t^2 + y_t^2)/2", constraints=["cos(t)*x_t - y_t"])
    # a holonomic constraint of the time is psi(q) + c(t): a gradient that turns with t is refused
    with pytest.raises(dalembert.BadInput, match=r"its derivative by x, \"-sin\(t\)\", depends on the time t"):
        dalembert.model(coordinates=["x", "y"], lagrangian="(x_t^2 + y_t^2)/2", holonomic=["y*cos(t) - x*sin(t)"])
    # x = t: dla imposes it at each step's end time, while y oscillates freely as cos(t)
    sliding = dalembert.model(coordinates=["x", "y"], lagrangian="(x_t^2 + y_t^2)/2 - y^2/2", holonomic=["x - t"],
                              q0=[0, 1], v0=[1, 0])
    r = dalembert.run(sliding, "dla", h=0.1, steps=30)
    assert np.max(np.abs(r.column("x") - r.column("t"))) < 1e-14
    assert np.max(np.abs(r.column("y") - np.cos(r.column("t")))) < 1e-2
    # a knife edge on a belt whose speed varies, U cos(t): b = -sin(phi) U cos(t), taken; the start
    # slides along the blade relative to the belt, and dla's velocities satisfy the constraint at
    # each step's time
    belt = dalembert.model(coordinates=["x", "y", "phi"], lagrangian="(x_t^2 + y_t^2 + phi_t^2)/2",
                           constraints=["sin(phi)*(x_t - U*cos(t)) - cos(phi)*y_t"], parameters={"U": 0.5},
                           q0=[0, 0, 0.3], v0=[0.5 + np.cos(0.3), np.sin(0.3), 1.0])
    assert belt.constraints_depend_on_time
    r = dalembert.run(belt, "dla", h=0.01, steps=100)
    assert np.max(r.column("constraint")) < 1e-12
