"""The package runs what `dalembert run` runs: the same columns and the same numbers (to 1e-14,
relative) for every kind of system and method family, with options, parameters and initial data
given either way."""
import csv
import io
import subprocess

import numpy as np
import pytest

import dalembert

CASES = [
    # (system, method, h, steps, every, CLI options, Python keywords)
    ("knife-edge", "dla", 0.1, 200, 7, ["--param", "g=0.7"], dict(parameters={"g": 0.7})),
    ("chaplygin-sleigh", "mla", 0.05, 100, 1, [], {}),
    ("particle", "gf-cp", 0.1, 50, 1, ["--q0", "0.1,0.2,0.3", "--v0", "1,0.5,0.2"],
     dict(q0=[0.1, 0.2, 0.3], v0=[1, 0.5, 0.2])),
    ("vertical-disk", "fim", 0.1, 100, 3, ["--fim-start", "A"], dict(fim_start="A")),
    ("vertical-disk", "gf-sym", 0.1, 30, 1, ["--alpha", "0.25"], dict(alpha=0.25)),
    ("satellite", "rk4", 0.01, 300, 10, [], {}),
    ("pendulum", "del", 0.1, 100, 1, ["--rule", "trapezoid"], dict(rule="trapezoid")),
    ("chaplygin-sleigh", "dla", 0.1, 100, 1, ["--constraint-rule", "trapezoid"], dict(constraint_rule="trapezoid")),
    ("suslov", "fim-lie", 0.1, 100, 1, [], {}),
    ("damped-oscillator", "herglotz", 0.1, 100, 1, ["--z0", "0.3"], dict(z0=0.3)),
    ("curvature-particle", "dsocs", 0.01, 100, 1, [], {}),
    ("knife-edge", "exact", 0.5, 10, 1, ["--shooting-tolerance", "1e-10"], dict(shooting_tolerance=1e-10)),
    ("models/rolling-disk.toml", "dla", 0.01, 200, 9, ["--tolerance", "1e-12"], dict(tolerance=1e-12)),
    ("models/two-skates.toml", "reference", 0.1, 20, 1, [], {}),
]


def cli_run(cli, source_dir, system, method, h, steps, every, options):
    name = str(source_dir / system) if system.startswith("models/") else system
    out = subprocess.run([cli, "run", name, "--method", method, "--h", repr(h), "--steps", str(steps), "--every",
                          str(every), "--quiet", *options], capture_output=True, text=True, check=True).stdout
    rows = list(csv.reader(io.StringIO(out)))
    return rows[0], np.array([[float(x) for x in row] for row in rows[1:]])


@pytest.mark.parametrize("system, method, h, steps, every, cli_options, keywords", CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_the_same_trajectory_as_the_command_line(cli, source_dir, system, method, h, steps, every, cli_options,
                                                 keywords):
    columns, expected = cli_run(cli, source_dir, system, method, h, steps, every, cli_options)
    keywords = dict(keywords)
    parameters = keywords.pop("parameters", {})
    if system.startswith("models/"):
        target = dalembert.model_file(source_dir / system, **parameters)
    else:
        target = dalembert.system(system, **parameters)
    result = dalembert.run(target, method, h=h, steps=steps, every=every, **keywords)
    assert result.columns == columns
    assert result.data.shape == expected.shape
    both_nan = np.isnan(expected) & np.isnan(result.data)
    difference = np.where(both_nan, 0.0, np.abs(result.data - expected))
    scale = np.maximum(1.0, np.abs(expected))
    assert np.nanmax(np.where(both_nan, 0.0, difference / scale)) <= 1e-14
    assert not np.any(np.isnan(result.data) != np.isnan(expected))
