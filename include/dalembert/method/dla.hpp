#pragma once
// Discrete Lagrange–d'Alembert integrators, with discrete forces: the scheme of Cortés and Martínez
// (DLA, [CM01]; [dLMS04] §1.3, [AS21] §3.7.8) and the modified Lagrange–d'Alembert integrators of
// Anahory Simoes, Marrero and Martín de Diego (MLA, [ASMM22] Def. 5.1, Prop. 5.3; [AS21] §7.1) are
// one scheme. With a discrete Lagrangian L_d, discrete forces F_d^± and a discrete constraint space
// {ω = 0}:
//   D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1}) + F_d^+(q_{k−1}, q_k) + F_d^−(q_k, q_{k+1}) ∈ D°_{q_k},
//   ω(q_k, q_{k+1}) = 0.                                                    ([ASMM22] (41)/(42))
// Position–momentum form, state (q_k, p_k) with p_k = F^{f+}L_d(q_{k−1}, q_k) = D2 L_d + F_d^+: solve
//   p_k − F^{f−}L_d(q_k, q_{k+1}) − M(q_k)ᵀλ = 0,   ω(q_k, q_{k+1}) = 0,   F^{f−}L_d = −D1 L_d − F_d^−,
// for (q_{k+1}, λ) by Newton, then p_{k+1} = F^{f+}L_d(q_k, q_{k+1}). The components of p_k on D are
// the momentum on D*: the discrete nonholonomic Legendre maps F^±l_d = E(q)ᵀ F^{f±}L_d agree at
// every q_k (momentum matching).
//  - DLA: F_d^± = the model's external force at the midpoint, (h/2) F(q_mid, v_d, t + h/2), if it
//    has one (ModelForce); the impulse −M(q_k)ᵀλ over h then estimates the continuous multiplier.
//  - MLA: the forces of the recipe behind the examples of [ASMM22] §5.4 carry the constraint force,
//    F_d^− = (1−α) h F_nh(q_α, v_d), F_d^+ = α h F_nh(q_α, v_d) with F_nh = M(q)ᵀλ(q, v) (AlphaForce);
//    λ of the step is only a higher-order correction of the momentum jump. Exact ingredients
//    (discrete/exact_nonholonomic.hpp) turn it into the exact discrete flow.
// Without constraints these are the forced discrete Euler–Lagrange equations. The step is written
// once over what it evaluates (discrete/forced_maps_at_step.hpp): dense, or on a locally coupled
// model (model/local_terms.hpp) with the α-rule or the trapezoidal L_d summed term by term, and
// Newton then factorises a sparse Jacobian. The positions are carried below their last bit
// (solve/below_last_bit.hpp), and so is the momentum where L_d's derivatives give its velocity part
// apart: no round-off floor at small steps.
#include <algorithm>
#include <type_traits>
#include <utility>

#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/discrete/forced_maps_at_step.hpp"
#include "dalembert/discrete/local_discrete_lagrangian.hpp"
#include "dalembert/discrete/position_momentum_derivative.hpp"
#include "dalembert/model/constrained_momentum.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/local_saddle_point_derivatives.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

namespace detail {
/// The forced discrete Lagrangian of the scheme's ingredients: a forced one as it is, a discrete
/// Lagrangian with the model's force (DLA).
template <class S, class Ingredients>
struct ForcedIngredients {
  using type = WithForces<Ingredients, ModelForce<S>>;
  static type make(const S& system, Ingredients ld) { return with_model_force(system, std::move(ld)); }
};
template <class S, ForcedDiscreteLagrangian Fl>
struct ForcedIngredients<S, Fl> {
  using type = Fl;
  static type make(const S&, Fl forced) { return forced; }
};

/// Whether the forced discrete Lagrangian Fl is L_d with discrete forces of type Fd.
template <class Fl, class Fd>
constexpr bool forces_are() {
  if constexpr (requires { typename Fl::Force; }) {
    return std::is_same_v<typename Fl::Force, Fd>;
  } else {
    return false;
  }
}
}  // namespace detail

/// Ingredients: a DiscreteLagrangian (DLA, with the model's force) or a ForcedDiscreteLagrangian
/// (MLA: make_mla, make_midpoint_mla, or exact ingredients).
template <Model S, class Ingredients, DiscreteConstraint Dc>
class DiscreteLagrangeDAlembert {
 public:
  using Forced = typename detail::ForcedIngredients<S, Ingredients>::type;
  static constexpr int n = S::n;
  static constexpr int m = S::m;
  static_assert(Forced::n == n && Dc::n == n && Dc::m == m, "inconsistent dimensions");

