#pragma once
// Continuous Lagrange–d'Alembert dynamics with the multiplier eliminated.
//
// Sign convention (docs/references.md):  d/dt ∂L/∂v − ∂L/∂q = F_ext + M(q)ᵀλ,  M(q) v = 0.
// With W = ∂²L/∂v², B_ij = ∂²L/∂v_i∂q_j, r = ∂L/∂q − B v + F_ext and a = (∂(M v)/∂q) v:
//   f = W⁻¹ r,   C = M W⁻¹ Mᵀ,   λ = −C⁻¹ (a + M f),   q̈ = f + W⁻¹ Mᵀ λ.
// These formulas are evaluated at every (q, v), also off D (the "multiplier extension",
// the multiplier of [AS21] Thm 3.6.8 used on all of TQ): along its flow d/dt (M v) = 0, so every level set of the
// constraint functions, and D in particular, is invariant. All functions are generic in the scalar
// type so that the reference and shooting solvers can differentiate through them.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include <Eigen/LU>
#include <Eigen/QR>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/core/tangent.hpp"
#include "dalembert/model/constant_metric.hpp"
#include "dalembert/model/local_terms.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/solve/dual_lu.hpp"
#include "dalembert/solve/small_ldlt.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

/// L and its first and second derivatives at one point (q, v). N, MaxN: the sizes of the model.
template <class T, int N, int MaxN = N>
struct LagrangianDerivatives {
  T L;
  Vec<T, N, MaxN> Lq;          ///< ∂L/∂q
  Vec<T, N, MaxN> Lv;          ///< ∂L/∂v (the momentum)
  Mat<T, N, N, MaxN, MaxN> W;  ///< ∂²L/∂v²
  Mat<T, N, N, MaxN, MaxN> B;  ///< B(i, j) = ∂²L/∂v_i ∂q_j
};

/// The derivatives of a model's Lagrangian, with scalar T.
template <class S, class T = double>
using LagrangianDerivativesOf = LagrangianDerivatives<T, S::n, max_n_of<S>()>;

