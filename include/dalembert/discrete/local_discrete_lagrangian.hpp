#pragma once
// The α-rule and trapezoidal discrete Lagrangians and the α-rule discrete constraint of a locally
// coupled model (model/local_terms.hpp), term by term. With q̄ = (1−α) q0 + α q1 and v̄ = (q1 − q0)/h,
//   α-rule:      L_d(q0, q1) = Σ_e h L_e(q̄_{I_e}, v̄_{I_e}),
//   trapezoidal: L_d(q0, q1) = Σ_e (h/2) (L_e(q0_{I_e}, v̄_{I_e}) + L_e(q1_{I_e}, v̄_{I_e})),
//   ω(q0, q1) = the rows M_e(q̄_{I_e}) v̄_{I_e},
// so D1 L_d, D2 L_d and ω are sums of the terms' (each differentiated at its own fixed size, as
// AlphaRule, TrapezoidRule and AlphaConstraint of the term), and D12 L_d and ∂ω/∂q1 have the terms'
// blocks as their only non-zero entries.
#include <optional>
#include <type_traits>
#include <utility>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/local_terms.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert::local {

struct DiscreteDerivatives {
  Eigen::VectorXd D1, D2;  ///< D1 L_d and D2 L_d
  Eigen::VectorXd omega;   ///< ω(q0, q1)
  /// The Jacobian of (D1 L_d, ω) with respect to q1: D12 L_d in rows 0..n−1, ∂ω/∂q1 in rows n..n+m−1.
  Triplets by_q1;
};

namespace detail {
/// Fills d at (q0, q1) with the derivatives of Σ_e rule_of_term(term) and, when `constraint_alpha`
/// is given, ω with that α; without it only L_d's derivatives (ω empty, no rows below n). d's
/// storage is reused from one call to the next.
template <LocallyCoupled S, class RuleOfTerm>
void derivatives_by_terms(const S& sys, double h, RuleOfTerm rule_of_term, const Eigen::VectorXd& q0,
                          const Eigen::VectorXd& q1, DiscreteDerivatives& d, std::optional<double> constraint_alpha) {
  const int n = coordinate_count(sys);
  d.D1.setZero(n);
  d.D2.setZero(n);
  d.omega.resize(constraint_alpha ? constraint_count(sys) : 0);
  d.by_q1.clear();
  int row = n;
  sys.visit_terms([&](const auto& term, const auto& indices) {
    using Term = std::decay_t<decltype(term)>;
    constexpr int K = Term::n;
    const Vecd<K> a = gather(q0, indices), b = gather(q1, indices);
    const auto e = differentiate(rule_of_term(term), a, b);
    scatter_add(e.D1, indices, d.D1);
    scatter_add(e.D2, indices, d.D2);
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < K; ++j) d.by_q1.emplace_back(indices[i], indices[j], e.D12(i, j));
    if constexpr (Term::m > 0) {
      if (!constraint_alpha) return;
      const auto w = differentiate(AlphaConstraint<Term>(term, h, *constraint_alpha), a, b);
      for (int r = 0; r < Term::m; ++r, ++row) {
        d.omega[row - n] = w.value[r];
        for (int j = 0; j < K; ++j) d.by_q1.emplace_back(row, indices[j], w.D2(r, j));
      }
    }
  });
}
}  // namespace detail

/// Fills d at (q0, q1), L_d the α-rule with α = `alpha` and, when `constraint_alpha` is given, ω with
/// that α; without it only L_d's derivatives (ω empty, no rows below n). d's storage is reused from
/// one call to the next.
template <LocallyCoupled S>
void alpha_rule_derivatives(const S& sys, double h, double alpha, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1,
                            DiscreteDerivatives& d, std::optional<double> constraint_alpha = std::nullopt) {
  const auto rule_of_term = [&](const auto& term) { return AlphaRule<std::decay_t<decltype(term)>>(term, h, alpha); };
  detail::derivatives_by_terms(sys, h, rule_of_term, q0, q1, d, constraint_alpha);
}

/// The rule of the model's discrete Lagrangian `ld` for one term: the term's α-rule or trapezoidal
/// rule, a callable from the term.
template <LocallyCoupled S>
auto rule_of_each_term(const AlphaRule<S>& ld) {
  return [h = ld.step_size(), alpha = ld.alpha()](const auto& term) {
    return AlphaRule<std::decay_t<decltype(term)>>(term, h, alpha);
  };
}
template <LocallyCoupled S>
auto rule_of_each_term(const TrapezoidRule<S>& ld) {
  return [h = ld.step_size()](const auto& term) { return TrapezoidRule<std::decay_t<decltype(term)>>(term, h); };
}

