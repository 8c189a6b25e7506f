#pragma once
// Discrete forces F_d^±: Q×Q → T*Q (forced discrete mechanics, [AS21] §3.7.7, [ASMM22] §4.2).
//
// MidpointForce: for models with an external force F(q, v, t), F_d^-(q0, q1) = F_d^+(q0, q1) =
// (h/2) F((q0 + q1)/2, (q1 − q0)/h, t0 + h/2) for the step from (t0, q0) to (t0 + h, q1), second
// order with any second-order discrete Lagrangian; DEL and DLA take it as their discrete forces when
// the model has a force (ModelForce, with_model_force), so forces are never silently ignored.
//
// General discrete forces (for MLA) are any object with
//   static constexpr int n;
//   template <class T> Vec<T,n> minus(const Vec<T,n>& q0, const Vec<T,n>& q1, double t0) const;  F_d^− ∈ T*_{q0}Q
//   template <class T> Vec<T,n> plus(const Vec<T,n>& q0, const Vec<T,n>& q1, double t0) const;   F_d^+ ∈ T*_{q1}Q
// with t0 the time of q0 (a force that depends on time is evaluated inside [t0, t0 + h]).
// The forced discrete Legendre maps of (L_d, F_d^±) are
//   F^{f−}L_d(q0, q1) = −D1 L_d − F_d^−  ∈ T*_{q0}Q,    F^{f+}L_d(q0, q1) = D2 L_d + F_d^+  ∈ T*_{q1}Q,
// and the forced DEL / MLA equations are momentum matching F^{f+}L_d(q_{k−1}, q_k) = F^{f−}L_d(q_k,
// q_{k+1}) (modulo D° for MLA). A "forced discrete Lagrangian" is anything that evaluates both maps
// and ∂F^{f−}/∂q1 (the Newton Jacobian) at a pair: (L_d, F_d^±) through automatic
// differentiation (WithForces below), or the exact objects of discrete/exact_nonholonomic.hpp
// through the closed identities of [ASMM22] Lemma 4.4.
#include <concepts>
#include <utility>

#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/dynamics.hpp"

namespace dalembert {

template <int N, int MaxN = N>
struct DiscreteForceDerivatives {
  Vecd<N, MaxN> value;          ///< F_d^- = F_d^+
  Matd<N, N, MaxN, MaxN> D2;    ///< ∂F_d/∂q1
};

template <Model S>
class MidpointForce {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  /// The step from the time t0 to t0 + h.
  MidpointForce(const S& system, double h, double t0) : system_(system), h_(h), t0_(t0) {}
  int dimension() const { return coordinate_count(system_); }

  template <class T>
  VecN<S, T> operator()(const VecN<S, T>& q0, const VecN<S, T>& q1) const {
    const VecN<S, T> q = 0.5 * (q0 + q1);
    const VecN<S, T> v = (q1 - q0) / h_;
    return 0.5 * h_ * system_.template force<T>(q, v, t0_ + 0.5 * h_);
  }

