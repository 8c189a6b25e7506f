#pragma once
// Contact (Herglotz) Lagrangian systems L(q, v, z): z is the action variable, ż = L, and the
// Herglotz equations (spec seed-003 §0.3 (C6), thesis (3.5.8))
//   d/dt ∂L/∂v − ∂L/∂q = ∂L/∂v ∂L/∂z  (+ M(q)ᵀλ with linear constraints M(q) v = 0),   ż = L.
// Expanding d/dt ∂L/∂v = W q̈ + B v + (∂²L/∂v∂z) ż gives
//   W q̈ = r := ∂L/∂q − B v − (∂²L/∂v∂z) L + (∂L/∂v)(∂L/∂z),
// and the multipliers are eliminated exactly as in model/dynamics.hpp: f = W⁻¹r,
// λ = −(M W⁻¹ Mᵀ)⁻¹ (a + M f), q̈ = f + W⁻¹ Mᵀ λ, valid at every (q, v, z), so M(q) v is a first
// integral (the multiplier extension of (C3)). Constrained contact systems follow de León, Jiménez
// and Lainz's Herglotz–d'Alembert equations; with v ∈ D the energy still obeys dE_L/dt = (∂L/∂z) E_L
// because the constraint force does no work (docs/methods.md).
//
// A contact model is a struct with
//   static constexpr int n;
//   template <class T> T lagrangian(const Vec<T,n>& q, const Vec<T,n>& v, const T& z) const;
// and optionally (linear nonholonomic constraints)
//   static constexpr int m;  template <class T> Mat<T,m,n> constraint_matrix(const Vec<T,n>& q) const;
// The base LinearContact<Derived, n> builds L = L0(q, v) + γ z from Derived::base_lagrangian and
// the data member gamma; that form is what the exponentially weighted discrete Lagrangian needs.
#include <concepts>

#include <Eigen/LU>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/dynamics.hpp"

namespace dalembert {

template <class S>
concept ContactModel = requires(const S& s, const Vecd<S::n>& q, double z) {
  { S::n } -> std::convertible_to<int>;
  { s.template lagrangian<double>(q, q, z) } -> std::convertible_to<double>;
};

/// Number of linear constraints of a contact model (0 when it declares none).
template <ContactModel S>
consteval int contact_constraint_count() {
  if constexpr (requires { S::m; }) {
    return S::m;
  } else {
    return 0;
  }
}

/// The constraint matrix M(q) of a contact model (an empty matrix without constraints).
template <ContactModel S, class T>
Mat<T, contact_constraint_count<S>(), S::n> contact_constraint_matrix(const S& sys, const Vec<T, S::n>& q) {
  if constexpr (contact_constraint_count<S>() == 0) {
    return {};
  } else {
    return sys.template constraint_matrix<T>(q);
  }
}

/// L = L0(q, v) + γ z.
template <class S>
concept LinearInAction = ContactModel<S> && requires(const S& s, const Vecd<S::n>& q) {
  { s.template base_lagrangian<double>(q, q) } -> std::convertible_to<double>;
  { s.gamma } -> std::convertible_to<double>;
};

template <class Derived, int N>
struct LinearContact {
  template <class T>
  T lagrangian(const Vec<T, N>& q, const Vec<T, N>& v, const T& z) const {
    const auto& self = static_cast<const Derived&>(*this);
    return self.template base_lagrangian<T>(q, v) + self.gamma * z;
  }
};

/// A point (q, v, z) of TQ × R.
template <int N>
struct ContactPoint {
  Vecd<N> q;
  Vecd<N> v;
  double z = 0.0;
};

/// The Lagrangian at a frozen value of the action, (q, v) ↦ L(q, v, z): an ordinary Model, so that
/// energy(), velocity_in_distribution(), constraint_frame() and AlphaConstraint apply unchanged.
template <ContactModel S>
struct FrozenAction {
  static constexpr int n = S::n;
  static constexpr int m = contact_constraint_count<S>();
  S system;
  double z = 0.0;

