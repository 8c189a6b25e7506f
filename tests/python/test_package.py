"""The package's API: the catalogue and methods as the command line lists them, systems and their
descriptions, models from strings and sympy, and the errors, each with its message."""
import json
import subprocess

import numpy as np
import pytest
import sympy as sp

import dalembert


def cli_json(cli, *args):
    return json.loads(subprocess.run([cli, *args], capture_output=True, text=True, check=True).stdout)


def cli_names(cli):
    out = subprocess.run([cli, "list", "--names"], capture_output=True, text=True, check=True).stdout
    systems, methods, _model_files = out.split("\n\n")
    return systems.split()[1:], methods.split()[1:]


def test_systems_and_methods_are_those_of_the_command_line(cli):
    systems, methods = cli_names(cli)
    assert list(dalembert.systems()) == systems
    assert list(dalembert.methods()) == methods
    assert all(d for d in dalembert.systems().values())
    assert dalembert.methods()["dla"].endswith("]")


def test_a_system_describes_itself_as_describe_json_does(cli):
    knife = dalembert.system("knife-edge", g=2.0)
    d = cli_json(cli, "describe", "knife-edge", "--json", "--param", "g=2")
    assert knife.name == d["name"]
    assert knife.coordinates == d["coordinates"] and knife.velocities == d["velocities"]
    assert knife.parameters == d["parameters"]
    assert knife.q0 == d["initial"]["q"] and knife.v0 == d["initial"]["v"]
    assert knife.constraints == d["constraints"] == 1
    assert knife.z0 is None
    assert knife.with_parameters(m=3.0).parameters == dict(d["parameters"], m=3.0)


def test_a_contact_system_has_an_initial_action():
    oscillator = dalembert.system("damped-oscillator")
    assert oscillator.z0 is not None
    r = dalembert.run(oscillator, "herglotz", h=0.1, steps=10)
    assert r.z is not None and r.z.shape == (11,)
    assert r.z[0] == oscillator.z0


def test_result_arrays_have_the_documented_shapes():
    r = dalembert.run("knife-edge", "dla", h=0.1, steps=20, every=5)
    assert r.columns[:4] == ["t", "x", "y", "phi"]
    assert r.t.tolist() == pytest.approx([0, 0.5, 1.0, 1.5, 2.0], abs=1e-15)
    assert r.q.shape == r.v.shape == r.p.shape == (5, 3)
    assert r.lam.shape == (5, 1) and np.isnan(r.lam[0, 0]) and np.all(np.isfinite(r.lam[1:]))
    assert r.energy.shape == r.constraint.shape == (5,)
    assert np.array_equal(r.q[:, 2], r.column("phi"))
    assert r.summary["status"] == "ok" and r.summary["steps"] == 20 and r.warnings == []
    # rk4 carries neither a momentum nor multipliers
    rk4 = dalembert.run("knife-edge", "rk4", h=0.1, steps=2)
    assert rk4.p is None and rk4.lam is None


def test_the_summary_s_provenance_runs_the_run_again():
    knife = dalembert.system("knife-edge", g=0.7)
    first = dalembert.run(knife, "gf-sym", h=0.05, steps=30, alpha=0.25, v0=[1, 0, 0.5])
    p = first.summary["provenance"]
    assert p["dalembert"]["version"] == dalembert.__version__ and p["system"] == "knife-edge"
    assert p["parameters"] == {"m": 1.0, "J": 1.0, "g": 0.7, "k": 0.0}
    assert p["initial"] == {"q0": [0.0, 0.0, 0.0], "v0": [1.0, 0.0, 0.5]}
    assert p["options"]["alpha"] == 0.25 and p["options"]["method"] == "gf-sym" and p["options"]["steps"] == 30
    options = {k: p["options"][k] for k in ("h", "steps", "every", "alpha", "rule", "tolerance", "max_iterations")}
    again = dalembert.run(dalembert.system(p["system"], **p["parameters"]), p["options"]["method"],
                          q0=p["initial"]["q0"], v0=p["initial"]["v0"], **options)
    assert np.array_equal(again.data, first.data)


