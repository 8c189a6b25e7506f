#pragma once
// G(q), V(q) and their first derivatives at one point of a mechanical model L = ½ vᵀG(q)v − V(q),
// from one evaluation with duals along q: the ingredients of the methods written in terms of the
// energy E = ½ vᵀG(q)v + V(q) or the Hamiltonian H = ½ pᵀG(q)⁻¹p + V(q)
// (method/mclachlan_perlmutter.hpp, method/discrete_gradient.hpp). With ∂_k = ∂/∂q_k:
//   ∂_q(½ wᵀG w)_k = ½ Σ_ij w_i w_j ∂_k G_ij,
//   (Ω(v) y)_k = Σ_ij v_i (∂_k G_ij − ∂_j G_ik) y_j    (Ω(v) skew: the gyroscopic term of G v̇).
// T is double, or a dual number when a Jacobian is taken through the point q.
// A metric returned with double entries is constant (model/model.hpp): then ∂G = 0, only V is
// differentiated, and the sums over ∂_k G_ij below are zero without being formed. A model that
// knows only at run time that its metric is constant gives it, evaluated and factorised once
// (constant_metric(), model/constant_metric.hpp: model files, from their kernels' Taylor terms),
// and takes the same shortcut. A model that gives V with ∇V at q (potential_with_gradient: model
// files, from their Taylor terms) is not differentiated along q for them: at a q of duals, ∇V's
// derivatives are then a Hessian–vector product, not duals nested two deep. For a locally coupled
// model, H_q term by term (local::HamiltonianGradient).
#include <type_traits>
#include <utility>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/constant_metric.hpp"
#include "dalembert/model/local_terms.hpp"
#include "dalembert/model/projectors.hpp"
#include "dalembert/solve/dual_lu.hpp"

namespace dalembert {

template <HasMetric S, class T = double>
class MetricDerivatives {
 public:
  static constexpr int N = S::n, MaxN = max_n_of<S>();
  using Along = ad::Dual<T, N, MaxN>;  ///< derivatives along q
  /// Whether S returns its metric with double entries, as a constant metric may (model/model.hpp).
  static constexpr bool constant_metric = metric_in_doubles<S>;

  MetricDerivatives(const S& sys, const VecN<S, T>& q) : n_(coordinate_count(sys)) {
    if constexpr (GivesConstantMetric<S>) constant_at_run_time_ = sys.constant_metric();
    constexpr bool model_gradient = requires(VecN<S, T>& gradient) { sys.potential_with_gradient(q, gradient); };
    VecN<S, Along> x;  // q with duals along itself, where G or V is differentiated in them
    if (!constant() || !model_gradient) {
      x.resize(n_);
      for (int i = 0; i < n_; ++i) x[i] = ad::variable<N, MaxN>(q[i], i, n_);
    }
    if constexpr (constant_metric) {
      G_ = dense_metric(sys, plain_values(sys, q));
    } else {
      if (!constant()) G_ = dense_metric(sys, x);
    }
    if constexpr (model_gradient) {
      V_ = sys.potential_with_gradient(q, potential_gradient_);
    } else {
      const Along V = sys.template potential<Along>(x);
      V_ = ad::value(V);
      potential_gradient_.resize(n_);
      for (int k = 0; k < n_; ++k) potential_gradient_[k] = ad::derivative(V, k);
    }
  }

