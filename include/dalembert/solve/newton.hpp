#pragma once
// Damped Newton iteration for the implicit equations of every integrator.
//
// The caller supplies residual(x, F) and jacobian(x, J), or one evaluate(x, F, J) that fills both;
// Jacobians come from automatic differentiation in the method files, dense, or sparse for large
// systems assembled term by term (newton_solve_sparse, factorised with Eigen's SparseLU). With separate functions the
// Jacobian is computed only where Newton needs one, not at the iterate that turns out converged: a
// DLA step that converges in one iteration then pays for one second-order evaluation, not two.
// Convergence is declared
//   (a) when |F|_∞ ≤ tol · max(1, scale), scale being the caller's size of the equations (for
//       momentum equations: the size of the momentum): absolute below 1, relative above; or
//   (b) when the Newton correction has reached round-off, |δx|_∞ ≤ 4 ε (1 + |x|_∞), and every
//       component F_i is within 1e3 · tol · max(1, scale) or within its round-off floor
//       16 ε Σ_j |J_ij| |x_j|, how much F_i moves when x moves by its last bits: x then solves
//       the equations up to a relative change of 16 ε in each unknown, which no Newton step can
//       improve; or when a correction no longer halves |F|_∞ and every F_i is within tol ·
//       max(1, scale) or its floor (the floor's noise can move some unknowns by more than their
//       last bits). The floor matters far from the origin: with |q| ≈ 2e4 and h = 0.1 a DLA
//       residual cannot get below about 5e-11, far above 1e-13 · |p|. Near it (a) decides.
//   (c) for a caller that asks for it (NewtonOptions::correction_tolerance), after a full correction
//       |δx|_∞ ≤ correction_tolerance · (1 + |x|_∞): for equations whose residual is known only to
//       the accuracy of an inner computation (exact's, through shooting), which can be much coarser
//       than the accuracy of x it implies; the correction measures the distance to the solution in
//       the unknowns' own units.
//   (d) for a residual known only to the accuracy of an inner computation (newton_solve's
//       NoisyResidual: the shooting's end point, an integration's), when no halving of the
//       correction reduces |F|_∞ and it is within 10 · tol · max(1, scale), that computation's
//       noise. Such a residual is damped however close to the threshold, and Newton stops where
//       max_backtracks halvings do not reduce it, converged by (d) or failed ("stalled").
// Failure is never silent: it returns a report the integrator turns into a SolverError carrying
// step, time, residual norm and iterations. Each iteration reads the run's stop flag (solve/step_limits.hpp).
// On request Newton also leaves, after convergence, its last Jacobian and y = J⁻¹F at the solution:
// what the solution's doubles could not hold (Linearisation, solve/below_last_bit.hpp).
// Its loop, newton_iterate, is the library's one Newton-type loop: chord iterations on a kept
// factorisation (solve/step_driver.hpp, chord_solve) and Gauss–Newton's least-norm corrections
// (solve/gauss_newton.hpp) are the same loop with other rules for the correction and for stopping.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/LU>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include "dalembert/core/types.hpp"
#include "dalembert/solve/small_lu.hpp"
#include "dalembert/solve/step_limits.hpp"

