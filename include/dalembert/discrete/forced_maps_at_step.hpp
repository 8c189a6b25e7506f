#pragma once
// What a step of the discrete Lagrange–d'Alembert scheme (method/dla.hpp) evaluates at an iterate
// q1 = q_{k+1} from q0 = q_k: the forced discrete Legendre maps F^{f∓}L_d(q0, q1), the discrete
// constraint ω(q0, q1), and the Jacobian of the step's equations in the unknowns x = (q1, λ),
//   F(x) = (p_k − F^{f−}L_d(q0, q1) − M(q0)ᵀλ,  ω(q0, q1)),
//   J    = [−∂F^{f−}L_d/∂q1, −M(q0)ᵀ;  ∂ω/∂q1, 0].
// One interface, two storages, chosen by the method for its model and ingredients:
// DenseForcedMapsAtStep (J dense, of fixed, bounded or run-time size) and ForcedMapsByTerms (a
// locally coupled model, model/local_terms.hpp: everything summed over its terms, J sparse). The
// method writes its step once over either:
//   evaluate(q1); momentum_rows(p, p_low, rows); subtract_constraint_force(rows, λ); omega();
//   jacobian(q1, J); next_momentum();
// and takes a two-point start by terms from ForcedMapsByTerms' minus() and plus().
#include <type_traits>

#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/discrete/local_discrete_lagrangian.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/below_last_bit.hpp"

namespace dalembert {

/// The maps of a forced discrete Lagrangian Forced and a discrete constraint Dc on a model S, dense.
/// What the step's lambdas call is forced inline, so that the step compiles to the code it had when
/// the lambdas held these bodies (at run-time sizes the compiler would otherwise leave calls).
template <Model S, class Forced, DiscreteConstraint Dc>
class DenseForcedMapsAtStep {
 public:
  static constexpr int n = S::n, m = S::m;
  static constexpr int N = sum_of_sizes(n, m), MaxN = sum_of_sizes(max_n_of<S>(), max_m_of<S>());
  using Unknowns = Vecd<N, MaxN>;
  using Jacobian = Matd<N, N, MaxN, MaxN>;

  DenseForcedMapsAtStep(const S& system, const Forced& forced, const Dc& dc, const VecN<S>& q0, double t0)
      : forced_(forced), dc_(dc), q0_(q0), t0_(t0), dn_(size_constant<n>(coordinate_count(system))),
        dm_(size_constant<m>(constraint_count(system))), Mq_(system.template constraint_matrix<double>(q0)),
        omega_(int{dm_}), omega_by_q1_(int{dm_}, int{dn_}) {}

  /// Evaluates at q1. Compiled models: first derivatives only, since most evaluations are at an
  /// iterate that turns out converged, and the Jacobian when Newton asks for it. Model files: every
  /// derivative at once, the Jacobian reusing them, because a generated kernel costs one call
  /// whatever the order (docs/decisions.md, Model files: compiled kernels); so do ingredients that
  /// evaluate their maps only with the Jacobian (exact ones, which may throw a shooting failure:
  /// the step driver reports it).
  DALEMBERT_INLINE void evaluate(const VecN<S>& q1) {
    if constexpr (jacobian_with_residual) {
      f_ = forced_.legendre_maps(q0_, q1, t0_);
    } else {
      f_ = forced_.legendre_values(q0_, q1, t0_);
    }
    if constexpr (m != 0) {
      if (dm_ > 0) {
        if constexpr (jacobian_with_residual) {
          const auto w = differentiate(dc_, q0_, q1, t0_);
          omega_ = w.value;
          omega_by_q1_ = w.D2;
        } else {
          omega_ = discrete_constraint_at(dc_, q0_, q1, t0_);
        }
      }
    }
  }

  /// rows = p − F^{f−}L_d; where the maps come with their velocity part apart, the small parts are
  /// summed first, and p's part below its last bit (p_low) enters.
  template <class Rows>
  DALEMBERT_INLINE void momentum_rows(const VecN<S>& p, VecN<S>& p_low, Rows&& rows) const {
    if constexpr (split) {
      if (p_low.size() != p.size()) p_low = VecN<S>::Zero(int{dn_});
      rows = ((p - f_.Lv) - f_.minus_rest) + p_low;
    } else {
      rows = p - f_.minus;
    }
  }

  /// rows −= M(q0)ᵀλ, coefficient by coefficient, as Eigen does for fixed small sizes: at a run-time
  /// size its general matrix-vector kernel costs more than the product (docs/decisions.md, Run-time
  /// sizes).
  template <class Rows, class Lambda>
  DALEMBERT_INLINE void subtract_constraint_force(Rows&& rows, const Lambda& lambda) const {
    rows -= Mq_.transpose().lazyProduct(lambda);
  }

  const VecM<S>& omega() const { return omega_; }

  DALEMBERT_INLINE void jacobian(const VecN<S>& q1, Jacobian& J) const {
    if constexpr (jacobian_with_residual) {
      J.template topLeftCorner<n, n>(dn_, dn_) = -f_.minus_q1;
    } else {
      J.template topLeftCorner<n, n>(dn_, dn_) = forced_.minus_map_jacobian(q0_, q1, t0_);
    }
    if constexpr (m != 0) {
      if (dm_ > 0) {
        J.template topRightCorner<n, m>(dn_, dm_) = -Mq_.transpose();
        if constexpr (jacobian_with_residual) {
          J.template bottomLeftCorner<m, n>(dm_, dn_) = omega_by_q1_;
        } else {
          J.template bottomLeftCorner<m, n>(dm_, dn_) = differentiate(dc_, q0_, q1, t0_).D2;
        }
        J.template bottomRightCorner<m, m>(dm_, dm_).setZero();
      }
    }
  }

