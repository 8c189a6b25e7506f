#pragma once
// Exact discrete nonholonomic objects at step h, by shooting ([ASMM22] §3–5,
// [AS21] ch. 4 and 7). Everything is built on the multiplier-extended dynamics (see
// model/dynamics.hpp), the SODE extension for which M(q)q̇ is a first integral, so that on D it is the
// nonholonomic flow and off D it is still a well-defined SODE whose two-point problem is square:
//   exp_h(v0) = q(h)                       nonholonomic exponential map for v0 ∈ D_{q0}
//   R^{e−}(q0, q1) = q̇(0), R^{e+} = q̇(h)   exact retractions: the arc with q(0) = q0, q(h) = q1
//   ω_e(q0, q1) = M(q0) R^{e−}(q0, q1)     exact discrete constraint: zero iff (q0, q1) ∈ M^{e,nh}_h
//   L^e(q0, q1) = ∫_0^h L dt,  F^{e,+} = U(h)^{-T} ∫Uᵀ F̃ dt,  F^{e,−} = ∫Yᵀ F̃ dt − Y(h)ᵀ F^{e,+}
// and the derivatives from the closed identities ([ASMM22] Lemma 4.4 / [AS21] Lemmas 3.7.12, 3.7.15):
//   D2 L^e + F^{e,+} = ∂L/∂v(q1, R^{e+}),   −D1 L^e − F^{e,−} = ∂L/∂v(q0, R^{e−}),
//   ∂R^{e−}/∂q1 = U(h)⁻¹,  ∂R^{e−}/∂q0 = −U(h)⁻¹Y(h),  ∂ω_e/∂q1 = M(q0) U(h)⁻¹.
// Off M^{e,nh} the Lagrangian and forces depend on the extension of F_nh; on M^{e,nh} they do not
// ([ASMM22] Lemma 4.4, Prop. 6.3; [AS21] Thm 7.3.1), and neither does anything the integrators use there.
// A model of the time (a force or Lagrangian of t, affine constraints M(q) v + b(q, t) = 0) has these
// objects at each start time t0: the arcs start at t0, and ω_e = M(q0) R^{e−} + b(q0, t0). The
// functions without t0 are at t0 = 0.
#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/discrete/shooting.hpp"

namespace dalembert {

template <int N, int MaxN = N>
struct ExactDiscreteObjects {
  double lagrangian = 0.0;         ///< L^e(q0, q1) = ∫_0^h L dt along the arc
  Vecd<N, MaxN> force_minus;       ///< F^{e,−}(q0, q1) ∈ T*_{q0}Q
  Vecd<N, MaxN> force_plus;        ///< F^{e,+}(q0, q1) ∈ T*_{q1}Q
  Vecd<N, MaxN> D1;                ///< ∂L^e/∂q0, from the identity above
  Vecd<N, MaxN> D2;                ///< ∂L^e/∂q1
  Vecd<N, MaxN> retraction_minus;  ///< R^{e−}(q0, q1) = q̇(0)
  Vecd<N, MaxN> retraction_plus;   ///< R^{e+}(q0, q1) = q̇(h)
};

template <int N, int MaxN = N>
struct Completion {
  Vecd<N, MaxN> q1;  ///< the completed end point, (q0, q1) ∈ M^{e,nh}_h
  Vecd<N, MaxN> v0;  ///< its initial velocity R^{e−}(q0, q1) ∈ D_{q0}
};

template <Model S>
class ExactNonholonomic {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  static constexpr int m = S::m, max_m = max_m_of<S>();
  static constexpr int k = k_of<S>;
  /// The k indices of the independent coordinates of q1 that complete() keeps.
  using Indices = std::conditional_t<k == Dynamic, std::vector<int>, std::array<int, (k == Dynamic ? 0 : k)>>;

  ExactNonholonomic(const S& system, double h, ShootingOptions options = {}) : flow_(system, options), h_(h) {}

  double step_size() const { return h_; }
  const S& system() const { return flow_.system(); }
  int dimension() const { return coordinate_count(system()); }
  const ExtendedFlow<S>& extended_flow() const { return flow_; }

  /// The nonholonomic exponential map exp_h(v0) = q(h) for v0 ∈ D_{q0} (the extension's for v0 ∉ D).
  VecN<S> exponential(const VecN<S>& q0, const VecN<S>& v0, double t0 = 0.0) const {
    return flow_.flow(q0, v0, h_, t0).q1;
  }

