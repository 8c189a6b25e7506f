#pragma once
// Modified Lagrange–d'Alembert integrators (MLA) of Anahory Simoes, Marrero and Martín de Diego
// ([ASMM22] Def. 5.1, Prop. 5.3; [AS21] §7.1): the discrete Lagrange–d'Alembert scheme with discrete
// forces that carry the constraint force (method/dla.hpp states the equations). The default
// ingredients are the midpoint recipe behind the examples of [ASMM22] §5.4: L_d = h L(q_mid, v_d),
// F_d^± = (h/2) F_nh(q_mid, v_d), ω = M(q_mid) v_d, with F_nh = M(q)ᵀλ(q, v) the nonholonomic force of
// the continuous equations. With F_d^± = 0 this is DLA, with no constraints the forced discrete
// Euler–Lagrange equations.
#include "dalembert/method/dla.hpp"

namespace dalembert {

/// MLA is the scheme of DLA named by its forced discrete Lagrangian.
template <Model S, ForcedDiscreteLagrangian Fl, DiscreteConstraint Dc>
using ModifiedLagrangeDAlembert = DiscreteLagrangeDAlembert<S, Fl, Dc>;

/// MLA from a user-supplied discrete Lagrangian, discrete forces and discrete constraint.
template <Model S, DiscreteLagrangian Ld, DiscreteForce Fd, DiscreteConstraint Dc>
auto make_mla(const S& system, Ld ld, Fd fd, Dc dc, NewtonOptions options = {}) {
  return ModifiedLagrangeDAlembert<S, WithForces<Ld, Fd>, Dc>(
      system, WithForces<Ld, Fd>(std::move(ld), std::move(fd)), std::move(dc), options);
}

/// The generic midpoint MLA of the examples of [ASMM22] §5.4 (α = ½), or its α-rule generalisation:
/// L_d = h L(q_α, v_d), F_d^− = (1−α) h F_nh(q_α, v_d), F_d^+ = α h F_nh(q_α, v_d), ω = M(q_α) v_d.
template <Model S>
auto make_midpoint_mla(const S& system, double h, double alpha = 0.5, NewtonOptions options = {}) {
  return make_mla(system, AlphaRule<S>(system, h, alpha), AlphaForce<S>(system, h, alpha),
                  AlphaConstraint<S>(system, h, alpha), options);
}

}  // namespace dalembert