 private:
  S system_;
  double h_, t0_;
};

template <Model S>
[[gnu::flatten]] DiscreteForceDerivatives<S::n, max_n_of<S>()> differentiate(const MidpointForce<S>& f,
                                                                            const VecN<S>& q0, const VecN<S>& q1) {
  DiscreteForceDerivatives<S::n, max_n_of<S>()> d;
  ad::value_and_jacobian<S::n, S::n, max_n_of<S>(), max_n_of<S>()>(
      [&](const auto& x1) {
        using D = typename std::decay_t<decltype(x1)>::Scalar;
        const VecN<S, D> x0 = ad::constants<D>(q0, x1.size());
        return f(x0, x1);
      },
      q1, d.value, d.D2);
  return d;
}

// --- General discrete forces ---------------------------------------------------------------------

template <class Fd>
concept DiscreteForce = requires(const Fd& f, const VecN<Fd>& q) {
  { Fd::n } -> std::convertible_to<int>;
  { f.minus(q, q, 0.0) } -> std::convertible_to<VecN<Fd>>;
  { f.plus(q, q, 0.0) } -> std::convertible_to<VecN<Fd>>;
};

template <int N, int MaxN = N>
struct TwoSidedForceValues {
  Vecd<N, MaxN> minus;  ///< F_d^−(q0, q1)
  Vecd<N, MaxN> plus;   ///< F_d^+(q0, q1)
};

template <int N, int MaxN = N>
struct TwoSidedForceDerivatives {
  Vecd<N, MaxN> minus;                ///< F_d^−(q0, q1)
  Vecd<N, MaxN> plus;                 ///< F_d^+(q0, q1)
  Matd<N, N, MaxN, MaxN> minus_q1;    ///< ∂F_d^−/∂q1
};

/// F_d^−(q0, q1) into minus and ∂F_d^−/∂q1 into minus_q1.
template <DiscreteForce Fd>
void differentiate_minus(const Fd& f, const VecN<Fd>& q0, const VecN<Fd>& q1, double t0, VecN<Fd>& minus,
                         Matd<Fd::n, Fd::n, max_n_of<Fd>(), max_n_of<Fd>()>& minus_q1) {
  ad::value_and_jacobian<Fd::n, Fd::n, max_n_of<Fd>(), max_n_of<Fd>()>(
      [&](const auto& x1) {
        using D = typename std::decay_t<decltype(x1)>::Scalar;
        return VecN<Fd, D>(f.minus(VecN<Fd, D>(ad::constants<D>(q0, x1.size())), x1, t0));
      },
      q1, minus, minus_q1);
}

template <DiscreteForce Fd>
TwoSidedForceDerivatives<Fd::n, max_n_of<Fd>()> differentiate(const Fd& f, const VecN<Fd>& q0, const VecN<Fd>& q1,
                                                              double t0) {
  TwoSidedForceDerivatives<Fd::n, max_n_of<Fd>()> d;
  differentiate_minus(f, q0, q1, t0, d.minus, d.minus_q1);
  d.plus = f.plus(q0, q1, t0);
  return d;
}

/// The force of the multiplier-extended Lagrange–d'Alembert equations at any (q, v) and time t:
/// the nonholonomic force F_nh = M(q)ᵀλ(q, v, t) plus the model's external force, if it has one,
/// and a constant external force f (none by default), which λ balances too.
template <Model S, class T, class F = NoConstantForce>
VecN<S, T> total_force(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v, double t, const F& f = {}) {
  const int n = coordinate_count(sys);
  VecN<S, T> total(n);
  for (int i = 0; i < n; ++i) total[i] = ad::lift<T>(0.0);
  if constexpr (HasExternalForce<S>) {
    if (has_external_force(sys)) total += sys.template force<T>(q, v, t);
  }
  add_constant_force(total, f);
  if constexpr (S::m != 0) {
    if (constraint_count(sys) > 0) {
      const auto a = constrained_acceleration(sys, q, v, t, f);
      if constexpr (LocallyCoupled<S> && std::is_same_v<T, double>) {  // M(q) sparse, term by term
        total += local::constraint_matrix(sys, q).transpose() * a.multiplier;
      } else {
        total += sys.template constraint_matrix<T>(q).transpose() * a.multiplier;
      }
    }
  }
  return total;
}

/// The α-rule discrete force (that of the examples of [ASMM22] §5.4 for α = ½): with q_α = (1−α) q0 + α q1,
/// v_d = (q1 − q0)/h and t_α = t0 + α h, F_d^− = (1−α) h F(q_α, v_d, t_α) and F_d^+ = α h F(q_α, v_d, t_α),
/// F = total_force.
/// These are the quadrature of ∫ F·δq dt with δq linear between δq0 and δq1, the companion of
/// AlphaRule; for α = ½ both are (h/2) F_nh(q_mid, v_d), the forces of thesis Ex. 7.5.1–7.5.3.
template <Model S>
class AlphaForce {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  AlphaForce(const S& system, double h, double alpha = 0.5) : system_(system), h_(h), alpha_(alpha) {}
  int dimension() const { return coordinate_count(system_); }
  double alpha() const { return alpha_; }

