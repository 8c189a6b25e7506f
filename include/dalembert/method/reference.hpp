#pragma once
// High-accuracy reference solutions: Bulirsch–Stoer extrapolation with step-size control
// (solve/bulirsch_stoer.hpp) on q̇ = v, v̇ = q̈(q, v), sampled at the integrator's grid t_k = k h.
// Used as "the truth" for error measurements wherever no closed form exists. Tolerances are
// absolute and relative.
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/bulirsch_stoer.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <Model S>
class ReferenceSolver {
 public:
  static constexpr int n = S::n;
  using OdeState = OdeintState<multiple_of_size(2, n)>;  ///< (q, v)

  struct State {
    long k = 0;
    double t = 0.0;
    VecN<S> q;
    VecN<S> v;
    int iterations = 0;  ///< Newton iterations: always 0 (explicit)
    long substeps = 0;   ///< adaptive substeps tried in the last output interval
    double substep = 0.0;  ///< inner step-size suggestion carried between output intervals
  };

  ReferenceSolver(const S& system, double h, double tolerance = 1e-13)
      : system_(system), h_(h), tolerance_(tolerance) {}
  double step_size() const { return h_; }

  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const {
    State s;
    s.q = q0;
    s.v = v0;
    s.substep = h_ / 8;
    return s;
  }

  void step(State& s) const {
    const int dim = static_cast<int>(s.q.size());
    OdeState x;
    if constexpr (S::n == Dynamic) x.resize(2 * dim);
    for (int i = 0; i < dim; ++i) {
      x[i] = s.q[i];
      x[dim + i] = s.v[i];
    }
    const auto rhs = [this, dim](const OdeState& y, OdeState& dy, double t) {
      const VecN<S> q = Eigen::Map<const Vec<double, S::n>>(y.data(), dim);
      const VecN<S> v = Eigen::Map<const Vec<double, S::n>>(y.data() + dim, dim);
      const VecN<S> a = acceleration(system_, q, v, t);
      for (int i = 0; i < dim; ++i) {
        dy[i] = v[i];
        dy[dim + i] = a[i];
      }
    };
    // From the exact grid time k h, so that rounding in t does not accumulate.
    try {
      s.substeps = bulirsch_stoer_interval(rhs, x, grid_time(s.k, h_), grid_time(s.k + 1, h_), tolerance_, s.substep,
                                           max_step_substeps);
    } catch (const IntegrationLimit& e) {
      throw SolverError(s.k + 1, grid_time(s.k + 1, h_), reference_limit_message(e));
    }
    for (int i = 0; i < dim; ++i) {
      s.q[i] = x[i];
      s.v[i] = x[dim + i];
    }
    advance(s, h_);
  }

  VecN<S> velocity(const State& s) const { return s.v; }

 private:
  S system_;
  double h_;
  double tolerance_;
};

/// The reference solution (q(t_end), v(t_end)) from (q0, v0).
template <Model S>
PhasePointOf<S> reference_solution(const S& system, const VecN<S>& q0, const VecN<S>& v0,
                                    double t_end, double tolerance = 1e-13) {
  const ReferenceSolver<S> solver(system, t_end, tolerance);
  auto s = solver.initial_state(q0, v0);
  solver.step(s);
  return {s.q, s.v};
}

}  // namespace dalembert