  /// exp_h in the coordinates u of D_{q0} on the frame E(q0): exp_h(E(q0) u).
  VecN<S> exponential_in_frame(const VecN<S>& q0, const VecK<S>& u) const {
    return exponential(q0, VecN<S>(constraint_frame(system(), q0) * u));
  }

  /// Its differential with respect to u: U(h) E(q0), of rank k below the first conjugate point.
  MatNK<S> exponential_differential(const VecN<S>& q0, const VecK<S>& u) const {
    const MatNK<S> E = constraint_frame(system(), q0);
    return flow_.template integrate<Variations::velocity>(q0, VecN<S>(E * u), h_).U * E;
  }

  /// The arc from q0 to q1: its v0 is R^{e−}(q0, q1), its v1 is R^{e+}(q0, q1).
  template <Variations V = Variations::velocity>
  ArcOf<S> arc(const VecN<S>& q0, const VecN<S>& q1) const { return flow_.template shoot<V>(q0, q1, h_); }
  template <Variations V = Variations::velocity>
  ArcOf<S> arc(const VecN<S>& q0, const VecN<S>& q1, const VecN<S>& guess, double t0 = 0.0) const {
    return flow_.template shoot<V>(q0, q1, h_, guess, t0);
  }
  template <Variations V = Variations::velocity>
  ArcOf<S> arc_at(const VecN<S>& q0, const VecN<S>& q1, double t0) const {
    return arc<V>(q0, q1, VecN<S>((q1 - q0) / h_), t0);
  }

  VecN<S> retraction_minus(const VecN<S>& q0, const VecN<S>& q1) const { return arc(q0, q1).v0; }
  VecN<S> retraction_plus(const VecN<S>& q0, const VecN<S>& q1) const { return arc(q0, q1).v1; }

  /// The exact discrete constraint ω_e(q0, q1) = M(q0) R^{e−}(q0, q1) + b(q0, t0) (velocity units,
  /// like the midpoint ω = M(q_mid)(q1 − q0)/h); it also equals M(q1) R^{e+} + b(q1, t0 + h) since
  /// M q̇ + b is a first integral.
  VecM<S> constraint(const VecN<S>& q0, const VecN<S>& q1, double t0 = 0.0) const {
    return constraint(arc_at(q0, q1, t0), t0);
  }
  VecM<S> constraint(const ArcOf<S>& a, double t0) const {
    VecM<S> omega = system().template constraint_matrix<double>(a.q0) * a.v0;
    add_constraint_offset(system(), a.q0, t0, omega);
    return omega;
  }

  /// Completes q1 from its coordinates `independent` (the rest of q1 is ignored) so that
  /// (q0, q1) ∈ M^{e,nh}_h: Newton in u ∈ R^k on the selected rows of exp_h(E(q0)u) (for initial
  /// data given as in [ASMM22] §5.4), e.g. z1 of the particle from (x1, y1), y1 of the knife edge from (x1, φ1).
  Completion<n, max_n> complete(const VecN<S>& q0, const VecN<S>& q1, const Indices& independent) const {
    using MatKN = Matd<k, n, max_n, max_n>;
    const MatNK<S> E = constraint_frame(system(), q0);
    const int dn = coordinate_count(system()), dk = static_cast<int>(E.cols());
    if constexpr (k == Dynamic) {
      if (static_cast<int>(independent.size()) != dk)
        throw std::invalid_argument("complete: expected " + std::to_string(dk) + " independent coordinates, got " +
                                    std::to_string(independent.size()));
    }
    MatKN P = MatKN::Zero(dk, dn);
    for (int i = 0; i < dk; ++i) P(i, independent[i]) = 1.0;
    const VecK<S> target = P * q1;
    const MatKK<S> PE = P * E;
    VecK<S> u = PE.partialPivLu().solve(VecK<S>((target - P * q0) / h_));  // first guess: a straight line
    // Newton (solve/newton.hpp) to |P q(h) − target| ≤ tol (1 + |target|), undamped; its last
    // evaluation is at the solution, whose arc is kept.
    ArcOf<S> a;
    const auto equations = [&](const VecK<S>& x, VecK<S>& F, MatKK<S>& J) {
      a = flow_.template integrate<Variations::velocity>(q0, VecN<S>(E * x), h_);
      F = P * a.q1 - target;
      J = P * a.U * E;
    };
    NewtonOptions options;
    options.tolerance = flow_.options().tolerance;
    options.max_iterations = flow_.options().max_iterations;
    options.damped = false;
    const NewtonReport r =
        newton_solve<k, max_n>(equations, u, 1.0 + target.template lpNorm<Eigen::Infinity>(), options);
    if (r.converged) return {a.q1, a.v0};
    throw detail::shooting_error(
        "completion of q1 on the exact discrete constraint did not converge (" + r.reason + ")", r.residual_norm,
        r.iterations);
  }

