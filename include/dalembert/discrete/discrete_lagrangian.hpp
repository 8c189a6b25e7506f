#pragma once
// Discrete Lagrangians L_d(q0, q1) ≈ ∫_0^h L dt and their derivatives.
//
// A discrete Lagrangian is any object with
//   static constexpr int n;  double step_size() const;
//   template <class T> T operator()(const Vec<T,n>& q0, const Vec<T,n>& q1) const;
// Its derivatives come from one evaluation with hyper-dual numbers (an inner dual along q0 and an
// outer dual along q1), which yields exactly what the integrators need and nothing more:
//   D1 = ∂L_d/∂q0,  D2 = ∂L_d/∂q1,  D12(i, j) = ∂²L_d/∂q0_i ∂q1_j  (the Newton Jacobian of D1).
// The α-rule of a compiled model with L = ½ vᵀG(q)v − V(q) has a faster path (see below) that
// differentiates only G and V; slot_derivatives gives D1 and D2 alone, from first-order duals.
#include <algorithm>
#include <array>
#include <concepts>
#include <type_traits>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/model.hpp"

namespace dalembert {

template <int N, int MaxN = N>
struct DiscreteLagrangianDerivatives {
  double value;
  Vecd<N, MaxN> D1;
  Vecd<N, MaxN> D2;
  Matd<N, N, MaxN, MaxN> D12;  ///< ∂D1/∂q1
};

/// The value and slot derivatives alone (first order): what a Newton residual needs.
template <int N, int MaxN = N>
struct DiscreteLagrangianSlotDerivatives {
  double value;
  Vecd<N, MaxN> D1;
  Vecd<N, MaxN> D2;
};

/// The slot derivatives with their common velocity part apart, D1 = −L_v + D1_rest and
/// D2 = L_v + D2_rest, where the rests (h(1−α) L_q and hα L_q for the α-rule of a mechanical L) are
/// of size h|L_q| ≪ |L_v|: a step can then sum its momenta without rounding the rests to the last bit
/// of L_v, which drops the same part of a constant force at every step (solve/below_last_bit.hpp).
template <int N, int MaxN = N>
struct SplitSlotDerivatives : DiscreteLagrangianSlotDerivatives<N, MaxN> {
  Vecd<N, MaxN> Lv, D1_rest, D2_rest;
};

/// The same with D12 (the full derivatives of differentiate()).
template <int N, int MaxN = N>
struct SplitDerivatives : DiscreteLagrangianDerivatives<N, MaxN> {
  Vecd<N, MaxN> Lv, D1_rest, D2_rest;
};

/// The derivatives of a discrete Lagrangian (or of any object with n and max_n) Ld.
template <class Ld>
using DerivativesOf = DiscreteLagrangianDerivatives<Ld::n, max_n_of<Ld>()>;
template <class Ld>
using SlotDerivativesOf = DiscreteLagrangianSlotDerivatives<Ld::n, max_n_of<Ld>()>;

/// A discrete Lagrangian has n (Eigen::Dynamic with dimension() at run time, as a model), a step
/// size and a value generic in its scalar type.
template <class Ld>
concept DiscreteLagrangian = requires(const Ld& ld, const VecN<Ld>& q) {
  { Ld::n } -> std::convertible_to<int>;
  { coordinate_count(ld) } -> std::convertible_to<int>;
  { ld.step_size() } -> std::convertible_to<double>;
  { ld(q, q) } -> std::convertible_to<double>;
};

namespace detail {
/// Value, both slot derivatives and the mixed second derivative of a discrete Lagrangian of unbounded
/// run-time size: a chunk of directions of q0 (inside) and of q1 (outside) at a time at the fixed
/// width sizes::chunk_width, one hyper-dual evaluation per pair of chunks.
template <DiscreteLagrangian Ld>
DerivativesOf<Ld> chunked_hyper_dual_derivatives(const Ld& ld, const VecN<Ld>& q0, const VecN<Ld>& q1) {
  constexpr int W = sizes::chunk_width;
  using AlongQ0 = ad::Dual<double, W>;
  using AlongQ1 = ad::Dual<AlongQ0, W>;
  const int n = coordinate_count(ld);
  DerivativesOf<Ld> d;
  d.D1.resize(n);
  d.D2.resize(n);
  d.D12.resize(n, n);
  VecN<Ld, AlongQ1> x0(n), x1(n);
  for (int a = 0; a < n; a += W) {
    for (int b = 0; b < n; b += W) {
      for (int i = 0; i < n; ++i) {
        x0[i] = ad::constant<W>(ad::seeded<W>(q0[i], i, a));
        x1[i] = ad::seeded<W>(ad::constant<W>(q1[i]), i, b);
      }
      const AlongQ1 L = ld(x0, x1);
      const int rows = std::min(W, n - a), columns = std::min(W, n - b);
      d.value = ad::value(ad::value(L));
      if (b == 0)
        for (int i = 0; i < rows; ++i) d.D1[a + i] = ad::derivative(ad::value(L), i);
      for (int j = 0; j < columns; ++j) {
        const AlongQ0& dj = ad::derivative(L, j);
        if (a == 0) d.D2[b + j] = ad::value(dj);
        for (int i = 0; i < rows; ++i) d.D12(a + i, b + j) = ad::derivative(dj, i);
      }
    }
  }
  return d;
}

/// Value, both slot derivatives and the mixed second derivative of any discrete Lagrangian, from
/// one hyper-dual evaluation (by chunks of directions for an unbounded width).
template <DiscreteLagrangian Ld>
DerivativesOf<Ld> hyper_dual_derivatives(const Ld& ld, const VecN<Ld>& q0, const VecN<Ld>& q1) {
  constexpr int N = Ld::n, MaxN = max_n_of<Ld>();
  if constexpr (ad::chunked_width<N, MaxN>) {
    return chunked_hyper_dual_derivatives(ld, q0, q1);
  } else {
    const int n = coordinate_count(ld);
    return ad::at_width<N, MaxN>(n, [&]<int W, int MaxW>() DALEMBERT_INLINE {
      using AlongQ0 = ad::Dual<double, W, MaxW>;
      using AlongQ1 = ad::Dual<AlongQ0, W, MaxW>;
      VecN<Ld, AlongQ1> x0(n), x1(n);
      for (int i = 0; i < n; ++i) {
        x0[i] = ad::constant<W, MaxW>(ad::variable<W, MaxW>(q0[i], i, n), n);
        x1[i] = ad::variable<W, MaxW>(ad::constant<W, MaxW>(q1[i], n), i, n);
      }
      const AlongQ1 L = ld(x0, x1);
      DerivativesOf<Ld> d;
      d.D1.resize(n);
      d.D2.resize(n);
      d.D12.resize(n, n);
      d.value = ad::value(ad::value(L));
      for (int i = 0; i < n; ++i) d.D1[i] = ad::derivative(ad::value(L), i);
      for (int j = 0; j < n; ++j) {
        const AlongQ0& dj = ad::derivative(L, j);
        d.D2[j] = ad::value(dj);
        for (int i = 0; i < n; ++i) d.D12(i, j) = ad::derivative(dj, i);
      }
      return d;
    });
  }
}
}  // namespace detail

/// Value, both slot derivatives and the mixed second derivative of any discrete Lagrangian.
/// Flattened: inlining the whole evaluation lets the compiler drop the structurally zero parts of
/// the hyper-dual arithmetic (docs/decisions.md, Automatic differentiation).
template <DiscreteLagrangian Ld>
[[gnu::flatten]] DerivativesOf<Ld> differentiate(const Ld& ld, const VecN<Ld>& q0, const VecN<Ld>& q1) {
  return detail::hyper_dual_derivatives(ld, q0, q1);
}

/// Value, D1 and D2 of any discrete Lagrangian from one evaluation with first-order duals along
/// (q0, q1), without the mixed second derivative.
template <DiscreteLagrangian Ld>
[[gnu::flatten]] SlotDerivativesOf<Ld> slot_derivatives(const Ld& ld, const VecN<Ld>& q0, const VecN<Ld>& q1) {
  constexpr int N2 = multiple_of_size(2, Ld::n), MaxN2 = multiple_of_size(2, max_n_of<Ld>());
  const int n = coordinate_count(ld);
  return ad::at_width<N2, MaxN2>(2 * n, [&]<int W, int MaxW>() DALEMBERT_INLINE {
    using Dual = ad::Dual<double, W, MaxW>;
    VecN<Ld, Dual> x0(n), x1(n);
    for (int i = 0; i < n; ++i) {
      x0[i] = ad::variable<W, MaxW>(q0[i], i, 2 * n);
      x1[i] = ad::variable<W, MaxW>(q1[i], n + i, 2 * n);
    }
    const Dual L = ld(x0, x1);
    SlotDerivativesOf<Ld> d;
    d.D1.resize(n);
    d.D2.resize(n);
    d.value = ad::value(L);
    for (int i = 0; i < n; ++i) {
      d.D1[i] = ad::derivative(L, i);
      d.D2[i] = ad::derivative(L, n + i);
    }
    return d;
  });
}

/// The α-rule L_d = h L((1−α) q0 + α q1, (q1 − q0)/h); α = ½ is the midpoint rule (order 2),
/// α = 0 the left-rectangle rule of thesis Ex. 3.7.2 (Störmer–Verlet positions).
template <Model S>
class AlphaRule {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  AlphaRule(const S& system, double h, double alpha = 0.5) : system_(system), h_(h), alpha_(alpha) {}