def test_a_model_s_provenance_is_its_model_file(cli, tmp_path):
    """A run of a model made in Python records the model's text: as a file, the command line runs it."""
    spring = dalembert.model(name="spring", coordinates=["x"], lagrangian="x_t^2/2 - k*x^2/2", parameters={"k": 2.0},
                             q0=[1], v0=[0])
    r = dalembert.run(spring, "dla", h=0.1, steps=20)
    path = tmp_path / "spring.toml"
    path.write_text(r.summary["provenance"]["model"])
    out = subprocess.run([cli, "run", str(path), "--method", "dla", "--h", "0.1", "--steps", "20", "--quiet"],
                         capture_output=True, text=True, check=True).stdout
    last = [float(x) for x in out.strip().splitlines()[-1].split(",")]
    assert last == r.data[-1].tolist()


def test_t_end_must_be_a_multiple_of_h():
    assert dalembert.run("particle", h=0.1, t_end=1).summary["steps"] == 10
    with pytest.raises(dalembert.BadInput, match=r"t_end=1\.05 is not a multiple of h=0\.1"):
        dalembert.run("particle", h=0.1, t_end=1.05)
    with pytest.raises(dalembert.BadInput, match="exactly one of steps and t_end"):
        dalembert.run("particle", h=0.1, steps=3, t_end=1)


@pytest.mark.parametrize("arguments, message", [
    (dict(h=-0.1, steps=3), r"h must be positive, got -0\.1"),
    (dict(h=float("nan"), steps=3), r"h must be a finite number, got nan"),
    (dict(h=0.1, steps=-1), r"steps must be a whole number from 0 to \d+, got -1"),
    (dict(h=0.1, steps=2.5), r"steps must be a whole number .* got 2\.5"),
    (dict(h=0.1, steps=3, every=0), r"every must be a whole number from 1 .* got 0"),
    (dict(h=0.1, steps=3, q0=[1, 2]), r"q0 must be 3 number\(s\), one per coordinate, got \[1, 2\]"),
    (dict(h=0.1, steps=3, v0=[0, 0, float("inf")]), r"v0 must be finite"),
    (dict(h=0.1, steps=3, alpha=1.5), r"alpha must lie in \[0, 1\], got 1\.5"),
    (dict(h=0.1, steps=3, rule="simpson"), r"rule must be one of alpha, trapezoid, exponential, got 'simpson'"),
    (dict(h=0.1, steps=3, tolerance=0), r"tolerance must be positive, got 0"),
    (dict(h=0.1, steps=3, max_iterations=0), r"max_iterations must be a whole number from 1 to 1000, got 0"),
    # beyond the doubles (OverflowError before), complex (its real part was taken silently)
    (dict(h=10**400, steps=3), r"h must be a finite number"),
    (dict(h=0.1, t_end=10**400), r"t_end must be a finite number"),
    (dict(h=0.1, steps=3, q0=[1j, 0, 0]), r"q0 must be real numbers, got \[1j, 0, 0\]"),
    (dict(h=0.1, steps=3, v0=np.array([1 + 0j, 0, 0])), r"v0 must be real numbers"),
    (dict(h=0.1, steps=3, v0=[10**400, 0, 0]), r"v0 must be 3 number\(s\)"),
])
def test_bad_values_are_bad_input_naming_the_value(arguments, message):
    with pytest.raises(dalembert.BadInput, match=message) as error:
        dalembert.run("knife-edge", "dla", **arguments)
    assert isinstance(error.value, ValueError)


def test_every_method_option_is_checked_against_its_one_description():
    # the table the command line's flags also come from (io/method_options.hpp)
    table = dalembert._core.method_options()
    defaults = dalembert._core.default_options()
    assert sorted(d["name"] for d in table) == sorted(set(defaults) - {"reference_tolerance"})
    r = dalembert.run("knife-edge", "dla", h=0.1, steps=2)
    for d in table:
        name = d["name"]
        assert r.summary["provenance"]["options"][name] == defaults[name]
        if d["kind"] == "choice":
            bad, accepted = "bogus", d["choices"][-1]
        elif d["kind"] == "whole":
            bad, accepted = int(d["high"]) + 1, int(d["low"])
        else:
            bad = d["low"] if d["high"] == float("inf") else d["high"] * 10 + 1
            accepted = d["high"] if d["high"] != float("inf") else 1e-10
        with pytest.raises(dalembert.BadInput, match=r"^%s must .*, got %r$" % (name, bad)):
            dalembert.run("knife-edge", "dla", h=0.1, steps=2, **{name: bad})
        # the C++ layer checks the same value against the same description (and accepts it)
        options = dict(defaults, method="dla", h=0.1, steps=2, every=1)
        options[name] = accepted
        dalembert._core.check_run_options(options)
        options[name] = bad
        with pytest.raises(dalembert.BadInput, match=r"^%s: " % name):
            dalembert._core.check_run_options(options)