namespace dalembert {

struct NewtonOptions {
  double tolerance = 1e-13;  ///< converged when |F|_inf <= tolerance * max(1, scale) (or at round-off, above)
  int max_iterations = 30;
  bool damped = true;        ///< backtracking on |residual| when a full step increases it
  int max_backtracks = 12;
  /// If positive, test (c) at the top of this file: converged after a correction |δx|_inf <=
  /// correction_tolerance * (1 + |x|_inf).
  double correction_tolerance = 0.0;
};

/// Newton to a correction at round-off, for equations without a scale of their own (a velocity
/// from a momentum): test (c) at 1e-15, no residual test, no damping, 20 iterations.
inline constexpr NewtonOptions newton_to_round_off{
    .tolerance = 0.0, .max_iterations = 20, .damped = false, .max_backtracks = 0, .correction_tolerance = 1e-15};

struct NewtonReport {
  bool converged = false;
  int iterations = 0;
  double residual_norm = std::numeric_limits<double>::quiet_NaN();
  std::string reason;  ///< why it failed ("", "singular Jacobian", "no convergence", ...)
};

/// Thrown by an integrator step when its nonlinear solve fails, or another of its loops (an
/// adaptive integration inside the step) reaches its limit.
class SolverError : public std::runtime_error {
 public:
  SolverError(long step, double time, const NewtonReport& report) : SolverError(step, time, report, true) {}
  /// A failure outside Newton's iteration; `reason` names the loop and its limit.
  SolverError(long step, double time, const std::string& reason)
      : SolverError(step, time, NewtonReport{false, 0, std::numeric_limits<double>::quiet_NaN(), reason}, false) {}
  long step() const { return step_; }
  double time() const { return time_; }
  const NewtonReport& report() const { return report_; }
  /// The same failure as one of step `step` at `time` (for a method whose inner solver threw it).
  SolverError at(long step, double time) const { return SolverError(step, time, report_, newton_); }

 private:
  SolverError(long step, double time, const NewtonReport& report, bool newton)
      : std::runtime_error(describe(step, time, report, newton)),
        step_(step), time_(time), report_(report), newton_(newton) {}
  static std::string describe(long step, double time, const NewtonReport& r, bool newton) {
    if (!newton) return "step " + std::to_string(step) + " (t = " + time_text(time) + ") failed: " + r.reason;
    return "Newton solver failed at step " + std::to_string(step) + " (t = " + time_text(time) +
           "): " + r.reason + ", residual norm " + format(r.residual_norm) + " after " +
           std::to_string(r.iterations) + " iterations";
  }
  static std::string format(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3e", x);
    return buf;
  }
  long step_;
  double time_;
  NewtonReport report_;
  bool newton_;
};

namespace detail {

/// Whether an LU factorisation's pivots are regular to working precision.
template <class LU>
[[gnu::always_inline]] inline bool regular(const LU& lu) {
  const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
  return pivots.minCoeff() > 64 * std::numeric_limits<double>::epsilon() * pivots.maxCoeff();
}

/// step = J⁻¹ F by SmallLU of the fixed size K, for a J of that size known only at run time.
template <int K, class Matrix, class Vector>
bool solve_small(const Matrix& J, const Vector& F, Vector& step) {
  const SmallLU<K> lu(J.template topLeftCorner<K, K>());
  if (!regular(lu)) return false;
  step = lu.solve(F.template head<K>());
  return true;
}
template <int K, class Matrix, class Vector>
bool solve_small_up_to(int size, const Matrix& J, const Vector& F, Vector& step) {
  if (size == K) return solve_small<K>(J, F, step);
  if constexpr (K > 1) return solve_small_up_to<K - 1>(size, J, F, step);
  return false;
}

/// Solves J step = F for a J whose size is known only at run time; false when J is singular to
/// working precision. Up to 8 unknowns SmallLU of that size (faster than Eigen's PartialPivLU,
/// docs/decisions.md, Newton's small linear systems), dispatched on the size; larger systems
/// PartialPivLU.
template <class Matrix, class Vector>
bool solve_linear(const Matrix& J, const Vector& F, Vector& step) {
  constexpr int MaxN = Matrix::MaxRowsAtCompileTime;
  constexpr int largest = MaxN == Eigen::Dynamic ? sizes::small_lu_max : std::min(MaxN, sizes::small_lu_max);
  const int size = static_cast<int>(J.rows());
  if (size >= 1 && size <= largest) return solve_small_up_to<largest>(size, J, F, step);
  const Eigen::PartialPivLU<Matrix> lu(J);
  if (!regular(lu)) return false;
  step = lu.solve(F);
  return true;
}

/// The round-off floor of each equation, 16 ε Σ_j |J_ij| |x_j|: how much F_i moves when x moves by
/// its last bits (test (b) at the top of this file). Newton takes it with each Jacobian, which it
/// then need not keep.
template <class Matrix, class Vector>
Vector roundoff_floor(const Matrix& J, const Vector& x) {
  constexpr double k = 16 * std::numeric_limits<double>::epsilon();
  Vector floor = Vector::Zero(x.size());
  if constexpr (std::is_base_of_v<Eigen::SparseMatrixBase<Matrix>, Matrix>) {
    for (Eigen::Index j = 0; j < J.outerSize(); ++j)
      for (typename Matrix::InnerIterator e(J, j); e; ++e) floor[e.index()] += std::abs(e.value() * x[e.col()]);
  } else {
    for (Eigen::Index j = 0; j < x.size(); ++j)
      for (Eigen::Index i = 0; i < x.size(); ++i) floor[i] += std::abs(J(i, j) * x[j]);
  }
  return k * floor;
}

/// Whether every |F_i| is within `threshold` or within its round-off floor.
template <class Vector>
bool within_roundoff_floor(const Vector& F, const Vector& floor, double threshold) {
  return (F.array().abs() <= floor.array().max(threshold)).all();
}

/// The factorisation of Newton's latest Jacobian, by storage: Eigen's SparseLU for a sparse Jacobian
/// (its pattern ordered once per solve: it stays the same from one Jacobian to the next); at a
/// compile-time size SmallLU up to sizes::small_lu_max unknowns and PartialPivLU above, kept for a
/// second solve; at a run-time size solve_linear on the kept Jacobian, which dispatches on the size.
template <int N, int MaxN, class JacobianMatrix>
class LatestFactorisation {
  static constexpr bool sparse = std::is_same_v<JacobianMatrix, Eigen::SparseMatrix<double>>;
  using Dense = std::conditional_t<(N <= sizes::small_lu_max), SmallLU<std::max(N, 1)>,
                                   Eigen::PartialPivLU<Matd<N, N, MaxN, MaxN>>>;

