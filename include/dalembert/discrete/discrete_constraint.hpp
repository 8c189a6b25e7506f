#pragma once
// Discrete constraint spaces M_d = {ω(q0, q1) = 0} ⊂ Q×Q, m equations containing the diagonal.
//
// A discrete constraint is any object with
//   static constexpr int n, m;   (Eigen::Dynamic with dimension() and constraint_count(), and
//                                 optionally bounds max_n, max_m, as a model: model/model.hpp)
//   template <class T> Vec<T,m> operator()(const Vec<T,n>& q0, const Vec<T,n>& q1) const;
// differentiate() returns ω and ∂ω/∂q1 (the block of the Newton Jacobian). A constraint that may
// depend on the time (the α-rule and the trapezoidal rule, for affine constraints M(q) v + b(q, t))
// also takes the step's start time, ω(q0, q1, t0); the steps pass it through discrete_constraint_at
// and differentiate(c, q0, q1, t0), which give it to such a constraint and no other. One whose rows
// of the model's holonomic constraints are φ(q1) (impose_holonomic_rows) says so with
// `static constexpr bool imposes_holonomic_constraints = true`.
#include <concepts>
#include <optional>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/model.hpp"

namespace dalembert {

template <int N, int M, int MaxN = N, int MaxM = M>
struct DiscreteConstraintDerivatives {
  Vecd<M, MaxM> value;
  Matd<M, N, MaxM, MaxN> D2;  ///< ∂ω/∂q1
};

template <class Dc>
concept DiscreteConstraint = requires(const Dc& c, const VecN<Dc>& q) {
  { Dc::n } -> std::convertible_to<int>;
  { Dc::m } -> std::convertible_to<int>;
  { constraint_count(c) } -> std::convertible_to<int>;
  { c(q, q) } -> std::convertible_to<VecM<Dc>>;
};

/// ω(q0, q1) of a step that starts at the time t0 (ignored by a constraint that takes no time).
template <class Dc, class Q0, class Q1>
auto discrete_constraint_at(const Dc& c, const Q0& q0, const Q1& q1, double t0) {
  if constexpr (requires { c(q0, q1, t0); }) {
    return c(q0, q1, t0);
  } else {
    return c(q0, q1);
  }
}

namespace detail {
/// ω and ∂ω/∂q1 by automatic differentiation, at the step's start time t0 where one is given.
template <DiscreteConstraint Dc>
[[gnu::flatten]] DiscreteConstraintDerivatives<Dc::n, Dc::m, max_n_of<Dc>(), max_m_of<Dc>()> differentiate_at(
    const Dc& c, const VecN<Dc>& q0, const VecN<Dc>& q1, std::optional<double> t0) {
  DiscreteConstraintDerivatives<Dc::n, Dc::m, max_n_of<Dc>(), max_m_of<Dc>()> d;
  if constexpr (Dc::m != 0) {
    if (constraint_count(c) == 0) return d;
    ad::value_and_jacobian<Dc::n, Dc::m, max_n_of<Dc>(), max_m_of<Dc>()>(
        [&](const auto& x1) {
          using D = typename std::decay_t<decltype(x1)>::Scalar;
          const VecN<Dc, D> q0d = ad::constants<D>(q0, x1.size());
          return VecM<Dc, D>(t0 ? discrete_constraint_at(c, q0d, x1, *t0) : c(q0d, x1));
        },
        q1, d.value, d.D2);
  }
  return d;
}
}  // namespace detail

/// ω and ∂ω/∂q1 of a constraint that does not depend on the time.
template <DiscreteConstraint Dc>
DiscreteConstraintDerivatives<Dc::n, Dc::m, max_n_of<Dc>(), max_m_of<Dc>()> differentiate(const Dc& c,
                                                                                      const VecN<Dc>& q0,
                                                                                      const VecN<Dc>& q1) {
  return detail::differentiate_at(c, q0, q1, std::nullopt);
}

/// The same at a step that starts at the time t0; a constraint that takes no time keeps its own
/// differentiate (the exact flow's) or the one above.
template <DiscreteConstraint Dc>
DiscreteConstraintDerivatives<Dc::n, Dc::m, max_n_of<Dc>(), max_m_of<Dc>()> differentiate(const Dc& c,
                                                                                      const VecN<Dc>& q0,
                                                                                      const VecN<Dc>& q1, double t0) {
  if constexpr (requires { c(q0, q1, t0); }) {
    return detail::differentiate_at(c, q0, q1, t0);
  } else {
    return differentiate(c, q0, q1);
  }
}

/// The constraint rows of a Newton system in the unknowns (q1, λ) whose first n equations already
/// hold the momentum balance and the top-left block of J: subtracts the impulse M(q0)ᵀλ, appends
/// ω(q0, q1) = 0, and fills the blocks −M(q0)ᵀ, ∂ω/∂q1 and 0 of J. `w` keeps ω and ∂ω/∂q1 of this
/// evaluation. N and M are the compile-time sizes (Eigen::Dynamic for run-time ones).
template <int N, int M, class Dc, class Impulse, class Unknowns, class Residual, class Jacobian, class Derivatives>
void add_constraint_rows(const Dc& dc, const VecN<Dc>& q0, const VecN<Dc>& q1, const Impulse& Mq,
                         const Unknowns& unknowns, Residual& F, Jacobian& J, Derivatives& w) {
  if constexpr (M != 0) {
    const int dn = static_cast<int>(q1.size()), dm = constraint_count(dc);
    if (dm == 0) return;
    w = differentiate(dc, q0, q1);
    F.template head<N>(dn) -= Mq.transpose() * unknowns.template segment<M>(dn, dm);
    F.template segment<M>(dn, dm) = w.value;
    J.template topRightCorner<N, M>(dn, dm) = -Mq.transpose();
    J.template bottomLeftCorner<M, N>(dm, dn) = w.D2;
    J.template bottomRightCorner<M, M>(dm, dm).setZero();
  }
}

/// The α-rule ω(q0, q1) = M((1−α) q0 + α q1) (q1 − q0)/h (+ b at the same point and at the time
/// t0 + α h for affine constraints; φ(q1) for holonomic ones); α = ½ (midpoint) is the usual
/// companion of the midpoint discrete Lagrangian.
template <Model S>
class AlphaConstraint {
 public:
  static constexpr int n = S::n, m = S::m, max_n = max_n_of<S>(), max_m = max_m_of<S>();
  static constexpr bool imposes_holonomic_constraints = true;  ///< impose_holonomic_rows
  AlphaConstraint(const S& system, double h, double alpha = 0.5) : system_(system), h_(h), alpha_(alpha) {}