  template <class T>
  T lagrangian(const Vec<T, n>& q, const Vec<T, n>& v) const {
    return system.template lagrangian<T>(q, v, ad::lift<T>(z));
  }
  template <class T>
  Mat<T, m, n> constraint_matrix(const Vec<T, n>& q) const {
    return contact_constraint_matrix<S, T>(system, q);
  }
};

template <ContactModel S>
FrozenAction<S> at_action(const S& sys, double z) {
  return FrozenAction<S>{sys, z};
}

/// L and the derivatives the Herglotz equations need, at one point (q, v, z).
template <class T, int N>
struct ContactLagrangianDerivatives {
  T L;
  Vec<T, N> Lq;    ///< ∂L/∂q
  Vec<T, N> Lv;    ///< ∂L/∂v
  T Lz;            ///< ∂L/∂z
  Mat<T, N, N> W;  ///< ∂²L/∂v²
  Mat<T, N, N> B;  ///< B(i, j) = ∂²L/∂v_i ∂q_j
  Vec<T, N> Lvz;   ///< ∂²L/∂v∂z
};

template <ContactModel S, class T>
ContactLagrangianDerivatives<T, S::n> contact_lagrangian_derivatives(const S& sys, const Vec<T, S::n>& q,
                                                                     const Vec<T, S::n>& v, const T& z) {
  constexpr int n = S::n, N = 2 * n + 1;
  using AlongV = ad::Dual<T, n>;   // derivatives of the gradient along v
  using Grad = ad::Dual<AlongV, N>; // gradient with respect to (q, v, z)
  Vec<Grad, n> qd, vd;
  for (int i = 0; i < n; ++i) {
    qd[i] = ad::variable<N>(ad::constant<n>(q[i]), i);
    vd[i] = ad::variable<N>(ad::variable<n>(v[i], i), n + i);
  }
  const Grad zd = ad::variable<N>(ad::constant<n>(z), 2 * n);
  const Grad L = sys.template lagrangian<Grad>(qd, vd, zd);
  ContactLagrangianDerivatives<T, n> d;
  d.L = ad::value(ad::value(L));
  for (int j = 0; j < n; ++j) {
    const AlongV& dq = ad::derivative(L, j);
    const AlongV& dv = ad::derivative(L, n + j);
    d.Lq[j] = ad::value(dq);
    d.Lv[j] = ad::value(dv);
    for (int i = 0; i < n; ++i) {
      d.B(i, j) = ad::derivative(dq, i);
      d.W(i, j) = ad::derivative(dv, i);
    }
  }
  const AlongV& dz = ad::derivative(L, 2 * n);
  d.Lz = ad::value(dz);
  for (int i = 0; i < n; ++i) d.Lvz[i] = ad::derivative(dz, i);
  return d;
}

/// Gradient and Hessian of L in all its arguments x = (q, v, z) ∈ R^{2n+1} (for the variational
/// equation of the Herglotz flow, which in the variables (δq, δp, δz) needs only these).
template <int N>
struct ContactLagrangianHessian {
  static constexpr int size = 2 * N + 1;
  double L;
  Vecd<size> gradient;
  Matd<size, size> hessian;

