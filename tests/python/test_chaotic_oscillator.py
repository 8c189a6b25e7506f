"""dalembert.chaotic_oscillator(n): McLachlan and Perlmutter's quartic nonholonomic oscillator with
2n + 1 coordinates, checked against models/chaotic-oscillator.toml (n = 5), against its energy
written out independently here, and run by the energy-conserving method at 7 coordinates."""
import numpy as np
import pytest

import dalembert

# The initial data of models/chaotic-oscillator.toml
FILE_Q0 = [0.1, 0.2, -0.3, 0.4, -0.1, 0.25, 0.3, 0.1, -0.2, 0.35, -0.15]
FILE_V0 = [-0.19, 0.1, 0.2, -0.1, 0.3, 0.05, 0.4, -0.3, 0.2, 0.1, -0.2]


def energy(n, q, v):
    """E = |v|^2/2 + |q|^2/2 + sum_i yi^2 zi^2/2 + z1^2 z2^2/2 (n >= 2), with q = (x, y, z)."""
    y, z = q[1:n + 1], q[n + 1:]
    coupling = z[0]**2 * z[1]**2 / 2 if n >= 2 else 0.0
    return v @ v / 2 + q @ q / 2 + np.sum(y**2 * z**2) / 2 + coupling


def test_n5_is_the_model_file(source_dir):
    generated = dalembert.chaotic_oscillator(5, q0=FILE_Q0, v0=FILE_V0)
    file = dalembert.model_file(str(source_dir / "models" / "chaotic-oscillator.toml"))
    assert generated.coordinates == file.coordinates
    a = dalembert.run(generated, "dla", h=0.05, steps=200)
    b = dalembert.run(file, "dla", h=0.05, steps=200)
    assert np.max(np.abs(a.q - b.q)) < 1e-13
    assert np.max(np.abs(a.energy - b.energy)) < 1e-13


@pytest.mark.parametrize("n", [1, 2, 4])
def test_energy_is_that_of_the_equations(n):
    system = dalembert.chaotic_oscillator(n)
    assert system.n == 2 * n + 1
    result = dalembert.run(system, "dla", h=0.1, steps=3)
    for k in range(4):
        assert abs(result.energy[k] - energy(n, result.q[k], result.v[k])) < 1e-14
    assert abs(result.constraint[0]) < 1e-15  # the default v0 satisfies the constraint


def test_seven_coordinates_with_the_discrete_gradient():
    # The size of odelab's quartic oscillator (7 coordinates, 1 constraint): energy to round-off
    # and the constraint exact at every step.
    result = dalembert.run(dalembert.chaotic_oscillator(3), "discrete-gradient", h=0.1, steps=1000)
    assert result.q.shape == (1001, 7)
    assert np.max(np.abs(result.energy - result.energy[0])) < 1e-13
    assert np.max(np.abs(result.constraint)) < 1e-13


def test_bad_sizes_are_named():
    for bad in (0, 500, 2.5, True):
        with pytest.raises(dalembert.BadInput, match="n \\(the number of \\(y, z\\) pairs\\) must be a whole number"):
            dalembert.chaotic_oscillator(bad)