  /// F_d^∓, with a constant external force f added to the model's (none by default: the step's
  /// derivative by such a force adds it).
  template <class T, class F = NoConstantForce>
  VecN<S, T> minus(const VecN<S, T>& q0, const VecN<S, T>& q1, double t0, const F& f = {}) const {
    return ((1.0 - alpha_) * h_) * force(q0, q1, t0, f);
  }
  template <class T, class F = NoConstantForce>
  VecN<S, T> plus(const VecN<S, T>& q0, const VecN<S, T>& q1, double t0, const F& f = {}) const {
    return (alpha_ * h_) * force(q0, q1, t0, f);
  }
  /// Both from one evaluation of the force (one constrained acceleration).
  TwoSidedForceValues<n, max_n> values(const VecN<S>& q0, const VecN<S>& q1, double t0) const {
    const VecN<S> F = force(q0, q1, t0);
    return {((1.0 - alpha_) * h_) * F, (alpha_ * h_) * F};
  }

 private:
  template <class T, class F = NoConstantForce>
  VecN<S, T> force(const VecN<S, T>& q0, const VecN<S, T>& q1, double t0, const F& f = {}) const {
    const VecN<S, T> q = (1.0 - alpha_) * q0 + alpha_ * q1;
    const VecN<S, T> v = (q1 - q0) / h_;
    return total_force(system_, q, v, t0 + alpha_ * h_, f);
  }
  S system_;
  double h_, alpha_;
};

/// No force: MLA with it is DLA, forced DEL with it is DEL.
template <int N, int MaxN = N>
struct ZeroForce {
  static constexpr int n = N, max_n = MaxN;
  int size = N;  ///< n at run time
  int dimension() const { return size; }
  bool active() const { return false; }
  template <class T>
  Vec<T, n, max_n> minus(const Vec<T, n, max_n>& q0, const Vec<T, n, max_n>&, double) const {
    return q0 * 0.0;
  }
  template <class T>
  Vec<T, n, max_n> plus(const Vec<T, n, max_n>&, const Vec<T, n, max_n>& q1, double) const {
    return q1 * 0.0;
  }
};

/// The model's external force as discrete forces, F_d^− = F_d^+ = (h/2) F(q_mid, v_d, t0 + h/2)
/// (MidpointForce), and none for a model without one: the forces of DLA, which never ignores a
/// model's force.
template <Model S>
class ModelForce {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  ModelForce(const S& system, double h) : system_(system), h_(h) {}
  int dimension() const { return coordinate_count(system_); }
  const S& system() const { return system_; }
  double step_size() const { return h_; }
  /// Whether the model has a force (a model file knows it only at run time).
  bool active() const {
    if constexpr (HasExternalForce<S>) {
      return has_external_force(system_);
    } else {
      return false;
    }
  }

  template <class T>
  VecN<S, T> minus(const VecN<S, T>& q0, const VecN<S, T>& q1, double t0) const {
    if constexpr (HasExternalForce<S>) {
      if (active()) return MidpointForce<S>(system_, h_, t0)(q0, q1);
    }
    return VecN<S, T>(q0 * 0.0);
  }
  template <class T>
  VecN<S, T> plus(const VecN<S, T>& q0, const VecN<S, T>& q1, double t0) const {
    return minus(q0, q1, t0);
  }
  TwoSidedForceValues<n, max_n> values(const VecN<S>& q0, const VecN<S>& q1, double t0) const {
    const VecN<S> f = minus(q0, q1, t0);
    return {f, f};
  }