  double alpha() const { return alpha_; }
  double step_size() const { return h_; }
  const S& system() const { return system_; }
  int dimension() const { return coordinate_count(system_); }
  int constraint_count() const { return dalembert::constraint_count(system_); }

  template <class T>
  VecM<S, T> operator()(const VecN<S, T>& q0, const VecN<S, T>& q1) const {
    require_time_independent_constraints(system_, "the alpha-rule constraint");
    return (*this)(q0, q1, 0.0);
  }

  /// ω of the step that starts at the time t0.
  template <class T>
  VecM<S, T> operator()(const VecN<S, T>& q0, const VecN<S, T>& q1, double t0) const {
    if constexpr (m == 0) {
      return {};
    } else {
      const int rows = constraint_count(), cols = dimension();
      if (rows == 0) return VecM<S, T>(0);
      const VecN<S, T> q = (1.0 - alpha_) * q0 + alpha_ * q1;
      const VecN<S, T> v = (q1 - q0) / h_;
      // Row by row rather than as an Eigen product: models fill M entry by entry, and a packet
      // load of two entries just stored one at a time stalls (store forwarding).
      const MatMN<S, T> M = system_.template constraint_matrix<T>(q);
      VecM<S, T> omega(rows);
      for (int i = 0; i < rows; ++i) {
        omega[i] = M(i, 0) * v[0];
        for (int j = 1; j < cols; ++j) omega[i] += M(i, j) * v[j];
      }
      add_constraint_offset(system_, q, t0 + alpha_ * h_, omega);
      impose_holonomic_rows(system_, q1, t0 + h_, omega);
      return omega;
    }
  }

