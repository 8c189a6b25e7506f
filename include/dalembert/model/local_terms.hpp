#pragma once
// Large systems as sums of small terms: the structure that makes their derivatives sparse.
//
// A model of run-time size may declare that its Lagrangian and its constraints are sums of terms,
// each a small mechanical model of fixed size K acting on K of the coordinates:
//   L(q, v) = Σ_e L_e(q_{I_e}, v_{I_e}),   L_e = ½ v_{I_e}ᵀ G_e(q_{I_e}) v_{I_e} − V_e(q_{I_e}),
//   the rows of M(q) v: the rows M_e(q_{I_e}) v_{I_e} of every term, in the order of the terms,
// through one member
//   template <class Visit> void visit_terms(Visit&& visit) const;
// that calls visit(term, indices) for every term, with `term` a model of fixed n = K and m_e ≥ 0
// that has a metric and a potential (model/model.hpp) and `indices` a std::array<int, K> of
// distinct coordinates. The model keeps its dense interface as well (metric, potential,
// constraint_matrix), which every method uses; with the terms, the energy, the momentum, the
// constraint residual, the velocity in D and the constrained acceleration of RK4 and the reference
// solver (model/dynamics.hpp), and the steps of every method but `exact` (FIM's and GF's from
// the derivatives of local::LagrangianDerivativesAtStep, DLA's and MLA's from ForcedMapsByTerms,
// the others' from their equations summed over the terms) are
// assembled term by term, with sparse matrices, at a cost linear in the number of terms rather
// than cubic in n. The chain of knife edges (models/knife_edge_chain.hpp)
// is the catalogue's example; tests/test_knife_edge_chain.cpp checks both views against each other.
#include <array>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include "dalembert/model/model.hpp"

