"""Where a run starts and what it records: a restart at t0 continues the clock of a model of t
(--t0, run(t0=)); v0 projected onto the constraints in the kinetic metric (--project-v0,
run(project_v0=True)) or given by n - m named velocities (--v0 x=1,phi=0.2); the model file's text and SHA-256 in the provenance; the version names the
commit; an ensemble's memory does not grow with its samples."""
import hashlib
import json
import os
import pathlib
import signal
import subprocess
import time

import numpy as np
import pytest

import dalembert

# A particle in the plane with an anisotropic metric and the constraint x' + y' = 0: the projection
# of v0 = (1, 0) orthogonal in G = diag(1, 3) is u (1, -1) with u = (1·1 − 3·0)/(1 + 3) = 1/4; the
# Euclidean projection would give u = 1/2.
ANISOTROPIC = """
name = "anisotropic"
coordinates = ["x", "y"]
parameters = { a = 1.0, b = 3.0 }
lagrangian = "a/2*x_t^2 + b/2*y_t^2 - (x^2 + y^2)/2"
constraints = ["x_t + y_t"]
[initial]
q = [0.3, 0.1]
v = [1, -1]
"""


def cli_run(cli, cwd, *args):
    return subprocess.run([cli, "run", *args], capture_output=True, cwd=cwd)


def table(path):
    header, *rows = path.read_text().splitlines()
    return header.split(","), np.array([[float(x) for x in row.split(",")] for row in rows])


def test_a_restart_with_t0_continues_the_clock_of_a_model_of_t(cli, tmp_path):
    """driven-oscillator.toml, L = m x'^2/2 - k x^2/2 + A x cos(W t): rk4's state is (q, v), so a
    restart from row 100 at t0 = t_100 gives the rows of the one run; dla's state is two positions,
    so a restart from (q_100, q_101) gives its positions. Without t0 the driving starts again."""
    assert cli_run(cli, tmp_path, "driven-oscillator", "--method", "rk4", "--h", "0.05", "--steps", "200",
                   "--out", "whole.csv").returncode == 0
    _, whole = table(tmp_path / "whole.csv")
    t, x, v = whole[100, 0], whole[100, 1], whole[100, 2]
    start = ["--q0", repr(x), "--v0", repr(v)]
    r = cli_run(cli, tmp_path, "driven-oscillator", "--method", "rk4", "--h", "0.05", "--steps", "100", *start,
                "--t0", repr(t), "--out", "rest.csv")
    assert r.returncode == 0, r.stderr
    _, rest = table(tmp_path / "rest.csv")
    assert np.abs(rest[:, :3] - whole[100:, :3]).max() <= 1e-13
    assert cli_run(cli, tmp_path, "driven-oscillator", "--method", "rk4", "--h", "0.05", "--steps", "100", *start,
                   "--out", "naive.csv").returncode == 0
    _, naive = table(tmp_path / "naive.csv")
    assert np.abs(naive[:, 1] - whole[100:, 1]).max() > 1e-2  # the clock restarted at 0

    assert cli_run(cli, tmp_path, "driven-oscillator", "--method", "dla", "--h", "0.05", "--steps", "200",
                   "--out", "dla.csv").returncode == 0
    _, dla = table(tmp_path / "dla.csv")
    r = cli_run(cli, tmp_path, "driven-oscillator", "--method", "dla", "--h", "0.05", "--steps", "100",
                "--q0", repr(dla[100, 1]), "--q1", repr(dla[101, 1]), "--t0", repr(dla[100, 0]), "--out", "dla2.csv")
    assert r.returncode == 0, r.stderr
    _, dla2 = table(tmp_path / "dla2.csv")
    assert np.abs(dla2[:, 1] - dla[100:, 1]).max() <= 1e-13
    assert np.abs(dla2[:, 0] - dla[100:, 0]).max() <= 1e-13

    # --t-end is the final time: the run covers [t0, T]
    r = cli_run(cli, tmp_path, "driven-oscillator", "--method", "rk4", "--h", "0.05", "--t-end", "10",
                "--t0", "5", "--out", "-")
    assert r.returncode == 0 and len(r.stdout.decode().splitlines()) == 1 + 101
    r = cli_run(cli, tmp_path, "driven-oscillator", "--method", "rk4", "--h", "0.05", "--t-end", "4", "--t0", "5")
    assert r.returncode == 2 and b"--t-end 4 is not after --t0 5" in r.stderr