 private:
  S system_;
  double h_;
};

/// F_d^− = F_d^+ and ∂F_d^−/∂q1 from one evaluation in automatic differentiation.
template <Model S>
TwoSidedForceDerivatives<S::n, max_n_of<S>()> differentiate(const ModelForce<S>& f, const VecN<S>& q0,
                                                            const VecN<S>& q1, double t0) {
  if constexpr (HasExternalForce<S>) {
    const auto d = differentiate(MidpointForce<S>(f.system(), f.step_size(), t0), q0, q1);
    return {d.value, d.value, d.D2};
  } else {
    const int n = coordinate_count(f);
    return {VecN<S>::Zero(n), VecN<S>::Zero(n), MatNN<S>::Zero(n, n)};
  }
}

/// Whether a discrete force is known to be zero: ZeroForce, or the force of a model without one.
template <class Fd>
bool is_zero_force(const Fd& f) {
  if constexpr (requires { f.active(); }) {
    return !f.active();
  } else {
    return false;
  }
}

/// F_d^∓(q0, q1) without derivatives, from one evaluation where the force gives both at once.
template <DiscreteForce Fd>
TwoSidedForceValues<Fd::n, max_n_of<Fd>()> force_values(const Fd& f, const VecN<Fd>& q0, const VecN<Fd>& q1,
                                                        double t0) {
  if constexpr (requires { f.values(q0, q1, t0); }) {
    return f.values(q0, q1, t0);
  } else {
    return {f.minus(q0, q1, t0), f.plus(q0, q1, t0)};
  }
}

/// User-supplied discrete forces: two callables generic in their scalar type, of (q0, q1) alone
/// (an autonomous discrete force).
template <int N, class Minus, class Plus>
class UserDiscreteForce {
 public:
  static constexpr int n = N;
  UserDiscreteForce(Minus minus, Plus plus) : minus_(std::move(minus)), plus_(std::move(plus)) {}
  template <class T>
  Vec<T, n> minus(const Vec<T, n>& q0, const Vec<T, n>& q1, double) const {
    return minus_(q0, q1);
  }
  template <class T>
  Vec<T, n> plus(const Vec<T, n>& q0, const Vec<T, n>& q1, double) const {
    return plus_(q0, q1);
  }

 private:
  Minus minus_;
  Plus plus_;
};

template <int N, class Minus, class Plus>
UserDiscreteForce<N, Minus, Plus> make_discrete_force(Minus minus, Plus plus) {
  return UserDiscreteForce<N, Minus, Plus>(std::move(minus), std::move(plus));
}

// --- Forced discrete Legendre maps ----------------------------------------------------------------

template <int N, int MaxN = N>
struct ForcedLegendreMaps {
  Vecd<N, MaxN> minus;              ///< F^{f−}L_d(q0, q1) = −D1 L_d − F_d^−, a covector at q0
  Vecd<N, MaxN> plus;               ///< F^{f+}L_d(q0, q1) =  D2 L_d + F_d^+, a covector at q1
  Matd<N, N, MaxN, MaxN> minus_q1;  ///< ∂F^{f−}/∂q1
};
template <class X>
using ForcedLegendreMapsOf = ForcedLegendreMaps<X::n, max_n_of<X>()>;

/// The two maps without their Jacobian.
template <int N, int MaxN = N>
struct ForcedLegendreValues {
  Vecd<N, MaxN> minus, plus;
};
template <class X>
using ForcedLegendreValuesOf = ForcedLegendreValues<X::n, max_n_of<X>()>;

/// The two maps with their common velocity part apart (SplitSlotDerivatives): minus = L_v + minus_rest,
/// plus = L_v + plus_rest, the rests of the size of the step's impulses.
template <int N, int MaxN = N>
struct SplitForcedLegendreValues : ForcedLegendreValues<N, MaxN> {
  Vecd<N, MaxN> Lv, minus_rest, plus_rest;
};

/// Anything that evaluates the forced discrete Legendre maps of a pair, q0 at the time t0:
///   static constexpr int n;  double step_size() const;
///   ForcedLegendreMaps<n> legendre_maps(const Vecd<n>& q0, const Vecd<n>& q1, double t0) const;
template <class X>
concept ForcedDiscreteLagrangian = requires(const X& x, const VecN<X>& q) {
  { X::n } -> std::convertible_to<int>;
  { coordinate_count(x) } -> std::convertible_to<int>;
  { x.step_size() } -> std::convertible_to<double>;
  { x.legendre_maps(q, q, 0.0) } -> std::convertible_to<ForcedLegendreMapsOf<X>>;
};

/// A forced discrete Lagrangian that also evaluates its maps alone, from first derivatives of L_d
/// (for the residual evaluations that need no Jacobian), and the Jacobian alone.
template <class X>
concept ForcedLegendreValuesAlone = ForcedDiscreteLagrangian<X> && requires(const X& x, const VecN<X>& q) {
  { x.legendre_values(q, q, 0.0) } -> std::convertible_to<ForcedLegendreValuesOf<X>>;
  x.minus_map_jacobian(q, q, 0.0);
};

/// A discrete Lagrangian with discrete forces, differentiated automatically.
template <DiscreteLagrangian Ld, DiscreteForce Fd>
class WithForces {
 public:
  static constexpr int n = Ld::n, max_n = max_n_of<Ld>();
  static_assert(Fd::n == n, "discrete Lagrangian and discrete force must have the same dimension");
  using Lagrangian = Ld;
  using Force = Fd;
  WithForces(Ld ld, Fd fd) : ld_(std::move(ld)), fd_(std::move(fd)) {}