def test_numbers_beyond_the_doubles_are_bad_input_everywhere():
    with pytest.raises(dalembert.BadInput, match=r"parameter g must be a finite number"):
        dalembert.system("knife-edge", g=10**400)
    with pytest.raises(dalembert.BadInput, match=r"parameter k must be a finite number"):
        dalembert.model(coordinates=["x"], lagrangian="0.5*x_t^2 - k*x^2", parameters={"k": 10**400})


def test_the_library_s_own_checks_are_bad_input_too():
    with pytest.raises(dalembert.BadInput, match=r"unknown system 'nope' \(known: particle, "):
        dalembert.system("nope")
    with pytest.raises(dalembert.BadInput, match=r"unknown parameter 'mass' for system knife-edge \(known: m, J, g, k\)"):
        dalembert.system("knife-edge", mass=2)
    with pytest.raises(dalembert.BadInput, match=r"unknown method 'dlb' \(known: del, dla, "):
        dalembert.run("knife-edge", "dlb", h=0.1, steps=1)
    with pytest.raises(dalembert.BadInput, match="violates"):  # v0 off the constraint x_t sin(phi) = y_t cos(phi)
        dalembert.run("knife-edge", "dla", h=0.1, steps=1, q0=[0, 0, 0], v0=[0, 1, 0])
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) alpah"):
        dalembert.run("knife-edge", "dla", h=0.1, steps=1, alpah=0.5)


def test_a_solver_failure_keeps_the_rows_computed_before_it():
    # the sleigh needs three Newton iterations per step: with one, step 1 fails
    with pytest.raises(dalembert.SolverError, match=r"step 1.*kept 0 completed step\(s\)") as error:
        dalembert.run("chaplygin-sleigh", "dla", h=0.1, steps=10, max_iterations=1)
    assert isinstance(error.value, RuntimeError)
    failed = error.value.result
    assert failed.status == "solver-failure" and failed.summary["steps"] == 0
    assert failed.q.shape == (1, 3) and failed.q[0].tolist() == dalembert.system("chaplygin-sleigh").q0
    # L = x_t^2/2 + x^4/4 blows up in finite time: step 12 has no solution, after 11 good ones
    blow_up = dalembert.model(name="blow-up", coordinates=["x"], lagrangian="x_t^2/2 + x^4/4", q0=[1], v0=[1])
    with pytest.raises(dalembert.SolverError, match=r"failed at step 12.*kept 11 completed step\(s\)") as error:
        dalembert.run(blow_up, "dla", h=0.1, steps=40, every=5)
    rows = error.value.result
    assert rows.summary["steps"] == 11
    assert rows.t.tolist() == pytest.approx([0, 0.5, 1.0, 1.1], abs=1e-15)  # every 5th and the last good row


def test_a_model_from_strings_and_from_sympy_run_the_same():
    strings = dalembert.model(
        name="knife edge", coordinates=["x", "y", "phi"], parameters={"g": (1.0, "gravity")},
        lagrangian="0.5*(x_t^2 + y_t^2 + phi_t^2) + g*x/2", constraints=["sin(phi)*x_t - cos(phi)*y_t"],
        q0=[0, 0, 0], v0=[1, 0, 0.5])
    x, phi, x_t, y_t, phi_t, g = sp.symbols("x phi x_t y_t phi_t g")
    symbolic = dalembert.model(
        name="knife edge", coordinates=["x", "y", "phi"], parameters={"g": 1.0},
        lagrangian=sp.Rational(1, 2) * (x_t**2 + y_t**2 + phi_t**2) + g * x / 2,
        constraints=[sp.sin(phi) * x_t - sp.cos(phi) * y_t], q0=[0, 0, 0], v0=[1, 0, 0.5])
    assert strings.parameter_descriptions == {"g": "gravity"}
    a = dalembert.run(strings, h=0.1, steps=100)
    b = dalembert.run(symbolic, h=0.1, steps=100)
    assert np.max(np.abs(a.q - b.q)) < 1e-13
    # the catalogue's knife edge (L = m/2 (x_t^2 + y_t^2) + J/2 phi_t^2 + m g x) with g = 1/2
    c = dalembert.run(dalembert.system("knife-edge", g=0.5), h=0.1, steps=100, q0=[0, 0, 0], v0=[1, 0, 0.5])
    assert np.max(np.abs(a.q - c.q)) < 1e-12