namespace detail {
template <class T>
struct first_order_dual : std::false_type {};
#if !defined(DALEMBERT_AD_CERES)
template <int K, int Options, int MaxK>
struct first_order_dual<Eigen::AutoDiffScalar<Eigen::Matrix<double, K, 1, Options, MaxK, 1>>> : std::true_type {};
#else
template <int K>
struct first_order_dual<ad::Dual<double, K>> : std::true_type {};
#endif

/// lagrangian_derivatives for (q, v) carrying K first-order derivatives (the Jacobian of the
/// acceleration, as in [AS21] (4.1.6)): L is evaluated on ad::Tangent<hyper-dual, K>, the K directions
/// outside the hyper-dual that gives the second derivatives (see core/tangent.hpp for why not a
/// third AutoDiffScalar level); every entry then carries its K directional derivatives.
/// Flattened: g++ otherwise calls the inner dual products out of line, and MLA's step, whose cost
/// this is, slows down (docs/decisions.md, Compiler).
template <Model S, class D>
[[gnu::flatten]] LagrangianDerivativesOf<S, D> lagrangian_derivatives_along(const S& sys, const VecN<S, D>& q,
                                                                           const VecN<S, D>& v) {
  constexpr int K = D::DerType::RowsAtCompileTime, MaxK = D::DerType::MaxRowsAtCompileTime;
  const int n = coordinate_count(sys);
  int k_width = 0;  // the number of outer directions
  for (int i = 0; i < n; ++i)
    k_width = std::max({k_width, static_cast<int>(q[i].derivatives().size()), static_cast<int>(v[i].derivatives().size())});
  // The hyper-dual along v (width W) inside (q, v) (width 2W).
  const auto at = [&]<int W, int MaxW>() DALEMBERT_INLINE {
    constexpr int W2 = multiple_of_size(2, W), MaxW2 = multiple_of_size(2, MaxW);
    using Grad = ad::Dual<ad::Dual<double, W, MaxW>, W2, MaxW2>;
    using Outer = ad::Tangent<Grad, K, MaxK>;
    VecN<S, Outer> qd(n), vd(n);
    for (int i = 0; i < n; ++i) {
      qd[i] = Outer(ad::variable<W2, MaxW2>(ad::constant<W, MaxW>(ad::value(q[i]), n), i, 2 * n));
      vd[i] = Outer(ad::variable<W2, MaxW2>(ad::variable<W, MaxW>(ad::value(v[i]), i, n), n + i, 2 * n));
      qd[i].resize(k_width);
      vd[i].resize(k_width);
      for (int k = 0; k < k_width; ++k) {
        qd[i].d[k] = ad::lift<Grad>(ad::derivative(q[i], k));
        vd[i].d[k] = ad::lift<Grad>(ad::derivative(v[i], k));
      }
    }
    const Outer L = sys.template lagrangian<Outer>(qd, vd);
    // One entry of the hyper-dual, with its K directional derivatives.
    const auto entry = [&](const auto& pick) {
      D r;
      r.value() = pick(L.a);
      if constexpr (K == Eigen::Dynamic) r.derivatives().resize(k_width);
      for (int k = 0; k < k_width; ++k) r.derivatives()[k] = pick(L.at(k));
      return r;
    };
    LagrangianDerivativesOf<S, D> d;
    d.Lq.resize(n);
    d.Lv.resize(n);
    d.B.resize(n, n);
    d.W.resize(n, n);
    d.L = entry([](const Grad& g) { return ad::value(ad::value(g)); });
    for (int j = 0; j < n; ++j) {
      d.Lq[j] = entry([j](const Grad& g) { return ad::value(ad::derivative(g, j)); });
      d.Lv[j] = entry([j, n](const Grad& g) { return ad::value(ad::derivative(g, n + j)); });
      for (int i = 0; i < n; ++i) {
        d.B(i, j) = entry([i, j](const Grad& g) { return ad::derivative(ad::derivative(g, j), i); });
        d.W(i, j) = entry([i, j, n](const Grad& g) { return ad::derivative(ad::derivative(g, n + j), i); });
      }
    }
    return d;
  };
  if constexpr (S::n != Dynamic) {
    return at.template operator()<S::n, max_n_of<S>()>();
  } else {
    // Of run-time size: fixed width 4 for n <= 4 (under 0.5 KB a hyper-dual); above, the numbers
    // would take several KB each within the bound (more than Eigen allows inside a vector with K
    // directions of 16), so they keep their derivatives on the heap.
    if constexpr (ad::padded_width<S::n, max_n_of<S>()>) {
      constexpr int W = std::min(4, max_n_of<S>());
      if (n <= W) return at.template operator()<W, W>();
    }
    return at.template operator()<Dynamic, Dynamic>();
  }
}

/// L, ∂L/∂q, ∂L/∂v, B = ∂²L/∂v∂q and W = ∂²L/∂v² read from L evaluated at hyper-duals seeded
/// along (q, v, …) outside (q at 0 … n−1, v at n … 2n−1) and along v inside.
template <class HyperDual, class Derivatives>
[[gnu::always_inline]] inline void read_lagrangian_derivatives(const HyperDual& L, int n, Derivatives& d) {
  d.Lq.resize(n);
  d.Lv.resize(n);
  d.B.resize(n, n);
  d.W.resize(n, n);
  d.L = ad::value(ad::value(L));
  for (int j = 0; j < n; ++j) {
    const auto& dq = ad::derivative(L, j);
    const auto& dv = ad::derivative(L, n + j);
    d.Lq[j] = ad::value(dq);
    d.Lv[j] = ad::value(dv);
    for (int i = 0; i < n; ++i) {
      d.B(i, j) = ad::derivative(dq, i);
      d.W(i, j) = ad::derivative(dv, i);
    }
  }
}

/// L, ∂L/∂q, ∂L/∂v, W and B at one point, from one evaluation with hyper-dual numbers: along v
/// (width n) inside, along (q, v) (width 2n) outside, at the widths ad::at_width chooses for n.
template <Model S, class T>
[[gnu::flatten]] LagrangianDerivativesOf<S, T> lagrangian_derivatives_at(const S& sys, const VecN<S, T>& q,
                                                                        const VecN<S, T>& v) {
  const int n = coordinate_count(sys);
  return ad::at_width<S::n, max_n_of<S>()>(n, [&]<int W, int MaxW>() DALEMBERT_INLINE {
    constexpr int W2 = multiple_of_size(2, W), MaxW2 = multiple_of_size(2, MaxW);
    using AlongV = ad::Dual<T, W, MaxW>;       // derivatives of the gradient along v
    using Grad = ad::Dual<AlongV, W2, MaxW2>;  // gradient with respect to (q, v)
    VecN<S, Grad> qd(n), vd(n);
    for (int i = 0; i < n; ++i) {
      qd[i] = ad::variable<W2, MaxW2>(ad::constant<W, MaxW>(q[i], n), i, 2 * n);
      vd[i] = ad::variable<W2, MaxW2>(ad::variable<W, MaxW>(v[i], i, n), n + i, 2 * n);
    }
    LagrangianDerivativesOf<S, T> d;
    read_lagrangian_derivatives(sys.template lagrangian<Grad>(qd, vd), n, d);
    return d;
  });
}
}  // namespace detail

