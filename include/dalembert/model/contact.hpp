#pragma once
// Contact (Herglotz) Lagrangian systems L(q, v, z): z is the action variable, ż = L, and the
// Herglotz equations ([AS21] (3.5.8))
//   d/dt ∂L/∂v − ∂L/∂q = ∂L/∂v ∂L/∂z  (+ M(q)ᵀλ with linear constraints M(q) v = 0),   ż = L.
// Expanding d/dt ∂L/∂v = W q̈ + B v + (∂²L/∂v∂z) ż gives
//   W q̈ = r := ∂L/∂q − B v − (∂²L/∂v∂z) L + (∂L/∂v)(∂L/∂z),
// and the multipliers are eliminated exactly as in model/dynamics.hpp: f = W⁻¹r,
// λ = −(M W⁻¹ Mᵀ)⁻¹ (a + M f), q̈ = f + W⁻¹ Mᵀ λ, valid at every (q, v, z), so M(q) v is a first
// integral (the multiplier extension of model/dynamics.hpp). Constrained contact systems follow de León, Jiménez
// and Lainz's Herglotz–d'Alembert equations; with v ∈ D the energy still obeys dE_L/dt = (∂L/∂z) E_L
// because the constraint force does no work (docs/methods.md).
//
// A contact model is a struct with
//   static constexpr int n;
//   template <class T> T lagrangian(const Vec<T,n>& q, const Vec<T,n>& v, const T& z) const;
// and optionally (linear nonholonomic constraints)
//   static constexpr int m;  template <class T> Mat<T,m,n> constraint_matrix(const Vec<T,n>& q) const;
// Sizes may be Eigen::Dynamic, as for a Model (model/model.hpp): then dimension() (and
// constraint_count()) give them at run time, and max_n (max_m) may bound them.
// The base LinearContact<Derived, n> builds L = L0(q, v) + γ z from Derived::base_lagrangian and
// the data member gamma; that form is what the exponentially weighted discrete Lagrangian needs.
#include <algorithm>
#include <concepts>

#include <Eigen/LU>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/dynamics.hpp"

namespace dalembert {

template <class S>
concept ContactModel = requires(const S& s, const VecN<S>& q, double z) {
  { S::n } -> std::convertible_to<int>;
  { coordinate_count(s) } -> std::convertible_to<int>;
  { s.template lagrangian<double>(q, q, z) } -> std::convertible_to<double>;
};

/// Number of linear constraints of a contact model (0 when it declares none; Eigen::Dynamic when
/// known at run time only), and its compile-time bound.
template <ContactModel S>
consteval int contact_constraint_count() {
  if constexpr (requires { S::m; }) {
    return S::m;
  } else {
    return 0;
  }
}
template <ContactModel S>
consteval int contact_max_constraint_count() {
  if constexpr (requires { S::max_m; }) {
    return S::max_m;
  } else {
    return contact_constraint_count<S>();
  }
}
/// The number of constraints at run time.
template <ContactModel S>
int contact_constraint_count(const S& sys) {
  if constexpr (contact_constraint_count<S>() == Dynamic) {
    return sys.constraint_count();
  } else {
    return contact_constraint_count<S>();
  }
}

/// M(q) of a contact model: m × n, with the model's sizes and bounds.
template <class S, class T = double>
using ContactConstraintMatrix =
    Mat<T, contact_constraint_count<S>(), S::n, contact_max_constraint_count<S>(), max_n_of<S>()>;

/// The constraint matrix M(q) of a contact model (an empty matrix without constraints).
template <ContactModel S, class T>
ContactConstraintMatrix<S, T> contact_constraint_matrix(const S& sys, const VecN<S, T>& q) {
  if constexpr (contact_constraint_count<S>() == 0) {
    return ContactConstraintMatrix<S, T>(0, coordinate_count(sys));
  } else {
    return sys.template constraint_matrix<T>(q);
  }
}

/// L = L0(q, v) + γ z.
template <class S>
concept LinearInAction = ContactModel<S> && requires(const S& s, const VecN<S>& q) {
  { s.template base_lagrangian<double>(q, q) } -> std::convertible_to<double>;
  { s.gamma } -> std::convertible_to<double>;
};

template <class Derived, int N, int MaxN = N>
struct LinearContact {
  template <class T>
  T lagrangian(const Vec<T, N, MaxN>& q, const Vec<T, N, MaxN>& v, const T& z) const {
    const auto& self = static_cast<const Derived&>(*this);
    return self.template base_lagrangian<T>(q, v) + self.gamma * z;
  }
};

/// A point (q, v, z) of TQ × R.
template <int N, int MaxN = N>
struct ContactPoint {
  Vecd<N, MaxN> q;
  Vecd<N, MaxN> v;
  double z = 0.0;
};
template <class S>
using ContactPointOf = ContactPoint<S::n, max_n_of<S>()>;

/// The Lagrangian at a frozen value of the action, (q, v) ↦ L(q, v, z): an ordinary Model, so that
/// energy(), velocity_in_distribution(), constraint_frame() and AlphaConstraint apply unchanged.
template <ContactModel S>
struct FrozenAction {
  static constexpr int n = S::n, max_n = max_n_of<S>();
  static constexpr int m = contact_constraint_count<S>(), max_m = contact_max_constraint_count<S>();
  S system;
  double z = 0.0;

