#pragma once
// Gauss–Newton with least-norm corrections, for conditions R(x) = 0 whose solutions form a family
// (the steady motions of a model come with their speeds, diagnostics/steady_motions.hpp): the
// Jacobian D is then rank-deficient or not square, and each iteration takes the correction of least
// norm, x ← x − D⁺R (D⁺ by a complete orthogonal decomposition), which moves to the solution
// nearest the start. It is Newton's loop (solve/newton.hpp, newton_iterate) with these corrections,
// undamped, and the caller's test of convergence.
#include <string>
#include <type_traits>

#include <Eigen/Dense>

#include "dalembert/solve/newton.hpp"

namespace dalembert {

struct GaussNewtonResult {
  bool converged = false;
  int iterations = 0;     ///< corrections taken
  double residual = 0.0;  ///< |R|_inf at the last x
};

namespace detail {
/// Gauss–Newton's rules for newton_iterate: D⁺R from the D of the latest evaluation.
template <class Converged>
struct LeastNormRules : UndampedRules {
  const Eigen::MatrixXd& D;
  Converged& converged_at;

  bool converged(const Eigen::VectorXd& x, double norm) const { return converged_at(x, norm); }
  bool correct(const Eigen::VectorXd&, const Eigen::VectorXd& R, Eigen::VectorXd& step) const {
    step = D.completeOrthogonalDecomposition().solve(R);
    return true;
  }
};
}  // namespace detail

/// Iterates on x until converged(x, |R|_inf) (tested before each correction), at most
/// max_iterations corrections, or until the residual is not finite. evaluate(x, R, D) fills the
/// residual and its Jacobian at x (R and D keep their sizes between calls).
template <class Evaluate, class Converged>
GaussNewtonResult gauss_newton(Eigen::VectorXd& x, Eigen::VectorXd& R, Eigen::MatrixXd& D, Evaluate&& evaluate,
                               Converged&& converged, int max_iterations) {
  detail::LeastNormRules<std::remove_reference_t<Converged>> rules{{}, D, converged};
  const auto residual_at = [&](const Eigen::VectorXd& y, Eigen::VectorXd& residual) { evaluate(y, residual, D); };
  const NewtonReport report = newton_iterate(rules, residual_at, x, R, max_iterations);
  return {report.converged, report.iterations, report.residual_norm};
}

}  // namespace dalembert
