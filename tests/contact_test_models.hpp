#pragma once
// Contact Lagrangians used only by the tests: nonlinear in the action variable z, so that
// σ_d = 1 + D_z L_d and the conformal factors vary from step to step.
#include "dalembert/model/contact.hpp"

namespace dalembert::test {

/// A Lagrangian nonlinear in z (ours): L = ½ v² − ½ q² + γ z + c z v² (regular while 1 + 2cz > 0).
struct ZNonlinearOscillator {
  static constexpr int n = 1;
  double gamma = -0.05, c = 0.1;
  template <class T>
  T lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v, const T& z) const {
    return 0.5 * v[0] * v[0] - 0.5 * q[0] * q[0] + gamma * z + c * z * v[0] * v[0];
  }
};

/// A planar rotation-invariant Lagrangian nonlinear in z:
/// L = ½ |v|² (1 + a z) − ½ |q|² − ¼ |q|⁴ + γ z + b z².
struct ZNonlinearPlanar {
  static constexpr int n = 2;
  double gamma = -0.1, a = 0.2, b = 0.05;
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v, const T& z) const {
    const T r2 = q[0] * q[0] + q[1] * q[1];
    return 0.5 * (v[0] * v[0] + v[1] * v[1]) * (1.0 + a * z) - 0.5 * r2 - 0.25 * r2 * r2 + gamma * z + b * z * z;
  }
};

}  // namespace dalembert::test