 public:
  /// Factorises J (which must outlive the solves); false when J is singular to working precision.
  /// Always inlined, as the factorisation itself: a fixed-size step is faster with it in place
  /// (docs/decisions.md, Newton's small linear systems).
  [[gnu::always_inline]] bool factorise(const JacobianMatrix& J) {
    if constexpr (sparse) {
      if (!ordered_) lu_.analyzePattern(J), ordered_ = true;
      lu_.factorize(J);
      return lu_.info() == Eigen::Success;
    } else if constexpr (N != Eigen::Dynamic) {
      lu_.compute(J);
      return regular(lu_);
    } else {
      jacobian_ = &J;
      return true;
    }
  }
  /// out = J⁻¹F with the latest J factorised; false when J is singular.
  [[gnu::always_inline]] bool solve(const Vecd<N, MaxN>& F, Vecd<N, MaxN>& out) const {
    if constexpr (sparse || N != Eigen::Dynamic) {
      out = lu_.solve(F);
      return true;
    } else {
      return solve_linear(*jacobian_, F, out);
    }
  }

 private:
  [[no_unique_address]] std::conditional_t<sparse, Eigen::SparseLU<Eigen::SparseMatrix<double>>,
                                           std::conditional_t<N != Eigen::Dynamic, Dense, char>> lu_;
  [[no_unique_address]] std::conditional_t<sparse, bool, char> ordered_{};
  const JacobianMatrix* jacobian_ = nullptr;
};

}  // namespace detail

/// What a converged solve leaves for the step that asks for it: the last Jacobian Newton took
/// (at the iterate before x, or at x if it took none) and y = J⁻¹F(x) with it (zero if J is
/// singular), what x's doubles could not hold (solve/below_last_bit.hpp). The step reads the
/// Jacobian where Newton wrote it, so that it copies none.
template <class JacobianMatrix, class Vector>
struct Linearisation {
  JacobianMatrix jacobian;
  Vector below_last_bit;
};

/// After a correction is taken: the iteration goes on, has converged, or has failed.
enum class AfterCorrection { go_on, converged, failed };
/// A trial x − λδ is taken, or λ halved, or the search gives up (stalls) and x stays.
enum class LineSearch { take, halve, stall };

/// The library's one Newton-type loop: x ← x − λδ, with δ the correction at x (J δ = F(x), or its
/// least-norm solution), until x converges. Newton, chord iterations and Gauss–Newton differ only in
/// `rules`, which decide:
///  - converged(x, |F|_∞): whether x is a solution (before each correction, and after the last);
///  - correct(x, F, δ): the correction at x; false where J is singular;
///  - search(b, |F(x)|_∞, |F(x − λδ)|_∞) after b halvings of λ (Newton's damping): take the trial,
///    halve λ again, or stall, where converged_when_stalled(|F|_∞) decides;
///  - after(δ, λ, x, F) with the new x and F: tests on the correction taken (rounds to round-off,
///    stops contracting), and failure() names a failure there;
///  - at_solution(x, F): what a converged solve leaves (Newton's Linearisation).
/// residual_at(x, F) fills F; its last call is at the returned x, and F holds it. Each iteration
/// reads the run's stop flag (a residual may take long: exact's is a shooting solve).
template <class Rules, class Residual, class Unknowns, class Residuals>
NewtonReport newton_iterate(Rules& rules, Residual&& residual_at, Unknowns& x, Residuals& residual,
                            int max_iterations) {
  Unknowns step(x.size()), trial(x.size());
  Residuals trial_residual(residual.size());
  NewtonReport report;
  residual_at(x, residual);
  double norm = residual.template lpNorm<Eigen::Infinity>();
  for (report.iterations = 0; report.iterations < max_iterations; ++report.iterations) {
    throw_if_stop_requested();
    report.residual_norm = norm;
    if (!std::isfinite(norm)) {
      report.reason = "non-finite residual";
      return report;
    }
    if (rules.converged(x, norm)) {
      report.converged = true;
      rules.at_solution(x, residual);
      return report;
    }
    if (!rules.correct(x, residual, step)) {
      report.reason = "singular Jacobian";
      return report;
    }
    double lambda = 1.0;
    for (int b = 0;; ++b) {
      trial = x - lambda * step;
      residual_at(trial, trial_residual);
      const LineSearch next = rules.search(b, norm, trial_residual.template lpNorm<Eigen::Infinity>());
      if (next == LineSearch::take) break;
      if (next == LineSearch::stall) {
        residual_at(x, residual);  // x stays, and so must the last evaluation
        report.converged = rules.converged_when_stalled(norm);
        if (report.converged) {
          rules.at_solution(x, residual);
        } else {
          report.reason = "stalled: no correction within " + std::to_string(b) + " halvings reduces the residual";
        }
        return report;
      }
      lambda *= 0.5;
    }
    x = trial;
    residual = trial_residual;
    norm = residual.template lpNorm<Eigen::Infinity>();
    const AfterCorrection verdict = rules.after(step, lambda, x, residual);
    if (verdict != AfterCorrection::go_on) {
      report.iterations += 1;
      report.residual_norm = norm;
      report.converged = verdict == AfterCorrection::converged && std::isfinite(norm);
      if (report.converged) rules.at_solution(x, residual);
      if (verdict == AfterCorrection::failed) report.reason = rules.failure();
      return report;
    }
  }
  report.residual_norm = norm;
  report.converged = rules.converged(x, norm);
  if (report.converged) rules.at_solution(x, residual);
  if (!report.converged) report.reason = "no convergence within " + std::to_string(max_iterations) + " iterations";
  return report;
}

/// What rules that take every correction whole and keep nothing at the solution (chord iterations,
/// Gauss–Newton) leave as it is: they give converged and correct, and after and failure where they
/// also stop on the corrections.
struct UndampedRules {
  static bool converged_when_stalled(double) { return false; }
  static LineSearch search(int, double, double) { return LineSearch::take; }
  template <class Unknowns, class Residuals>
  static AfterCorrection after(const Unknowns&, double, const Unknowns&, const Residuals&) {
    return AfterCorrection::go_on;
  }
  static std::string failure() { return {}; }
  template <class Unknowns, class Residuals>
  static void at_solution(const Unknowns&, const Residuals&) {}
};

namespace detail {

/// Newton's rules for newton_iterate (tests (a) to (d) at the top of this file): a Jacobian at
/// every iterate, factorised, with its round-off floor; corrections halved while the residual grows.
template <int N, int MaxN, class JacobianMatrix, bool NoisyResidual, class Jacobian>
class NewtonRules {
 public:
  using Vector = Vecd<N, MaxN>;
  /// For n unknowns.
  NewtonRules(Jacobian& jacobian_at, Eigen::Index n, double scale, const NewtonOptions& options,
              Linearisation<JacobianMatrix, Vector>* last)
      : jacobian_at_(jacobian_at), options_(options), threshold_(options.tolerance * std::max(1.0, scale)),
        last_(last), jacobian_(last ? last->jacobian : own_jacobian_) {
    jacobian_.resize(n, n);
  }