namespace dalembert {

namespace detail {
/// Accepts any term: the probe with which LocallyCoupled checks for visit_terms.
struct AnyTerm {
  template <class Term, std::size_t K>
  void operator()(const Term&, const std::array<int, K>&) const {}
};
}  // namespace detail

template <class S>
concept LocallyCoupled = Model<S> && requires(const S& s) { s.visit_terms(detail::AnyTerm{}); };

/// A locally coupled model whose steps the methods assemble term by term. An external force is
/// added by the dense steps only (its discrete forces are not split into terms), so a model with
/// one is stepped densely.
template <class S>
concept SteppedByTerms = LocallyCoupled<S> && !HasExternalForce<S>;

namespace local {

using Triplets = std::vector<Eigen::Triplet<double>>;

/// The rows × cols sparse matrix of the entries (duplicates summed).
inline Eigen::SparseMatrix<double> sparse_matrix(Eigen::Index rows, Eigen::Index cols, const Triplets& entries) {
  Eigen::SparseMatrix<double> A(rows, cols);
  A.setFromTriplets(entries.begin(), entries.end());
  return A;
}

/// x restricted to the coordinates of a term.
template <std::size_t K, class Vector>
Vecd<static_cast<int>(K)> gather(const Vector& x, const std::array<int, K>& indices) {
  Vecd<static_cast<int>(K)> out;
  for (std::size_t a = 0; a < K; ++a) out[a] = x[indices[a]];
  return out;
}

/// Adds a term's vector into the whole one.
template <std::size_t K, class Local, class Vector>
void scatter_add(const Local& local, const std::array<int, K>& indices, Vector& x) {
  for (std::size_t a = 0; a < K; ++a) x[indices[a]] += local[a];
}

/// E = Σ_e ½ v_eᵀ G_e v_e + V_e.
template <LocallyCoupled S, class Vector>
double energy(const S& sys, const Vector& q, const Vector& v) {
  double E = 0.0;
  sys.visit_terms([&](const auto& term, const auto& indices) {
    const auto qe = gather(q, indices), ve = gather(v, indices);
    E += 0.5 * ve.dot(term.template metric<double>(qe) * ve) + term.template potential<double>(qe);
  });
  return E;
}

/// p = ∂L/∂v = Σ_e G_e v_e, scattered.
template <LocallyCoupled S, class Vector>
Vector momentum(const S& sys, const Vector& q, const Vector& v) {
  Vector p = Vector::Zero(v.size());
  sys.visit_terms([&](const auto& term, const auto& indices) {
    const auto qe = gather(q, indices), ve = gather(v, indices);
    scatter_add(decltype(ve)(term.template metric<double>(qe) * ve), indices, p);
  });
  return p;
}

/// |M(q) v|_inf, row by row.
template <LocallyCoupled S, class Vector>
double constraint_residual(const S& sys, const Vector& q, const Vector& v) {
  double largest = 0.0;
  sys.visit_terms([&](const auto& term, const auto& indices) {
    using Term = std::decay_t<decltype(term)>;
    if constexpr (Term::m > 0) {
      const auto qe = gather(q, indices), ve = gather(v, indices);
      const Vecd<Term::m> rows = term.template constraint_matrix<double>(qe) * ve;
      largest = std::max(largest, rows.template lpNorm<Eigen::Infinity>());
    }
  });
  return largest;
}

/// M(q) as a sparse m×n matrix.
template <LocallyCoupled S, class Vector>
Eigen::SparseMatrix<double> constraint_matrix(const S& sys, const Vector& q) {
  Triplets entries;
  int row = 0;
  sys.visit_terms([&](const auto& term, const auto& indices) {
    using Term = std::decay_t<decltype(term)>;
    if constexpr (Term::m > 0) {
      const Matd<Term::m, Term::n> M = term.template constraint_matrix<double>(gather(q, indices));
      for (int r = 0; r < Term::m; ++r, ++row)
        for (int a = 0; a < Term::n; ++a) entries.emplace_back(row, indices[a], M(r, a));
    }
  });
  Eigen::SparseMatrix<double> M(constraint_count(sys), coordinate_count(sys));
  M.setFromTriplets(entries.begin(), entries.end());
  return M;
}

/// Appends the entries of G(q) and, with `constraints`, of M(q) (rows from n) as triplets: the
/// blocks of the saddle-point matrix [G Mᵀ; M 0], or G alone.
template <LocallyCoupled S, class Vector>
void add_metric_and_constraints(const S& sys, const Vector& q, int n, Triplets& out, bool constraints = true) {
  int row = n;
  sys.visit_terms([&](const auto& term, const auto& indices) {
    using Term = std::decay_t<decltype(term)>;
    constexpr int K = Term::n;
    const auto qe = gather(q, indices);
    const Matd<K, K> G = term.template metric<double>(qe);
    for (int a = 0; a < K; ++a)
      for (int b = 0; b < K; ++b)
        if (G(a, b) != 0.0) out.emplace_back(indices[a], indices[b], G(a, b));
    if constexpr (Term::m > 0) {
      if (!constraints) return;
      const Matd<Term::m, K> M = term.template constraint_matrix<double>(qe);
      for (int r = 0; r < Term::m; ++r, ++row) {
        for (int a = 0; a < K; ++a) {
          out.emplace_back(row, indices[a], M(r, a));
          out.emplace_back(indices[a], row, M(r, a));
        }
      }
    }
  });
}

/// The v of G v + Mᵀ μ = p, M v = 0 with `constraints`, of G v = p without, factorised sparsely
/// (non-finite if singular).
template <LocallyCoupled S, class Vector>
Vector solve_with_metric(const S& sys, const Vector& q, const Vector& p, bool constraints) {
  const int n = coordinate_count(sys), size = n + (constraints ? constraint_count(sys) : 0);
  Triplets entries;
  add_metric_and_constraints(sys, q, n, entries, constraints);
  Eigen::SparseMatrix<double> A(size, size);
  A.setFromTriplets(entries.begin(), entries.end());
  const Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(A);
  if (lu.info() != Eigen::Success) return Vector::Constant(n, std::numeric_limits<double>::quiet_NaN());
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(size);
  rhs.head(n) = p;
  return lu.solve(rhs).head(n);
}

/// v = G(q)⁻¹ p, the inverse Legendre map.
template <LocallyCoupled S, class Vector>
Vector legendre_inverse(const S& sys, const Vector& q, const Vector& p) {
  return solve_with_metric(sys, q, p, false);
}

/// The velocity v ∈ D_q whose momentum has the components of p on D (as velocity_in_distribution):
/// the saddle-point system G v + Mᵀ μ = p, M v = 0.
template <LocallyCoupled S, class Vector>
Vector velocity_in_distribution(const S& sys, const Vector& q, const Vector& p) {
  return solve_with_metric(sys, q, p, true);
}

}  // namespace local

}  // namespace dalembert
