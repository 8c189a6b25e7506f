#pragma once
// Discrete contact Lagrangians L_d(q0, q1, z0) ≈ z(h) − z0 = ∫_0^h L dt and their derivatives
// ([AS21] §8.1).
//
// A discrete contact Lagrangian is any object with
//   static constexpr int n;  double step_size() const;
//   template <class T> T operator()(const Vec<T,n>& q0, const Vec<T,n>& q1, const T& z0) const;
// whose derivatives then come from one hyper-dual evaluation (an inner dual along (q0, z0), an
// outer one along q1), or, for objects that are not generic in the scalar type (the exact discrete
// Lagrangian computed by shooting), a member  ContactDiscreteDerivatives<n> derivatives(q0, q1, z0).
// n may be Eigen::Dynamic, with dimension() and optionally the bound max_n, as for a model.
#include <cmath>
#include <concepts>
#include <stdexcept>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/contact.hpp"

namespace dalembert {

/// L_d and the derivatives the discrete Herglotz equations need at one point (q0, q1, z0).
template <int N, int MaxN = N>
struct ContactDiscreteDerivatives {
  double value = 0.0;         ///< L_d
  Vecd<N, MaxN> D1;           ///< ∂L_d/∂q0
  Vecd<N, MaxN> D2;           ///< ∂L_d/∂q1
  double Dz = 0.0;            ///< ∂L_d/∂z0
  Matd<N, N, MaxN, MaxN> D12;  ///< ∂D1/∂q1 (D12(i, j) = ∂²L_d/∂q0_i ∂q1_j)
  Vecd<N, MaxN> Dz2;          ///< ∂Dz/∂q1

  /// σ_d = 1 + D_z L_d, the conformal factor of the discrete flow (thesis Lemma 8.1.8).
  double sigma() const { return 1.0 + Dz; }
  /// −D1/σ_d: the momentum of the discrete Legendre map F⁻L_d at q0 (8.1.6).
  Vecd<N, MaxN> minus_momentum() const { return -D1 / sigma(); }
  /// ∂(−D1/σ_d)/∂q1, the Newton Jacobian of the momentum-matching equation.
  Matd<N, N, MaxN, MaxN> minus_momentum_jacobian() const {
    const double s = sigma();
    return -D12 / s + D1 * Dz2.transpose() / (s * s);
  }
};
template <class Ld>
using ContactDiscreteDerivativesOf = ContactDiscreteDerivatives<Ld::n, max_n_of<Ld>()>;

template <class Ld>
concept ContactDiscreteLagrangian = requires(const Ld& ld, const VecN<Ld>& q, double z) {
  { Ld::n } -> std::convertible_to<int>;
  { coordinate_count(ld) } -> std::convertible_to<int>;
  { ld.step_size() } -> std::convertible_to<double>;
  { ld(q, q, z) } -> std::convertible_to<double>;
};

template <class Ld>
concept HasClosedDerivatives = requires(const Ld& ld, const VecN<Ld>& q, double z) {
  { ld.derivatives(q, q, z) } -> std::convertible_to<ContactDiscreteDerivativesOf<Ld>>;
};

/// Thrown when a discrete Lagrangian cannot be evaluated (e.g. its shooting problem fails); the
/// integrators turn it into a SolverError carrying step and time.
class DiscreteLagrangianError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <ContactDiscreteLagrangian Ld>
ContactDiscreteDerivativesOf<Ld> differentiate(const Ld& ld, const VecN<Ld>& q0, const VecN<Ld>& q1, double z0) {
  if constexpr (HasClosedDerivatives<Ld>) {
    return ld.derivatives(q0, q1, z0);
  } else {
    constexpr int N = Ld::n, MaxN = max_n_of<Ld>();
    const int n = coordinate_count(ld);
    using AlongQ0Z = ad::Dual<double, sum_of_sizes(N, 1), sum_of_sizes(MaxN, 1)>;
    using AlongQ1 = ad::Dual<AlongQ0Z, N, MaxN>;
    // Constant along q1, with its n zero derivatives stored (ad::constant).
    const auto constant_along_q1 = [&](const AlongQ0Z& x) { return ad::constant<N, MaxN>(x, n); };
    VecN<Ld, AlongQ1> x0(n), x1(n);
    for (int i = 0; i < n; ++i) {
      x0[i] = constant_along_q1(ad::variable<sum_of_sizes(N, 1), sum_of_sizes(MaxN, 1)>(q0[i], i, n + 1));
      x1[i] = ad::variable<N, MaxN>(ad::constant<sum_of_sizes(N, 1), sum_of_sizes(MaxN, 1)>(q1[i], n + 1), i, n);
    }
    const AlongQ1 z = constant_along_q1(ad::variable<sum_of_sizes(N, 1), sum_of_sizes(MaxN, 1)>(z0, n, n + 1));
    const AlongQ1 L = ld(x0, x1, z);
    ContactDiscreteDerivativesOf<Ld> d;
    d.D1.resize(n);
    d.D2.resize(n);
    d.D12.resize(n, n);
    d.Dz2.resize(n);
    d.value = ad::value(ad::value(L));
    for (int i = 0; i < n; ++i) d.D1[i] = ad::derivative(ad::value(L), i);
    d.Dz = ad::derivative(ad::value(L), n);
    for (int j = 0; j < n; ++j) {
      const AlongQ0Z& dj = ad::derivative(L, j);
      d.D2[j] = ad::value(dj);
      for (int i = 0; i < n; ++i) d.D12(i, j) = ad::derivative(dj, i);
      d.Dz2[j] = ad::derivative(dj, n);
    }
    return d;
  }
}

/// Value, gradient and Hessian of L_d in all its arguments x = (q0, q1, z0) ∈ R^{2n+1}, for
/// Jacobians of the discrete flow (tests of the conformal contact property, thesis Thm 8.1.9).
template <int N, int MaxN = N>
struct ContactDiscreteHessian {
  static constexpr int size = contact_arguments_size(N), max_size = contact_arguments_size(MaxN);
  double value;
  Vecd<size, max_size> gradient;
  Matd<size, size, max_size, max_size> hessian;
};

template <ContactDiscreteLagrangian Ld>
ContactDiscreteHessian<Ld::n, max_n_of<Ld>()> second_derivatives(const Ld& ld, const VecN<Ld>& q0,
                                                                 const VecN<Ld>& q1, double z0) {
  constexpr int N = contact_arguments_size(Ld::n), MaxN = contact_arguments_size(max_n_of<Ld>());
  const int n = coordinate_count(ld), size = 2 * n + 1;
  using Inner = ad::Dual<double, N, MaxN>;
  using Outer = ad::Dual<Inner, N, MaxN>;
  Vecd<N, MaxN> x(size);
  x << q0, q1, z0;
  Vec<Outer, N, MaxN> xd(size);
  for (int i = 0; i < size; ++i) xd[i] = ad::variable<N, MaxN>(ad::variable<N, MaxN>(x[i], i, size), i, size);
  const Outer L = ld(VecN<Ld, Outer>(xd.template head<Ld::n>(n)), VecN<Ld, Outer>(xd.template segment<Ld::n>(n, n)),
                     xd[2 * n]);
  ContactDiscreteHessian<Ld::n, max_n_of<Ld>()> d;
  d.gradient.resize(size);
  d.hessian.resize(size, size);
  d.value = ad::value(ad::value(L));
  for (int j = 0; j < size; ++j) {
    d.gradient[j] = ad::value(ad::derivative(L, j));
    for (int i = 0; i < size; ++i) d.hessian(i, j) = ad::derivative(ad::derivative(L, j), i);
  }
  return d;
}

/// The thesis' rule (§8.3), generalised to an α-point: midpoint in q (α = ½), left end in z,
///   L_d = h L((1−α) q0 + α q1, (q1 − q0)/h, z0).
/// For L = L0 + γz, σ_d = 1 + hγ: the discrete flow damps by 1 + hγ per step instead of e^{γh},
/// which makes it first order in every variable once γ ≠ 0 (our observation, docs/methods.md).
template <ContactModel S>
class ContactAlphaRule {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  ContactAlphaRule(const S& system, double h, double alpha = 0.5) : system_(system), h_(h), alpha_(alpha) {}

