"""docs/python.md's tutorial, examples/python/rolling_disk.py, runs as documented: 10^5 steps of dla
and rk4, a figure, and the energy behaviour the tutorial describes; and docs/bicycle.md's example."""
import json
import re
import subprocess
import sys


def test_the_rolling_disk_tutorial_runs(source_dir, tmp_path):
    out = subprocess.run([sys.executable, str(source_dir / "examples" / "python" / "rolling_disk.py"), "--out",
                          str(tmp_path)], capture_output=True, text=True, check=True).stdout
    figure = tmp_path / "rolling_disk.png"
    assert figure.stat().st_size > 10_000
    errors = {m: (float(e), float(c)) for m, e, c in
              re.findall(r"(\w+): max \|E - E0\| = (\S+), max \|M\(q\) v\| = (\S+),", out)}
    assert set(errors) == {"dla", "rk4"}
    # what the tutorial says: dla keeps the constraint to round-off and its energy error bounded
    # (6e-6 at h = 0.01), rk4 drifts off the constraint
    assert errors["dla"][1] < 1e-13 and errors["dla"][0] < 1e-5
    assert errors["rk4"][1] > 1e-10


def test_the_bicycle_example_writes_the_benchmark_s_speeds(source_dir, tmp_path):
    # examples/python/whipple_bicycle.py (docs/bicycle.md): eigenvalues.csv over 0..10 m/s, the weave
    # and capsize speeds of the benchmark (Meijaard et al. 2007) in speeds.json, and the figure.
    subprocess.run([sys.executable, str(source_dir / "examples" / "python" / "whipple_bicycle.py"), "--out",
                    str(tmp_path)], capture_output=True, text=True, check=True)
    speeds = json.loads((tmp_path / "speeds.json").read_text())
    assert abs(speeds["weave"] / 4.29238253634111 - 1) < 1e-9
    assert abs(speeds["capsize"] / 6.02426201538837 - 1) < 1e-9
    rows = (tmp_path / "eigenvalues.csv").read_text().splitlines()
    assert rows[0] == "v,re_1,im_1,re_2,im_2,re_3,im_3,re_4,im_4" and len(rows) == 202
    assert (tmp_path / "eigenvalues.png").stat().st_size > 10_000