/// A model that computes these derivatives itself (model files, from their kernels' Taylor
/// coefficients: src/modelfile/file_model.hpp) gives sys.lagrangian_derivatives(q, v, d).
template <class S, class T>
concept GivesLagrangianDerivatives = requires(const S& sys, const VecN<S, T>& q, LagrangianDerivativesOf<S, T>& d) {
  sys.lagrangian_derivatives(q, q, d);
};

template <Model S, class T>
LagrangianDerivativesOf<S, T> lagrangian_derivatives(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v) {
  if constexpr (GivesLagrangianDerivatives<S, T>) {
    LagrangianDerivativesOf<S, T> d;
    sys.lagrangian_derivatives(q, v, d);
    return d;
  } else if constexpr (detail::first_order_dual<T>::value) {
    return detail::lagrangian_derivatives_along(sys, q, v);
  } else {
    return detail::lagrangian_derivatives_at(sys, q, v);
  }
}

/// The momentum ∂L/∂v.
template <Model S>
VecN<S> momentum(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  if constexpr (LocallyCoupled<S>) return local::momentum(sys, q, v);
  double L;
  VecN<S> p;
  ad::value_and_gradient<S::n, max_n_of<S>()>(
      [&](const auto& vd) {
        using D = typename std::decay_t<decltype(vd)>::Scalar;
        return sys.template lagrangian<D>(ad::constants<D>(q, vd.size()), vd);
      },
      v, L, p);
  return p;
}

/// The energy E_L = v·∂L/∂v − L as the sum of two terms: ½ vᵀG(q)v and V(q) for mechanical models
/// (without AD), v·∂L/∂v and −L otherwise; a locally coupled model gives its sum alone. |first| +
/// |second| is the size against which an energy error is judged (io/monitors.hpp, energy-error).
struct EnergyTerms {
  double first = 0.0, second = 0.0;
  double energy() const { return first + second; }
  double size() const { return std::abs(first) + std::abs(second); }
};

template <Model S>
EnergyTerms energy_terms(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  if constexpr (LocallyCoupled<S>) return {local::energy(sys, q, v), 0.0};
  if constexpr (HasMetric<S>) {
    if (is_mechanical(sys)) {
      const MatNN<S> G = sys.template metric<double>(q);
      return {0.5 * v.dot(G * v), sys.template potential<double>(q)};
    }
  }
  double L;
  VecN<S> p;
  ad::value_and_gradient<S::n, max_n_of<S>()>(
      [&](const auto& vd) {
        using D = typename std::decay_t<decltype(vd)>::Scalar;
        return sys.template lagrangian<D>(ad::constants<D>(q, vd.size()), vd);
      },
      v, L, p);
  return {v.dot(p), -L};
}

/// The energy E_L = v·∂L/∂v − L (for mechanical models ½ vᵀG(q)v + V(q), without AD).
template <Model S>
double energy(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  return energy_terms(sys, q, v).energy();
}

/// The constraint matrix M(q), rows = constraint 1-forms.
template <Model S>
MatMN<S> constraint_matrix(const S& sys, const VecN<S>& q) {
  return sys.template constraint_matrix<double>(q);
}

/// The largest continuous constraint residual |M(q) v + b(q, t)|_inf at the time t (b = 0 but for
/// affine constraints; 0 for unconstrained systems).
template <Model S>
double constraint_residual(const S& sys, const VecN<S>& q, const VecN<S>& v, double t) {
  if constexpr (S::m == 0) {
    return 0.0;
  } else if constexpr (LocallyCoupled<S>) {
    return local::constraint_residual(sys, q, v);
  } else {
    if (constraint_count(sys) == 0) return 0.0;
    VecM<S> residual = sys.template constraint_matrix<double>(q) * v;
    add_constraint_offset(sys, q, t, residual);
    return residual.template lpNorm<Eigen::Infinity>();
  }
}

/// The same for constraints that do not depend on the time.
template <Model S>
double constraint_residual(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  require_time_independent_constraints(sys, "the constraint residual");
  return constraint_residual(sys, q, v, 0.0);
}

/// ∂(M(q) v)/∂q at a fixed v, m × n, by differentiating M(q) v along q: a second level of duals
/// inside T.
template <Model S, class T>
Mat<T, S::m, S::n, max_m_of<S>(), max_n_of<S>()> constraint_derivative_by_position(const S& sys, const VecN<S, T>& q,
                                                                                   const VecN<S, T>& v) {
  VecM<S, T> Mv;
  Mat<T, S::m, S::n, max_m_of<S>(), max_n_of<S>()> dMv;
  ad::value_and_jacobian<S::n, S::m, max_n_of<S>(), max_m_of<S>()>(
      [&](const auto& qd) {
        using D = typename std::decay_t<decltype(qd)>::Scalar;
        const VecN<S, D> vd = ad::constants<D>(v, qd.size());
        return VecM<S, D>(coefficient_product(sys.template constraint_matrix<D>(qd), vd));
      },
      q, Mv, dMv);
  return dMv;
}