  /// Whether the discrete forces are the model's own (DLA), so that λ is the constraint's impulse.
  static constexpr bool carries_multiplier = detail::forces_are<Forced, ModelForce<S>>();

  /// Whether the discrete forces are MLA's α-force.
  static constexpr bool alpha_force = detail::forces_are<Forced, AlphaForce<S>>();
  /// Whether steps are assembled term by term (model/local_terms.hpp): the α-rule or the trapezoidal
  /// rule with the α-rule constraint and the model's (no) force or the α-force, on a locally coupled
  /// model without external forces.
  static constexpr bool by_terms = [] {
    if constexpr (SteppedByTerms<S> && std::is_same_v<Dc, AlphaConstraint<S>> &&
                  (carries_multiplier || alpha_force)) {
      return local::SplitsIntoTerms<typename Forced::Lagrangian, S>;
    } else {
      return false;
    }
  }();

  /// What the step evaluates: dense, or summed over the model's terms.
  using Maps = std::conditional_t<by_terms, ForcedMapsByTerms<S, Forced, Dc, alpha_force>,
                                  DenseForcedMapsAtStep<S, Forced, Dc>>;

  /// p is p_k = F^{f+}L_d(q_{k−1}, q_k), E(q_k)ᵀp_k the momentum on D*; multiplier the λ of the last
  /// step (the D° part of the momentum jump at q_{k−1}).
  using State = PositionMomentumState<S>;

  DiscreteLagrangeDAlembert(const S& system, Ingredients ingredients, Dc discrete_constraint,
                            NewtonOptions options = {})
      : system_(system), forced_(detail::ForcedIngredients<S, Ingredients>::make(system, std::move(ingredients))),
        dc_(std::move(discrete_constraint)), options_(options) {}

  double step_size() const { return forced_.step_size(); }
  const S& system() const { return system_; }
  const Forced& forced_discrete_lagrangian() const { return forced_; }
  const auto& discrete_lagrangian() const
    requires requires(const Forced& f) { f.discrete_lagrangian(); }
  {
    return forced_.discrete_lagrangian();
  }
  const Dc& discrete_constraint() const { return dc_; }

  /// Position–momentum start from v0 ∈ D: p_0 = ∂L/∂v(q0, v0).
  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const { return position_momentum_start(system_, q0, v0); }

  /// Two-point start from (q0, q1) ∈ M_d, as in the papers; the returned state is at k = 1.
  State initial_state_two_point(const VecN<S>& q0, const VecN<S>& q1) const {
    const double h = step_size();
    State s;
    s.k = 1;
    s.t = h;
    s.q = q1;
    const LegendreValues f = legendre_values(q0, q1, 0.0);
    s.p = f.plus;
    s.multiplier = VecM<S>::Zero(constraint_count(system_));
    s.last_velocity = (q1 - q0) / h;
    s.discrete_constraint = f.discrete_constraint;
    return s;
  }

  /// F^{f−}L_d(q0, q1), the momentum at q0 of a two-point start (its part on D is F^−l_d(q0, q1)):
  /// the first row's velocity is its.
  VecN<S> pre_momentum(const VecN<S>& q0, const VecN<S>& q1) const { return legendre_values(q0, q1, 0.0).minus; }

  /// The discrete nonholonomic Legendre maps F^−l_d(q0, q1) ∈ D*_{q0} and F^+l_d(q0, q1) ∈ D*_{q1},
  /// components on the frame constraint_frame(system, q); t0 is the time of q0 (it matters only
  /// for a force that depends on the time).
  VecK<S> legendre_minus(const VecN<S>& q0, const VecN<S>& q1, double t0 = 0.0) const {
    return project_onto_distribution(system_, q0, legendre_values(q0, q1, t0).minus);
  }
  VecK<S> legendre_plus(const VecN<S>& q0, const VecN<S>& q1, double t0 = 0.0) const {
    return project_onto_distribution(system_, q1, legendre_values(q0, q1, t0).plus);
  }