  double step_size() const { return h_; }
  double alpha() const { return alpha_; }
  const S& system() const { return system_; }
  int dimension() const { return coordinate_count(system_); }

  template <class T>
  T operator()(const VecN<S, T>& q0, const VecN<S, T>& q1) const {
    const VecN<S, T> q = (1.0 - alpha_) * q0 + alpha_ * q1;
    const VecN<S, T> v = (q1 - q0) / h_;
    return h_ * system_.template lagrangian<T>(q, v);
  }

 private:
  S system_;
  double h_, alpha_;
};

namespace detail {
/// Numbers that carry derivatives along the K non-cyclic coordinates of a model (order 1 or 2),
/// or plain doubles when every coordinate is cyclic.
template <int K>
using FirstOrderAlong = std::conditional_t<K == 0, double, ad::Dual<double, K>>;
template <int K>
using SecondOrderAlong = std::conditional_t<K == 0, double, ad::Dual<ad::Dual<double, K>, K>>;

/// q as numbers seeded along the model's non-cyclic coordinates (twice for second order); its
/// cyclic coordinates are constants, since G and V do not depend on them.
template <class Number, std::size_t K, int N>
Vec<Number, N> seeded_along(const std::array<int, K>& noncyclic, const Vecd<N>& q) {
  Vec<Number, N> x;
  if constexpr (K == 0) {
    x = q;
  } else if constexpr (std::is_same_v<Number, ad::Dual<double, K>>) {
    for (int i = 0; i < N; ++i) x[i] = ad::constant<K>(q[i]);
    for (std::size_t a = 0; a < K; ++a) x[noncyclic[a]] = ad::variable<K>(q[noncyclic[a]], a);
  } else {
    for (int i = 0; i < N; ++i) x[i] = ad::constant<K>(ad::constant<K>(q[i]));
    for (std::size_t a = 0; a < K; ++a) {
      x[noncyclic[a]] = ad::variable<K>(ad::variable<K>(q[noncyclic[a]], a), a);
    }
  }
  return x;
}

/// The α-rule of L = ½ vᵀG(q)v − V(q), differentiated through its structure. With
/// q̄ = (1−α) q0 + α q1, v = (q1 − q0)/h and L_d = h L(q̄, v):
///   D1 = h(1−α) L_q − L_v,   D2 = hα L_q + L_v,
///   D12 = hα(1−α) L_qq + (1−α) C − α Cᵀ − G/h,   C(i, j) = ∂²L/∂q_i∂v_j = ∂_i (G v)_j,
/// with L_v = G v and L_vv = G. Only φ(q) = ½ vᵀG(q)v − V(q) at the fixed v needs hyper-dual
/// numbers (its Hessian gives L_q, L_qq and, through G v, C), and only along the coordinates G and
/// V depend on (noncyclic_coordinates, model/model.hpp): at a cyclic coordinate the entries of
/// L_q, the row and column of L_qq and the row of C are zero. Of a constant metric (returned with
/// double entries) only V is differentiated. The generic path carries q̄ and v as hyper-duals through the whole
/// quadratic form instead.
template <HasMetric S>
SplitDerivatives<S::n> mechanical_alpha_rule_derivatives(const S& sys, double h, double alpha,
                                                                      const Vecd<S::n>& q0,
                                                                      const Vecd<S::n>& q1) {
  constexpr int n = S::n;
  constexpr auto noncyclic = noncyclic_coordinates<S>();
  constexpr int k = static_cast<int>(noncyclic.size());
  using HyperDual = SecondOrderAlong<k>;
  const Vecd<n> q = (1.0 - alpha) * q0 + alpha * q1;
  const Vecd<n> v = (q1 - q0) / h;
  // q̄ + ε1 e_a + ε2 e_a along each non-cyclic coordinate: value, gradient and Hessian at once
  const Vec<HyperDual, n> x = seeded_along<HyperDual>(noncyclic, q);

  const double a = alpha, b = 1.0 - alpha;
  const auto G = sys.template metric<HyperDual>(x);
  HyperDual phi = -sys.template potential<HyperDual>(x);
  Vecd<n> Lv;
  double kinetic_outside_phi = 0.0;
  Matd<n, n> D12;  // −G/h first, then (1−α) C − α Cᵀ and hα(1−α) L_qq in the non-cyclic entries
  if constexpr (std::is_same_v<typename std::decay_t<decltype(G)>::Scalar, double>) {
    Lv = G * v;
    kinetic_outside_phi = 0.5 * v.dot(Lv);
    if constexpr (requires { typename std::decay_t<decltype(G)>::DiagonalVectorType; }) {
      // Column by column, not as a dense copy of the diagonal: entries patched into a zeroed
      // matrix stall the next packet load of it (store forwarding).
      const Vecd<n> diagonal = G.diagonal() / h;
      for (int j = 0; j < n; ++j) D12.col(j) = Vecd<n>::Unit(j) * (-diagonal[j]);
    } else {
      D12 = -(Matd<n, n>(G) / h);
    }
  } else {
    const Vec<HyperDual, n> Gv = G * v;
    for (int j = 0; j < n; ++j) {
      phi += 0.5 * v[j] * Gv[j];
      Lv[j] = ad::plain(Gv[j]);
      for (int i = 0; i < n; ++i) D12(i, j) = -ad::plain(G(i, j)) / h;
    }
    if constexpr (k > 0) {
      for (int j = 0; j < n; ++j) {
        for (int c = 0; c < k; ++c) {
          const double C = ad::derivative(ad::value(Gv[j]), c);  // C(noncyclic[c], j)
          D12(noncyclic[c], j) += b * C;
          D12(j, noncyclic[c]) -= a * C;
        }
      }
    }
  }
  Vecd<n> Lq = Vecd<n>::Zero();
  if constexpr (k > 0) {
    for (int c2 = 0; c2 < k; ++c2) {
      Lq[noncyclic[c2]] = ad::derivative(ad::value(phi), c2);
      for (int c1 = 0; c1 < k; ++c1) {
        D12(noncyclic[c1], noncyclic[c2]) += (h * a * b) * ad::derivative(ad::derivative(phi, c2), c1);
      }
    }
  }
  SplitDerivatives<n> d;
  d.value = h * (ad::plain(phi) + kinetic_outside_phi);
  d.Lv = Lv;
  d.D1_rest = h * b * Lq;
  d.D2_rest = h * a * Lq;
  d.D1 = d.D1_rest - Lv;
  d.D2 = d.D2_rest + Lv;
  d.D12 = D12;
  return d;
}

/// The first-order part of the above: D1 and D2 from the gradient of φ (first-order duals along
/// the non-cyclic coordinates) and L_v = G v.
template <HasMetric S>
SplitSlotDerivatives<S::n> mechanical_alpha_rule_slot_derivatives(const S& sys, double h, double alpha,
                                                                                const Vecd<S::n>& q0,
                                                                                const Vecd<S::n>& q1) {
  constexpr int n = S::n;
  constexpr auto noncyclic = noncyclic_coordinates<S>();
  constexpr int k = static_cast<int>(noncyclic.size());
  using Dual = FirstOrderAlong<k>;
  const Vecd<n> q = (1.0 - alpha) * q0 + alpha * q1;
  const Vecd<n> v = (q1 - q0) / h;
  const Vec<Dual, n> x = seeded_along<Dual>(noncyclic, q);

  const auto G = sys.template metric<Dual>(x);
  Dual phi = -sys.template potential<Dual>(x);
  Vecd<n> Lv;
  double kinetic_outside_phi = 0.0;
  if constexpr (std::is_same_v<typename std::decay_t<decltype(G)>::Scalar, double>) {
    Lv = G * v;  // not through a dense copy of a diagonal G (a store-forwarding stall)
    kinetic_outside_phi = 0.5 * v.dot(Lv);
  } else {
    const Vec<Dual, n> Gv = G * v;
    for (int j = 0; j < n; ++j) {
      phi += 0.5 * v[j] * Gv[j];
      Lv[j] = ad::plain(Gv[j]);
    }
  }
  Vecd<n> Lq = Vecd<n>::Zero();
  if constexpr (k > 0) {
    for (int a = 0; a < k; ++a) Lq[noncyclic[a]] = ad::derivative(phi, a);
  }
  SplitSlotDerivatives<n> d;
  d.value = h * (ad::plain(phi) + kinetic_outside_phi);
  d.Lv = Lv;
  d.D1_rest = h * (1.0 - alpha) * Lq;
  d.D2_rest = h * alpha * Lq;
  d.D1 = d.D1_rest - Lv;
  d.D2 = d.D2_rest + Lv;
  return d;
}

/// The same two for a compiled model of run-time size with a metric: φ is differentiated along
/// every coordinate (no coordinate is declared cyclic at run time), with duals of the fixed width
/// ad::at_width chooses for n.
template <HasMetric S>
DerivativesOf<AlphaRule<S>> mechanical_alpha_rule_derivatives_at_run_time(const S& sys, double h, double alpha,
                                                                          const VecN<S>& q0, const VecN<S>& q1) {
  const int n = coordinate_count(sys);
  const double a = alpha, b = 1.0 - alpha;
  const VecN<S> q = b * q0 + a * q1;
  const VecN<S> v = (q1 - q0) / h;
  return ad::at_width<S::n, max_n_of<S>()>(n, [&]<int W, int MaxW>() DALEMBERT_INLINE {
    using HyperDual = ad::Dual<ad::Dual<double, W, MaxW>, W, MaxW>;
    VecN<S, HyperDual> x(n);
    for (int i = 0; i < n; ++i) x[i] = ad::variable<W, MaxW>(ad::variable<W, MaxW>(q[i], i, n), i, n);
    const auto G = sys.template metric<HyperDual>(x);
    HyperDual phi = -sys.template potential<HyperDual>(x);
    VecN<S> Lv(n);
    double kinetic_outside_phi = 0.0;
    MatNN<S> D12(n, n);  // −G/h, then (1−α) C − α Cᵀ and hα(1−α) L_qq
    if constexpr (std::is_same_v<typename std::decay_t<decltype(G)>::Scalar, double>) {
      Lv = coefficient_product(G, v);
      kinetic_outside_phi = 0.5 * v.dot(Lv);
      D12 = -(MatNN<S>(G) / h);
    } else {
      const VecN<S, HyperDual> Gv = coefficient_product(G, v);
      for (int j = 0; j < n; ++j) {
        phi += 0.5 * v[j] * Gv[j];
        Lv[j] = ad::plain(Gv[j]);
        for (int i = 0; i < n; ++i) D12(i, j) = -ad::plain(G(i, j)) / h;
      }
      for (int j = 0; j < n; ++j) {
        for (int c = 0; c < n; ++c) {
          const double C = ad::derivative(ad::value(Gv[j]), c);  // C(c, j)
          D12(c, j) += b * C;
          D12(j, c) -= a * C;
        }
      }
    }
    VecN<S> Lq(n);
    for (int c2 = 0; c2 < n; ++c2) {
      Lq[c2] = ad::derivative(ad::value(phi), c2);
      for (int c1 = 0; c1 < n; ++c1) D12(c1, c2) += (h * a * b) * ad::derivative(ad::derivative(phi, c2), c1);
    }
    DerivativesOf<AlphaRule<S>> d;
    d.value = h * (ad::plain(phi) + kinetic_outside_phi);
    d.D1 = h * b * Lq - Lv;
    d.D2 = h * a * Lq + Lv;
    d.D12 = D12;
    return d;
  });
}

template <HasMetric S>
SlotDerivativesOf<AlphaRule<S>> mechanical_alpha_rule_slot_derivatives_at_run_time(const S& sys, double h, double alpha,
                                                                                   const VecN<S>& q0,
                                                                                   const VecN<S>& q1) {
  const int n = coordinate_count(sys);
  const VecN<S> q = (1.0 - alpha) * q0 + alpha * q1;
  const VecN<S> v = (q1 - q0) / h;
  return ad::at_width<S::n, max_n_of<S>()>(n, [&]<int W, int MaxW>() DALEMBERT_INLINE {
    using Dual = ad::Dual<double, W, MaxW>;
    VecN<S, Dual> x(n);
    for (int i = 0; i < n; ++i) x[i] = ad::variable<W, MaxW>(q[i], i, n);
    const auto G = sys.template metric<Dual>(x);
    Dual phi = -sys.template potential<Dual>(x);
    VecN<S> Lv(n);
    double kinetic_outside_phi = 0.0;
    if constexpr (std::is_same_v<typename std::decay_t<decltype(G)>::Scalar, double>) {
      Lv = coefficient_product(G, v);
      kinetic_outside_phi = 0.5 * v.dot(Lv);
    } else {
      const VecN<S, Dual> Gv = coefficient_product(G, v);
      for (int j = 0; j < n; ++j) {
        phi += 0.5 * v[j] * Gv[j];
        Lv[j] = ad::plain(Gv[j]);
      }
    }
    VecN<S> Lq(n);
    for (int c = 0; c < n; ++c) Lq[c] = ad::derivative(phi, c);
    SlotDerivativesOf<AlphaRule<S>> d;
    d.value = h * (ad::plain(phi) + kinetic_outside_phi);
    d.D1 = h * (1.0 - alpha) * Lq - Lv;
    d.D2 = h * alpha * Lq + Lv;
    return d;
  });
}
}  // namespace detail

/// The α-rule of a compiled model of fixed size with a metric takes the structured path (it
/// differentiates along the declared non-cyclic coordinates). Model files do not:
/// their generated kernels already give the Taylor coefficients of the whole L, from which
/// src/modelfile/file_model.hpp assembles the same derivatives, while G and V separately cost two
/// kernel calls, more than the structured path saves (docs/decisions.md, Model files: compiled
/// Taylor coefficients).
template <HasMetric S>
  requires(!MechanicalAtRunTime<S> && !sized_at_run_time<S>)
[[gnu::flatten]] SplitDerivatives<S::n> differentiate(const AlphaRule<S>& ld, const Vecd<S::n>& q0,
                                                      const Vecd<S::n>& q1) {
  return detail::mechanical_alpha_rule_derivatives(ld.system(), ld.step_size(), ld.alpha(), q0, q1);
}

template <HasMetric S>
  requires(!MechanicalAtRunTime<S> && !sized_at_run_time<S>)
[[gnu::flatten]] SplitSlotDerivatives<S::n> slot_derivatives(const AlphaRule<S>& ld,
                                                                          const Vecd<S::n>& q0,
                                                                          const Vecd<S::n>& q1) {
  return detail::mechanical_alpha_rule_slot_derivatives(ld.system(), ld.step_size(), ld.alpha(), q0, q1);
}

/// A compiled model of run-time size with a metric takes the structured path along every
/// coordinate (model files, which know at run time whether they are mechanical, have their own).
template <HasMetric S>
  requires(!MechanicalAtRunTime<S> && sized_at_run_time<S>)
[[gnu::flatten]] DerivativesOf<AlphaRule<S>> differentiate(const AlphaRule<S>& ld, const VecN<S>& q0,
                                                           const VecN<S>& q1) {
  return detail::mechanical_alpha_rule_derivatives_at_run_time(ld.system(), ld.step_size(), ld.alpha(), q0, q1);
}

template <HasMetric S>
  requires(!MechanicalAtRunTime<S> && sized_at_run_time<S>)
[[gnu::flatten]] SlotDerivativesOf<AlphaRule<S>> slot_derivatives(const AlphaRule<S>& ld, const VecN<S>& q0,
                                                                  const VecN<S>& q1) {
  return detail::mechanical_alpha_rule_slot_derivatives_at_run_time(ld.system(), ld.step_size(), ld.alpha(), q0, q1);
}

/// A model that differentiates its α-rule itself: alpha_rule_derivatives(q0, q1, h, α, d) fills d with
/// L_d's value, D1, D2 and D12. A model file does, from the Taylor coefficients of its compiled
/// kernels in one call and no dual arithmetic (src/modelfile/file_model.hpp; docs/decisions.md,
/// Model files: compiled Taylor coefficients); the tests hold it equal to the generic path.
template <class S>
concept DifferentiatesItsAlphaRule = requires(const S& s, const VecN<S>& q, DerivativesOf<S>& d) {
  s.alpha_rule_derivatives(q, q, 1.0, 0.5, d);
};

template <DifferentiatesItsAlphaRule S>
DerivativesOf<AlphaRule<S>> differentiate(const AlphaRule<S>& ld, const VecN<S>& q0, const VecN<S>& q1) {
  DerivativesOf<AlphaRule<S>> d;
  ld.system().alpha_rule_derivatives(q0, q1, ld.step_size(), ld.alpha(), d);
  return d;
}

/// The trapezoidal rule L_d = (h/2) [L(q0, v) + L(q1, v)], v = (q1 − q0)/h (order 2).
template <Model S>
class TrapezoidRule {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  TrapezoidRule(const S& system, double h) : system_(system), h_(h) {}