/// The same for the model's discrete Lagrangian `ld`, the α-rule or the trapezoidal rule of sys.
template <LocallyCoupled S, class Ld>
  requires requires(const Ld& ld) { rule_of_each_term<S>(ld); }
void discrete_lagrangian_derivatives(const S& sys, const Ld& ld, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1,
                                     DiscreteDerivatives& d, std::optional<double> constraint_alpha = std::nullopt) {
  detail::derivatives_by_terms(sys, ld.step_size(), rule_of_each_term<S>(ld), q0, q1, d, constraint_alpha);
}

/// Whether discrete_lagrangian_derivatives takes Ld on sys term by term: the α-rule and the
/// trapezoidal rule above, and a discrete Lagrangian that brings its own overload (GF's S~,
/// method/generating_function.hpp).
template <class Ld, class S>
concept SplitsIntoTerms = LocallyCoupled<S> && requires(const S& sys, const Ld& ld, const Eigen::VectorXd& q,
                                                        DiscreteDerivatives& d) {
  discrete_lagrangian_derivatives(sys, ld, q, q, d);
};

/// The Jacobian [D12 L_d, −M(q_k)ᵀ; ∂ω/∂q1, 0] of a Newton system in (q_{k+1}, λ) whose momentum
/// rows carry −M(q_k)ᵀλ (DLA's, and MLA's without its force's derivative): d.by_q1 and the entries
/// of −M(q_k)ᵀ, gathered in `entries` (storage reused from one call to the next).
inline void saddle_point_jacobian(const DiscreteDerivatives& d, const Eigen::SparseMatrix<double>& Mq,
                                  Triplets& entries, Eigen::SparseMatrix<double>& J) {
  const Eigen::Index n = Mq.cols();
  entries = d.by_q1;
  for (int k = 0; k < Mq.outerSize(); ++k)
    for (Eigen::SparseMatrix<double>::InnerIterator it(Mq, k); it; ++it)
      entries.emplace_back(it.col(), n + it.row(), -it.value());
  J.setFromTriplets(entries.begin(), entries.end());
}

/// The derivative of DLA's step by terms with respect to (q_k, p_k), at its solution (q_{k+1}, λ):
/// the equations of discrete/position_momentum_derivative.hpp without forces,
///   F = (p_k + D1 L_d(q_k, q_{k+1}) − M(q_k)ᵀλ, ω(q_k, q_{k+1})) = 0,   p_{k+1} = D2 L_d(q_k, q_{k+1}),
/// ω the α-rule constraint with `constraint_alpha`; without it, no ω and no λ (GF's equations). Each
/// term's share, a function of its own coordinates of q_k and q_{k+1} and its own multipliers, is
/// differentiated at its fixed size; the blocks go to the sparse Jacobian of the equations. Rows of
/// the result: q_{k+1}, λ, p_{k+1}. `coupling` adds discrete forces of the multiplier of the
/// constrained acceleration (MLA's, GF's: model/local_saddle_point_derivatives.hpp).
template <LocallyCoupled S, class Ld>
SparseStepDerivative position_momentum_derivative_by_terms(const S& sys, const Ld& ld,
                                                           std::optional<double> constraint_alpha,
                                                           const Eigen::VectorXd& q0, const Eigen::VectorXd& q1,
                                                           const Eigen::VectorXd& lambda,
                                                           SparseStepDerivative::Coupling coupling = {}) {
  const int n = coordinate_count(sys), m = constraint_alpha ? constraint_count(sys) : 0;
  const double h = ld.step_size();
  const auto rule_of_term = rule_of_each_term<S>(ld);
  Triplets F_sigma, F_x, y_sigma, y_x;
  for (int i = 0; i < n; ++i) F_sigma.emplace_back(i, n + i, 1.0);  // ∂F/∂p_k = (I; 0)
  int first_row = 0;  // the term's first constraint row
  sys.visit_terms([&](const auto& term, const auto& indices) {
    using Term = std::decay_t<decltype(term)>;
    constexpr int K = Term::n, mt = Term::m, Z = 2 * K + mt;
    const auto term_ld = rule_of_term(term);
    // z = (q_k, q_{k+1}, λ) of the term ↦ (D1 L_d − M(q_k)ᵀλ, ω, D2 L_d) of the term (λ = 0 and ω
    // left out without constraints)
    const auto equations = [&](const auto& z) {
      using T = typename std::decay_t<decltype(z)>::Scalar;
      const Vec<T, K> a = z.template head<K>(), b = z.template segment<K>(K);
      T value;
      Vec<T, 2 * K> slots;
      ad::value_and_gradient<2 * K>(
          [&](const auto& y) {
            using U = typename std::decay_t<decltype(y)>::Scalar;
            return term_ld(Vec<U, K>(y.template head<K>()), Vec<U, K>(y.template tail<K>()));
          },
          Vec<T, 2 * K>(z.template head<2 * K>()), value, slots);
      Vec<T, Z> out;
      out.template head<K>() = slots.template head<K>();
      out.template tail<K>() = slots.template tail<K>();
      if constexpr (mt > 0) {
        out.template head<K>() -= term.template constraint_matrix<T>(a).transpose() * z.template tail<mt>();
        out.template segment<mt>(K) = AlphaConstraint<Term>(term, h, constraint_alpha.value_or(0.5))(a, b);
      }
      return out;
    };
    Vecd<Z> z;
    z.template head<K>() = gather(q0, indices);
    z.template segment<K>(K) = gather(q1, indices);
    if constexpr (mt > 0) {
      if (constraint_alpha) {
        z.template tail<mt>() = lambda.template segment<mt>(first_row);
      } else {
        z.template tail<mt>().setZero();
      }
    }
    Vecd<Z> value;
    Matd<Z, Z> J;
    ad::value_and_jacobian<Z, Z>(equations, z, value, J);
    // Where the term's rows and columns are in the whole: its momentum rows of F, its rows of ω, its
    // rows of p_{k+1}; its columns of q_k (σ), of q_{k+1} and of λ (x).
    const auto row_of = [&](int r) {
      return r < K ? indices[r] : r < K + mt ? n + first_row + (r - K) : indices[r - K - mt];
    };
    const auto column_of = [&](int c) {
      return c < K ? indices[c] : c < 2 * K ? indices[c - K] : n + first_row + (c - 2 * K);
    };
    const auto constraint_row_or_column = [&](int r, int c) { return (r >= K && r < K + mt) || c >= 2 * K; };
    for (int r = 0; r < Z; ++r) {
      const bool of_F = r < K + mt;
      for (int c = 0; c < Z; ++c) {
        if (J(r, c) == 0.0 || (!constraint_alpha && constraint_row_or_column(r, c))) continue;
        Triplets& block = c < K ? (of_F ? F_sigma : y_sigma) : (of_F ? F_x : y_x);
        block.emplace_back(row_of(r), column_of(c), J(r, c));
      }
    }
    first_row += mt;
  });
  return SparseStepDerivative(sparse_matrix(n + m, 2 * n, F_sigma), sparse_matrix(n + m, n + m, F_x),
                              sparse_matrix(n, 2 * n, y_sigma), sparse_matrix(n, n + m, y_x), std::move(coupling));
}