  /// The blocks the Herglotz equations use, in the layout of ContactLagrangianDerivatives.
  ContactLagrangianDerivatives<double, N> derivatives() const {
    ContactLagrangianDerivatives<double, N> d;
    d.L = L;
    d.Lq = gradient.template head<N>();
    d.Lv = gradient.template segment<N>(N);
    d.Lz = gradient[2 * N];
    d.W = hessian.template block<N, N>(N, N);
    d.B = hessian.template block<N, N>(N, 0);
    d.Lvz = hessian.template block<N, 1>(N, 2 * N);
    return d;
  }
};

template <ContactModel S>
ContactLagrangianHessian<S::n> contact_lagrangian_hessian(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v,
                                                          double z) {
  constexpr int n = S::n, N = 2 * n + 1;
  using Inner = ad::Dual<double, N>;
  using Outer = ad::Dual<Inner, N>;
  Vecd<N> x;
  x << q, v, z;
  Vec<Outer, N> xd;
  for (int i = 0; i < N; ++i) xd[i] = ad::variable<N>(ad::variable<N>(x[i], i), i);
  const Outer L = sys.template lagrangian<Outer>(Vec<Outer, n>(xd.template head<n>()),
                                                 Vec<Outer, n>(xd.template segment<n>(n)), xd[2 * n]);
  ContactLagrangianHessian<n> h;
  h.L = ad::value(ad::value(L));
  for (int j = 0; j < N; ++j) {
    h.gradient[j] = ad::value(ad::derivative(L, j));
    for (int i = 0; i < N; ++i) h.hessian(i, j) = ad::derivative(ad::derivative(L, j), i);
  }
  return h;
}

/// Acceleration and multipliers of the Herglotz(–d'Alembert) equations, from the derivatives at
/// (q, v, z) (which the caller may also need, e.g. L for ż).
template <ContactModel S, class T>
ConstrainedAcceleration<T, S::n, contact_constraint_count<S>()> herglotz_acceleration(
    const S& sys, const Vec<T, S::n>& q, const Vec<T, S::n>& v, const ContactLagrangianDerivatives<T, S::n>& d) {
  constexpr int n = S::n, m = contact_constraint_count<S>();
  const Vec<T, n> r = d.Lq - d.B * v - d.Lvz * d.L + d.Lv * d.Lz;
  const Eigen::PartialPivLU<Mat<T, n, n>> W(d.W);
  ConstrainedAcceleration<T, n, m> out;
  out.acceleration = W.solve(r);
  if constexpr (m > 0) {
    const Mat<T, m, n> Mq = sys.template constraint_matrix<T>(q);
    // a = (∂(M v)/∂q) v
    Vec<T, m> Mv;
    Mat<T, m, n> dMv;
    ad::value_and_jacobian<n, m>(
        [&](const auto& qd) {
          using D = typename std::decay_t<decltype(qd)>::Scalar;
          const Vec<D, n> vd = v.template cast<D>();
          return Vec<D, m>(sys.template constraint_matrix<D>(qd) * vd);
        },
        q, Mv, dMv);
    const Mat<T, n, m> WinvMt = W.solve(Mq.transpose());
    const Mat<T, m, m> C = Mq * WinvMt;
    out.multiplier = -Eigen::PartialPivLU<Mat<T, m, m>>(C).solve(Vec<T, m>(dMv * v + Mq * out.acceleration));
    out.acceleration += WinvMt * out.multiplier;
  }
  return out;
}

template <ContactModel S, class T>
ConstrainedAcceleration<T, S::n, contact_constraint_count<S>()> herglotz_acceleration(const S& sys,
                                                                                      const Vec<T, S::n>& q,
                                                                                      const Vec<T, S::n>& v,
                                                                                      const T& z) {
  return herglotz_acceleration(sys, q, v, contact_lagrangian_derivatives(sys, q, v, z));
}

/// The contact Lagrangian vector field on TQ × R: (q̇, v̇, ż) = (v, q̈(q, v, z), L(q, v, z)).
template <ContactModel S, class T>
void herglotz_vector_field(const S& sys, const Vec<T, S::n>& q, const Vec<T, S::n>& v, const T& z,
                           Vec<T, S::n>& acceleration, T& zdot) {
  const auto d = contact_lagrangian_derivatives(sys, q, v, z);
  acceleration = herglotz_acceleration(sys, q, v, d).acceleration;
  zdot = d.L;
}

/// The momentum ∂L/∂v(q, v, z) (contact Legendre map (3.5.9): (q, v, z) ↦ (q, ∂L/∂v, z)).
template <ContactModel S>
Vecd<S::n> contact_momentum(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v, double z) {
  return momentum(at_action(sys, z), q, v);
}

/// The energy E_L = v·∂L/∂v − L at (q, v, z); dE_L/dt = (∂L/∂z) E_L along the flow (on D).
template <ContactModel S>
double contact_energy(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v, double z) {
  return energy(at_action(sys, z), q, v);
}

/// ∂L/∂z(q, v, z): the rate at which the energy and the dissipated quantities decay.
template <ContactModel S>
double dissipation_rate(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v, double z) {
  double L;
  Vecd<1> Lz;
  ad::value_and_gradient<1>(
      [&](const auto& zd) {
        using D = typename std::decay_t<decltype(zd)>::Scalar;
        return sys.template lagrangian<D>(q.template cast<D>(), v.template cast<D>(), zd[0]);
      },
      Vecd<1>(z), L, Lz);
  return Lz[0];
}

/// The inverse Legendre map: the velocity v ∈ D_q with Eᵀ ∂L/∂v(q, v, z) = Eᵀ p (without
/// constraints: ∂L/∂v(q, v, z) = p).
template <ContactModel S>
Vecd<S::n> contact_velocity(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& p, double z) {
  return velocity_in_distribution(at_action(sys, z), q, p);
}

/// The contact Hamiltonian H(q, p, z) = E_L ∘ FL⁻¹ (on D* with constraints).
template <ContactModel S>
double contact_hamiltonian(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& p, double z) {
  return contact_energy(sys, q, contact_velocity(sys, q, p, z), z);
}

/// The dissipated quantity J_ξ = ⟨∂L/∂v, ξ_Q(q)⟩ of a symmetry with generator ξ_Q (thesis
/// Thm 3.5.2): d/dt J_ξ = (∂L/∂z) J_ξ when L is invariant under the lifted action.
template <ContactModel S, class Generator>
double dissipated_quantity(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v, double z, Generator&& xi) {
  return contact_momentum(sys, q, v, z).dot(Vecd<S::n>(xi(q)));
}

/// |M(q) v|_inf, 0 without constraints.
template <ContactModel S>
double contact_constraint_residual(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v) {
  return constraint_residual(at_action(sys, 0.0), q, v);
}

}  // namespace dalembert
