#pragma once
// Gauss–Newton with least-norm corrections, for conditions R(x) = 0 whose solutions form a family
// (the steady motions of a model come with their speeds, diagnostics/steady_motions.hpp): the
// Jacobian D is then rank-deficient or not square, and each iteration takes the correction of least
// norm, x ← x − D⁺R (D⁺ by a complete orthogonal decomposition), which moves to the solution
// nearest the start. Newton's equations of a step, square and regular, are solve/newton.hpp's.
#include <cmath>

#include <Eigen/Dense>

namespace dalembert {

struct GaussNewtonResult {
  bool converged = false;
  int iterations = 0;     ///< corrections taken
  double residual = 0.0;  ///< |R|_inf at the last x
};

/// Iterates on x until converged(x, |R|_inf) (tested before each correction), at most
/// max_iterations corrections, or until the residual is not finite. evaluate(x, R, D) fills the
/// residual and its Jacobian at x (R and D keep their sizes between calls).
template <class Evaluate, class Converged>
GaussNewtonResult gauss_newton(Eigen::VectorXd& x, Eigen::VectorXd& R, Eigen::MatrixXd& D, Evaluate&& evaluate,
                               Converged&& converged, int max_iterations) {
  GaussNewtonResult out;
  for (;; ++out.iterations) {
    evaluate(x, R, D);
    out.residual = R.lpNorm<Eigen::Infinity>();
    if (converged(x, out.residual)) {
      out.converged = true;
      return out;
    }
    if (out.iterations == max_iterations || !std::isfinite(out.residual)) return out;
    x -= D.completeOrthogonalDecomposition().solve(R);
  }
}

}  // namespace dalembert