  double step_size() const { return ld_.step_size(); }
  int dimension() const { return coordinate_count(ld_); }
  const Ld& discrete_lagrangian() const { return ld_; }
  const Fd& discrete_force() const { return fd_; }

  // The maps are formed in the storage of L_d's derivatives and moved out: at run-time sizes without
  // a bound, new vectors would cost a heap allocation each.
  ForcedLegendreMapsOf<Ld> legendre_maps(const VecN<Ld>& q0, const VecN<Ld>& q1, double t0) const {
    auto d = differentiate(ld_, q0, q1);
    if (!is_zero_force(fd_)) {
      const auto f = differentiate(fd_, q0, q1, t0);
      d.D1 += f.minus;
      d.D2 += f.plus;
      d.D12 += f.minus_q1;
    }
    d.D1 = -d.D1;
    d.D12 = -d.D12;
    return {std::move(d.D1), std::move(d.D2), std::move(d.D12)};
  }

  /// −∂F^{f−}L_d/∂q1 = D12 L_d + ∂F_d^−/∂q1 alone: the block of a step's Jacobian that Newton asks
  /// for, without the maps (and without F_d^+, which for MLA's α-force is another constrained
  /// acceleration).
  auto minus_map_jacobian(const VecN<Ld>& q0, const VecN<Ld>& q1, double t0) const {
    auto d = differentiate(ld_, q0, q1);
    if (!is_zero_force(fd_)) {
      VecN<Ld> minus(coordinate_count(ld_));
      Matd<n, n, max_n, max_n> minus_q1(coordinate_count(ld_), coordinate_count(ld_));
      differentiate_minus(fd_, q0, q1, t0, minus, minus_q1);
      d.D12 += minus_q1;
    }
    return std::move(d.D12);
  }

  /// With the velocity part apart where the slot derivatives give it (SplitForcedLegendreValues).
  auto legendre_values(const VecN<Ld>& q0, const VecN<Ld>& q1, double t0) const {
    auto d = slot_derivatives(ld_, q0, q1);
    if constexpr (requires { d.Lv; }) {
      SplitForcedLegendreValues<n, max_n> v;
      v.Lv = d.Lv;
      v.minus_rest = -d.D1_rest;
      v.plus_rest = d.D2_rest;
      if (!is_zero_force(fd_)) {
        const auto f = force_values(fd_, q0, q1, t0);
        v.minus_rest -= f.minus;
        v.plus_rest += f.plus;
      }
      v.minus = v.Lv + v.minus_rest;
      v.plus = v.Lv + v.plus_rest;
      return v;
    } else {
      if (!is_zero_force(fd_)) {
        const auto f = force_values(fd_, q0, q1, t0);
        d.D1 += f.minus;
        d.D2 += f.plus;
      }
      d.D1 = -d.D1;
      return ForcedLegendreValuesOf<Ld>{std::move(d.D1), std::move(d.D2)};
    }
  }

 private:
  Ld ld_;
  Fd fd_;
};

/// L_d with the model's external force as its discrete forces (ModelForce): DEL's and DLA's.
template <Model S, DiscreteLagrangian Ld>
WithForces<Ld, ModelForce<S>> with_model_force(const S& system, Ld ld) {
  const double h = ld.step_size();
  return WithForces<Ld, ModelForce<S>>(std::move(ld), ModelForce<S>(system, h));
}

}  // namespace dalembert
