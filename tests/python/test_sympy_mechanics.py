"""Models built from sympy.physics.mechanics objects (frames, points, rigid bodies, dynamicsymbols)
through dalembert.model, against the hand-written files of models/ (docs/python.md, Models from
sympy.physics.mechanics). Both are independent derivations of the same system: sympy's kinematics
from the orientation of frames, the files' from formulas written out by hand."""
import numpy as np
import pytest

import dalembert

sp = pytest.importorskip("sympy")
me = pytest.importorskip("sympy.physics.mechanics")


def rolling_disk():
    """The tilting disk of models/rolling-disk.toml from a heading frame, a tilted frame and the
    disk's frame spinning about its axle; rolling: the material point at the contact is at rest."""
    x, y, theta, phi, psi = me.dynamicsymbols("x y theta phi psi")
    m, R, A, C, g = sp.symbols("m R A C g")
    N = me.ReferenceFrame("N")
    heading = N.orientnew("heading", "Axis", [phi, N.z])
    tilted = heading.orientnew("tilted", "Axis", [theta, heading.x])
    disk_frame = tilted.orientnew("disk", "Axis", [psi, tilted.y])
    origin = me.Point("O")
    centre = origin.locatenew("G", x * N.x + y * N.y + R * tilted.z)
    centre.set_vel(N, centre.pos_from(origin).dt(N))
    disk = me.RigidBody("disk", centre, disk_frame, m, (me.inertia(tilted, A, C, A), centre))
    disk.potential_energy = m * g * centre.pos_from(origin).dot(N.z)
    contact = centre.vel(N) + disk_frame.ang_vel_in(N).cross(-R * tilted.z)
    return dalembert.model(
        name="rolling disk from sympy.physics.mechanics", coordinates=[x, y, theta, phi, psi],
        lagrangian=me.Lagrangian(N, disk), constraints=[contact.dot(N.x), contact.dot(N.y)],
        parameters={"m": 1.0, "R": 1.0, "A": 0.25, "C": 0.5, "g": 1.0}, q0=[0, 0, 0.3, 0, 0], v0=[2, 0, 0.1, 0.5, 2])


def chaplygin_ball():
    """models/chaplygin-ball.toml from a frame oriented by a quaternion: sympy's angular velocity and
    rotation instead of the file's formulas."""
    x, y, qw, qx, qy, qz = me.dynamicsymbols("x y qw qx qy qz")
    m, r, I1, I2, I3, J0 = sp.symbols("m r I1 I2 I3 J0")
    N = me.ReferenceFrame("N")
    body = N.orientnew("B", "Quaternion", [qw, qx, qy, qz])
    origin = me.Point("O")
    centre = origin.locatenew("G", x * N.x + y * N.y + r * N.z)
    centre.set_vel(N, centre.pos_from(origin).dt(N))
    ball = me.RigidBody("ball", centre, body, m, (me.inertia(body, I1, I2, I3), centre))
    radial_rate = sum(q * q.diff() for q in (qw, qx, qy, qz))
    contact = centre.vel(N) + body.ang_vel_in(N).cross(-r * N.z)
    return dalembert.model(
        name="Chaplygin's ball from sympy.physics.mechanics", coordinates=[x, y, qw, qx, qy, qz],
        lagrangian=me.Lagrangian(N, ball) + 2 * J0 * radial_rate**2,
        constraints=[contact.dot(N.x), contact.dot(N.y)], holonomic=[qw**2 + qx**2 + qy**2 + qz**2 - 1],
        parameters={"m": 1.0, "r": 1.0, "I1": 0.4, "I2": 0.5, "I3": 0.6, "J0": 1.0},
        q0=[0, 0, 1, 0, 0, 0], v0=[0.3, -1, 0, 0.5, 0.15, 0.4])


def test_the_rolling_disk_from_bodies_and_frames_is_the_model_file(source_dir):
    # The same L and constraints in other algebraic forms: the runs differ by round-off (5e-14 and
    # 1.3e-13 over these 1000 steps).
    built, written = rolling_disk(), dalembert.model_file(source_dir / "models" / "rolling-disk.toml")
    for method in ("dla", "mla", "rk4"):
        a = dalembert.run(built, method, h=0.01, steps=1000)
        b = dalembert.run(written, method, h=0.01, steps=1000)
        assert np.max(np.abs(a.q - b.q)) < 1e-12, method
        assert np.max(np.abs(a.v - b.v)) < 1e-12, method


def test_chaplygin_s_ball_from_a_quaternion_frame_is_the_model_file(source_dir):
    # The two models agree on |q| = 1 only (sympy's rotation is written for a unit quaternion, the
    # file's is another form): the reference solver, which keeps |q| = 1 to 1e-12, gives the same
    # motion to 1e-13 over t = 10; DLA, whose midpoints lie inside the sphere, gives two
    # discretisations whose difference falls as h^2 (4.0e-4 and 9.9e-5 at t = 5).
    built, written = chaplygin_ball(), dalembert.model_file(source_dir / "models" / "chaplygin-ball.toml")
    a = dalembert.run(built, "reference", h=0.1, t_end=10)
    b = dalembert.run(written, "reference", h=0.1, t_end=10)
    assert np.max(np.abs(a.q - b.q)) < 1e-10 and np.max(np.abs(a.v - b.v)) < 1e-10
    differences = []
    for h in (0.05, 0.025):
        a = dalembert.run(built, "dla", h=h, t_end=5)
        b = dalembert.run(written, "dla", h=h, t_end=5)
        differences.append(np.max(np.abs(a.q[-1] - b.q[-1])))
    assert np.log2(differences[0] / differences[1]) == pytest.approx(2.0, abs=0.2)


def test_dynamicsymbols_other_than_the_coordinates_are_refused():
    x, y = me.dynamicsymbols("x y")
    with pytest.raises(TypeError, match=r"lagrangian: y\(t\) is not a coordinate or its velocity"):
        dalembert.model(coordinates=[x], lagrangian=x.diff() ** 2 / 2 + y)
    with pytest.raises(TypeError, match=r"lagrangian: Derivative\(x\(t\), \(t, 2\)\) is not a coordinate"):
        dalembert.model(coordinates=[x], lagrangian=x.diff() ** 2 / 2 + x.diff().diff())