def test_a_model_s_mistakes_are_bad_input_naming_the_key():
    with pytest.raises(dalembert.BadInput, match=r"lagrangian: unknown symbol 'c'"):
        dalembert.model(coordinates=["x"], lagrangian="x_t^2/2 + c*x")
    with pytest.raises(dalembert.BadInput, match=r"constraints\[0\]: not linear in the velocities"):
        dalembert.model(coordinates=["x", "y"], lagrangian="(x_t^2 + y_t^2)/2", constraints=["x_t^2"])
    # names and text are encoded: quotes, newlines and TOML syntax in them stay text
    with pytest.raises(dalembert.BadInput, match=r"(?s)coordinate .x\"\].*is not a name"):
        dalembert.model(coordinates=['x"]\nlagrangian = "1'], lagrangian="x_t^2/2")
    with pytest.raises(dalembert.BadInput, match=r"parameter k must be a number"):
        dalembert.model(coordinates=["x"], lagrangian="x_t^2/2 + k*x", parameters={"k": "1; rm -rf /"})
    with pytest.raises(TypeError, match=r"q0\[0\] must be a number, got True"):
        dalembert.model(coordinates=["x"], lagrangian="x_t^2/2", q0=[True])


def test_a_model_with_a_holonomic_constraint_and_definitions(source_dir):
    # The pendulum of models/pendulum-cartesian.toml: its bob's radius squared as a definition
    pendulum = dalembert.model(
        name="pendulum", coordinates=["x", "y"], parameters={"l": 1.0}, lagrangian="(x_t^2 + y_t^2)/2 - y",
        holonomic=["r2 - l^2"], definitions={"r2": "x^2 + y^2"}, q0=["l*sin(1)", "-l*cos(1)"], v0=[0, 0])
    assert pendulum.constraints == 1
    a = dalembert.run(pendulum, "dla", h=0.01, steps=1000)
    b = dalembert.run(dalembert.model_file(source_dir / "models" / "pendulum-cartesian.toml"), "dla", h=0.01,
                      steps=1000)
    assert np.max(np.abs(a.q - b.q)) < 1e-13
    assert np.max(np.abs(a.column("holonomic_0"))) < 1e-13  # the midpoint keeps a quadratic phi exactly
    with pytest.raises(dalembert.BadInput, match=r"initial.q = \(1, 1\) violates holonomic\[0\]"):
        dalembert.model(coordinates=["x", "y"], lagrangian="(x_t^2 + y_t^2)/2", holonomic=["x^2 + y^2 - 1"],
                        q0=[1, 1])
    with pytest.raises(dalembert.BadInput, match=r"definitions.r: unknown symbol 's': a definition may use only"):
        dalembert.model(coordinates=["x"], lagrangian="x_t^2/2 - r", definitions={"r": "s*x", "s": "2"})


def test_a_model_with_affine_constraints(source_dir):
    # A knife edge on a conveyor belt that moves at c along x: its velocity relative to the belt is
    # along the blade, sin(phi)*(x_t - c) - cos(phi)*y_t = 0, whose part without velocities,
    # -c*sin(phi), is derived. The belt's frame is inertial, and there the knife edge keeps its speed
    # along the blade: started at rest on the belt and turning, it moves with the belt, x = c t,
    # y = 0, phi = t. Each method that takes the constraint keeps that to round-off; with M v = 0 in
    # place of the affine constraint the blade would steer it off the x axis.
    belt = dalembert.model(
        name="belt", coordinates=["x", "y", "phi"], parameters={"c": 0.5}, lagrangian="(x_t^2 + y_t^2 + phi_t^2)/2",
        constraints=["sin(phi)*(x_t - c) - cos(phi)*y_t"], q0=[0, 0, 0], v0=["c", 0, 1])
    for method in ("reference", "dla", "mla", "gf", "mclachlan-perlmutter", "spark", "rk4"):
        r = dalembert.run(belt, method, h=0.1, steps=50)
        assert np.max(np.abs(r.v[:, 0] - 0.5)) < 1e-13 and np.max(np.abs(r.v[:, 1])) < 1e-13, method
        assert np.max(np.abs(r.q[:, 0] - 0.5 * r.t)) < 1e-12 and np.max(np.abs(r.q[:, 2] - r.t)) < 1e-12, method
    with pytest.raises(dalembert.BadInput, match=r"initial.v = \(0, 0, 0\) violates constraints\[0\]"):
        dalembert.model(coordinates=["x", "y", "phi"], lagrangian="(x_t^2 + y_t^2 + phi_t^2)/2",
                        constraints=["sin(phi)*(x_t - 1) - cos(phi)*y_t + 1"], q0=[0, 0, 0], v0=[0, 0, 0])
    with pytest.raises(dalembert.BadInput, match=r"method discrete-gradient does not take affine constraints"):
        dalembert.run(belt, "discrete-gradient", h=0.1, steps=1)
    turntable = dalembert.run(dalembert.model_file(source_dir / "models" / "turntable-ball.toml"), "reference", h=0.1,
                              steps=100)
    for column in ("circle_x", "circle_y", "speed"):
        assert np.ptp(turntable.column(column)) < 1e-10, column


