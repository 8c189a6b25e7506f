#pragma once
// The derivative of the nonholonomic force F(q, v) = M(q)ᵀλ(q, v) of a locally coupled model
// (model/local_terms.hpp), as a linear map. λ is the multiplier of the saddle-point system of the
// constrained acceleration, A(q, v) x = r(q, v) with x = (q̈, λ) (model/dynamics.hpp), so
//   δx = A⁻¹ δg,   g(q, v) = r(q, v) − A(q, v) x  at the fixed solution x,
//   δF = ∂(M(q)ᵀλ)/∂q δq (λ fixed) + M(q)ᵀ δλ.
// g and M(q)ᵀλ are sums over the terms, each a function of its own coordinates, velocities and
// multipliers: their derivatives are sparse, differentiated at each term's fixed size. A⁻¹ couples
// every coordinate, so δF is a dense function of (δq, δv), applied with one sparse solve a product.
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/local_terms.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert::local {

/// δF(δq, δv) of the nonholonomic force at the (q, v) it was made at (constraint_force_derivative).
class ConstraintForceDerivative {
 public:
  using Sparse = Eigen::SparseMatrix<double>;
  Eigen::VectorXd operator()(const Eigen::VectorXd& dq, const Eigen::VectorXd& dv) const {
    Eigen::VectorXd by_state(dq.size() + dv.size());
    by_state << dq, dv;
    const Eigen::VectorXd dx = saddle_point_->solve(Eigen::VectorXd(g_by_state_ * by_state));
    return force_by_q_ * dq + M_.transpose() * dx.tail(M_.rows());
  }

 private:
  template <LocallyCoupled S>
    requires(!HasExternalForce<S>)
  friend ConstraintForceDerivative constraint_force_derivative(const S&, const Eigen::VectorXd&,
                                                               const Eigen::VectorXd&);
  explicit ConstraintForceDerivative(const Sparse& A) : saddle_point_(std::make_shared<Eigen::SparseLU<Sparse>>(A)) {
    if (saddle_point_->info() != Eigen::Success)
      throw std::runtime_error("the constrained acceleration's system is singular: the force has no derivative there");
  }
  std::shared_ptr<const Eigen::SparseLU<Sparse>> saddle_point_;  ///< A, factorised
  Sparse g_by_state_;                     ///< ∂g/∂(q, v)
  Sparse force_by_q_;                     ///< ∂(M(q)ᵀλ)/∂q at fixed λ
  Sparse M_;                              ///< M(q)
};

/// The derivative of F(q, v) = M(q)ᵀλ(q, v) at (q, v), for a model without external force (whose
/// force would enter r and F).
template <LocallyCoupled S>
  requires(!HasExternalForce<S>)
ConstraintForceDerivative constraint_force_derivative(const S& sys, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  const auto system = dalembert::detail::constrained_acceleration_system(sys, q, v);
  ConstraintForceDerivative derivative(system.matrix);
  const Eigen::VectorXd x = derivative.saddle_point_->solve(system.rhs);
  Triplets g_by_state, force_by_q;
  int first_row = 0;  // the term's first constraint row
  sys.visit_terms([&](const auto& term, const auto& indices) {
    using Term = std::decay_t<decltype(term)>;
    constexpr int K = Term::n, mt = Term::m, Rows = 2 * K + mt;
    const Vecd<K> acceleration = gather(Eigen::VectorXd(x.head(n)), indices);
    Vecd<mt> multiplier;
    if constexpr (mt > 0) multiplier = x.template segment<mt>(n + first_row);
    // (q_e, v_e) ↦ (the term's rows of g: K coordinate rows, mt constraint rows; its M_eᵀλ_e)
    const auto rows = [&](const auto& z) {
      using T = typename std::decay_t<decltype(z)>::Scalar;
      const Vec<T, K> qe = z.template head<K>(), ve = z.template tail<K>();
      const Vec<T, K> a = ad::constants<T>(acceleration, z.size());
      const auto d = lagrangian_derivatives(term, qe, ve);
      Vec<T, Rows> out;
      out.template head<K>() = d.Lq - d.B * ve - d.W * a;
      out.template tail<K>().setZero();
      if constexpr (mt > 0) {
        const Vec<T, mt> lambda = ad::constants<T>(multiplier, z.size());
        const Mat<T, mt, K> M = term.template constraint_matrix<T>(qe);
        const Vec<T, K> force = M.transpose() * lambda;
        out.template head<K>() += force;
        out.template segment<mt>(K) = -constraint_curvature(term, qe, ve) - M * a;
        out.template tail<K>() = force;
      }
      return out;
    };
    Vecd<2 * K> z;
    z << gather(q, indices), gather(v, indices);
    Vecd<Rows> value;
    Matd<Rows, 2 * K> J;
    ad::value_and_jacobian<2 * K, Rows>(rows, z, value, J);
    const auto column_of = [&](int c) { return c < K ? indices[c] : n + indices[c - K]; };
    for (int r = 0; r < K + mt; ++r) {
      const int row = r < K ? indices[r] : n + first_row + (r - K);
      for (int c = 0; c < 2 * K; ++c)
        if (J(r, c) != 0.0) g_by_state.emplace_back(row, column_of(c), J(r, c));
    }
    for (int r = 0; r < K; ++r)
      for (int c = 0; c < K; ++c)
        if (J(K + mt + r, c) != 0.0) force_by_q.emplace_back(indices[r], indices[c], J(K + mt + r, c));
    first_row += mt;
  });
  derivative.g_by_state_.resize(n + m, 2 * n);
  derivative.g_by_state_.setFromTriplets(g_by_state.begin(), g_by_state.end());
  derivative.force_by_q_.resize(n, n);
  derivative.force_by_q_.setFromTriplets(force_by_q.begin(), force_by_q.end());
  derivative.M_ = local::constraint_matrix(sys, q);
  return derivative;
}

/// A discrete force of the segment (q0, q1) made of F at q_β = (1−β) q0 + β q1 and v_d = (q1 − q0)/h:
/// h·in_equations·F in the momentum rows of a step's equations, h·in_result·F in its result.
struct ForceAtPoint {
  double beta, in_equations, in_result;
};

/// The coupling (SparseStepDerivative::Coupling) of a step by terms from q0 = q_k to q1 = q_{k+1}
/// whose equations (`equations` rows, the momentum rows first) and result carry the forces at
/// `points`: σ = (q_k, p_k), and the unknowns x start with q_{k+1}.
template <LocallyCoupled S>
SparseStepDerivative::Coupling constraint_force_coupling(const S& sys, double h, const Eigen::VectorXd& q0,
                                                         const Eigen::VectorXd& q1,
                                                         const std::vector<ForceAtPoint>& points,
                                                         Eigen::Index equations) {
  std::vector<std::pair<ForceAtPoint, ConstraintForceDerivative>> forces;
  const Eigen::VectorXd v = (q1 - q0) / h;
  for (const ForceAtPoint& p : points)
    forces.emplace_back(p, constraint_force_derivative(sys, Eigen::VectorXd((1.0 - p.beta) * q0 + p.beta * q1), v));
  return [forces = std::move(forces), h, equations](const Eigen::VectorXd& dsigma, const Eigen::VectorXd& dx) {
    const Eigen::Index n = dsigma.size() / 2;
    const Eigen::VectorXd dq0 = dsigma.head(n), dq1 = dx.head(n), dv = (dq1 - dq0) / h;
    std::pair<Eigen::VectorXd, Eigen::VectorXd> out{Eigen::VectorXd::Zero(equations), Eigen::VectorXd::Zero(n)};
    for (const auto& [p, dF] : forces) {
      const Eigen::VectorXd dF_along = dF(Eigen::VectorXd((1.0 - p.beta) * dq0 + p.beta * dq1), dv);
      out.first.head(n) += (h * p.in_equations) * dF_along;
      out.second += (h * p.in_result) * dF_along;
    }
    return out;
  };
}

}  // namespace dalembert::local