  int dimension() const { return coordinate_count(system); }
  int constraint_count() const { return contact_constraint_count(system); }

  template <class T>
  T lagrangian(const Vec<T, n, max_n>& q, const Vec<T, n, max_n>& v) const {
    if constexpr (n == Dynamic && ad::is_dual_v<T>) {
      // At run-time widths a constant stores no derivatives, and Eigen's AutoDiffScalar pads them
      // next to a plain dual only, not inside expressions (γ z, ½|v|² − ½k|q|²): every argument
      // gets the full width here, with zeros.
      Eigen::Index width = 0;
      for (Eigen::Index i = 0; i < q.size(); ++i)
        width = std::max({width, q[i].derivatives().size(), v[i].derivatives().size()});
      const auto padded = [width](T x) {
        if (x.derivatives().size() == 0) x.derivatives() = T::DerType::Zero(width);
        return x;
      };
      const Vec<T, n, max_n> qw = q.unaryExpr(padded), vw = v.unaryExpr(padded);
      return system.template lagrangian<T>(qw, vw, padded(ad::lift<T>(z)));
    }
    return system.template lagrangian<T>(q, v, ad::lift<T>(z));
  }
  template <class T>
  Mat<T, m, n, max_m, max_n> constraint_matrix(const Vec<T, n, max_n>& q) const {
    return contact_constraint_matrix<S, T>(system, q);
  }
};

template <ContactModel S>
FrozenAction<S> at_action(const S& sys, double z) {
  return FrozenAction<S>{sys, z};
}

/// L and the derivatives the Herglotz equations need, at one point (q, v, z).
template <class T, int N, int MaxN = N>
struct ContactLagrangianDerivatives {
  T L;
  Vec<T, N, MaxN> Lq;          ///< ∂L/∂q
  Vec<T, N, MaxN> Lv;          ///< ∂L/∂v
  T Lz;                        ///< ∂L/∂z
  Mat<T, N, N, MaxN, MaxN> W;  ///< ∂²L/∂v²
  Mat<T, N, N, MaxN, MaxN> B;  ///< B(i, j) = ∂²L/∂v_i ∂q_j
  Vec<T, N, MaxN> Lvz;         ///< ∂²L/∂v∂z
};
template <class S, class T = double>
using ContactLagrangianDerivativesOf = ContactLagrangianDerivatives<T, S::n, max_n_of<S>()>;

/// The size 2n + 1 of (q, v, z) and of (q0, q1, z0), fixed or Eigen::Dynamic.
constexpr int contact_arguments_size(int n) { return sum_of_sizes(multiple_of_size(2, n), 1); }

template <ContactModel S, class T>
ContactLagrangianDerivativesOf<S, T> contact_lagrangian_derivatives(const S& sys, const VecN<S, T>& q,
                                                                    const VecN<S, T>& v, const T& z) {
  constexpr int N = contact_arguments_size(S::n), MaxN = contact_arguments_size(max_n_of<S>());
  const int n = coordinate_count(sys);
  using AlongV = ad::Dual<T, S::n, max_n_of<S>()>;  // derivatives of the gradient along v
  using Grad = ad::Dual<AlongV, N, MaxN>;           // gradient with respect to (q, v, z)
  VecN<S, Grad> qd(n), vd(n);
  for (int i = 0; i < n; ++i) {
    qd[i] = ad::variable<N, MaxN>(ad::constant<S::n, max_n_of<S>()>(q[i], n), i, 2 * n + 1);
    vd[i] = ad::variable<N, MaxN>(ad::variable<S::n, max_n_of<S>()>(v[i], i, n), n + i, 2 * n + 1);
  }
  const Grad zd = ad::variable<N, MaxN>(ad::constant<S::n, max_n_of<S>()>(z, n), 2 * n, 2 * n + 1);
  const Grad L = sys.template lagrangian<Grad>(qd, vd, zd);
  ContactLagrangianDerivativesOf<S, T> d;
  detail::read_lagrangian_derivatives(L, n, d);  // and along z at 2n:
  d.Lvz.resize(n);
  const AlongV& dz = ad::derivative(L, 2 * n);
  d.Lz = ad::value(dz);
  for (int i = 0; i < n; ++i) d.Lvz[i] = ad::derivative(dz, i);
  return d;
}

/// Gradient and Hessian of L in all its arguments x = (q, v, z) ∈ R^{2n+1} (for the variational
/// equation of the Herglotz flow, which in the variables (δq, δp, δz) needs only these).
template <int N, int MaxN = N>
struct ContactLagrangianHessian {
  static constexpr int size = contact_arguments_size(N), max_size = contact_arguments_size(MaxN);
  double L;
  Vecd<size, max_size> gradient;
  Matd<size, size, max_size, max_size> hessian;