  bool converged(const Vector&, double norm) const { return norm <= threshold_; }
  bool converged_when_stalled(double norm) const { return norm <= 10 * threshold_; }

  [[gnu::always_inline]] bool correct(const Vector& x, const Vector& F, Vector& step) {
    jacobian_at_(x, jacobian_);
    have_jacobian_ = true;
    floor_ = roundoff_floor(jacobian_, x);
    if (!factorisation_.factorise(jacobian_) || !factorisation_.solve(F, step)) return false;
    const double correction = step.template lpNorm<Eigen::Infinity>();
    correction_at_roundoff_ = correction <= roundoff_of(x);
    correction_converged_ = options_.correction_tolerance > 0 &&
                            correction <= options_.correction_tolerance * (1.0 + x.template lpNorm<Eigen::Infinity>());
    return true;
  }

  // Full step first; halve it while the residual grows, only far from the solution: not when the
  // residual is near the threshold, nor when the correction is at round-off (then components at
  // their floor can dominate the norm, and halving would stall Newton there; test (b) decides),
  // nor when it meets test (c) (the residual is then at the accuracy it is known to). A noisy
  // residual (test (d)) is halved however close to the threshold, and stalls after max_backtracks.
  LineSearch search(int halvings, double norm, double trial_norm) {
    stalled_ = trial_norm > 0.5 * norm;
    if constexpr (NoisyResidual) {
      if (trial_norm < norm || correction_converged_) return LineSearch::take;
      return halvings >= options_.max_backtracks ? LineSearch::stall : LineSearch::halve;
    } else {
      const bool take = !options_.damped || trial_norm < norm || halvings >= options_.max_backtracks ||
                        norm <= 1e3 * threshold_ || correction_at_roundoff_ || correction_converged_;
      return take ? LineSearch::take : LineSearch::halve;
    }
  }

