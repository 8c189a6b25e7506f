"""compare, convergence and ensemble from Python: each checked against single runs, closed forms and
the command line's ensembles."""
import csv
import io
import subprocess

import numpy as np
import pytest

import dalembert


def test_convergence_fits_the_order_and_its_errors_are_those_of_single_runs():
    oscillator = dalembert.system("harmonic-oscillator")
    study = dalembert.convergence(oscillator, "dla", h=[0.1, 0.05, 0.025, 0.0125], t_end=2.0)
    assert study.reference == "closed form"
    assert study.order == pytest.approx(2.0, abs=0.05)
    assert study.fitted.all() and study.failure == ""
    for h, steps, error in zip(study.h, study.steps, study.error):
        run = dalembert.run(oscillator, "dla", h=h, steps=steps, every=steps)
        assert error == pytest.approx(np.max(np.abs(run.q[-1] - oscillator.exact(2.0))), rel=1e-12)
    with pytest.raises(dalembert.BadInput, match="0.3"):
        dalembert.convergence(oscillator, "dla", h=[0.3, 0.1], t_end=1.0)  # 0.3 does not divide 1


def test_compare_tables_errors_against_the_closed_form():
    knife = dalembert.system("knife-edge")
    c = dalembert.compare(knife, ["dla", "rk4"], h=0.1, t_end=5)
    assert c.reference == "closed form" and c.reference_failure == ""
    assert c.columns == ["t", "dla:energy_error", "dla:constraint", "dla:error",
                         "rk4:energy_error", "rk4:constraint", "rk4:error"]
    assert [s["method"] for s in c.summaries] == ["dla", "rk4"]
    for method in ("dla", "rk4"):
        run = dalembert.run(knife, method, h=0.1, t_end=5)
        assert np.array_equal(c.t, run.t)
        assert c.column(method + ":error")[-1] == pytest.approx(np.max(np.abs(run.q[-1] - knife.exact(5.0))),
                                                                rel=1e-12)
    assert c.column("rk4:error")[-1] < 1e-2 * c.column("dla:error")[-1]  # order 4 against order 2


def test_an_ensemble_row_is_the_last_row_of_the_sample_s_run():
    knife = dalembert.system("knife-edge")
    samples = [{"parameters": {"g": g}} for g in (0.1, 0.5, 1.0)] + [{"q0": [1, 2, 0.5], "v0": [0, 0, 1]}]
    e = dalembert.ensemble(knife, "dla", h=0.1, steps=50, samples=samples, threads=2)
    assert e.status == ["ok"] * 4 and e.issues == []
    assert e.column("sample").tolist() == [0, 1, 2, 3]
    for k, sample in enumerate(samples):
        run = dalembert.run(knife.with_parameters(**sample.get("parameters", {})), "dla", h=0.1, steps=50,
                            q0=sample.get("q0"), v0=sample.get("v0"))
        for name in ["t"] + knife.coordinates + knife.velocities + ["energy"]:
            assert e.column(name + "_final")[k] == run.column(name)[-1]
        assert e.column("energy_drift")[k] == run.summary["max_energy_error"]
    # a sample that cannot run is reported, not raised
    bad = dalembert.ensemble(knife, "dla", h=0.1, steps=5, samples=[{"v0": [0, 1, 0]}])
    assert bad.issues and bad.issues[0][1] == "bad-input" and "violates" in bad.issues[0][2]


def cli_ensemble(cli, *args):
    out = subprocess.run([cli, "ensemble", *args, "--quiet"], capture_output=True, text=True, check=True).stdout
    rows = list(csv.reader(io.StringIO(out)))
    return rows[0], rows[1:]


@pytest.mark.parametrize("sampling, count, seed", [("random", 6, 3), ("grid", 3, None)])
def test_ranged_ensembles_are_those_of_the_command_line(cli, sampling, count, seed):
    arguments = ["chaplygin-sleigh", "--method", "dla", "--h", "0.05", "--steps", "40", "--param-range", "a=0.1:0.9",
                 "--param-range", "I=0.5:1.5", "--samples", str(count), "--sampling", sampling, "--threads", "2"]
    if seed is not None:
        arguments += ["--seed", str(seed)]
    header, rows = cli_ensemble(cli, *arguments)
    e = dalembert.ensemble("chaplygin-sleigh", "dla", h=0.05, steps=40, ranges={"a": (0.1, 0.9), "I": (0.5, 1.5)},
                           samples=count, sampling=sampling, seed=seed, threads=2)
    assert e.columns == [c for c in header if c != "status"]
    assert len(e.status) == (count if sampling == "random" else count**2)
    assert e.status == [r[header.index("status")] for r in rows]
    expected = np.array([[float(x) for i, x in enumerate(r) if header[i] != "status"] for r in rows])
    assert np.array_equal(e.data, expected)
    if sampling == "grid":  # both ends included, the last range fastest
        assert e.column("a").tolist() == pytest.approx([0.1] * 3 + [0.5] * 3 + [0.9] * 3)
        assert e.column("I").tolist() == pytest.approx([0.5, 1.0, 1.5] * 3)


def test_ensemble_arguments_are_checked():
    with pytest.raises(dalembert.BadInput, match="seed applies to sampling='random'"):
        dalembert.ensemble("chaplygin-sleigh", h=0.1, steps=2, ranges={"a": (0, 1)}, samples=2, seed=4)
    with pytest.raises(dalembert.BadInput, match=r"ranges\['a'\]: lo must not exceed hi"):
        dalembert.ensemble("chaplygin-sleigh", h=0.1, steps=2, ranges={"a": (1, 0)}, samples=2)
    with pytest.raises(dalembert.BadInput, match=r"unknown parameter 'mass'"):
        dalembert.ensemble("chaplygin-sleigh", h=0.1, steps=2, ranges={"mass": (1, 2)}, samples=2)
    with pytest.raises(dalembert.BadInput, match="samples=3 is a count"):
        dalembert.ensemble("chaplygin-sleigh", h=0.1, steps=2, samples=3)