def test_python_restart_at_t0_equals_one_run():
    model = dalembert.system("driven-oscillator")
    whole = dalembert.run(model, "rk4", h=0.05, steps=200)
    rest = dalembert.run(model, "rk4", h=0.05, steps=100, q0=whole.q[100], v0=whole.v[100], t0=whole.t[100])
    assert rest.t0 == whole.t[100]
    assert np.abs(rest.q - whole.q[100:]).max() <= 1e-13
    assert np.abs(rest.t - whole.t[100:]).max() <= 1e-13
    later = dalembert.run(model, "rk4", h=0.05, t_end=10.0, q0=whole.q[100], v0=whole.v[100], t0=whole.t[100])
    assert len(later.t) == 101 and later.t[-1] == pytest.approx(10.0, abs=1e-12)
    with pytest.raises(dalembert.BadInput, match=r"t_end=4\.0 is not after t0=5\.0"):
        dalembert.run(model, "rk4", h=0.05, t_end=4.0, t0=5.0)
    with pytest.raises(dalembert.BadInput, match="t0"):
        dalembert.run(model, "rk4", h=0.05, steps=3, t0=float("nan"))


def test_project_v0_is_the_projection_orthogonal_in_the_kinetic_metric(cli, tmp_path):
    (tmp_path / "anisotropic.toml").write_text(ANISOTROPIC)
    r = cli_run(cli, tmp_path, "anisotropic.toml", "--method", "dla", "--h", "0.01", "--steps", "3",
                "--v0", "1,0", "--project-v0", "--out", "r.csv", "--summary", "s.json")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["projected_v0"]["v0"] == pytest.approx([0.25, -0.25], abs=1e-15)
    assert s["projected_v0"]["change"] == pytest.approx(0.75, abs=1e-15)
    assert s["provenance"]["initial"]["project_v0"] is True
    columns, rows = table(tmp_path / "r.csv")
    assert rows[0, columns.index("x_t")] == pytest.approx(0.25, abs=1e-15)
    # without it, the same v0 is refused with its residual in three digits
    r = cli_run(cli, tmp_path, "anisotropic.toml", "--method", "dla", "--h", "0.01", "--steps", "3", "--v0", "1,0")
    assert r.returncode == 2 and b"its value is 1, not 0" in r.stderr
    # the catalogue's knife edge, D = span{(cos phi, sin phi, 0), (0, 0, 1)} with G = diag(m, m, J)
    phi = 0.3
    r = cli_run(cli, tmp_path, "knife-edge", "--method", "dla", "--h", "0.01", "--steps", "3", "--q0", "0,0,0.3",
                "--v0", "1,0.5,0.2", "--project-v0", "--summary", "k.json", "--out", "/dev/null")
    assert r.returncode == 0, r.stderr
    along = np.cos(phi) + 0.5 * np.sin(phi)
    projected = json.loads((tmp_path / "k.json").read_text())["projected_v0"]["v0"]
    np.testing.assert_allclose(projected, [along * np.cos(phi), along * np.sin(phi), 0.2], rtol=0, atol=1e-15)
    # a velocity already in D does not move; a two-point start or a contact system has nothing to project
    r = cli_run(cli, tmp_path, "knife-edge", "--method", "dla", "--h", "0.01", "--steps", "3", "--project-v0",
                "--summary", "d.json", "--out", "/dev/null")
    assert r.returncode == 0 and json.loads((tmp_path / "d.json").read_text())["projected_v0"]["change"] <= 1e-15
    r = cli_run(cli, tmp_path, "knife-edge", "--method", "dla", "--h", "0.01", "--steps", "3", "--project-v0",
                "--q1", "0.01,0,0")
    assert r.returncode == 2 and b"--project-v0 projects v0" in r.stderr
    r = cli_run(cli, tmp_path, "damped-oscillator", "--method", "herglotz", "--h", "0.01", "--steps", "3",
                "--project-v0")
    assert r.returncode == 2 and b"is a contact system" in r.stderr


def test_python_project_v0(tmp_path):
    (tmp_path / "anisotropic.toml").write_text(ANISOTROPIC)
    model = dalembert.model_file(tmp_path / "anisotropic.toml")
    r = dalembert.run(model, "dla", h=0.01, steps=3, v0=[1.0, 0.0], project_v0=True)
    assert r.summary["projected_v0"]["v0"] == pytest.approx([0.25, -0.25], abs=1e-15)
    assert abs(r.v[0, 0] + r.v[0, 1]) <= 1e-15  # in D to round-off