namespace detail {
/// (∂(M v)/∂q) v by differentiating M(q) v along q.
template <Model S, class T>
VecM<S, T> constraint_curvature_by_duals(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v) {
  return constraint_derivative_by_position(sys, q, v) * v;
}
}  // namespace detail

/// A model that computes (∂(M v)/∂q) v itself (model files, from their kernels' Taylor
/// coefficients: src/modelfile/file_model.hpp) gives sys.constraint_curvature(q, v, t, out), with
/// (∂b/∂q) v + ∂b/∂t at the time t for affine constraints.
template <class S, class T>
concept GivesConstraintCurvature = requires(const S& sys, const VecN<S, T>& q, VecM<S, T>& out) {
  sys.constraint_curvature(q, q, 0.0, out);
};

/// a = (∂(M(q) v)/∂q) v at the time t, the part of d/dt (M v + b) that does not involve q̈.
template <Model S, class T>
VecM<S, T> constraint_curvature(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v, double t) {
  if constexpr (GivesConstraintCurvature<S, T>) {
    VecM<S, T> out;
    sys.constraint_curvature(q, v, t, out);
    return out;
  } else {
    return detail::constraint_curvature_by_duals(sys, q, v);
  }
}

/// The same for constraints that do not depend on the time.
template <Model S, class T>
VecM<S, T> constraint_curvature(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v) {
  require_time_independent_constraints(sys, "the constraint curvature");
  return constraint_curvature(sys, q, v, 0.0);
}

/// Acceleration and multipliers of the Lagrange–d'Alembert equations at (q, v).
template <class T, int N, int M, int MaxN = N, int MaxM = M>
struct ConstrainedAcceleration {
  Vec<T, N, MaxN> acceleration;
  Vec<T, M, MaxM> multiplier;  ///< λ, with constraint force M(q)ᵀλ
};
template <class S, class T = double>
using ConstrainedAccelerationOf = ConstrainedAcceleration<T, S::n, S::m, max_n_of<S>(), max_m_of<S>()>;

namespace detail {
/// The sparse saddle-point system of the constrained acceleration of a locally coupled model
/// (model/local_terms.hpp) at (q, v), assembled term by term: r = Σ_e (L_q − B v)_e and a = the rows
/// (∂(M_e v)/∂q) v of the constraint terms in W q̈ − Mᵀλ = r, M q̈ = −a, unknowns (q̈, λ).
struct SaddlePointByTerms {
  Eigen::SparseMatrix<double> matrix;
  Eigen::VectorXd rhs;
};
template <LocallyCoupled S>
SaddlePointByTerms constrained_acceleration_system(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  SaddlePointByTerms out{Eigen::SparseMatrix<double>(n + m, n + m), Eigen::VectorXd::Zero(n + m)};
  local::Triplets entries;
  int row = n;
  sys.visit_terms([&](const auto& term, const auto& indices) {
    using Term = std::decay_t<decltype(term)>;
    constexpr int K = Term::n;
    const Vecd<K> qe = local::gather(q, indices), ve = local::gather(v, indices);
    const auto d = lagrangian_derivatives(term, qe, ve);
    local::scatter_add(Vecd<K>(d.Lq - d.B * ve), indices, out.rhs);
    for (int a = 0; a < K; ++a)
      for (int b = 0; b < K; ++b) entries.emplace_back(indices[a], indices[b], d.W(a, b));
    if constexpr (Term::m > 0) {
      const Matd<Term::m, K> M = term.template constraint_matrix<double>(qe);
      const Vecd<Term::m> curvature = constraint_curvature(term, qe, ve);
      for (int r = 0; r < Term::m; ++r, ++row) {
        out.rhs[row] = -curvature[r];
        for (int a = 0; a < K; ++a) {
          entries.emplace_back(row, indices[a], M(r, a));
          entries.emplace_back(indices[a], row, -M(r, a));
        }
      }
    }
  });
  out.matrix.setFromTriplets(entries.begin(), entries.end());
  return out;
}

/// The constrained acceleration of a locally coupled model from that system, factorised sparsely.
template <LocallyCoupled S>
ConstrainedAccelerationOf<S> constrained_acceleration_by_terms(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  const SaddlePointByTerms system = constrained_acceleration_system(sys, q, v);
  const Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(system.matrix);
  if (lu.info() != Eigen::Success) {  // singular: non-finite, as the dense path gives
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {Eigen::VectorXd::Constant(n, nan), Eigen::VectorXd::Constant(m, nan)};
  }
  const Eigen::VectorXd x = lu.solve(system.rhs);
  return {x.head(n), x.tail(m)};
}
}  // namespace detail