  int dimension() const { return n_; }
  /// G(q) as a dense matrix.
  MatNN<S, T> metric() const {
    if (constant()) return constant_G().template cast<T>();
    MatNN<S, T> G(n_, n_);
    if constexpr (!constant_metric)
      for (int j = 0; j < n_; ++j)
        for (int i = 0; i < n_; ++i) G(i, j) = ad::value(G_(i, j));
    return G;
  }
  T potential() const { return V_; }
  /// Whether the metric is constant: its derivatives are zero, and it is a matrix of doubles.
  bool constant() const {
    if constexpr (GivesConstantMetric<S>) return constant_at_run_time_ != nullptr;
    return constant_metric;
  }
  /// G(q) w. A constant metric's doubles multiply w where they are not zero (a diagonal metric: n
  /// products), in the order of a matrix product and to its bit; a varying metric as a matrix of T.
  template <class U>
  VecN<S, U> metric_product(const VecN<S, U>& w) const {
    if constexpr (GivesConstantMetric<S>) {
      if (constant_at_run_time_) return constant_at_run_time_->product(w);
    }
    if (!constant()) return coefficient_product(metric(), w);
    const MatNN<S>& G = constant_G();
    VecN<S, U> out(n_);
    for (int i = 0; i < n_; ++i) out[i] = 0.0 * w[i];  // zero, with w's derivatives' width
    for (int j = 0; j < n_; ++j)
      for (int i = 0; i < n_; ++i)
        if (G(i, j) != 0.0) out[i] += G(i, j) * w[j];
    return out;
  }
  /// G(q)⁻¹ b: a constant metric (a model file's, factorised once, or a compiled model's with
  /// double entries) factorised in doubles (ConstantLU), any other as a matrix of T (DualLU).
  template <class B>
  typename B::PlainObject metric_solve(const B& b) const {
    if constexpr (GivesConstantMetric<S>) {
      if (constant_at_run_time_) return constant_at_run_time_->solve(b);
    }
    if (constant()) return ConstantLU<MatNN<S>>(constant_G()).solve(b);
    return dual_lu(metric()).solve(b);
  }
  /// ∂_k G_ij
  T metric_derivative(int k, int i, int j) const {
    if constexpr (!constant_metric) {
      if (!constant()) return ad::derivative(G_(i, j), k);
    }
    return ad::lift<T>(0.0);
  }

  /// ∇V(q) + ∂_q(½ wᵀG w): ∂E/∂q at velocity w, and ∂H/∂q at momentum G w with a minus sign on the
  /// quadratic term. U is T, or any scalar when T is double.
  template <class U>
  VecN<S, U> potential_gradient_plus_half_quadratic(const VecN<S, U>& w, double quadratic_sign = 1.0) const {
    VecN<S, U> out(n_);
    for (int k = 0; k < n_; ++k) {
      if (constant()) {  // 0 · w[k]: the quadratic term's zero, with w's derivatives' width
        out[k] = 0.0 * w[k] + potential_gradient_[k];
      } else if constexpr (!constant_metric) {
        U quadratic = w[0] * (w[0] * metric_derivative(k, 0, 0));
        for (int i = 0; i < n_; ++i)
          for (int j = 0; j < n_; ++j)
            if (i != 0 || j != 0) quadratic += w[i] * (w[j] * metric_derivative(k, i, j));
        out[k] = (0.5 * quadratic_sign) * quadratic + potential_gradient_[k];
      }
    }
    return out;
  }

  /// Ω(v) y, the gyroscopic term: yᵀΩ(v) y = 0 for every y.
  template <class U>
  VecN<S, U> gyroscopic(const VecN<S, U>& v, const VecN<S, U>& y) const {
    VecN<S, U> out(n_);
    for (int k = 0; k < n_; ++k) {
      if (constant()) {  // zero, with the width of v's and y's derivatives
        out[k] = 0.0 * (v[k] * y[k]);
      } else if constexpr (!constant_metric) {
        U sum = v[0] * ((metric_derivative(k, 0, 0) - metric_derivative(0, 0, k)) * y[0]);
        for (int i = 0; i < n_; ++i)
          for (int j = 0; j < n_; ++j)
            if (i != 0 || j != 0) sum += v[i] * ((metric_derivative(k, i, j) - metric_derivative(j, i, k)) * y[j]);
        out[k] = sum;
      }
    }
    return out;
  }

 private:
  /// G of a constant metric, in doubles.
  const MatNN<S>& constant_G() const {
    if constexpr (constant_metric) {
      return G_;
    } else {
      return constant_at_run_time_->matrix();
    }
  }