/// D1, D2 and D12 L_d at (q0, q1) for a step whose Newton Jacobian is D12 L_d: of the whole L_d, D12
/// dense, or summed over the model's local terms, D12 sparse, as SplitsIntoTerms decides. A method
/// that takes its derivatives from here writes its step once for both storages.
template <class S, class Ld>
class LagrangianDerivativesAtStep {
 public:
  static constexpr bool by_terms = SplitsIntoTerms<Ld, S>;
  /// The derivatives of the whole L_d, as differentiate() gives them.
  using Whole = decltype(differentiate(std::declval<const Ld&>(), std::declval<const VecN<S>&>(),
                                       std::declval<const VecN<S>&>()));
  using Jacobian = std::conditional_t<by_terms, Eigen::SparseMatrix<double>, MatNN<S>>;

  /// Evaluates at (q0, q1); D1(), D2() and jacobian() are of the latest evaluation.
  void evaluate(const S& sys, const Ld& ld, const VecN<S>& q0, const VecN<S>& q1) {
    if constexpr (by_terms) {
      discrete_lagrangian_derivatives(sys, ld, q0, q1, d_);
    } else {
      d_ = differentiate(ld, q0, q1);
    }
  }
  const auto& D1() const { return d_.D1; }
  const auto& D2() const { return d_.D2; }
  /// D1 = −L_v + D1_rest and D2 = L_v + D2_rest, where the derivatives come split (SplitDerivatives).
  static constexpr bool split = !by_terms && requires(const Whole& d) { d.Lv; };
  const auto& Lv() const { return d_.Lv; }
  const auto& D1_rest() const { return d_.D1_rest; }
  const auto& D2_rest() const { return d_.D2_rest; }
  /// D12 into J (of Jacobian's storage, or a dense matrix of another bound that J resizes to it).
  template <class Matrix>
  void jacobian(Matrix& J) const {
    if constexpr (by_terms) {
      J.setFromTriplets(d_.by_q1.begin(), d_.by_q1.end());
    } else {
      J = d_.D12;
    }
  }

 private:
  std::conditional_t<by_terms, DiscreteDerivatives, Whole> d_;
};

}  // namespace dalembert::local
