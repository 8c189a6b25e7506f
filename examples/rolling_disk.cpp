// A system of your own in C++ with the installed package (docs/architecture.md, "Installing and
// using the library from CMake"): the tilting rolling disk of models/rolling-disk.toml, 5
// coordinates (x, y) of the point of contact, tilt theta, heading phi, spin psi, and 2 rolling
// constraints. A model is a struct with n, m, a Lagrangian and a constraint matrix written once for
// any scalar type T (T = double and the dual numbers of automatic differentiation). Prints the
// positions after 40 midpoint DLA steps of h = 0.05 and the energy error.
#include <cmath>
#include <cstdio>

#include <dalembert/method/dla.hpp>

struct RollingDisk {
  static constexpr int n = 5, m = 2;
  double mass = 1.0, radius = 1.0, diametral_inertia = 0.25, axial_inertia = 0.5, gravity = 1.0;

  template <class T>
  T lagrangian(const dalembert::Vec<T, 5>& q, const dalembert::Vec<T, 5>& v) const {
    using std::cos, std::sin;
    const T st = sin(q[2]), ct = cos(q[2]), sp = sin(q[3]), cp = cos(q[3]);
    // velocity of the centre of mass, and the angular velocity about the axle
    const T vx = v[0] + radius * (ct * sp * v[2] + st * cp * v[3]);
    const T vy = v[1] + radius * (-ct * cp * v[2] + st * sp * v[3]);
    const T vz = -radius * st * v[2];
    const T spin = st * v[3] + v[4];
    return 0.5 * mass * (vx * vx + vy * vy + vz * vz) +
           0.5 * diametral_inertia * (v[2] * v[2] + ct * ct * v[3] * v[3]) + 0.5 * axial_inertia * spin * spin -
           mass * gravity * radius * ct;
  }

  /// Rolling without slipping: x' = R cos(phi) psi', y' = R sin(phi) psi'.
  template <class T>
  dalembert::Mat<T, 2, 5> constraint_matrix(const dalembert::Vec<T, 5>& q) const {
    using std::cos, std::sin;
    const T zero(0.0), one(1.0);
    dalembert::Mat<T, 2, 5> M;
    M << one, zero, zero, zero, -radius * cos(q[3]),  //
        zero, one, zero, zero, -radius * sin(q[3]);
    return M;
  }
};

int main() {
  const RollingDisk disk;
  const auto dla = dalembert::make_dla(disk, 0.05);
  auto s = dla.initial_state(dalembert::Vecd<5>(0, 0, 0.3, 0, 0), dalembert::Vecd<5>(2, 0, 0.1, 0.5, 2));
  const double E0 = dalembert::energy(disk, s.q, dla.velocity(s));
  for (int k = 0; k < 40; ++k) dla.step(s);
  std::printf("q = %.17g,%.17g,%.17g,%.17g,%.17g\n", s.q[0], s.q[1], s.q[2], s.q[3], s.q[4]);
  std::printf("energy error %.1e\n", std::abs(dalembert::energy(disk, s.q, dla.velocity(s)) - E0));
}