  /// The blocks the Herglotz equations use, in the layout of ContactLagrangianDerivatives.
  ContactLagrangianDerivatives<double, N, MaxN> derivatives() const {
    const int n = static_cast<int>(gradient.size() - 1) / 2;
    ContactLagrangianDerivatives<double, N, MaxN> d;
    d.L = L;
    d.Lq = gradient.template head<N>(n);
    d.Lv = gradient.template segment<N>(n, n);
    d.Lz = gradient[2 * n];
    d.W = hessian.template block<N, N>(n, n, n, n);
    d.B = hessian.template block<N, N>(n, 0, n, n);
    d.Lvz = hessian.template block<N, 1>(n, 2 * n, n, 1);
    return d;
  }
};

template <ContactModel S>
ContactLagrangianHessian<S::n, max_n_of<S>()> contact_lagrangian_hessian(const S& sys, const VecN<S>& q,
                                                                         const VecN<S>& v, double z) {
  constexpr int N = contact_arguments_size(S::n), MaxN = contact_arguments_size(max_n_of<S>());
  const int n = coordinate_count(sys), size = 2 * n + 1;
  using Inner = ad::Dual<double, N, MaxN>;
  using Outer = ad::Dual<Inner, N, MaxN>;
  Vecd<N, MaxN> x(size);
  x << q, v, z;
  Vec<Outer, N, MaxN> xd(size);
  for (int i = 0; i < size; ++i) xd[i] = ad::variable<N, MaxN>(ad::variable<N, MaxN>(x[i], i, size), i, size);
  const Outer L = sys.template lagrangian<Outer>(VecN<S, Outer>(xd.template head<S::n>(n)),
                                                 VecN<S, Outer>(xd.template segment<S::n>(n, n)), xd[2 * n]);
  ContactLagrangianHessian<S::n, max_n_of<S>()> h;
  h.gradient.resize(size);
  h.hessian.resize(size, size);
  h.L = ad::value(ad::value(L));
  for (int j = 0; j < size; ++j) {
    h.gradient[j] = ad::value(ad::derivative(L, j));
    for (int i = 0; i < size; ++i) h.hessian(i, j) = ad::derivative(ad::derivative(L, j), i);
  }
  return h;
}

/// Acceleration and multipliers of the Herglotz(–d'Alembert) equations, from the derivatives at
/// (q, v, z) (which the caller may also need, e.g. L for ż).
template <ContactModel S, class T>
ConstrainedAccelerationOf<FrozenAction<S>, T> herglotz_acceleration(const S& sys, const VecN<S, T>& q,
                                                                    const VecN<S, T>& v,
                                                                    const ContactLagrangianDerivativesOf<S, T>& d) {
  using Sizes = FrozenAction<S>;  // the model's sizes, m included
  constexpr int m = Sizes::m;
  const VecN<S, T> r = d.Lq - d.B * v - d.Lvz * d.L + d.Lv * d.Lz;
  const LuKeepingDerivatives<MatNN<S, T>> W(d.W);
  ConstrainedAccelerationOf<Sizes, T> out;
  out.acceleration = W.solve(r);
  out.multiplier.resize(contact_constraint_count(sys));
  if constexpr (m != 0) {
    if (contact_constraint_count(sys) > 0) {
      const MatMN<Sizes, T> Mq = sys.template constraint_matrix<T>(q);
      // a = (∂(M v)/∂q) v
      VecM<Sizes, T> Mv;
      MatMN<Sizes, T> dMv;
      ad::value_and_jacobian<S::n, m, max_n_of<S>(), Sizes::max_m>(
          [&](const auto& qd) {
            using D = typename std::decay_t<decltype(qd)>::Scalar;
            const VecN<S, D> vd = ad::constants<D>(v, qd.size());
            return VecM<Sizes, D>(sys.template constraint_matrix<D>(qd) * vd);
          },
          q, Mv, dMv);
      const MatNM<Sizes, T> WinvMt = solve_by_columns(W, Mq.transpose());
      const Mat<T, m, m, Sizes::max_m, Sizes::max_m> C = Mq * WinvMt;
      out.multiplier = -LuKeepingDerivatives<Mat<T, m, m, Sizes::max_m, Sizes::max_m>>(C).solve(
          VecM<Sizes, T>(dMv * v + Mq * out.acceleration));
      out.acceleration += WinvMt * out.multiplier;
    }
  }
  return out;
}

template <ContactModel S, class T>
ConstrainedAccelerationOf<FrozenAction<S>, T> herglotz_acceleration(const S& sys, const VecN<S, T>& q,
                                                                    const VecN<S, T>& v, const T& z) {
  return herglotz_acceleration(sys, q, v, contact_lagrangian_derivatives(sys, q, v, z));
}

/// The contact Lagrangian vector field on TQ × R: (q̇, v̇, ż) = (v, q̈(q, v, z), L(q, v, z)).
template <ContactModel S, class T>
void herglotz_vector_field(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v, const T& z,
                           VecN<S, T>& acceleration, T& zdot) {
  const auto d = contact_lagrangian_derivatives(sys, q, v, z);
  acceleration = herglotz_acceleration(sys, q, v, d).acceleration;
  zdot = d.L;
}

/// The momentum ∂L/∂v(q, v, z) (contact Legendre map (3.5.9): (q, v, z) ↦ (q, ∂L/∂v, z)).
template <ContactModel S>
VecN<S> contact_momentum(const S& sys, const VecN<S>& q, const VecN<S>& v, double z) {
  return momentum(at_action(sys, z), q, v);
}

/// The energy E_L = v·∂L/∂v − L at (q, v, z); dE_L/dt = (∂L/∂z) E_L along the flow (on D).
template <ContactModel S>
double energy(const S& sys, const VecN<S>& q, const VecN<S>& v, double z) {
  return energy(at_action(sys, z), q, v);
}

/// ∂L/∂z(q, v, z): the rate at which the energy and the dissipated quantities decay.
template <ContactModel S>
double dissipation_rate(const S& sys, const VecN<S>& q, const VecN<S>& v, double z) {
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
VecN<S> contact_velocity(const S& sys, const VecN<S>& q, const VecN<S>& p, double z) {
  return velocity_in_distribution(at_action(sys, z), q, p);
}

/// The contact Hamiltonian H(q, p, z) = E_L ∘ FL⁻¹ (on D* with constraints).
template <ContactModel S>
double contact_hamiltonian(const S& sys, const VecN<S>& q, const VecN<S>& p, double z) {
  return energy(sys, q, contact_velocity(sys, q, p, z), z);
}

/// The dissipated quantity J_ξ = ⟨∂L/∂v, ξ_Q(q)⟩ of a symmetry with generator ξ_Q (thesis
/// Thm 3.5.2): d/dt J_ξ = (∂L/∂z) J_ξ when L is invariant under the lifted action.
template <ContactModel S, class Generator>
double dissipated_quantity(const S& sys, const VecN<S>& q, const VecN<S>& v, double z, Generator&& xi) {
  return contact_momentum(sys, q, v, z).dot(VecN<S>(xi(q)));
}

/// |M(q) v|_inf, 0 without constraints.
template <ContactModel S>
double constraint_residual(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  return constraint_residual(at_action(sys, 0.0), q, v);
}

}  // namespace dalembert