def test_v0_by_name_solves_the_velocities_left_out_from_the_constraints(cli, tmp_path):
    """--v0 x=1,phi=0.2 gives n - m velocities; the others follow from M(q0) v0 = 0. The knife edge
    at phi = 0.3: y' = tan(phi) x'. The vertical disk (x' = R cos(phi) theta', y' = R sin(phi) theta')
    from its rolling and turning rates, and from x' and phi'."""
    phi = 0.3
    r = cli_run(cli, tmp_path, "knife-edge", "--method", "dla", "--h", "0.01", "--steps", "3", "--q0", "0,0,0.3",
                "--v0", "x=1,phi=0.2", "--summary", "k.json", "--out", "k.csv")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "k.json").read_text())
    np.testing.assert_allclose(s["completed_v0"], [1.0, np.tan(phi), 0.2], rtol=1e-15, atol=0)
    assert s["provenance"]["initial"]["v0"] == {"x": 1.0, "phi": 0.2}
    columns, rows = table(tmp_path / "k.csv")
    assert rows[0, columns.index("y_t")] == pytest.approx(np.tan(phi), rel=1e-15)
    # named in another order, from y' instead of x'
    r = cli_run(cli, tmp_path, "knife-edge", "--method", "dla", "--h", "0.01", "--steps", "3", "--q0", "0,0,0.3",
                "--v0", "phi=0.2,y=2", "--summary", "y.json", "--out", "/dev/null")
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(json.loads((tmp_path / "y.json").read_text())["completed_v0"],
                               [2.0 / np.tan(phi), 2.0, 0.2], rtol=1e-15, atol=0)
    # two constraints: the disk's x', y' from its rolling and turning rates, and theta', y' from x'
    R, phi = 0.7, 0.4
    for given, expected in [("theta=1.5,phi=2", [R * np.cos(phi) * 1.5, R * np.sin(phi) * 1.5, 1.5, 2.0]),
                            ("x=1.5,phi=2", [1.5, 1.5 * np.tan(phi), 1.5 / (R * np.cos(phi)), 2.0])]:
        r = cli_run(cli, tmp_path, "vertical-disk", "--method", "dla", "--h", "0.01", "--steps", "3", "--param",
                    "R=0.7", "--q0", "0,0,0,0.4", "--v0", given, "--summary", "d.json", "--out", "/dev/null")
        assert r.returncode == 0, r.stderr
        np.testing.assert_allclose(json.loads((tmp_path / "d.json").read_text())["completed_v0"], expected,
                                   rtol=1e-14, atol=0)
    # a model file: x' + y' = 0
    (tmp_path / "anisotropic.toml").write_text(ANISOTROPIC)
    r = cli_run(cli, tmp_path, "anisotropic.toml", "--method", "dla", "--h", "0.01", "--steps", "3",
                "--v0", "y=0.5", "--summary", "a.json", "--out", "/dev/null")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "a.json").read_text())["completed_v0"] == [-0.5, 0.5]


@pytest.mark.parametrize("system, given, message", [
    ("knife-edge", "x=1", b"--v0 names 1 velocity (x) but knife-edge has 3 coordinates and 1 constraint: name 2"),
    ("knife-edge", "x=1,phj=0.2", b"'phj', which is not a coordinate of knife-edge (x, y, phi) (did you mean 'phi'?)"),
    ("knife-edge", "x=1,x=2", b"--v0: the velocity of 'x' is given twice"),
    ("knife-edge", "x=1,0.2", b"--v0: '0.2' is not of the form name=value"),
    ("knife-edge", "x=1,phi=inf", b"--v0 phi"),
    # at phi = 0 the constraint y' = tan(phi) x' does not give x' from y'
    ("knife-edge", "y=1,phi=0.2", b"do not determine the velocity of x from those of y, phi"),
    ("vertical-disk", "x=1,y=0", b"do not determine the velocities of theta, phi from those of x, y"),
    ("damped-knife-edge", "x=1,phi=0.2", b"is a contact system: give all of v0"),
])
def test_v0_by_name_refuses_what_does_not_name_a_velocity(cli, tmp_path, system, given, message):
    r = cli_run(cli, tmp_path, system, "--method", "dla" if system != "damped-knife-edge" else "herglotz",
                "--h", "0.01", "--steps", "3", "--q0", "0,0,0,0" if system == "vertical-disk" else "0,0,0",
                "--v0", given)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    r = cli_run(cli, tmp_path, "knife-edge", "--method", "dla", "--h", "0.01", "--steps", "3", "--v0", "x=1,phi=0.2",
                "--project-v0")
    assert r.returncode == 2 and b"gives a velocity on them already" in r.stderr, r.stderr


def test_python_v0_by_name(tmp_path):
    r = dalembert.run("knife-edge", "dla", h=0.01, steps=3, q0=[0.0, 0.0, 0.3], v0={"x": 1.0, "phi": 0.2})
    np.testing.assert_allclose(r.v[0], [1.0, np.tan(0.3), 0.2], rtol=1e-15, atol=0)
    assert r.summary["completed_v0"] == pytest.approx([1.0, np.tan(0.3), 0.2], rel=1e-15)
    assert r.summary["provenance"]["initial"]["v0"] == {"x": 1.0, "phi": 0.2}
    with pytest.raises(dalembert.BadInput, match="did you mean 'phi'"):
        dalembert.run("knife-edge", "dla", h=0.01, steps=3, v0={"x": 1.0, "phj": 0.2})
    with pytest.raises(dalembert.BadInput, match="v0 by name must map coordinate names"):
        dalembert.run("knife-edge", "dla", h=0.01, steps=3, v0={})


