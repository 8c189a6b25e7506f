"""What a Result offers beyond its rows: dense output between the rows, events located on it, values
at chosen times, saving and loading, pickling, a DataFrame, and the package's own names."""
import math
import pickle

import numpy as np
import pytest

import dalembert


def test_dense_output_is_the_cubic_hermite_of_the_rows():
    # rows of q = t^3, v = 3 t^2 (a cubic): the interpolant is exact between them
    t = np.array([0.0, 0.5, 1.25, 2.0])
    data = np.column_stack([t, t**3, 3 * t**2])
    r = dalembert.Result(None, ["t", "x", "x_t"], data, {"status": "ok"}, ["x"], ["x_t"], False)
    ts = np.linspace(0, 2, 41)
    q, v = r.at(ts)
    np.testing.assert_allclose(q[:, 0], ts**3, rtol=0, atol=1e-14)
    np.testing.assert_allclose(v[:, 0], 3 * ts**2, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="t must lie within the rows"):
        r.at(2.5)


def test_events_are_located_to_1e_10():
    # the oscillator q = cos t crosses zero at t = pi/2 + k pi; rk4 at h = 1e-3 and the cubic between
    # its rows are both within 1e-12 of the closed form
    def crossing(t, q, v):
        return q[0]

    rising = lambda t, q, v: q[0]  # noqa: E731
    rising.direction = 1
    r = dalembert.run("harmonic-oscillator", "rk4", h=1e-3, t_end=7, events=[crossing, rising], t_eval=[1.0, 2.5])
    np.testing.assert_allclose(r.t_events[0], [math.pi / 2, 3 * math.pi / 2], rtol=0, atol=1e-10)
    np.testing.assert_allclose(r.t_events[1], [3 * math.pi / 2], rtol=0, atol=1e-10)
    np.testing.assert_allclose(r.v_events[0][:, 0], [-1, 1], rtol=0, atol=1e-10)
    np.testing.assert_allclose(r.q_eval[:, 0], np.cos([1.0, 2.5]), rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.v_eval[:, 0], -np.sin([1.0, 2.5]), rtol=0, atol=1e-10)
    # a terminal event ends the result there
    crossing.terminal = True
    r = dalembert.run("harmonic-oscillator", "rk4", h=1e-3, t_end=7, events=[crossing])
    assert r.summary["event"]["t"] == pytest.approx(math.pi / 2, abs=1e-10)
    assert r.t[-1] <= math.pi / 2 < r.t[-1] + 1e-3
    with pytest.raises(dalembert.BadInput, match="events must be a list of functions"):
        dalembert.run("harmonic-oscillator", "rk4", h=0.1, steps=3, events=["q"])


def test_a_result_saves_loads_and_pickles(tmp_path):
    r = dalembert.run("knife-edge", "mla", h=0.1, steps=50)
    r.save(tmp_path / "r.npz")
    for other in (dalembert.load(tmp_path / "r.npz"), pickle.loads(pickle.dumps(r))):
        assert other.columns == r.columns and other.summary == r.summary
        np.testing.assert_array_equal(other.data, r.data)
        np.testing.assert_array_equal(other.q, r.q)
        np.testing.assert_array_equal(other.p, r.p)
        assert other.t0 == 0.0 and other.system is None
        np.testing.assert_array_equal(other.at(2.05)[0], r.at(2.05)[0])
    with np.load(tmp_path / "r.npz") as d:  # readable without dalembert: an array per column
        np.testing.assert_array_equal(d["energy"], r.energy)


def test_a_dataframe_has_the_columns():
    pandas = pytest.importorskip("pandas")
    df = dalembert.run("particle", "dla", h=0.1, steps=5).to_dataframe()
    assert isinstance(df, pandas.DataFrame) and list(df.columns)[:4] == ["t", "x", "y", "z"] and len(df) == 6


def test_the_package_shows_its_api_only():
    assert dir(dalembert) == sorted(dalembert.__all__ + ["__version__"])
    assert "np" not in dir(dalembert) and "run" in dir(dalembert)