  /// The exact discrete Lagrangian and forces of (L, F̃_nh) at (q0, q1), with D1, D2 from the identities.
  ExactDiscreteObjects<n, max_n> objects(const VecN<S>& q0, const VecN<S>& q1, double t0 = 0.0) const {
    const ArcOf<S> a = arc_at<Variations::full>(q0, q1, t0);
    const Eigen::PartialPivLU<MatNN<S>> Ut(MatNN<S>(a.U.transpose()));
    ExactDiscreteObjects<n, max_n> o;
    o.lagrangian = a.action;
    o.force_plus = Ut.solve(a.force_U);
    o.force_minus = a.force_Y - a.Y.transpose() * o.force_plus;
    o.retraction_minus = a.v0;
    o.retraction_plus = a.v1;
    o.D2 = momentum(system(), q1, a.v1) - o.force_plus;
    o.D1 = -momentum(system(), q0, a.v0) - o.force_minus;
    return o;
  }

  /// The forced discrete Legendre maps of (L^e, F^{e,±}) for MLA: by the identities above they are
  /// FL∘R^{e−} and FL∘R^{e+}, with ∂(FL∘R^{e−})/∂q1 = W(q0, R^{e−}) U(h)⁻¹; no Y or integrals needed.
  ForcedLegendreMapsOf<S> legendre_maps(const VecN<S>& q0, const VecN<S>& q1, double t0) const {
    return legendre_maps(arc_at(q0, q1, t0));
  }
  ForcedLegendreMapsOf<S> legendre_maps(const ArcOf<S>& a) const {
    const auto d = lagrangian_derivatives(system(), a.q0, a.v0);
    ForcedLegendreMapsOf<S> f;
    f.minus = d.Lv;
    f.plus = momentum(system(), a.q1, a.v1);
    f.minus_q1 = a.U.transpose().partialPivLu().solve(d.W.transpose()).transpose();  // W U⁻¹
    return f;
  }

 private:
  ExtendedFlow<S> flow_;
  double h_;
};

/// The exact discrete constraint space M^{e,nh}_h = {ω_e = 0} as a DiscreteConstraint (double only;
/// its derivative comes from the identity ∂ω_e/∂q1 = M(q0) U(h)⁻¹, see differentiate below), at the
/// step's start time t0 where the steps give one (discrete_constraint_at).
template <Model S>
class ExactDiscreteConstraint {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  static constexpr int m = S::m, max_m = max_m_of<S>();
  explicit ExactDiscreteConstraint(ExactNonholonomic<S> exact) : exact_(std::move(exact)) {}
  const ExactNonholonomic<S>& exact() const { return exact_; }
  int dimension() const { return coordinate_count(exact_.system()); }
  int constraint_count() const { return dalembert::constraint_count(exact_.system()); }

  VecM<S> operator()(const VecN<S>& q0, const VecN<S>& q1, double t0 = 0.0) const {
    return exact_.constraint(q0, q1, t0);
  }

 private:
  ExactNonholonomic<S> exact_;
};

template <Model S>
DiscreteConstraintDerivatives<S::n, S::m, max_n_of<S>(), max_m_of<S>()> differentiate(
    const ExactDiscreteConstraint<S>& c, const VecN<S>& q0, const VecN<S>& q1, double t0 = 0.0) {
  const ArcOf<S> a = c.exact().arc_at(q0, q1, t0);
  const MatMN<S> M = c.exact().system().template constraint_matrix<double>(q0);
  DiscreteConstraintDerivatives<S::n, S::m, max_n_of<S>(), max_m_of<S>()> d;
  d.value = c.exact().constraint(a, t0);
  d.D2 = a.U.transpose().partialPivLu().solve(M.transpose()).transpose();  // M U⁻¹
  return d;
}

}  // namespace dalembert
