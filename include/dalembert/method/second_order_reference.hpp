#pragma once
// Reference solutions of second-order constrained systems: the Lagrange–d'Alembert equations with
// the second-order constraint, Φ(q, v, a) = 0 and B(q, v, a)ᵀ D_EL L(q, v, a) = 0, solved for the
// acceleration at every evaluation (solve_acceleration, model/second_order.hpp) and integrated as
// q̇ = v, v̇ = a(q, v) by Boost.Odeint's Bulirsch–Stoer extrapolation with step-size control, as
// method/reference.hpp does for Lagrange–d'Alembert models (and for the same reason not by
// Runge–Kutta–Fehlberg 7(8)). Where the constraint factors (spec §4.3) the physical factor is used:
// that is the regularised closed-loop ODE of spec §4.1, equal to (8) wherever σ ≠ 0 and regular
// where the unfactored equations are singular.
#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/numeric/odeint.hpp>

#include "dalembert/model/second_order.hpp"
#include "dalembert/model/model.hpp"
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
    int substeps = 0;       ///< adaptive substeps taken in the last output interval
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
    namespace odeint = boost::numeric::odeint;
    const int dim = coordinate_count(system_);
    OdeState x;
    if constexpr (n == Dynamic) x.resize(2 * dim);
    for (int i = 0; i < dim; ++i) {
      x[i] = s.q[i];
      x[dim + i] = s.v[i];
    }
    NewtonReport failure;
    bool failed = false;
    const auto rhs = [&](const OdeState& y, OdeState& dy, double) {
      const int dim = coordinate_count(system_);  // a constant for a fixed n, not a captured number
      const VecN<S> q = Eigen::Map<const Vec<double, n>>(y.data(), dim);
      const VecN<S> v = Eigen::Map<const Vec<double, n>>(y.data() + dim, dim);
      VecN<S> a;
      const NewtonReport r = solve_acceleration(system_, q, v, a);
      if (!r.converged && !failed) {
        failed = true;
        failure = r;
      }
      for (int i = 0; i < dim; ++i) {
        dy[i] = v[i];
        dy[dim + i] = r.converged ? a[i] : 0.0;
      }
    };
    odeint::bulirsch_stoer<OdeState> stepper(tolerance_, tolerance_);
    double t = static_cast<double>(s.k) * h_;  // from the exact grid time: no accumulated rounding
    const double t_end = static_cast<double>(s.k + 1) * h_;
    double dt = s.substep;
    int substeps = 0;
    while (t < t_end) {
      const bool last = dt >= t_end - t;
      double trial = last ? t_end - t : dt;
      double tt = t;
      if (stepper.try_step(rhs, x, tt, trial) == odeint::success) {
        ++substeps;
        t = last ? t_end : tt;
        if (!last) dt = trial;
      } else {
        dt = trial;
      }
      if (failed) {
        failure.reason = "the constraint equations cannot be solved for the acceleration (" + failure.reason + ")";
        throw SolverError(s.k + 1, t_end, failure);
      }
      if (substeps > 10000000 || !(dt > 0)) {
        throw std::runtime_error("reference solver: step size underflow at t = " + std::to_string(t));
      }
    }
    s.substep = dt;
    for (int i = 0; i < dim; ++i) {
      s.q[i] = x[i];
      s.v[i] = x[dim + i];
    }
    s.k += 1;
    s.t = static_cast<double>(s.k) * h_;
    s.substeps = substeps;
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
