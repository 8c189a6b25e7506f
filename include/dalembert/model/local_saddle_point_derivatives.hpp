#pragma once
// Derivatives of a locally coupled model's (model/local_terms.hpp) quantities that come from a sparse
// saddle-point system, as linear maps: the nonholonomic force and the projection onto Leg(D).
//
// The force F(q, v) = M(q)ᵀλ(q, v): λ is the multiplier of the constrained acceleration,
// A(q, v) x = r(q, v) with x = (q̈, λ) (model/dynamics.hpp), so
//   δx = A⁻¹ δg,   g(q, v) = r(q, v) − A(q, v) x  at the fixed solution x,
//   δF = ∂(M(q)ᵀλ)/∂q δq (λ fixed) + M(q)ᵀ δλ.
// The projection P*(q) p = G(q) v, (v, μ) the solution of B(q)(v, μ) = (p, 0), B = [G Mᵀ; M 0]
// (model/projectors.hpp), so
//   δ(v, μ) = B⁻¹((δp, 0) − ∂(B(q)(v, μ))/∂q δq),   δ(P* p) = ∂(G(q) v)/∂q δq + G δv.
// g, M(q)ᵀλ, B(q)(v, μ) and G(q)v are sums over the terms, each a function of its own coordinates,
// velocities and multipliers: their derivatives are sparse, differentiated at each term's fixed size.
// A⁻¹ and B⁻¹ couple every coordinate, so δF and δ(P* p) are dense functions of their arguments,
// applied with one sparse solve a product (SaddlePointDerivative).
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

/// The derivative of an output y(s, x(s)) with respect to s, where x(s) solves a sparse saddle-point
/// system S(s) x = b(s): δx = S⁻¹ R δs with R = ∂(b − S x)/∂s at the fixed solution, and δy = Y_s δs +
/// Y_x δx. Applied to δs = (δa, δb), the two halves of the state, with one sparse solve.
class SaddlePointDerivative {
 public:
  using Sparse = Eigen::SparseMatrix<double>;
  Eigen::VectorXd operator()(const Eigen::VectorXd& da, const Eigen::VectorXd& db) const {
    Eigen::VectorXd ds(da.size() + db.size());
    ds << da, db;
    const Eigen::VectorXd dx = system_->solve(Eigen::VectorXd(residual_by_state_ * ds));
    return output_by_state_ * ds + output_by_solution_ * dx;
  }

 private:
  template <LocallyCoupled S>
    requires(!HasExternalForce<S>)
  friend SaddlePointDerivative constraint_force_derivative(const S&, const Eigen::VectorXd&, const Eigen::VectorXd&);
  template <LocallyCoupled S>
  friend SaddlePointDerivative momentum_projection_derivative(const S&, const Eigen::VectorXd&,
                                                              const Eigen::VectorXd&);
  /// Factorises S and solves S x = b.
  SaddlePointDerivative(const Sparse& S, const Eigen::VectorXd& b, Eigen::VectorXd& x)
      : system_(std::make_shared<Eigen::SparseLU<Sparse>>(S)) {
    if (system_->info() != Eigen::Success)
      throw std::runtime_error("a saddle-point system is singular: what it gives has no derivative there");
    x = system_->solve(b);
  }
  /// The blocks R, Y_s and Y_x from their entries.
  void set_blocks(Eigen::Index outputs, Eigen::Index state, const Triplets& residual_by_state,
                  const Triplets& output_by_state, const Triplets& output_by_solution) {
    const Eigen::Index unknowns = system_->rows();
    residual_by_state_ = sparse_matrix(unknowns, state, residual_by_state);
    output_by_state_ = sparse_matrix(outputs, state, output_by_state);
    output_by_solution_ = sparse_matrix(outputs, unknowns, output_by_solution);
  }
  std::shared_ptr<const Eigen::SparseLU<Sparse>> system_;  ///< S, factorised
  Sparse residual_by_state_, output_by_state_, output_by_solution_;
};

namespace detail {
/// visit(term, indices, coordinates, rows, first_row) for every term, with the term's entries of a
/// solution x = (coordinate part, one entry per constraint row): its K coordinates' and its mt
/// constraint rows', which start at row n + first_row.
template <LocallyCoupled S, class Visit>
void visit_terms_with_solution(const S& sys, const Eigen::VectorXd& x, Visit&& visit) {
  const int n = coordinate_count(sys);
  int first_row = 0;
  sys.visit_terms([&](const auto& term, const auto& indices) {
    constexpr int mt = std::decay_t<decltype(term)>::m;
    Vecd<mt> rows;
    if constexpr (mt > 0) rows = x.template segment<mt>(n + first_row);
    visit(term, indices, gather(x, indices), rows, first_row);  // indices < n
    first_row += mt;
  });
}
}  // namespace detail

