#pragma once
// Modified Lagrange–d'Alembert integrators (MLA) of Anahory Simoes, Marrero and Martín de Diego
// ([ASMM22] Def. 5.1, Prop. 5.3; [AS21] §7.1): with a discrete Lagrangian L_d, discrete forces F_d^± and a
// discrete constraint space {ω = 0},
//   D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1}) + F_d^+(q_{k−1}, q_k) + F_d^−(q_k, q_{k+1}) ∈ D°_{q_k},
//   ω(q_k, q_{k+1}) = 0.                                                           (41)/(42)
// Position–momentum form, state (q_k, p_k) with p_k = F^{f+}L_d(q_{k−1}, q_k) = D2 L_d + F_d^+: solve
//   p_k − F^{f−}L_d(q_k, q_{k+1}) − M(q_k)ᵀλ = 0,   ω(q_k, q_{k+1}) = 0
// for (q_{k+1}, λ) by Newton, then p_{k+1} = F^{f+}L_d(q_k, q_{k+1}). The components of p_k on D are
// the momentum on D*: the discrete nonholonomic Legendre maps F^±l_d = E(q)ᵀ F^{f±}L_d agree at
// every q_k (momentum matching). With F_d^± = 0 this is DLA (method/dla.hpp), with no constraints
// the forced discrete Euler–Lagrange equations. The default ingredients are the midpoint recipe
// behind the examples of [ASMM22] §5.4: L_d = h L(q_mid, v_d), F_d^± = (h/2) F_nh(q_mid, v_d), ω = M(q_mid) v_d.
// Exact ingredients (discrete/exact_nonholonomic.hpp) turn it into the exact discrete flow. On a
// locally coupled model the midpoint recipe goes term by term (step_by_terms).
#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/discrete/local_discrete_lagrangian.hpp"
#include "dalembert/discrete/position_momentum_derivative.hpp"
#include "dalembert/model/constrained_momentum.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

template <Model S, ForcedDiscreteLagrangian Fl, DiscreteConstraint Dc>
class ModifiedLagrangeDAlembert {
 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;
  static_assert(Fl::n == n && Dc::n == n && Dc::m == m, "inconsistent dimensions");

  /// p is p_k = F^{f+}L_d(q_{k−1}, q_k), E(q_k)ᵀp_k the momentum on D*; multiplier the λ of the last
  /// step (the D° part of the momentum jump at q_{k−1}).
  using State = PositionMomentumState<S>;

  ModifiedLagrangeDAlembert(const S& system, Fl forced, Dc discrete_constraint, NewtonOptions options = {})
      : system_(system), forced_(std::move(forced)), dc_(std::move(discrete_constraint)), options_(options) {}

  double step_size() const { return forced_.step_size(); }
  const S& system() const { return system_; }
  const Fl& forced_discrete_lagrangian() const { return forced_; }
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

  /// F^{f−}L_d(q0, q1), the momentum at q0 of a two-point start (its part on D is F^−l_d(q0, q1)).
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

  void step(State& s) const {
    if constexpr (by_terms) {
      step_by_terms(s);
    } else {
      dense_step(s);
    }
  }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from s, as DLA's (discrete/position_momentum_derivative.hpp),
  /// for ingredients written generically in the scalar type (the α-rule recipe and user-supplied
  /// ones, not exact ingredients, which shoot). It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const
    requires requires(const Fl& f) {
      f.discrete_lagrangian();
      f.discrete_force();
    }
  {
    State next = s;
    step(next);
    const auto& fd = forced_.discrete_force();
    const auto minus = [&](const auto& q0, const auto& q1) { return fd.minus(q0, q1, s.t); };
    const auto plus = [&](const auto& q0, const auto& q1) { return fd.plus(q0, q1, s.t); };
    return position_momentum_step_derivative(system_, forced_.discrete_lagrangian(), dc_, minus, plus, s.q, s.p, next.q,
                                             next.multiplier);
  }

  /// p̄_k = E(q_k)ᵀp_k, the momentum on D* (= F^+l_d(q_{k−1}, q_k) = F^−l_d(q_k, q_{k+1})).
  VecK<S> constrained_momentum(const State& s) const { return project_onto_distribution(system_, s.q, s.p); }