/// Whether S returns its metric with double entries, as a constant metric may (model/model.hpp):
/// G is then the same matrix of doubles at every q and in every scalar type.
template <HasMetric S>
constexpr bool metric_in_doubles = [] {
  using Along = ad::Dual<double, S::n, max_n_of<S>()>;
  using G = decltype(std::declval<const S&>().template metric<Along>(std::declval<const VecN<S, Along>&>()));
  return std::is_same_v<typename std::decay_t<G>::Scalar, double>;
}();

/// The values of a vector of (possibly nested) dual numbers.
template <Model S, class T>
VecN<S> plain_values(const S& sys, const VecN<S, T>& x) {
  if constexpr (std::is_same_v<T, double>) {
    return x;
  } else {
    const int n = coordinate_count(sys);
    VecN<S> values(n);
    for (int i = 0; i < n; ++i) values[i] = ad::plain(x[i]);
    return values;
  }
}

/// The metric G(q) as a dense matrix in the scalar type T (models may return a constant diagonal
/// matrix with double entries).
template <HasMetric S, class T>
MatNN<S, T> dense_metric(const S& sys, const VecN<S, T>& q) {
  const auto G = sys.template metric<T>(q);
  using Scalar = typename std::decay_t<decltype(G)>::Scalar;
  if constexpr (std::is_same_v<Scalar, T>) {
    return MatNN<S, T>(G);
  } else {
    return MatNN<S>(G).template cast<T>();
  }
}

/// G(q)⁻¹ b for a model whose metric may be constant at run time (GivesConstantMetric): the model's
/// own factorisation while the metric is constant, else G(q) factorised as a matrix of T.
template <class S, class T>
class RunTimeMetricFactorisation {
 public:
  RunTimeMetricFactorisation(const S& sys, const VecN<S, T>& q) : constant_(sys.constant_metric()) {
    if (!constant_) varying_.emplace(dense_metric(sys, q));
  }
  template <class B>
  typename B::PlainObject solve(const B& b) const {
    if (constant_) return constant_->solve(b);
    return varying_->solve(b);
  }

 private:
  const ConstantMetric<MatNN<S>>* constant_;
  std::optional<DualLU<MatNN<S, T>>> varying_;
};

/// A factorisation of G(q), for G(q)⁻¹ b with b of doubles or dual numbers: a metric with double
/// entries (constant at compile time) in doubles (ConstantLU: the value and each derivative of b are
/// the columns of one solve, a diagonal G is divided by), a metric constant at run time by the
/// model's factorisation, a varying one of doubles at a small fixed size by LDLᵀ (SmallLdlt), any
/// other as a matrix of T (DualLU).
template <HasMetric S, class T>
auto metric_factorisation(const S& sys, const VecN<S, T>& q) {
  if constexpr (metric_in_doubles<S>) {
    const auto G = sys.template metric<double>(plain_values(sys, q));
    using Given = std::decay_t<decltype(G)>;
    if constexpr (std::is_base_of_v<Eigen::DiagonalBase<Given>, Given>) {
      return ConstantLU<MatNN<S>>(G);
    } else {
      return ConstantLU<MatNN<S>>(MatNN<S>(G));
    }
  } else if constexpr (GivesConstantMetric<S>) {
    return RunTimeMetricFactorisation<S, T>(sys, q);
  } else if constexpr (std::is_same_v<T, double> && S::n != Eigen::Dynamic && S::n <= sizes::small_lu_max) {
    return SmallLdlt<S::n>(dense_metric(sys, q));
  } else {
    return DualLU<MatNN<S, T>>(dense_metric(sys, q));
  }
}