  int n_;
  const ConstantMetric<MatNN<S>>* constant_at_run_time_ = nullptr;  ///< the model's, while G is constant
  std::conditional_t<constant_metric, MatNN<S>, MatNN<S, Along>> G_;
  T V_;
  VecN<S, T> potential_gradient_;  ///< ∇V(q)
};

namespace local {
/// H_q(q, p) = ∇V(q) − ½ wᵀ∂_qG(q) w, w = G(q)⁻¹p, of a locally coupled model at one point q, term by
/// term. When no term's metric varies at q (the chain) it is ∇V(q), found once; otherwise each call
/// solves G(q) w = p with a sparse LU factorised once. q must outlive it.
template <LocallyCoupled S>
class HamiltonianGradient {
 public:
  HamiltonianGradient(const S& sys, const Eigen::VectorXd& q) : system_(sys), q_(q) {
    const int dn = coordinate_count(sys);
    constant_part_.setZero(dn);
    sys.visit_terms([&](const auto& term, const auto& indices) {
      using Term = std::decay_t<decltype(term)>;
      constexpr int K = Term::n;
      const MetricDerivatives<Term> at(term, gather(q, indices));
      scatter_add(at.potential_gradient_plus_half_quadratic(Vecd<K>(Vecd<K>::Zero())), indices, constant_part_);
      for (int k = 0; k < K; ++k)
        for (int i = 0; i < K; ++i)
          for (int j = 0; j < K; ++j) metric_varies_ = metric_varies_ || at.metric_derivative(k, i, j) != 0.0;
    });
    if (!metric_varies_) return;
    Triplets entries;
    add_metric_and_constraints(sys, q, dn, entries, false);
    metric_lu_.compute(sparse_matrix(dn, dn, entries));
  }

  Eigen::VectorXd operator()(const Eigen::VectorXd& p) const {
    if (!metric_varies_) return constant_part_;
    const Eigen::VectorXd w = metric_lu_.solve(p);
    Eigen::VectorXd out = Eigen::VectorXd::Zero(p.size());
    system_.visit_terms([&](const auto& term, const auto& indices) {
      using Term = std::decay_t<decltype(term)>;
      const MetricDerivatives<Term> at(term, gather(q_, indices));
      scatter_add(at.potential_gradient_plus_half_quadratic(gather(w, indices), -1.0), indices, out);
    });
    return out;
  }

 private:
  const S& system_;
  const Eigen::VectorXd& q_;
  Eigen::VectorXd constant_part_;  ///< ∇V(q), H_q when no metric varies
  bool metric_varies_ = false;
  Eigen::SparseLU<Eigen::SparseMatrix<double>> metric_lu_;
};
}  // namespace local

/// The state of the one-step methods written with the metric (method/mclachlan_perlmutter.hpp,
/// method/discrete_gradient.hpp, method/spark.hpp): the step point (q, v), v in D, its momentum
/// p = G(q)v, and the multipliers of the last step, which start the next step's Newton.
template <HasMetric S>
struct MetricMethodState : OnTheGrid {
  VecN<S> q;
  VecN<S> v;
  VecN<S> p;
  VecM<S> multiplier;
};

/// That state at k = 0 from (q0, v0), with no multipliers yet (a locally coupled model's momentum
/// from its terms, without the dense metric).
template <HasMetric S>
MetricMethodState<S> metric_method_start(const S& sys, const VecN<S>& q0, const VecN<S>& v0) {
  MetricMethodState<S> s;
  s.q = q0;
  s.v = v0;
  if constexpr (LocallyCoupled<S>) {
    s.p = local::momentum(sys, q0, v0);
  } else {
    s.p = metric_matrix(sys, q0) * v0;
  }
  s.multiplier = VecM<S>::Zero(constraint_count(sys));
  return s;
}

}  // namespace dalembert
