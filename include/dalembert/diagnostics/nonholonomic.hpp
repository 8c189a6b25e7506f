#pragma once
// Diagnostics of the nonholonomic integrators ([FIM08] §2, §5, §6; docs/methods.md):
// the discrete nonholonomic momentum of a horizontal symmetry, the constraint residual of a
// momentum, and the energies of FIM's pre-, post- and average momenta.
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/projectors.hpp"

namespace dalembert {

/// (J_d^nh)_ξ(q_{k−1}, q_k) = ⟨D2 L_d(q_{k−1}, q_k), ξ_Q(q_k)⟩ (FIM §5), with xi_Q(q) the
/// infinitesimal generator of the symmetry; constant along FIM (and GF, DLA) trajectories when
/// L_d is invariant and ξ is horizontal.
template <DiscreteLagrangian Ld, class Generator>
double discrete_nonholonomic_momentum(const Ld& ld, const Vecd<Ld::n>& q_prev, const Vecd<Ld::n>& q,
                                      Generator&& xi_Q) {
  return differentiate(ld, q_prev, q).D2.dot(Vecd<Ld::n>(xi_Q(q)));
}

/// |M(q) ξ_Q(q)|_inf: zero where ξ is horizontal (ξ_Q(q) ∈ D_q).
template <Model S, class Generator>
double horizontal_residual(const S& sys, const Vecd<S::n>& q, Generator&& xi_Q) {
  if constexpr (S::m == 0) {
    return 0.0;
  } else {
    return (sys.template constraint_matrix<double>(q) * Vecd<S::n>(xi_Q(q))).template lpNorm<Eigen::Infinity>();
  }
}

/// |Q*(q) p|_inf: zero iff p satisfies the constraints (p ∈ Leg(D)).
template <HasMetric S>
double momentum_constraint_residual(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& p) {
  return (p - project_momentum(sys, q, p)).template lpNorm<Eigen::Infinity>();
}

/// H(q_k, ·) of FIM's three momenta at step k.
struct MomentumEnergies {
  double pre;      ///< H(q_k, p⁻_k), conserved under FIM's Theorem 1
  double post;     ///< H(q_k, p⁺_k)
  double average;  ///< H(q_k, p~_k), the energy of the constrained momentum (not conserved)
};

template <Model S, class FimState>
MomentumEnergies momentum_energies(const S& sys, const FimState& s) {
  return {hamiltonian(sys, s.q, s.p_minus), hamiltonian(sys, s.q, s.p_plus), hamiltonian(sys, s.q, s.p_average)};
}

}  // namespace dalembert