  // Test (c), or test (b): a correction at round-off level cannot improve x further, nor can one
  // that no longer halves a residual within its floor (the noise of a momentum row far from the
  // origin moves the multipliers by more than their last bits). The floor is the one of the
  // iterate before (its J and x), which differs from x by round-off.
  AfterCorrection after(const Vector& step, double lambda, const Vector& x, const Vector& F) const {
    const bool converged =
        correction_converged_ ||
        (lambda * step.template lpNorm<Eigen::Infinity>() <= roundoff_of(x) &&
         within_roundoff_floor(F, floor_, 1e3 * threshold_)) ||
        (stalled_ && within_roundoff_floor(F, floor_, threshold_));
    return converged ? AfterCorrection::converged : AfterCorrection::go_on;
  }
  std::string failure() const { return {}; }

  // After convergence: y = J⁻¹F(x) with the last Jacobian and its factorisation (a new one if Newton
  // took none).
  [[gnu::always_inline]] void at_solution(const Vector& x, const Vector& F) {
    if (!last_) return;
    bool regular = true;
    if (!have_jacobian_) {
      jacobian_at_(x, jacobian_), have_jacobian_ = true;
      regular = factorisation_.factorise(jacobian_);
    }
    last_->below_last_bit.resize(x.size());
    if (!regular || !factorisation_.solve(F, last_->below_last_bit)) last_->below_last_bit.setZero(x.size());
  }