  double step_size() const { return h_; }
  int dimension() const { return coordinate_count(system_); }
  const S& system() const { return system_; }

  template <class T>
  T operator()(const VecN<S, T>& q0, const VecN<S, T>& q1, const T& z0) const {
    const VecN<S, T> q = (1.0 - alpha_) * q0 + alpha_ * q1;
    const VecN<S, T> v = (q1 - q0) / h_;
    return h_ * system_.template lagrangian<T>(q, v, z0);
  }

 private:
  S system_;
  double h_, alpha_;
};

/// Trapezoid in q, left end in z: L_d = (h/2) [L(q0, v, z0) + L(q1, v, z0)], v = (q1 − q0)/h.
template <ContactModel S>
class ContactTrapezoidRule {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  ContactTrapezoidRule(const S& system, double h) : system_(system), h_(h) {}

  double step_size() const { return h_; }
  int dimension() const { return coordinate_count(system_); }
  const S& system() const { return system_; }

  template <class T>
  T operator()(const VecN<S, T>& q0, const VecN<S, T>& q1, const T& z0) const {
    const VecN<S, T> v = (q1 - q0) / h_;
    return 0.5 * h_ * (system_.template lagrangian<T>(q0, v, z0) + system_.template lagrangian<T>(q1, v, z0));
  }

 private:
  S system_;
  double h_;
};

/// The exponentially weighted rule for L = L0(q, v) + γ z — ours, not the thesis':
///   L_d = (e^{γh} − 1) z0 + h e^{γh/2} L0((1−α) q0 + α q1, (q1 − q0)/h).
/// z's linear equation ż = L0 + γz is integrated exactly in its z0 part (σ_d = e^{γh}, so momenta of
/// symmetries decay exactly like the continuous ones) and the L0 part by the midpoint rule with
/// the weight e^{γh/2}; observed order 2 in q and z (α = ½).
template <LinearInAction S>
class ExponentialRule {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  ExponentialRule(const S& system, double h, double alpha = 0.5) : system_(system), h_(h), alpha_(alpha) {}

  double step_size() const { return h_; }
  int dimension() const { return coordinate_count(system_); }
  const S& system() const { return system_; }

  template <class T>
  T operator()(const VecN<S, T>& q0, const VecN<S, T>& q1, const T& z0) const {
    const double g = system_.gamma;
    const VecN<S, T> q = (1.0 - alpha_) * q0 + alpha_ * q1;
    const VecN<S, T> v = (q1 - q0) / h_;
    return std::expm1(g * h_) * z0 + h_ * std::exp(0.5 * g * h_) * system_.template base_lagrangian<T>(q, v);
  }

 private:
  S system_;
  double h_, alpha_;
};

}  // namespace dalembert