  double step_size() const { return h_; }
  const S& system() const { return system_; }
  int dimension() const { return coordinate_count(system_); }

  template <class T>
  T operator()(const VecN<S, T>& q0, const VecN<S, T>& q1) const {
    const VecN<S, T> v = (q1 - q0) / h_;
    return 0.5 * h_ * (system_.template lagrangian<T>(q0, v) + system_.template lagrangian<T>(q1, v));
  }

 private:
  S system_;
  double h_;
};

namespace detail {
/// The mean of two sets of derivatives of discrete Lagrangians.
template <class Derivatives>
Derivatives mean_of(Derivatives a, const Derivatives& b) {
  a.value = 0.5 * (a.value + b.value);
  a.D1 = 0.5 * (a.D1 + b.D1);
  a.D2 = 0.5 * (a.D2 + b.D2);
  if constexpr (requires { a.D12; }) a.D12 = 0.5 * (a.D12 + b.D12);
  if constexpr (requires { a.Lv; }) {
    a.Lv = 0.5 * (a.Lv + b.Lv);
    a.D1_rest = 0.5 * (a.D1_rest + b.D1_rest);
    a.D2_rest = 0.5 * (a.D2_rest + b.D2_rest);
  }
  return a;
}

/// The derivatives of a trapezoidal rule as the mean of those of its two end rules, the α-rules with
/// α = 0 and α = 1 (h L(q0, v) and h L(q1, v)); derivatives_of(rule) takes either's derivatives.
template <class S, class DerivativesOf>
auto mean_over_end_rules(const TrapezoidRule<S>& ld, DerivativesOf&& derivatives_of) {
  const AlphaRule<S> at_q0(ld.system(), ld.step_size(), 0.0), at_q1(ld.system(), ld.step_size(), 1.0);
  return mean_of(derivatives_of(at_q0), derivatives_of(at_q1));
}
}  // namespace detail

/// The trapezoidal rule of a model with a metric through its structure: (h/2)[L(q0, v) + L(q1, v)]
/// is the mean of the α-rules with α = 0 and α = 1, h L(q0, v) and h L(q1, v), each differentiated
/// as above (compiled models only, as for the α-rule).
template <HasMetric S>
  requires(!MechanicalAtRunTime<S>)
[[gnu::flatten]] DerivativesOf<TrapezoidRule<S>> differentiate(const TrapezoidRule<S>& ld, const VecN<S>& q0,
                                                               const VecN<S>& q1) {
  return detail::mean_over_end_rules(ld, [&](const AlphaRule<S>& rule) { return differentiate(rule, q0, q1); });
}

template <HasMetric S>
  requires(!MechanicalAtRunTime<S>)
[[gnu::flatten]] SlotDerivativesOf<TrapezoidRule<S>> slot_derivatives(const TrapezoidRule<S>& ld, const VecN<S>& q0,
                                                                      const VecN<S>& q1) {
  return detail::mean_over_end_rules(ld, [&](const AlphaRule<S>& rule) { return slot_derivatives(rule, q0, q1); });
}

/// The trapezoidal rule of a model that differentiates its α-rule itself: the mean of its α-rules
/// with α = 0 and α = 1 (for a model file, two kernel calls).
template <DifferentiatesItsAlphaRule S>
DerivativesOf<TrapezoidRule<S>> differentiate(const TrapezoidRule<S>& ld, const VecN<S>& q0, const VecN<S>& q1) {
  return detail::mean_over_end_rules(ld, [&](const AlphaRule<S>& rule) { return differentiate(rule, q0, q1); });
}

/// A user-supplied discrete Lagrangian: any callable generic in its scalar type,
///   [](const auto& q0, const auto& q1) { ... return L_d; }
template <int N, class F>
class UserDiscreteLagrangian {
 public:
  static constexpr int n = N;
  UserDiscreteLagrangian(double h, F f) : h_(h), f_(std::move(f)) {}

  double step_size() const { return h_; }

  template <class T>
  T operator()(const Vec<T, n>& q0, const Vec<T, n>& q1) const {
    return f_(q0, q1);
  }

 private:
  double h_;
  F f_;
};

template <int N, class F>
UserDiscreteLagrangian<N, F> make_discrete_lagrangian(double h, F f) {
  return UserDiscreteLagrangian<N, F>(h, std::move(f));
}

}  // namespace dalembert
