#pragma once
// Momenta on D* and the energy restricted to D* ([ASMM22] (33)).
//
// The nonholonomic Legendre map Fl = i*_D ∘ FL ∘ i_D sends v ∈ D_q to the components of the
// momentum ∂L/∂v on the frame E(q) of D (constraint_frame): p̄ = E(q)ᵀ ∂L/∂v(q, v) ∈ R^{n−m}.
// A covector p ∈ T*_qQ represents the class i*_D(p) = E(q)ᵀp ∈ D*_q; covectors that differ by an
// element of D° = span of the rows of M(q) represent the same momentum on D*. The energy on D* is
// H(q, p̄) = E_L(q, v) with v ∈ D_q the velocity of p̄; it does not depend on the frame.
#include <Eigen/QR>

#include "dalembert/model/dynamics.hpp"

namespace dalembert {

/// p̄ = E(q)ᵀ p: the components on D of a covector p ∈ T*_qQ (the projection i*_D).
template <Model S>
VecK<S> project_onto_distribution(const S& sys, const VecN<S>& q, const VecN<S>& p) {
  return constraint_frame(sys, q).transpose() * p;
}

/// The nonholonomic Legendre map Fl(q, v) = E(q)ᵀ ∂L/∂v(q, v) for v ∈ D_q.
template <Model S>
VecK<S> constrained_momentum(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  return project_onto_distribution(sys, q, momentum(sys, q, v));
}

/// A covector representing p̄ ∈ D*_q: p = E (EᵀE)⁻¹ p̄, so that Eᵀp = p̄.
template <Model S>
VecN<S> covector_of_constrained_momentum(const S& sys, const VecN<S>& q, const VecK<S>& pbar) {
  const MatNK<S> E = constraint_frame(sys, q);
  const MatKK<S> EtE = E.transpose() * E;
  return E * EtE.ldlt().solve(pbar);
}

/// The velocity v ∈ D_q with Fl(q, v) = p̄ (the inverse nonholonomic Legendre map).
template <Model S>
VecN<S> velocity_of_constrained_momentum(const S& sys, const VecN<S>& q, const VecK<S>& pbar) {
  return velocity_in_distribution(sys, q, covector_of_constrained_momentum(sys, q, pbar));
}

/// The energy restricted to D*: H(q, p̄) = E_L(q, Fl⁻¹(q, p̄)). For L = ½vᵀGv − V it is
/// ½ p̄ᵀ(EᵀGE)⁻¹p̄ + V(q).
template <Model S>
double constrained_hamiltonian(const S& sys, const VecN<S>& q, const VecK<S>& pbar) {
  return energy(sys, q, velocity_of_constrained_momentum(sys, q, pbar));
}

}  // namespace dalembert