 private:
  S system_;
  double h_, alpha_;
};

/// A model that differentiates its α-rule constraint itself:
/// alpha_constraint_derivatives(q̄, v, α, h, t, ω, ∂ω/∂q1) at q̄ = (1−α) q0 + α q1, v = (q1 − q0)/h
/// and t = t0 + α h. A
/// model file does, from the entries of M and their gradients in one kernel call, without dual
/// numbers (src/modelfile/file_model.hpp; docs/decisions.md, Model files: compiled Taylor
/// coefficients); the tests hold it equal to the generic path.
template <class S>
concept DifferentiatesItsAlphaConstraint = requires(const S& s, const VecN<S>& q, VecM<S>& omega, MatMN<S>& by_q1) {
  s.alpha_constraint_derivatives(q, q, 0.5, 1.0, 0.0, omega, by_q1);
};

template <DifferentiatesItsAlphaConstraint S>
DiscreteConstraintDerivatives<S::n, S::m, max_n_of<S>(), max_m_of<S>()> differentiate(const AlphaConstraint<S>& c,
                                                                                     const VecN<S>& q0,
                                                                                     const VecN<S>& q1, double t0) {
  const double h = c.step_size(), a = c.alpha();
  const VecN<S> q_bar = (1.0 - a) * q0 + a * q1, v = (q1 - q0) / h;
  DiscreteConstraintDerivatives<S::n, S::m, max_n_of<S>(), max_m_of<S>()> d;
  c.system().alpha_constraint_derivatives(q_bar, v, a, h, t0 + a * h, d.value, d.D2);
  impose_holonomic_rows(c.system(), q1, t0 + h, d.value, d.D2);
  return d;
}

/// The trapezoidal ω(q0, q1) = ½ [M(q0) + M(q1)] (q1 − q0)/h (+ ½ [b(q0, t0) + b(q1, t0 + h)];
/// φ(q1) for holonomic constraints): the constraint's matrix averaged over the two ends instead
/// of taken at one point between them. Of order 2 with a second-order L_d; on the knife edge the
/// same discrete constraint space as the midpoint's (docs/methods.md).
template <Model S>
class TrapezoidConstraint {
 public:
  static constexpr int n = S::n, m = S::m, max_n = max_n_of<S>(), max_m = max_m_of<S>();
  static constexpr bool imposes_holonomic_constraints = true;  ///< impose_holonomic_rows
  TrapezoidConstraint(const S& system, double h) : system_(system), h_(h) {}

  int dimension() const { return coordinate_count(system_); }
  int constraint_count() const { return dalembert::constraint_count(system_); }

  template <class T>
  VecM<S, T> operator()(const VecN<S, T>& q0, const VecN<S, T>& q1) const {
    require_time_independent_constraints(system_, "the trapezoidal constraint");
    return (*this)(q0, q1, 0.0);
  }

  /// ω of the step that starts at the time t0.
  template <class T>
  VecM<S, T> operator()(const VecN<S, T>& q0, const VecN<S, T>& q1, double t0) const {
    const MatMN<S, T> M0 = system_.template constraint_matrix<T>(q0);
    const MatMN<S, T> M1 = system_.template constraint_matrix<T>(q1);
    const VecN<S, T> v = (q1 - q0) / h_;
    VecM<S, T> omega0 = coefficient_product(M0, v), omega1 = coefficient_product(M1, v);
    add_constraint_offset(system_, q0, t0, omega0);
    add_constraint_offset(system_, q1, t0 + h_, omega1);
    VecM<S, T> omega = 0.5 * (omega0 + omega1);
    impose_holonomic_rows(system_, q1, t0 + h_, omega);
    return omega;
  }

 private:
  S system_;
  double h_;
};

/// A user-supplied discrete constraint: any callable generic in its scalar type returning Vec<T, M>.
template <int N, int M, class F>
class UserDiscreteConstraint {
 public:
  static constexpr int n = N;
  static constexpr int m = M;
  explicit UserDiscreteConstraint(F f) : f_(std::move(f)) {}

  template <class T>
  Vec<T, m> operator()(const Vec<T, n>& q0, const Vec<T, n>& q1) const {
    return f_(q0, q1);
  }

 private:
  F f_;
};

template <int N, int M, class F>
UserDiscreteConstraint<N, M, F> make_discrete_constraint(F f) {
  return UserDiscreteConstraint<N, M, F>(std::move(f));
}

}  // namespace dalembert
