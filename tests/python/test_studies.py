"""compare, convergence and ensemble from Python: each checked against single runs and closed forms."""
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
