#pragma once
// Cheap monitors of the known failure modes of the methods, evaluated on every row of a run (by
// io/recorder.hpp) from numbers the run computes anyway. Each one warns once, naming the step and
// the numbers; the warnings go to the summary (RunSummary::warnings). Thresholds and the runs they
// were measured on: docs/methods.md, "Failure modes and the run's warnings".
//
//   energy-growth    |E_k − E_0| beyond 100 times its largest value over the early steps (the first
//                    tenth, at least 1000: the error has left its one-step size by then), and beyond
//                    1e-6 max(1, |E_0|); for systems whose energy is conserved (no external force,
//                    not a contact or second-order system).
//   energy-error     |E_k − E_0| of a quarter or more of the size of the energy's terms,
//                    max(|T_k| + |V_k|, |T_0| + |V_0|, |E_k|) with T, V = ½ vᵀGv, V for mechanical models
//                    and v·∂L/∂v, −L otherwise (model/dynamics.hpp, EnergyTerms), above the floor of
//                    energy-growth; from the first step, for the same systems. It sees errors that
//                    are large at once or early, which the growth monitors compare with themselves.
//   constraint-drift |M(q_k) v_k| beyond 100 times its largest value over the early steps, and
//                    beyond 1e-6.
//   parasitic-mode   the amplitude of a method's known parasitic mode (FIM's period-2 mode,
//                    |Q* p⁺| = ½|p⁺ − p⁻|) beyond 20 times its largest value over the first 100
//                    steps, and beyond 1e-6 + 1e-3 sqrt(2|E_0|).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace dalembert {

/// A non-negative quantity that must not grow far beyond its size early in the run.
class GrowthMonitor {
 public:
  /// Values of steps k <= early_until form the envelope; later ones are compared with
  /// factor × envelope and with `floor`, below which nothing is reported.
  GrowthMonitor(long early_until, double factor, double floor)
      : early_until_(early_until), factor_(factor), floor_(floor) {}

  /// True the first time (after the early steps) the value exceeds both bounds.
  bool grew(long k, double value) {
    if (k <= early_until_) {
      envelope_ = std::max(envelope_, value);
      return false;
    }
    if (reported_ || !(value > floor_) || !(value > factor_ * envelope_)) return false;
    reported_ = true;
    return true;
  }

  double envelope() const { return envelope_; }
  double factor() const { return factor_; }
  long early_until() const { return early_until_; }

 private:
  long early_until_;
  double factor_, floor_;
  double envelope_ = 0.0;
  bool reported_ = false;
};

/// A number as the warnings print it: "1.23e-04".
inline std::string short_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

}  // namespace dalembert