def test_messages_give_residuals_in_three_digits_and_suggest_methods(cli, tmp_path):
    r = cli_run(cli, tmp_path, "knife-edge", "--method", "dla", "--h", "0.1", "--steps", "3", "--q0", "0,0,0",
                "--v0", "1,1.5e-9,0")
    assert r.returncode == 2 and b"|M(q0) v0| = 1.5e-09" in r.stderr, r.stderr
    r = cli_run(cli, tmp_path, "knife-edge", "--method", "dlaa", "--h", "0.1", "--steps", "3")
    assert r.returncode == 2 and b"unknown method 'dlaa' (did you mean 'dla'?)" in r.stderr, r.stderr


def test_the_provenance_holds_the_model_file_and_its_digest(cli, tmp_path, source_dir):
    path = source_dir / "models" / "knife-edge.toml"
    text = path.read_text()
    r = cli_run(cli, tmp_path, str(path), "--method", "dla", "--h", "0.1", "--steps", "3", "--out", "/dev/null",
                "--summary", "s.json", "--t0", "2.5")
    assert r.returncode == 0, r.stderr
    p = json.loads((tmp_path / "s.json").read_text())["provenance"]
    assert p["model_file"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert p["model_file"]["text"] == text
    assert p["options"]["t0"] == 2.5
    assert "+g" in p["dalembert"]["version"] or p["dalembert"]["commit"] == ""
    r = dalembert.run(str(path), "dla", h=0.1, steps=3)
    assert r.summary["provenance"]["model_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    # the package names the same build as the command line
    version = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout
    assert dalembert.__version__ in version


def peak_memory_kib(cli, cwd, samples):
    """The largest resident set of `dalembert ensemble` over `samples` one-step runs (from wait4)."""
    child = subprocess.Popen([cli, "ensemble", "particle", "--method", "dla", "--h", "0.1", "--steps", "1",
                              "--param-range", "potential=0:1", "--sampling", "random", "--samples", str(samples),
                              "--threads", "2", "--out", "e.csv", "--quiet"], cwd=cwd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, child.stderr.read()
    with open(cwd / "e.csv") as f:
        assert sum(1 for _ in f) == samples + 1
    return usage.ru_maxrss


def test_an_ensemble_s_memory_does_not_grow_with_its_samples(cli, tmp_path):
    """Rows are written a block at a time and samples made when they run: 200 000 samples take no
    more memory than 4 096 (the samples, outcomes and rows of all of them took about 150 MB)."""
    small = peak_memory_kib(cli, tmp_path, 4096)
    large = peak_memory_kib(cli, tmp_path, 200_000)
    assert large - small < 20 * 1024, (small, large)


SNAKEBOARD = (pathlib.Path(__file__).resolve().parents[1] / "data" / "snakeboard.toml").read_text()


def test_a_tolerance_below_round_off_means_to_round_off(cli, tmp_path):
    """--tolerance 1e-30 solves each step to round-off instead of failing: dla at h = 1.5e-5 on the
    snakeboard exited 3 with a residual of 1.7e-13 (issue 50); Newton's test (b) accepts a
    correction at round-off with every residual within its floor (docs/methods.md, Newton solver)."""
    (tmp_path / "snakeboard.toml").write_text(SNAKEBOARD)
    r = cli_run(cli, tmp_path, "snakeboard.toml", "--method", "dla", "--h", "1.5e-5", "--steps", "100000",
                "--every", "100000", "--tolerance", "1e-30", "--summary", "s.json", "--out", "/dev/null")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["status"] == "ok" and s["max_constraint_residual"] <= 1e-12


def test_sigint_ends_an_ensemble_with_the_rows_so_far(cli, tmp_path):
    """SIGINT: no further sample starts, the runs under way end within their step (status
    interrupted), the rows so far are written in sample order, and the exit status is 130."""
    child = subprocess.Popen([cli, "ensemble", "particle", "--method", "dla", "--h", "0.1", "--steps", "1",
                              "--param-range", "potential=0:1", "--sampling", "random", "--samples", "5000000",
                              "--threads", "2", "--out", "e.csv", "--quiet"], cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=30)
    assert child.returncode == 130, err
    assert b"stopped by signal 2" in err and b"solver failed" not in err, err
    header, *rows = (tmp_path / "e.csv").read_text().splitlines()
    assert header.startswith("sample,potential,status")
    assert 0 < len(rows) < 5_000_000
    assert [int(r.split(",")[0]) for r in rows] == list(range(len(rows)))
    assert {r.split(",")[2] for r in rows} <= {"ok", "interrupted"}