  /// The velocity in D of the momentum on D*.
  VecN<S> velocity(const State& s) const { return velocity_in_distribution(system_, s.q, s.p); }
  /// The multipliers are not carried: the constraint force is in F_d^±, and λ is only a
  /// higher-order correction of the momentum jump.
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }

  /// H restricted to D* at (q_k, p̄_k): the energy the papers plot.
  double energy(const State& s) const { return dalembert::energy(system_, s.q, velocity(s)); }

 private:
  /// Whether steps are assembled term by term (model/local_terms.hpp): the α-rule recipe on a
  /// locally coupled model without external forces.
  static constexpr bool by_terms = SteppedByTerms<S> && std::is_same_v<Fl, WithForces<AlphaRule<S>, AlphaForce<S>>> &&
                                   std::is_same_v<Dc, AlphaConstraint<S>>;

  /// By terms, at (q0, q1): the derivatives of L_d and ω, each at its own α, and the force
  /// F(q_α, v_d) of the α-force, which give F^{f−}L_d = −D1 L_d − (1−α) h F and
  /// F^{f+}L_d = D2 L_d + α h F.
  struct TermEvaluation {
    local::DiscreteDerivatives d;
    Eigen::VectorXd force;
  };
  void evaluate_terms(const Eigen::VectorXd& q0, const Eigen::VectorXd& q1, double t0, TermEvaluation& e) const {
    const double h = step_size(), a = forced_.discrete_force().alpha();
    local::alpha_rule_derivatives(system_, h, forced_.discrete_lagrangian().alpha(), q0, q1, e.d, dc_.alpha());
    e.force =
        total_force(system_, Eigen::VectorXd((1.0 - a) * q0 + a * q1), Eigen::VectorXd((q1 - q0) / h), t0 + a * h);
  }
  Eigen::VectorXd minus_of(const TermEvaluation& e) const {
    return -e.d.D1 - ((1.0 - forced_.discrete_force().alpha()) * step_size()) * e.force;
  }
  Eigen::VectorXd plus_of(const TermEvaluation& e) const {
    return e.d.D2 + (forced_.discrete_force().alpha() * step_size()) * e.force;
  }

  /// F^{f∓}L_d(q0, q1) and |ω(q0, q1)|_inf, without Jacobians: by terms where the steps are.
  struct LegendreValues {
    VecN<S> minus, plus;
    double discrete_constraint = 0.0;
  };
  LegendreValues legendre_values(const VecN<S>& q0, const VecN<S>& q1, double t0) const {
    if constexpr (by_terms) {
      TermEvaluation e;
      evaluate_terms(q0, q1, t0, e);
      return {minus_of(e), plus_of(e), e.d.omega.template lpNorm<Eigen::Infinity>()};
    }
    const auto f = forced_.legendre_maps(q0, q1, t0);
    LegendreValues v{f.minus, f.plus, 0.0};
    if constexpr (m != 0) {
      if (constraint_count(system_) > 0) v.discrete_constraint = dc_(q0, q1).template lpNorm<Eigen::Infinity>();
    }
    return v;
  }

  void dense_step(State& s) const {
    constexpr int N = sum_of_sizes(n, m), MaxN = sum_of_sizes(max_n_of<S>(), max_m_of<S>());
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = step_size();
    const MatMN<S> Mq = system_.template constraint_matrix<double>(s.q);
    Vecd<N, MaxN> x(dn + dm);
    x << s.q + h * s.last_velocity, s.multiplier;
    ForcedLegendreMapsOf<Fl> f;  // of the last evaluation = at the solution
    DiscreteConstraintDerivatives<n, m, max_n_of<S>(), max_m_of<S>()> w;
    const auto evaluate = [&](const Vecd<N, MaxN>& unknowns, Vecd<N, MaxN>& F, Matd<N, N, MaxN, MaxN>& J) {
      const VecN<S> q1 = unknowns.template head<n>(dn);
      f = forced_.legendre_maps(s.q, q1, s.t);
      F.template head<n>(dn) = s.p - f.minus;
      J.template topLeftCorner<n, n>(dn, dn) = -f.minus_q1;
      add_constraint_rows<n, m>(dc_, s.q, q1, Mq, unknowns, F, J, w);
    };
    const double scale = std::max(s.p.template lpNorm<Eigen::Infinity>(),
                                  s.last_velocity.template lpNorm<Eigen::Infinity>());
    // exact ingredients may throw a shooting failure inside a residual: the driver reports it as this step's
    s.p = position_momentum_step<Matd<N, N, MaxN, MaxN>>(s, h, std::move(x), scale, options_,
                                                         JointEquations{evaluate}, [&] { return VecN<S>(f.plus); });
    if constexpr (m != 0) {
      if (dm > 0) s.discrete_constraint = w.value.template lpNorm<Eigen::Infinity>();
    }
  }

  /// The same equations for a locally coupled model with sparse derivatives, as DLA's
  /// (method/dla.hpp) with the α-force added: F_d^− = (1−α) h F(q_α, v_d) and F_d^+ = α h F(q_α, v_d),
  /// F = M(q)ᵀλ(q, v) from the sparse saddle-point system of the constrained acceleration. Newton's
  /// Jacobian is DLA's, [D12 L_d, −M(q_k)ᵀ; ∂ω/∂q1, 0]: ∂F_d^−/∂q1, the derivative of the multiplier,
  /// which couples every coordinate (a dense matrix), is left out, so Newton converges linearly, by
  /// a factor of order h|v| per iteration, to the same solution (docs/methods.md).
  void step_by_terms(State& s) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = step_size();
    const Eigen::SparseMatrix<double> Mq = local::constraint_matrix(system_, s.q);
    Eigen::VectorXd x(dn + dm);
    x << s.q + h * s.last_velocity, s.multiplier;
    TermEvaluation e;  // of the latest residual evaluation, which Newton makes at the solution
    const auto residual = [&](const Eigen::VectorXd& unknowns, Eigen::VectorXd& F) {
      evaluate_terms(s.q, unknowns.head(dn), s.t, e);
      F.head(dn) = s.p - minus_of(e) - Mq.transpose() * unknowns.tail(dm);
      F.tail(dm) = e.d.omega;
    };
    local::Triplets entries;
    const auto jacobian = [&](const Eigen::VectorXd&, Eigen::SparseMatrix<double>& J) {
      local::saddle_point_jacobian(e.d, Mq, entries, J);
    };
    const double scale =
        std::max(s.p.template lpNorm<Eigen::Infinity>(), s.last_velocity.template lpNorm<Eigen::Infinity>());
    s.p = position_momentum_step<Eigen::SparseMatrix<double>>(s, h, std::move(x), scale, options_,
                                                               SeparateEquations{residual, jacobian},
                                                               [&] { return VecN<S>(plus_of(e)); });
    s.discrete_constraint = e.d.omega.template lpNorm<Eigen::Infinity>();
  }

  S system_;
  Fl forced_;
  Dc dc_;
  NewtonOptions options_;
};

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