def test_a_model_from_bodies_and_contacts(source_dir):
    # The disk of models/rolling-disk-from-bodies.toml, with sympy expressions: a body and the rim
    # of radius R about its third axis rolling on z = 0; the hand-written models/rolling-disk.toml's
    # trajectory to round-off.
    sp = pytest.importorskip("sympy")
    x, y, theta, phi, psi, R = sp.symbols("x y theta phi psi R")
    disk = dalembert.model(
        name="disk", coordinates=["x", "y", "theta", "phi", "psi"],
        parameters={"m": 1.0, "R": 1.0, "A": 0.25, "C": 0.5, "g": 1.0}, gravity="g",
        bodies=[{"name": "disk", "mass": "m", "inertia": ["A", "A", "C"],
                 "position": [x + R * sp.sin(theta) * sp.sin(phi), y - R * sp.sin(theta) * sp.cos(phi),
                              R * sp.cos(theta)],
                 "euler": [phi, sp.pi / 2 + theta, -psi]}],
        contacts=[{"body": "disk", "rim": "R", "axis": 3}],
        q0=[0, 0, 0.3, 0, 0], v0=["2*R", 0, 0.1, 0.5, 2])
    assert disk.constraints == 2
    a = dalembert.run(disk, "dla", h=0.02, steps=500)
    b = dalembert.run(dalembert.model_file(source_dir / "models" / "rolling-disk.toml"), "dla", h=0.02, steps=500)
    assert np.max(np.abs(a.q - b.q)) < 1e-12
    # The same disk as its spin hinged to a massless frame that carries its heading and tilt (a
    # hinge as a dict, its angle a sympy expression)
    hinged = dalembert.model(
        name="hinged disk", coordinates=["x", "y", "theta", "phi", "psi"],
        parameters={"m": 1.0, "R": 1.0, "A": 0.25, "C": 0.5, "g": 1.0}, gravity="g",
        bodies=[{"name": "frame", "mass": 0, "inertia": [0, 0, 0],
                 "position": [x + R * sp.sin(theta) * sp.sin(phi), y - R * sp.sin(theta) * sp.cos(phi),
                              R * sp.cos(theta)],
                 "euler": [phi, sp.pi / 2 + theta, 0]},
                {"name": "disk", "mass": "m", "inertia": ["A", "A", "C"], "parent": "frame",
                 "hinge": {"axis": [0, 0, 1], "angle": -psi}}],
        contacts=[{"body": "disk", "rim": "R", "axis": 3}],
        q0=[0, 0, 0.3, 0, 0], v0=["2*R", 0, 0.1, 0.5, 2])
    assert np.max(np.abs(dalembert.run(hinged, "dla", h=0.02, steps=500).q - b.q)) < 1e-12
    # A slider as a dict: a sleeve on a rod turning freely about the vertical, against its
    # hand-written Lagrangian (CliModelFiles.SlidersJoinBodies)
    parameters = {"J": 0.5, "m": 2.0, "c": 0.2, "Ic": 0.05}
    r = sp.Symbol("r")
    sleeve = dalembert.model(
        name="sleeve", coordinates=["phi", "r"], parameters=parameters, q0=[0, 1], v0=[1, 0.2],
        bodies=[{"name": "rod", "mass": 1, "inertia": [0.1, 0.1, "J"], "position": [0, 0, 0], "euler": [phi, 0, 0]},
                {"name": "sleeve", "mass": "m", "inertia": [0.01, 0.02, "Ic"], "parent": "rod",
                 "slider": {"axis": [1, 0, 0], "distance": r, "at": [0, "c", 0]}}])
    by_hand = dalembert.model(
        name="sleeve by hand", coordinates=["phi", "r"], parameters=parameters, q0=[0, 1], v0=[1, 0.2],
        lagrangian="(J + Ic)/2*phi_t^2 + m/2*(r_t^2 + (r^2 + c^2)*phi_t^2 - 2*c*r_t*phi_t)")
    assert np.max(np.abs(dalembert.run(sleeve, "dla", h=0.02, steps=200).q
                         - dalembert.run(by_hand, "dla", h=0.02, steps=200).q)) < 1e-12
    # Chaplygin's ball as a body in a unit quaternion: two rolling constraints and the norm's
    ball = dalembert.model(
        name="ball", coordinates=["x", "y", "qw", "qx", "qy", "qz"],
        bodies=[{"name": "ball", "mass": 1, "inertia": [0.4, 0.5, 0.6], "position": ["x", "y", 1],
                 "quaternion": ["qw", "qx", "qy", "qz"]}],
        contacts=[{"body": "ball", "sphere": 1}], q0=[0, 0, 1, 0, 0, 0], v0=[0.3, -1, 0, 0.5, 0.15, 0.4])
    assert ball.constraints == 3
    c = dalembert.run(ball, "dla", h=0.02, steps=200)
    d = dalembert.run(dalembert.model_file(source_dir / "models" / "chaplygin-ball.toml", J0=0.5), "dla", h=0.02,
                      steps=200)
    assert np.max(np.abs(c.q - d.q)) < 1e-12
    with pytest.raises(dalembert.BadInput, match=r"contact 1: no body named 'wheel' among \[\[bodies\]\]"):
        dalembert.model(coordinates=["x"], bodies=[{"name": "disk", "mass": 1, "inertia": [1, 1, 1],
                                                     "position": ["x", 0, 1], "euler": [0, 0, 0]}],
                        contacts=[{"body": "wheel", "sphere": 1}])