/// The derivative of F(q, v) = M(q)ᵀλ(q, v) at (q, v), applied to (δq, δv), for a model without
/// external force (whose force would enter r and F): S = A, x = (q̈, λ), Y_s = [∂(M(q)ᵀλ)/∂q, 0] at
/// fixed λ, Y_x = [0, M(q)ᵀ].
template <LocallyCoupled S>
  requires(!HasExternalForce<S>)
SaddlePointDerivative constraint_force_derivative(const S& sys, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const int n = coordinate_count(sys);
  const auto system = dalembert::detail::constrained_acceleration_system(sys, q, v);
  Eigen::VectorXd x;
  SaddlePointDerivative derivative(system.matrix, system.rhs, x);
  Triplets g_by_state, force_by_q, force_by_multiplier;
  detail::visit_terms_with_solution(sys, x, [&](const auto& term, const auto& indices, const auto& acceleration,
                                                const auto& multiplier, int first_row) {
    using Term = std::decay_t<decltype(term)>;
    constexpr int K = Term::n, mt = Term::m, Rows = 2 * K + mt;
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
    if constexpr (mt > 0) {
      const Matd<mt, K> M = term.template constraint_matrix<double>(Vecd<K>(z.template head<K>()));
      for (int r = 0; r < mt; ++r)
        for (int a = 0; a < K; ++a)
          if (M(r, a) != 0.0) force_by_multiplier.emplace_back(indices[a], n + first_row + r, M(r, a));
    }
  });
  derivative.set_blocks(n, 2 * n, g_by_state, force_by_q, force_by_multiplier);
  return derivative;
}

/// The derivative of P*(q) p, the momentum projected onto Leg(D) (model/projectors.hpp), at (q, p),
/// applied to (δq, δp): S = B, x = (v, μ), R = [−∂(B(q)(v, μ))/∂q, (I; 0)] at fixed (v, μ),
/// Y_s = [∂(G(q) v)/∂q, 0] at fixed v, Y_x = [G, 0].
template <LocallyCoupled S>
SaddlePointDerivative momentum_projection_derivative(const S& sys, const Eigen::VectorXd& q, const Eigen::VectorXd& p) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  Triplets entries;
  add_metric_and_constraints(sys, q, n, entries);
  const Eigen::SparseMatrix<double> B = sparse_matrix(n + m, n + m, entries);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + m), x;
  rhs.head(n) = p;
  SaddlePointDerivative derivative(B, rhs, x);
  Triplets residual_by_state, momentum_by_q, G;
  for (int i = 0; i < n; ++i) residual_by_state.emplace_back(i, n + i, 1.0);
  detail::visit_terms_with_solution(sys, x, [&](const auto& term, const auto& indices, const auto& v, const auto& mu,
                                                int first_row) {
    using Term = std::decay_t<decltype(term)>;
    constexpr int K = Term::n, mt = Term::m, Rows = 2 * K + mt;
    // q_e ↦ (the term's rows of B(q)(v, μ): G_e v_e + M_eᵀμ_e, M_e v_e; its G_e v_e)
    const auto rows = [&](const auto& qe) {
      using T = typename std::decay_t<decltype(qe)>::Scalar;
      const Vec<T, K> ve = ad::constants<T>(v, qe.size());
      const Vec<T, K> Gv = term.template metric<T>(qe) * ve;
      Vec<T, Rows> out;
      out.template head<K>() = Gv;
      out.template tail<K>() = Gv;
      if constexpr (mt > 0) {
        const Mat<T, mt, K> M = term.template constraint_matrix<T>(qe);
        out.template head<K>() += M.transpose() * ad::constants<T>(mu, qe.size());
        out.template segment<mt>(K) = M * ve;
      }
      return out;
    };
    const Vecd<K> qe = gather(q, indices);
    Vecd<Rows> value;
    Matd<Rows, K> J;
    ad::value_and_jacobian<K, Rows>(rows, qe, value, J);
    for (int r = 0; r < K + mt; ++r) {
      const int row = r < K ? indices[r] : n + first_row + (r - K);
      for (int c = 0; c < K; ++c)
        if (J(r, c) != 0.0) residual_by_state.emplace_back(row, indices[c], -J(r, c));
    }
    const Matd<K, K> Ge = term.template metric<double>(qe);
    for (int r = 0; r < K; ++r)
      for (int c = 0; c < K; ++c) {
        if (J(K + mt + r, c) != 0.0) momentum_by_q.emplace_back(indices[r], indices[c], J(K + mt + r, c));
        if (Ge(r, c) != 0.0) G.emplace_back(indices[r], indices[c], Ge(r, c));
      }
  });
  derivative.set_blocks(n, 2 * n, residual_by_state, momentum_by_q, G);
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
  std::vector<std::pair<ForceAtPoint, SaddlePointDerivative>> forces;
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
