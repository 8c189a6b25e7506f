#pragma once
// Reference solutions of second-order constrained systems: the Lagrange–d'Alembert equations with
// the second-order constraint, Φ(q, v, a) = 0 and B(q, v, a)ᵀ D_EL L(q, v, a) = 0, solved for the
// acceleration at every evaluation (solve_acceleration, model/second_order.hpp) and integrated as
// q̇ = v, v̇ = a(q, v) by Bulirsch–Stoer extrapolation with step-size control (solve/bulirsch_stoer.hpp), as
// method/reference.hpp does for Lagrange–d'Alembert models (and for the same reason not by
// Runge–Kutta–Fehlberg 7(8)). Where the constraint factors (docs/methods.md) the physical factor is used:
// for [BFG13] Ex. 4.2 that is our regularised closed-loop ODE, equal to (8) wherever σ ≠ 0 and regular
// where the unfactored equations are singular.
#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "dalembert/model/second_order.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/solve/bulirsch_stoer.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <SecondOrderSystem S>
class SecondOrderReference {
 public:
  static constexpr int n = S::n;
  using OdeState = OdeintState<multiple_of_size(2, n)>;  ///< (q, v)

  struct State {
    long k = 0;
    double t = 0.0;
    VecN<S> q;
    VecN<S> v;
    int iterations = 0;     ///< Newton iterations: 0 (the acceleration solves are not counted)
    long substeps = 0;      ///< adaptive substeps tried in the last output interval
    double substep = 0.0;   ///< inner step-size suggestion carried between output intervals
  };

  SecondOrderReference(const S& system, double h, double tolerance = 1e-13)
      : system_(system), h_(h), tolerance_(tolerance) {}
  double step_size() const { return h_; }
  const S& system() const { return system_; }

  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const {
    State s;
    s.q = q0;
    s.v = v0;
    s.substep = h_ / 8;
    return s;
  }

  void step(State& s) const {
    const int dim = coordinate_count(system_);
    OdeState x;
    if constexpr (n == Dynamic) x.resize(2 * dim);
    for (int i = 0; i < dim; ++i) {
      x[i] = s.q[i];
      x[dim + i] = s.v[i];
    }
    const auto rhs = [&](const OdeState& y, OdeState& dy, double) {  // autonomous
      const int dim = coordinate_count(system_);  // a constant for a fixed n, not a captured number
      const VecN<S> q = Eigen::Map<const Vec<double, n>>(y.data(), dim);
      const VecN<S> v = Eigen::Map<const Vec<double, n>>(y.data() + dim, dim);
      VecN<S> a;
      NewtonReport r = solve_acceleration(system_, q, v, a);
      if (!r.converged) {
        r.reason = "the constraint equations cannot be solved for the acceleration (" + r.reason + ")";
        throw SolverError(s.k + 1, grid_time(s.k + 1, h_), r);
      }
      for (int i = 0; i < dim; ++i) {
        dy[i] = v[i];
        dy[dim + i] = a[i];
      }
    };
    // From the exact grid time k h: no accumulated rounding.
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
  VecN<S> acceleration(const State& s) const { return second_order_acceleration(system_, s.q, s.v); }

 private:
  S system_;
  double h_;
  double tolerance_;
};

/// The reference solution (q(t_end), v(t_end)) of a SOCS from (q0, v0).
template <SecondOrderSystem S>
PhasePointOf<S> second_order_reference_solution(const S& system, const VecN<S>& q0, const VecN<S>& v0,
                                                double t_end, double tolerance = 1e-13) {
  const SecondOrderReference<S> solver(system, t_end, tolerance);
  auto s = solver.initial_state(q0, v0);
  solver.step(s);
  return {s.q, s.v};
}

}  // namespace dalembert