namespace detail {
/// The acceleration and multipliers of W q̈ = r + Mᵀλ, M q̈ = −a (a: the curvature (∂(M v)/∂q) v),
/// by the multipliers' Schur complement: f = W⁻¹ r, C = M W⁻¹ Mᵀ, λ = −C⁻¹(a + M f), q̈ = f + W⁻¹Mᵀλ.
/// curvature(), called only when there are constraints, gives a.
/// W is a factorisation of W: DualLU, or ConstantLU for a constant W.
template <class S, class T, class Factorisation, class Curvature>
ConstrainedAccelerationOf<S, T> saddle_point_acceleration(const Factorisation& W, const MatMN<S, T>& Mq,
                                                          const VecN<S, T>& r, Curvature&& curvature) {
  const int m = static_cast<int>(Mq.rows());
  ConstrainedAccelerationOf<S, T> out;
  out.acceleration = W.solve(r);
  out.multiplier.resize(m);
  if constexpr (S::m != 0) {
    if (m > 0) {
      const MatNM<S, T> WinvMt = solve_by_columns(W, Mq.transpose());
      const Mat<T, S::m, S::m, max_m_of<S>(), max_m_of<S>()> C = Mq * WinvMt;
      const VecM<S, T> rhs = curvature() + Mq * out.acceleration;
      out.multiplier = -DualLU<Mat<T, S::m, S::m, max_m_of<S>(), max_m_of<S>()>>(C).solve(rhs);
      out.acceleration += WinvMt * out.multiplier;
    }
  }
  return out;
}

/// Of a mechanical model L = ½ vᵀG(q)v − V(q): r = ∂L/∂q − (∂(Gv)/∂q) v = ½ vᵀ∂G v − ∇V − (∂G[v]) v,
/// the curvature (∂(M v)/∂q) v and M(q), from first-order duals along q (no second derivatives of
/// L): G v and V along the coordinates they depend on (noncyclic_coordinates, model/model.hpp; a
/// sleigh's θ alone), M v along v itself (the curvature is that one directional derivative), M(q)
/// from the values of that pass. Inlined where it is called, as the code it replaced was: GF's
/// force takes it at every Newton iteration.
template <class S, class T>
struct MechanicalRates {
  VecN<S, T> r;
  VecM<S, T> curvature;  ///< empty without constraints, as Mq
  MatMN<S, T> Mq;
};

/// The identity, as direction_of and coordinate_of where every coordinate is differentiated along.
struct EveryCoordinate {
  int operator[](int i) const { return i; }
};

/// r from G v and V in duals qd whose derivative c is along coordinate coordinate_of[c], where
/// direction_of[i] is the derivative along coordinate i (−1 at a cyclic one, along which ∂G and ∇V
/// vanish).
template <HasMetric S, class T, class D, class Directions, class Coordinates>
[[gnu::always_inline]] inline VecN<S, T> metric_potential_rate(const S& sys, const VecN<S, D>& qd, const VecN<S, T>& v,
                                                               int directions, const Directions& direction_of,
                                                               const Coordinates& coordinate_of) {
  const int n = coordinate_count(sys);
  const VecN<S, D> Gv = coefficient_product(sys.template metric<D>(qd), ad::constants<D>(v, directions));
  const D V = sys.template potential<D>(qd);
  VecN<S, T> r(n);
  for (int i = 0; i < n; ++i) {
    T dGv_v = ad::lift<T>(0.0);
    for (int c = 0; c < directions; ++c) dGv_v += ad::derivative(Gv[i], c) * v[coordinate_of[c]];
    const int c_i = direction_of[i];
    if (c_i < 0) {
      r[i] = -dGv_v;
      continue;
    }
    T half_dGvv = ad::lift<T>(0.0);
    for (int j = 0; j < n; ++j) half_dGvv += 0.5 * v[j] * ad::derivative(Gv[j], c_i);
    r[i] = half_dGvv - ad::derivative(V, c_i) - dGv_v;
  }
  return r;
}

template <HasMetric S, class T>
[[gnu::always_inline]] inline MechanicalRates<S, T> mechanical_rates(const S& sys, const VecN<S, T>& q,
                                                                     const VecN<S, T>& v) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  MechanicalRates<S, T> out;
  if constexpr (S::n != Eigen::Dynamic) {
    constexpr auto coordinate_of = noncyclic_coordinates<S>();
    constexpr int k = static_cast<int>(coordinate_of.size());
    if constexpr (k == 0) {  // G and V constant: r = 0
      out.r = VecN<S, T>::Constant(n, ad::lift<T>(0.0));
    } else {
      constexpr auto direction_of = [] {
        std::array<int, S::n> d{};
        d.fill(-1);
        int c = 0;
        for (const int i : noncyclic_coordinates<S>()) d[i] = c++;
        return d;
      }();
      using D = ad::Dual<T, k>;
      VecN<S, D> qd = ad::constants<D>(q, k);
      for (int c = 0; c < k; ++c) qd[coordinate_of[c]] = ad::variable<k>(q[coordinate_of[c]], c);
      out.r = metric_potential_rate(sys, qd, v, k, direction_of, coordinate_of);
    }
  } else {
    out.r = ad::at_width<S::n, max_n_of<S>()>(n, [&]<int W, int MaxW>() DALEMBERT_INLINE {
      using D = ad::Dual<T, W, MaxW>;
      VecN<S, D> qd(n);
      for (int i = 0; i < n; ++i) qd[i] = ad::variable<W, MaxW>(q[i], i, n);
      return metric_potential_rate(sys, qd, v, n, EveryCoordinate{}, EveryCoordinate{});
    });
  }
  if constexpr (S::m != 0) {
    if (m == 0) return out;
    // The curvature is the derivative of M(q) v along v: one direction, whatever n.
    using D = ad::Dual<T, 1>;
    VecN<S, D> qd(n);
    for (int i = 0; i < n; ++i) qd[i] = ad::along(q[i], v[i]);
    const auto Md = sys.template constraint_matrix<D>(qd);
    const VecM<S, D> Mv = coefficient_product(Md, ad::constants<D>(v, 1));
    const auto value = [](const auto& x) {  // an entry of a constant M may be a double
      if constexpr (std::is_same_v<std::decay_t<decltype(x)>, D>) return ad::value(x);
      else return ad::lift<T>(x);
    };
    out.curvature.resize(m);
    out.Mq.resize(m, n);
    for (int a = 0; a < m; ++a) {
      out.curvature[a] = ad::derivative(Mv[a], 0);
      for (int j = 0; j < n; ++j) out.Mq(a, j) = value(Md(a, j));
    }
  }
  return out;
}

