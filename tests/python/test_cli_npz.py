"""`dalembert run --out x.npz`: NumPy's format, an array per column named as the CSV's, holding the
same numbers bit for bit; the format by the extension or --format, any other extension refused."""
import subprocess

import numpy as np
import pytest


def run(cli, tmp_path, *args):
    return subprocess.run([cli, "run", "knife-edge", "--method", "mla", "--h", "0.1", "--steps", "200", *args],
                          capture_output=True, cwd=tmp_path)


def test_npz_holds_the_csv_s_columns_bit_for_bit(cli, tmp_path):
    assert run(cli, tmp_path, "--out", "r.csv").returncode == 0
    r = run(cli, tmp_path, "--out", "r.npz", "--every", "1")
    assert r.returncode == 0, r.stderr
    header, *rows = (tmp_path / "r.csv").read_text().splitlines()
    columns = header.split(",")
    table = np.array([[float(x) for x in row.split(",")] for row in rows])
    with np.load(tmp_path / "r.npz") as d:
        assert d.files == columns  # the CSV's order
        for j, name in enumerate(columns):
            assert d[name].dtype == np.float64 and d[name].shape == (201,)
            np.testing.assert_array_equal(d[name], table[:, j], err_msg=name)  # NaN where the CSV has nan


def test_the_format_comes_from_the_extension_or_the_option(cli, tmp_path):
    r = run(cli, tmp_path, "--out", "r.txt")
    assert r.returncode == 2
    assert b"'r.txt' has the extension '.txt', which names no format (known: .csv, .npz" in r.stderr
    assert not (tmp_path / "r.txt").exists()
    r = run(cli, tmp_path, "--out", "rows.bin", "--format", "npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "rows.bin") as d:
        assert d["t"][-1] == pytest.approx(20.0)
    r = run(cli, tmp_path, "--format", "npz")  # to standard output
    assert r.returncode == 0 and r.stdout[:2] == b"PK"
    r = run(cli, tmp_path, "--out", "r.npz", "--format", "hdf5")
    assert r.returncode == 2 and b"--format: unknown format 'hdf5' (known: csv, npz)" in r.stderr
