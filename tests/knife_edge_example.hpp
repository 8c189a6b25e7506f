#pragma once
// The knife edge of the generating-function and momentum–energy tests, not one of the papers':
// m = J = 1, g_s = 1, a spring k = 0.5 (k = 0 has a closed form), and its initial data.
#include <cmath>

#include "dalembert/models/knife_edge.hpp"

namespace dalembert::test {

inline models::KnifeEdge example_knife_edge(double k = 0.5, double m = 1.0, double J = 1.0) {
  models::KnifeEdge s;
  s.mass = m;
  s.inertia = J;
  s.slope = 1.0;
  s.spring = k;
  return s;
}

/// q0 = (0.2, −0.1, 0.7), blade speed 0.5, φ̇0 = 1.3.
inline PhasePoint<3> example_knife_initial() {
  return {Vecd<3>(0.2, -0.1, 0.7), Vecd<3>(0.5 * std::cos(0.7), 0.5 * std::sin(0.7), 1.3)};
}

}  // namespace dalembert::test