/// Whether constrained_acceleration takes a compiled mechanical model's first derivatives of G, V
/// and M (mechanical_rates) rather than L's second derivatives: a model file gives those from its
/// kernels, and a locally coupled model's are summed term by term.
template <class S>
constexpr bool acceleration_from_metric = HasMetric<S> && !LocallyCoupled<S> && !GivesLagrangianDerivatives<S, double>;

/// A model that gives its metric when it is constant at run time and ∇V with its derivatives (a
/// model file, from its Taylor terms): with a constant metric, W = G in doubles and r = −∇V, and
/// neither L's second derivatives nor their derivatives are needed.
template <class S, class T>
concept ConstantMetricAtRunTime =
    HasMetric<S> && GivesConstantMetric<S> && requires(const S& sys, const VecN<S, T>& q, VecN<S, T>& gradient) {
      sys.potential_with_gradient(q, gradient);
    };
}  // namespace detail

/// At (q, v) and the time t, at which an external force is evaluated (the rest is autonomous), with
/// a constant external force f added to the model's (none by default).
template <Model S, class T, class F = NoConstantForce>
ConstrainedAccelerationOf<S, T> constrained_acceleration(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v,
                                                         double t, const F& f = {}) {
  if constexpr (LocallyCoupled<S> && std::is_same_v<T, double> && !HasExternalForce<S> &&
                std::is_same_v<F, NoConstantForce>) {
    return detail::constrained_acceleration_by_terms(sys, q, v);
  }
  const auto with_forces = [&](VecN<S, T>& r) {
    if constexpr (HasExternalForce<S>) {
      if (has_external_force(sys)) r += sys.template force<T>(q, v, t);
    }
    add_constant_force(r, f);
  };
  if constexpr (detail::acceleration_from_metric<S>) {
    if (is_mechanical(sys)) {
      auto rates = detail::mechanical_rates(sys, q, v);
      with_forces(rates.r);
      const auto curvature = [&] { return rates.curvature; };
      return detail::saddle_point_acceleration<S>(metric_factorisation(sys, q), rates.Mq, rates.r, curvature);
    }
  }
  MatMN<S, T> Mq;  // M(q), evaluated only where there are constraints
  if (constraint_count(sys) > 0) Mq = sys.template constraint_matrix<T>(q);
  const auto curvature = [&] { return constraint_curvature(sys, q, v, t); };
  if constexpr (detail::ConstantMetricAtRunTime<S, T>) {
    if (const auto* G = sys.constant_metric()) {  // a model file's constant metric: W = G, r = −∇V
      VecN<S, T> r(coordinate_count(sys));
      sys.potential_with_gradient(q, r);
      r = -r;
      with_forces(r);
      return detail::saddle_point_acceleration<S>(G->factorisation(), Mq, r, curvature);
    }
  }
  const auto d = lagrangian_derivatives(sys, q, v);
  VecN<S, T> r = d.Lq - d.B * v;
  with_forces(r);
  return detail::saddle_point_acceleration<S>(DualLU<MatNN<S, T>>(d.W), Mq, r, curvature);
}

/// q̈(q, v, t) of the constrained dynamics (the vector field used by RK4 and the reference solver).
template <Model S, class T>
VecN<S, T> acceleration(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v, double t) {
  return constrained_acceleration(sys, q, v, t).acceleration;
}

/// The continuous constraint force M(q)ᵀλ(q, v, t) (zero vector without constraints).
template <Model S>
VecN<S> constraint_force(const S& sys, const VecN<S>& q, const VecN<S>& v, double t) {
  if constexpr (S::m != 0) {
    if (constraint_count(sys) > 0) {
      const auto a = constrained_acceleration(sys, q, v, t);
      return sys.template constraint_matrix<double>(q).transpose() * a.multiplier;
    }
  }
  return VecN<S>::Zero(coordinate_count(sys));
}

/// Whether an external force or affine constraints do work on sys, so that its energy balance has a
/// work W (power_of_forces below); false for a system that can have neither, of any kind.
template <class S>
bool forces_do_work(const S& sys) {
  return has_external_force(sys) || has_affine_constraints(sys);
}