 private:
  /// A correction this small only changes y's last bits.
  static double roundoff_of(const Vector& y) {
    return 4 * std::numeric_limits<double>::epsilon() * (1.0 + y.template lpNorm<Eigen::Infinity>());
  }

  Jacobian& jacobian_at_;
  const NewtonOptions& options_;
  double threshold_;
  Linearisation<JacobianMatrix, Vector>* last_;
  JacobianMatrix own_jacobian_;
  JacobianMatrix& jacobian_;
  LatestFactorisation<N, MaxN, JacobianMatrix> factorisation_;
  bool have_jacobian_ = false;  // a Jacobian Newton took is factorised at once, and regular
  Vector floor_;
  bool correction_at_roundoff_ = false, correction_converged_ = false;
  bool stalled_ = false;  // the last correction taken did not halve the residual
};

}  // namespace detail

/// Solves F(x) = 0 in place, starting from x. residual(x, F) fills F; jacobian(x, J) fills its
/// Jacobian at the x of the latest residual call. The last call of residual is always at the
/// returned x, so callers may keep by-products of that evaluation (the integrators keep D2 L_d for
/// the next momentum instead of recomputing it).
/// N may be Eigen::Dynamic, with the bound MaxN on the unknowns (storage without the heap).
/// Jacobian is dense, or, for large systems, Eigen::SparseMatrix<double> (newton_solve_sparse).
/// If `last` is given, a converged solve also leaves there its last Jacobian and y = J⁻¹F(x)
/// (Linearisation above); Newton then writes its Jacobians there.
/// NoisyResidual: test (d) at the top of this file, a compile-time choice, so that it costs the
/// steps' Newton nothing.
template <int N, int MaxN = N, class JacobianMatrix = Matd<N, N, MaxN, MaxN>, bool NoisyResidual = false,
          class Residual, class Jacobian>
NewtonReport newton_solve(Residual&& residual_at, Jacobian&& jacobian_at, Vecd<N, MaxN>& x, double scale,
                          const NewtonOptions& options = {},
                          Linearisation<JacobianMatrix, Vecd<N, MaxN>>* last = nullptr) {
  detail::NewtonRules<N, MaxN, JacobianMatrix, NoisyResidual, std::remove_reference_t<Jacobian>> rules(
      jacobian_at, x.size(), scale, options, last);
  Vecd<N, MaxN> residual(x.size());
  return newton_iterate(rules, residual_at, x, residual, options.max_iterations);
}

/// Newton on a sparse Jacobian: jacobian(x, J) fills an Eigen::SparseMatrix<double> whose pattern
/// stays the same from one call to the next (entries that happen to be zero are kept).
template <class Residual, class Jacobian>
NewtonReport newton_solve_sparse(Residual&& residual_at, Jacobian&& jacobian_at, Eigen::VectorXd& x, double scale,
                                 const NewtonOptions& options = {},
                                 Linearisation<Eigen::SparseMatrix<double>, Eigen::VectorXd>* last = nullptr) {
  return newton_solve<Eigen::Dynamic, Eigen::Dynamic, Eigen::SparseMatrix<double>>(residual_at, jacobian_at, x, scale,
                                                                                  options, last);
}

/// The same with evaluate(x, F, J) filling both at once (for steps whose Jacobian comes with the
/// residual at little extra cost): the Jacobian of the latest evaluation is kept for Newton.
template <int N, int MaxN = N, class Evaluate>
NewtonReport newton_solve(Evaluate&& evaluate, Vecd<N, MaxN>& x, double scale, const NewtonOptions& options = {},
                          Linearisation<Matd<N, N, MaxN, MaxN>, Vecd<N, MaxN>>* last = nullptr) {
  using Matrix = Matd<N, N, MaxN, MaxN>;
  Matrix latest(x.size(), x.size());
  return newton_solve<N, MaxN>([&](const Vecd<N, MaxN>& y, Vecd<N, MaxN>& F) { evaluate(y, F, latest); },
                               [&](const Vecd<N, MaxN>&, Matrix& J) { J = latest; }, x, scale, options, last);
}

}  // namespace dalembert
