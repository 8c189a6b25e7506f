#pragma once
// Benchmark-only: midpoint DLA steps written out by hand for one system each, with analytic
// Jacobians, as a user would write them without the library's automatic differentiation. They use
// the library's Newton solver, so a comparison with the generic step measures the cost of the
// derivatives and of the generic assembly. The generic step must produce the same trajectory
// (checked by the benchmarks before they are timed).
#include "dalembert/solve/newton.hpp"

namespace bench {

/// Position–momentum state of a hand-written midpoint DLA step (q_k, p⁺_k), as in method/dla.hpp.
struct HandWrittenState {
  dalembert::Vecd<3> q, p, last_velocity;
  double lambda = 0.0;
  int iterations = 0;
};

/// Nonholonomic particle, L = ½|v|² − c(x² + y²), constraint ż − y ẋ = 0.
struct HandWrittenParticleDla {
  double h;
  double c;  // V = c (x² + y²)
  using State = HandWrittenState;
  void step(State& s) const;
};

/// Knife edge on an inclined plane (models/knife_edge.hpp), L = ½m(ẋ² + ẏ²) + ½Jφ̇² + m g x
/// − ½k(x² + y²), constraint sin φ ẋ − (cos φ − ε) ẏ = 0.
struct HandWrittenKnifeEdgeDla {
  double h;
  double mass = 1.0, inertia = 1.0, slope = 0.5, spring = 0.0, eps = 0.0;
  using State = HandWrittenState;
  void step(State& s) const;
};

/// Chaplygin sleigh (models/chaplygin_sleigh.hpp), L = ½ vᵀG(θ)v, constraint −sin θ ẋ + cos θ ẏ = 0.
struct HandWrittenSleighDla {
  double h;
  double mass = 1.0, inertia = 1.0, offset = 0.5;
  using State = HandWrittenState;
  void step(State& s) const;
};

}  // namespace bench
