#pragma once
// High-accuracy reference solutions: Boost.Odeint's Bulirsch–Stoer extrapolation with step-size
// control on q̇ = v, v̇ = q̈(q, v), sampled at the integrator's grid t_k = k h. Used as "the truth"
// for error measurements wherever no closed form exists. Tolerances are absolute and relative.
//
// Not Runge–Kutta–Fehlberg 7(8): its embedded error estimate vanishes on quadrature-like problems
// (for the vertical disk x and y are integrals of cos φ(t)), so its controller accepted steps of
// length 1 and missed the closed form by 2.8 at t = 10 (docs/decisions.md).
#include <array>
#include <stdexcept>
#include <string>

#include <boost/numeric/odeint.hpp>

#include "dalembert/model/dynamics.hpp"

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
    int substeps = 0;    ///< adaptive substeps taken in the last output interval
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
    namespace odeint = boost::numeric::odeint;
    const int dim = static_cast<int>(s.q.size());
    OdeState x;
    if constexpr (S::n == Dynamic) x.resize(2 * dim);
    for (int i = 0; i < dim; ++i) {
      x[i] = s.q[i];
      x[dim + i] = s.v[i];
    }
    const auto rhs = [this, dim](const OdeState& y, OdeState& dy, double) {
      const VecN<S> q = Eigen::Map<const Vec<double, S::n>>(y.data(), dim);
      const VecN<S> v = Eigen::Map<const Vec<double, S::n>>(y.data() + dim, dim);
      const VecN<S> a = acceleration(system_, q, v);
      for (int i = 0; i < dim; ++i) {
        dy[i] = v[i];
        dy[dim + i] = a[i];
      }
    };
    odeint::bulirsch_stoer<OdeState> stepper(tolerance_, tolerance_);
    // Integrate from the exact grid time k h so that rounding in t does not accumulate.
    double t = static_cast<double>(s.k) * h_;
    const double t_end = static_cast<double>(s.k + 1) * h_;
    double dt = s.substep;  // step-size suggestion carried over from the previous interval
    int substeps = 0;
    while (t < t_end) {
      const bool last = dt >= t_end - t;
      double trial = last ? t_end - t : dt;
      double tt = t;
      if (stepper.try_step(rhs, x, tt, trial) == odeint::success) {
        ++substeps;
        t = last ? t_end : tt;
        if (!last) dt = trial;  // the controller's suggestion for the next substep
      } else {
        dt = trial;  // rejected: retry with the reduced step
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