  /// Newton on the unknowns x = (q_{k+1}, λ) of F(x) = (p_k − F^{f−}L_d − M(q_k)ᵀλ, ω) = 0, with the
  /// maps, ω and the Jacobian from Maps (discrete/forced_maps_at_step.hpp), then p_{k+1} = F^{f+}L_d.
  void step(State& s) const {
    Maps maps(system_, forced_, dc_, s.q, s.t);
    const auto dn = size_constant<n>(coordinate_count(system_));
    const auto dm = size_constant<m>(constraint_count(system_));
    const double h = step_size();
    typename Maps::Unknowns x(dn + dm);
    x << s.q + h * s.last_velocity, s.multiplier;
    const auto residual = [&](const typename Maps::Unknowns& unknowns, typename Maps::Unknowns& F) {
      maps.evaluate(unknowns.template head<n>(dn));
      maps.momentum_rows(s.p, s.p_low, F.template head<n>(dn));
      if constexpr (m != 0) {
        if (dm > 0) {
          maps.subtract_constraint_force(F.template head<n>(dn), unknowns.template segment<m>(dn, dm));
          F.template segment<m>(dn, dm) = maps.omega();
        }
      }
    };
    const auto jacobian = [&](const typename Maps::Unknowns& unknowns, typename Maps::Jacobian& J) {
      maps.jacobian(unknowns.template head<n>(dn), J);
    };
    s.p = position_momentum_step<typename Maps::Jacobian>(s, h, std::move(x), newton_scale(s), options_,
                                                          SeparateEquations{residual, jacobian},
                                                          [&] { return maps.next_momentum(); });
    if constexpr (m != 0) {
      if (dm > 0) s.discrete_constraint = maps.omega().template lpNorm<Eigen::Infinity>();
    }
  }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from s: a 2n × 2n matrix, rows q_{k+1} then p_{k+1},
  /// columns q_k then p_k (the multipliers and the last velocity are only Newton's guesses). By the
  /// implicit-function theorem on the step's equations at their solution
  /// (discrete/position_momentum_derivative.hpp), with every derivative by automatic
  /// differentiation, for ingredients written generically in the scalar type (not exact ones,
  /// which shoot). It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const
    requires requires(const Forced& f) { f.discrete_force(); }
  {
    if constexpr (by_terms) {
      const Eigen::MatrixXd D = sparse_step_derivative(s).matrix();
      const Eigen::Index dn = coordinate_count(system_);
      Eigen::MatrixXd by_state(2 * dn, 2 * dn);
      by_state << D.topRows(dn), D.bottomRows(dn);
      return by_state;
    } else if constexpr (carries_multiplier) {
      const State next = step_from(*this, s);
      const auto force = midpoint_external_force(system_, step_size(), s.t);
      return position_momentum_step_derivative(system_, forced_.discrete_lagrangian(), discrete_constraint_from(s.t),
                                               force, force, s.q, s.p, next.q, next.multiplier);
    } else {
      const State next = step_from(*this, s);
      const auto& ld = forced_.discrete_lagrangian();
      const auto& fd = forced_.discrete_force();
      const auto minus = [&](const auto& q0, const auto& q1) { return fd.minus(q0, q1, s.t); };
      const auto plus = [&](const auto& q0, const auto& q1) { return fd.plus(q0, q1, s.t); };
      return position_momentum_step_derivative(system_, ld, discrete_constraint_from(s.t), minus, plus, s.q, s.p,
                                               next.q, next.multiplier);
    }
  }

  /// The same derivative, by terms, as a map: D * (δq_k, δp_k) is (δq_{k+1}, δλ, δp_{k+1}) at the cost
  /// of one sparse solve (local::position_momentum_derivative_by_terms); MLA's α-force, whose
  /// derivative couples every coordinate, by a fixed-point iteration on it (SparseStepDerivative,
  /// model/local_saddle_point_derivatives.hpp). It takes a step of its own.
  SparseStepDerivative sparse_step_derivative(const State& s) const
    requires by_terms
  {
    const State next = step_from(*this, s);
    const auto& ld = forced_.discrete_lagrangian();
    if constexpr (alpha_force) {
      const double a = forced_.discrete_force().alpha();
      const Eigen::Index equations = coordinate_count(system_) + constraint_count(system_);
      return local::position_momentum_derivative_by_terms(
          system_, ld, dc_.alpha(), s.q, next.q, next.multiplier,
          local::constraint_force_coupling(system_, step_size(), s.q, next.q, {{a, 1.0 - a, a}}, equations));
    } else {
      return local::position_momentum_derivative_by_terms(system_, ld, dc_.alpha(), s.q, next.q, next.multiplier);
    }
  }

