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
//   energy-error     |E_k − E_0| of a tenth or more of the size of the energy's terms,
//                    max(|T_k| + |V_k|, |T_0| + |V_0|, |E_k|) with T, V = ½ vᵀGv, V for mechanical models
//                    and v·∂L/∂v, −L otherwise (model/dynamics.hpp, EnergyTerms), above the floor of
//                    energy-growth; from the first step, for the same systems. It sees errors that
//                    are large at once or early, which the growth monitors compare with themselves.
//   energy-trend     the least-squares line of E_k − E_0 against t_k over the run so far changes by
//                    D = |slope|·(t_k − t_0) of at least 1e-3 of the energy's size at the start, 50
//                    times the r.m.s. residual about the line, and the floor of energy-growth, from
//                    step 1000 on: a one-signed secular drift, which the envelope of the first tenth
//                    grows with (a reversible method on a reversible system need not bound its
//                    energy: docs/methods.md, "Energy over long runs").
//   For a system with an external force (and a time-free Lagrangian), the three watch the energy
//   balance E_k − E_0 − W_k instead, W_k the work of the force by the trapezoidal rule on the rows
//   (with their stages by `rk4`, the reference solver and SPARK: io/observe.hpp).
//   constraint-drift |M(q_k) v_k| beyond 100 times its largest value over the early steps, and
//                    beyond 1e-6.
//   holonomic-drift  |φ(q_k, t_k)| of a model's holonomic constraints beyond 10 times its largest
//                    value over the early steps, and beyond 1e-6: a method that takes φ in its
//                    velocity form keeps it in a band set early, or lets it drift.
//   parasitic-mode   the amplitude of a method's known parasitic mode (FIM's period-2 mode,
//                    |Q* p⁺| = ½|p⁺ − p⁻|) beyond 6 times its largest value over the first 10
//                    steps, and beyond 1e-6 + 0.02 sqrt(2|E_0|).
//   derived-non-finite  a column of the system's derived quantities that is not a number while the
//                    state is (the state itself not finite ends the run, status non-finite).
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

/// The least-squares line through (t_k, e_k), updated row by row in O(1) (Welford's co-moments):
/// its change over the run and the r.m.s. residual about it.
class TrendFit {
 public:
  void add(double t, double e) {
    ++n_;
    const double dt = t - mean_t_, de = e - mean_e_;
    mean_t_ += dt / n_;
    mean_e_ += de / n_;
    stt_ += dt * (t - mean_t_);
    see_ += de * (e - mean_e_);
    ste_ += dt * (e - mean_e_);
    last_t_ = t;
    if (n_ == 1) first_t_ = t;
  }
  long count() const { return n_; }
  /// |slope|·(t_last − t_first): what the line changes over the rows so far.
  double change() const { return stt_ > 0 ? std::abs(ste_ / stt_) * (last_t_ - first_t_) : 0.0; }
  /// The r.m.s. residual about the line.
  double residual() const {
    if (n_ < 2 || !(stt_ > 0)) return 0.0;
    return std::sqrt(std::max(0.0, see_ - ste_ * ste_ / stt_) / n_);
  }

 private:
  long n_ = 0;
  double mean_t_ = 0.0, mean_e_ = 0.0, stt_ = 0.0, see_ = 0.0, ste_ = 0.0, first_t_ = 0.0, last_t_ = 0.0;
};

/// A number as the warnings print it: "1.23e-04".
inline std::string short_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

}  // namespace dalembert