/// The power (F + M(q)ᵀλ)·v of the external force and of affine constraints' force at (q, v, t),
/// whose integral is the work W of the energy balance (io/observe.hpp); homogeneous constraints do
/// no work. `multiplier`: λ of the constrained acceleration there, if known (computed otherwise).
template <Model S>
double power_of_forces(const S& sys, const VecN<S>& q, const VecN<S>& v, double t,
                       const VecM<S>* multiplier = nullptr) {
  double power = 0.0;
  if constexpr (HasExternalForce<S>) {
    if (has_external_force(sys)) power += sys.template force<double>(q, v, t).dot(v);
  }
  if constexpr (MayHaveAffineConstraints<S>) {
    if (has_affine_constraints(sys)) {
      if (multiplier)
        power += (sys.template constraint_matrix<double>(q).transpose() * *multiplier).dot(v);
      else
        power += constraint_force(sys, q, v, t).dot(v);
    }
  }
  return power;
}

/// A basis of D_q = ker M(q) as columns: the model's own frame if it has one, otherwise an
/// orthonormal basis from a QR factorisation of M(q)ᵀ. Everything computed from it
/// (constrained momenta, velocities in D, energies on D*) is independent of the choice.
template <Model S>
MatNK<S> constraint_frame(const S& sys, const VecN<S>& q) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  if constexpr (HasFrame<S>) {
    return sys.frame(q);
  } else if constexpr (S::m == 0) {
    return MatNN<S>::Identity(n, n);
  } else {
    if constexpr (S::m == Eigen::Dynamic) {
      if (m == 0) return MatNN<S>::Identity(n, n);
    }
    const Eigen::HouseholderQR<MatNM<S>> qr(sys.template constraint_matrix<double>(q).transpose());
    const MatNN<S> Q = qr.householderQ();
    return Q.template rightCols<k_of<S>>(n - m);
  }
}

/// The velocity v ∈ D_q whose momentum has the same components on D as p: Eᵀ ∂L/∂v(q, v) = Eᵀ p.
/// This is the velocity of the constrained momentum on D* (the inverse of the nonholonomic
/// Legendre map); without constraints it is the inverse Legendre map. Mechanical models solve one
/// linear system, EᵀG E u = Eᵀp with v = E u: part of every step's output, so small systems take
/// the small systems' LU and larger ones Eigen's LDLT (half the work of an LU); general Lagrangians
/// use Newton on v = E u.
/// With affine constraints M(q) v + b(q, t) = 0 the admissible velocities at the time t are
/// v_b + D_q, v_b the smallest with M v_b = −b, and v = v_b + E u with the same condition on the
/// momentum, by Newton.
template <Model S>
VecN<S> velocity_in_distribution(const S& sys, const VecN<S>& q, const VecN<S>& p, double t) {
  if constexpr (LocallyCoupled<S>) return local::velocity_in_distribution(sys, q, p);
  const MatNK<S> E = constraint_frame(sys, q);
  VecN<S> v_b = VecN<S>::Zero(coordinate_count(sys));
  const bool affine = has_affine_constraints(sys);
  if constexpr (MayHaveAffineConstraints<S>) {
    if (affine) {
      const MatMN<S> M = sys.template constraint_matrix<double>(q);
      v_b = -M.transpose() * (M * M.transpose()).ldlt().solve(sys.template constraint_offset<double>(q, t));
    }
  }
  if constexpr (HasMetric<S>) {  // L quadratic in v: one linear solve, no AD
    if (is_mechanical(sys) && !affine) {
      const MatNN<S> G = sys.template metric<double>(q);
      const MatKK<S> EtGE = E.transpose() * G * E;
      const VecK<S> Etp = E.transpose() * p;
      if (EtGE.rows() <= sizes::small_lu_max) return E * solve_small_system(EtGE, Etp);
      return E * EtGE.ldlt().solve(Etp);
    }
  }
  VecK<S> u = VecK<S>::Zero(E.cols());
  const auto equations = [&](const VecK<S>& x, VecK<S>& F, MatKK<S>& J) {
    const auto d = lagrangian_derivatives(sys, q, VecN<S>(v_b + E * x));
    F = E.transpose() * (d.Lv - p);
    J = E.transpose() * d.W * E;
  };
  newton_solve<k_of<S>, max_n_of<S>()>(equations, u, 0.0, newton_to_round_off);
  return v_b + E * u;
}

/// The same for constraints that do not depend on the time.
template <Model S>
VecN<S> velocity_in_distribution(const S& sys, const VecN<S>& q, const VecN<S>& p) {
  require_time_independent_constraints(sys, "the velocity in the distribution");
  return velocity_in_distribution(sys, q, p, 0.0);
}

}  // namespace dalembert