  /// step_derivative(s) and the derivative of the step's result by a constant external force f
  /// added to the model's over it, at f = 0 (2n × n): a step's linearisation in its state and an
  /// input, for control. f enters as the model's force does: DLA's (h/2) f in each discrete force;
  /// MLA's α-force (1 − α) h and α h times the total force at q_α, f and the constraint force that
  /// balances it included.
  StepDerivatives step_derivatives(const State& s) const
    requires(carries_multiplier || alpha_force)
  {
    const State next = step_from(*this, s);
    if constexpr (carries_multiplier) {
      const auto forces = midpoint_forces_with_constant_force(system_, step_size(), s.t);
      return position_momentum_step_derivatives(system_, forced_.discrete_lagrangian(), discrete_constraint_from(s.t),
                                                forces, forces, s.q, s.p, next.q, next.multiplier);
    } else {
      const auto& fd = forced_.discrete_force();
      const auto minus = [&](const auto& q0, const auto& q1, const auto& f) { return fd.minus(q0, q1, s.t, f); };
      const auto plus = [&](const auto& q0, const auto& q1, const auto& f) { return fd.plus(q0, q1, s.t, f); };
      return position_momentum_step_derivatives(system_, forced_.discrete_lagrangian(), discrete_constraint_from(s.t),
                                                minus, plus, s.q, s.p, next.q, next.multiplier);
    }
  }

  /// p̄_k = E(q_k)ᵀp_k, the momentum on D* (= F^+l_d(q_{k−1}, q_k) = F^−l_d(q_k, q_{k+1})).
  VecK<S> constrained_momentum(const State& s) const { return project_onto_distribution(system_, s.q, s.p); }
  /// The velocity in D of the momentum on D*.
  VecN<S> velocity(const State& s) const { return velocity_in_distribution(system_, s.q, s.p, s.t); }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }
  /// DLA's −λ/h of the last step: the impulse −M(q_{k−1})ᵀλ over h estimates the continuous
  /// multiplier at t_{k−1} (to O(h²) for the midpoint rule; the first step from (q0, v0) covers half
  /// an impulse). MLA's forces carry the constraint force instead.
  auto carried_multiplier(const State& s) const
    requires carries_multiplier
  {
    return -s.multiplier / step_size();
  }

  /// H restricted to D* at (q_k, p̄_k): the energy the papers plot.
  double energy(const State& s) const { return dalembert::energy(system_, s.q, velocity(s)); }

 private:
  /// ω(q0, q1) of the step from the time t, generic in the scalar type, for the derivatives'
  /// equations: an affine part b(q, t) is taken at the step's own times.
  auto discrete_constraint_from(double t) const {
    return [this, t](const auto& q0, const auto& q1) { return discrete_constraint_at(dc_, q0, q1, t); };
  }

  /// F^{f∓}L_d(q0, q1) and |ω(q0, q1)|_inf, without Jacobians: by terms where the steps are.
  struct LegendreValues {
    VecN<S> minus, plus;
    double discrete_constraint = 0.0;
  };
  LegendreValues legendre_values(const VecN<S>& q0, const VecN<S>& q1, double t0) const {
    if constexpr (by_terms) {
      Maps maps(system_, forced_, dc_, q0, t0);
      maps.evaluate(q1);
      return {maps.minus(), maps.plus(), maps.omega().template lpNorm<Eigen::Infinity>()};
    }
    const auto f = forced_.legendre_maps(q0, q1, t0);
    LegendreValues v{f.minus, f.plus, 0.0};
    if constexpr (m != 0) {
      if (constraint_count(system_) > 0)
        v.discrete_constraint = discrete_constraint_at(dc_, q0, q1, t0).template lpNorm<Eigen::Infinity>();
    }
    return v;
  }

  /// The size of the momentum rows, which Newton's tolerance is relative to.
  static double newton_scale(const State& s) {
    return std::max(s.p.template lpNorm<Eigen::Infinity>(), s.last_velocity.template lpNorm<Eigen::Infinity>());
  }

  S system_;
  Forced forced_;
  Dc dc_;
  NewtonOptions options_;
};

/// Midpoint DLA (α-rule for both L_d and ω), the default of the command line.
template <Model S>
auto make_dla(const S& system, double h, double alpha = 0.5, NewtonOptions options = {}) {
  return DiscreteLagrangeDAlembert<S, AlphaRule<S>, AlphaConstraint<S>>(
      system, AlphaRule<S>(system, h, alpha), AlphaConstraint<S>(system, h, alpha), options);
}

}  // namespace dalembert
