#pragma once
// Benchmark-only: the midpoint DLA step for the nonholonomic particle written out by hand, with an
// analytic Jacobian, as a user would write it for one system. The generic step must match it.
#include "dalembert/solve/newton.hpp"

namespace bench {

struct HandWrittenParticleDla {
  double h;
  double c;  // V = c (x² + y²)
  struct State {
    dalembert::Vecd<3> q, p, last_velocity;
    double lambda = 0.0;
    int iterations = 0;
  };
  void step(State& s) const;
};

}  // namespace bench