def test_a_model_with_a_ball_joint_and_a_loop():
    # A ball joint as a dict, its Euler angles sympy symbols: Lagrange's heavy top on a fixed point
    # against its hand-written Lagrangian (CliModelFiles.BallJointsJoinBodies)
    sp = pytest.importorskip("sympy")
    phi, theta, psi = sp.symbols("phi theta psi")
    top = {"m": 1.5, "A": 0.2, "C": 0.4, "l": 0.3, "g": 9.81}
    start = {"q0": [0, 0.4, 0], "v0": [0.3, 0.1, 20]}
    on_a_ball = dalembert.model(
        name="top", coordinates=["phi", "theta", "psi"], parameters=top, gravity="g", **start,
        bodies=[{"name": "support", "mass": 0, "inertia": [0, 0, 0], "position": [0, 0, 0], "euler": [0, 0, 0]},
                {"name": "top", "mass": "m", "inertia": ["A", "A", "C"], "parent": "support",
                 "ball": {"centre": [0, 0, "l"]}, "euler": [phi, theta, psi]}])
    lagrange = dalembert.model(
        name="lagrange top", coordinates=["phi", "theta", "psi"], parameters=top, **start,
        lagrangian="(A + m*l^2)/2*(theta_t^2 + sin(theta)^2*phi_t^2) + C/2*(psi_t + cos(theta)*phi_t)^2"
                   " - m*g*l*cos(theta)")
    assert np.max(np.abs(dalembert.run(on_a_ball, "dla", h=0.02, steps=200).q
                         - dalembert.run(lagrange, "dla", h=0.02, steps=200).q)) < 1e-12
    # A loop: the parallelogram four-bar of CliModelFiles.LoopsCloseChainsOfJoints, its coupler's far
    # end held at the right crank's tip along x and z, keeps a = c = -b and its loop closed
    four_bar = dalembert.model(
        name="four-bar", coordinates=["a", "b", "c"], gravity=9.81, q0=[0.5, -0.5, 0.5], v0=[1, -1, 1],
        bodies=[{"name": "ground", "mass": 0, "inertia": [0, 0, 0], "position": [0, 0, 0], "euler": [0, 0, 0]},
                {"name": "left", "mass": 1, "inertia": [0.02] * 3, "parent": "ground",
                 "hinge": {"axis": [0, 1, 0], "angle": "a", "centre": [0, 0, -0.25]}},
                {"name": "coupler", "mass": 2, "inertia": [0.01, 0.05, 0.05], "parent": "left",
                 "hinge": {"axis": [0, 1, 0], "angle": "b", "at": [0, 0, -0.5], "centre": [0.4, 0, 0]}},
                {"name": "right", "mass": 1, "inertia": [0.02] * 3, "parent": "ground",
                 "hinge": {"axis": [0, 1, 0], "angle": "c", "at": [0.8, 0, 0], "centre": [0, 0, -0.25]}}],
        loops=[{"points": [{"body": "coupler", "at": [0.8, 0, 0]}, {"body": "right", "at": [0, 0, -0.5]}],
                "axes": [1, 3]}])
    assert four_bar.constraints == 2
    r = dalembert.run(four_bar, "dla", h=0.02, steps=200)
    assert np.max(np.abs(r.q[:, 0] + r.q[:, 1])) < 1e-12 and np.max(np.abs(r.q[:, 0] - r.q[:, 2])) < 1e-12
    assert np.max(np.abs(r.column("holonomic_0"))) < 1e-14 and np.max(np.abs(r.column("holonomic_1"))) < 1e-14
    with pytest.raises(dalembert.BadInput, match=r"loop 1: no body named 'rite' among \[\[bodies\]\]"):
        dalembert.model(coordinates=["a"], bodies=[{"name": "rod", "mass": 1, "inertia": [1, 1, 1],
                                                    "position": [0, 0, 0], "euler": ["a", 0, 0]}],
                        loops=[{"points": [{"body": "rod", "at": [1, 0, 0]}, {"body": "rite", "at": [0, 0, 0]}]}])