  /// F^{f+}L_d of the latest evaluation, below its last bit where the maps come split.
  DALEMBERT_INLINE auto next_momentum() const {
    if constexpr (split) {
      MomentumBelowLastBit<VecN<S>> p{VecN<S>(int{dn_}), VecN<S>(int{dn_})};
      sum_below_last_bit(f_.Lv, f_.plus_rest, p.hi, p.lo);
      return p;
    } else {
      return VecN<S>(f_.plus);
    }
  }

 private:
  static constexpr bool jacobian_with_residual = MechanicalAtRunTime<S> || !ForcedLegendreValuesAlone<Forced>;
  template <class Fl, class Q>
  struct ValuesOf {
    using type = ForcedLegendreValuesOf<Fl>;
  };
  template <ForcedLegendreValuesAlone Fl, class Q>
  struct ValuesOf<Fl, Q> {
    using type = decltype(std::declval<const Fl&>().legendre_values(std::declval<const Q&>(),
                                                                    std::declval<const Q&>(), 0.0));
  };
  using Maps = std::conditional_t<jacobian_with_residual, ForcedLegendreMapsOf<Forced>,
                                  typename ValuesOf<Forced, VecN<S>>::type>;
  static constexpr bool split = requires(const Maps& f) { f.Lv; };

  const Forced& forced_;
  const Dc& dc_;
  const VecN<S>& q0_;
  double t0_;
  decltype(size_constant<n>(0)) dn_;
  decltype(size_constant<m>(0)) dm_;
  MatMN<S> Mq_;
  Maps f_;  ///< of the latest evaluation, which Newton makes at the solution
  VecM<S> omega_;
  MatMN<S> omega_by_q1_;  ///< used where the Jacobian comes with the residual
};

/// The same on a locally coupled model, for the α-rule or the trapezoidal L_d with the α-rule
/// constraint and the model's (no) force or the α-force F_d^− = (1−α) h F(q_α, v_d), F_d^+ = α h F:
/// the derivatives of L_d and ω summed over the terms, each at its own α, and J from their blocks,
/// sparse. The α-force's derivative, the derivative of the multiplier, which couples every
/// coordinate (a dense matrix), is left out of J: Newton converges linearly, by a factor of order
/// h|v| per iteration, to the same solution (docs/methods.md).
template <class S, class Forced, DiscreteConstraint Dc, bool AlphaForce>
class ForcedMapsByTerms {
 public:
  using Unknowns = Eigen::VectorXd;
  using Jacobian = Eigen::SparseMatrix<double>;

  ForcedMapsByTerms(const S& system, const Forced& forced, const Dc& dc, const Eigen::VectorXd& q0, double t0)
      : system_(system), forced_(forced), dc_(dc), q0_(q0), t0_(t0), Mq_(local::constraint_matrix(system, q0)) {}

  void evaluate(const Eigen::VectorXd& q1) {
    local::discrete_lagrangian_derivatives(system_, forced_.discrete_lagrangian(), q0_, q1, d_, dc_.alpha());
    if constexpr (AlphaForce) {
      const double h = forced_.step_size(), a = forced_.discrete_force().alpha();
      force_ = total_force(system_, Eigen::VectorXd((1.0 - a) * q0_ + a * q1), Eigen::VectorXd((q1 - q0_) / h),
                           t0_ + a * h);
    }
  }

  /// F^{f−}L_d = −D1 L_d − (1−α) h F and F^{f+}L_d = D2 L_d + α h F of the latest evaluation.
  Eigen::VectorXd minus() const {
    if constexpr (AlphaForce) {
      return -d_.D1 - ((1.0 - forced_.discrete_force().alpha()) * forced_.step_size()) * force_;
    } else {
      return -d_.D1;
    }
  }
  Eigen::VectorXd plus() const {
    if constexpr (AlphaForce) {
      return d_.D2 + (forced_.discrete_force().alpha() * forced_.step_size()) * force_;
    } else {
      return d_.D2;
    }
  }

  template <class Rows>
  void momentum_rows(const Eigen::VectorXd& p, Eigen::VectorXd&, Rows&& rows) const {
    rows = p - minus();
  }
  template <class Rows, class Lambda>
  void subtract_constraint_force(Rows&& rows, const Lambda& lambda) const {
    rows -= Mq_.transpose() * lambda;
  }
  const Eigen::VectorXd& omega() const { return d_.omega; }
  void jacobian(const Eigen::VectorXd&, Jacobian& J) { local::saddle_point_jacobian(d_, Mq_, entries_, J); }
  Eigen::VectorXd next_momentum() const { return plus(); }

 private:
  const S& system_;
  const Forced& forced_;
  const Dc& dc_;
  const Eigen::VectorXd& q0_;
  double t0_;
  Eigen::SparseMatrix<double> Mq_;
  local::DiscreteDerivatives d_;  ///< of the latest evaluation
  Eigen::VectorXd force_;
  local::Triplets entries_;
};

}  // namespace dalembert
