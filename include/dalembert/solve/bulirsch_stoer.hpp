#pragma once
// The adaptive loop of every reference solution and of the exact flows' arcs: Boost.Odeint's
// Bulirsch–Stoer extrapolation with step-size control on ẋ = f(x, t), from t0 to exactly t1 (the
// last substep is shortened to land on t1, so that output times are the grid k h and rounding in t
// does not accumulate).
//
// Not Runge–Kutta–Fehlberg 7(8): its embedded error estimate vanishes on quadrature-like problems
// (for the vertical disk x and y are integrals of cos φ(t)), so its controller accepted steps of
// length 1 and missed the closed form by 2.8 at t = 10 (docs/decisions.md).
//
// The loop is bounded: a stiff or fast motion (a spring of stiffness 1e12, an arc of length 1e8, a
// trajectory running into a singularity of the equations) would otherwise take substeps without
// end. Every substep tried, accepted or not, counts against `max_substeps` and against the
// allowance of the run's step, and reads the run's stop flag (solve/step_limits.hpp).
#include <cstdio>
#include <stdexcept>
#include <string>

#include <boost/numeric/odeint.hpp>

#include "dalembert/solve/step_limits.hpp"

namespace dalembert {

/// Thrown by bulirsch_stoer_interval when the interval needs more substeps than it may take, or
/// the step size underflows; the caller turns it into a failure of its step.
class IntegrationLimit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The substeps one arc of an exact discrete flow (the motion over one step h) may take: an arc
/// below the first conjugate point takes a few dozen.
inline constexpr long max_arc_substeps = 2000;

/// The message of a reference solution whose output interval reached its limit.
inline std::string reference_limit_message(const IntegrationLimit& e) {
  return std::string(e.what()) +
         ": the motion is too fast or too stiff for the reference solver over one output interval; choose a smaller "
         "h, or an implicit method for a stiff system";
}

/// Integrates ẋ = rhs(x, ẋ, t) (rhs fills its second argument) from t0 to t1 with absolute and
/// relative tolerance `tolerance`; `dt` carries the controller's step-size suggestion in and out
/// (a non-positive dt starts with t1 − t0). Returns the number of substeps tried, accepted or not;
/// throws IntegrationLimit when it would try more than `max_substeps`, or more than the step's
/// allowance, or the step size underflows, and Interrupted when the run is asked to stop.
template <class OdeState, class Rhs>
long bulirsch_stoer_interval(Rhs&& rhs, OdeState& x, double t0, double t1, double tolerance, double& dt,
                             long max_substeps) {
  namespace odeint = boost::numeric::odeint;
  const auto text = [](double number) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", number);
    return std::string(buffer);
  };
  odeint::bulirsch_stoer<OdeState> stepper(tolerance, tolerance);
  double t = t0;
  long tried = 0;
  if (!(dt > 0)) dt = t1 - t0;
  while (t < t1) {
    throw_if_stop_requested();
    const auto where = [&] {
      return " between t = " + text(t0) + " and " + text(t1) + ", at t = " + text(t) + " with substeps of " + text(dt);
    };
    if (tried >= max_substeps)
      throw IntegrationLimit("Bulirsch-Stoer reached its limit of " + std::to_string(max_substeps) + " substeps" +
                             where());
    if (!take_step_substep())
      throw IntegrationLimit("the adaptive integrations of this step reached their limit of " +
                             std::to_string(step_substeps()) + " substeps together" + where());
    ++tried;
    const bool last = dt >= t1 - t;
    double trial = last ? t1 - t : dt;
    double tt = t;
    if (stepper.try_step(rhs, x, tt, trial) == odeint::success) {
      t = last ? t1 : tt;
      if (!last) dt = trial;  // the controller's suggestion for the next substep
    } else {
      dt = trial;  // rejected: retry with the reduced step
    }
    if (!(dt > 0)) throw IntegrationLimit("Bulirsch-Stoer: step size underflow at t = " + text(t));
  }
  return tried;
}

}  // namespace dalembert
