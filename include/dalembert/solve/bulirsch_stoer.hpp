#pragma once
// The adaptive loop of every reference solution: Boost.Odeint's Bulirsch–Stoer extrapolation with
// step-size control on ẋ = f(x, t), from t0 to exactly t1 (the last substep is shortened to land on
// t1, so that output times are the grid k h and rounding in t does not accumulate).
//
// Not Runge–Kutta–Fehlberg 7(8): its embedded error estimate vanishes on quadrature-like problems
// (for the vertical disk x and y are integrals of cos φ(t)), so its controller accepted steps of
// length 1 and missed the closed form by 2.8 at t = 10 (docs/decisions.md).
#include <stdexcept>
#include <string>

#include <boost/numeric/odeint.hpp>

namespace dalembert {

/// Integrates ẋ = rhs(x, ẋ, t) (rhs fills its second argument) from t0 to t1 with absolute and
/// relative tolerance `tolerance`; `dt` carries the controller's step-size suggestion in and out
/// (a non-positive dt starts with t1 − t0). Returns the number of accepted substeps; throws
/// std::runtime_error when the step size underflows.
template <class OdeState, class Rhs>
long bulirsch_stoer_interval(Rhs&& rhs, OdeState& x, double t0, double t1, double tolerance, double& dt) {
  namespace odeint = boost::numeric::odeint;
  odeint::bulirsch_stoer<OdeState> stepper(tolerance, tolerance);
  double t = t0;
  long substeps = 0;
  if (!(dt > 0)) dt = t1 - t0;
  while (t < t1) {
    const bool last = dt >= t1 - t;
    double trial = last ? t1 - t : dt;
    double tt = t;
    if (stepper.try_step(rhs, x, tt, trial) == odeint::success) {
      ++substeps;
      t = last ? t1 : tt;
      if (!last) dt = trial;  // the controller's suggestion for the next substep
    } else {
      dt = trial;  // rejected: retry with the reduced step
    }
    if (substeps > 10000000 || !(dt > 0)) {
      throw std::runtime_error("Bulirsch-Stoer: step size underflow at t = " + std::to_string(t));
    }
  }
  return substeps;
}

}  // namespace dalembert