def test_a_model_file_takes_parameters_by_keyword(source_dir):
    disk = dalembert.model_file(source_dir / "models" / "rolling-disk.toml", C=0.6)
    assert disk.n == 5 and disk.constraints == 2 and disk.parameters["C"] == 0.6
    assert dalembert.run(disk, h=0.01, steps=10).summary["max_constraint_residual"] < 1e-14


def test_a_steady_motion_s_eigenvalues_are_those_of_the_command_line(cli, source_dir):
    # The sleigh sliding straight backwards at speed 1: 0.4 (= m a u / (I + m a^2)), 0, 0.
    sleigh = dalembert.system("chaplygin-sleigh")
    s = sleigh.steady_motion(q0=[0, 0, 0], v0=[-1, 0, 0])
    assert s.symmetric == ["x", "y"]
    assert s.eigenvalues.dtype == complex and s.eigenvalues.shape == (3,) and s.on_constraint.shape == (3, 3)
    assert abs(s.eigenvalues[0] - 0.4) < 1e-12 and np.all(np.abs(s.eigenvalues[1:]) < 1e-12)
    j = cli_json(cli, "steady", "chaplygin-sleigh", "--q0", "0,0,0", "--v0", "-1,0,0", "--json")
    assert np.array_equal(s.eigenvalues, [complex(re, im) for re, im in j["eigenvalues"]])
    # the same from its model file, whose symmetric coordinates are named
    from_file = dalembert.model_file(str(source_dir / "models" / "chaplygin-sleigh.toml"))
    f = from_file.steady_motion(q0=[0, 0, 0], v0=[-1, 0, 0], symmetric=["x", "y"])
    assert np.max(np.abs(f.eigenvalues - s.eigenvalues)) < 1e-12
    with pytest.raises(dalembert.BadInput, match="declares no symmetric"):
        from_file.steady_motion(q0=[0, 0, 0], v0=[-1, 0, 0])
    with pytest.raises(dalembert.BadInput, match="not a steady motion: the velocity of coordinate 2 is 0.5"):
        sleigh.steady_motion(q0=[0, 0, 0], v0=[1, 0, 0.5])
    with pytest.raises(dalembert.BadInput, match="symmetric must be a list of coordinate names"):
        sleigh.steady_motion(q0=[0, 0, 0], v0=[1, 0, 0], symmetric="x")
