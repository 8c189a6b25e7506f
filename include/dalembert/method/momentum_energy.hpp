#pragma once
// Momentum–energy nonholonomic integrator of Ferraro, Iglesias and Martín de Diego (FIM;
// [FIM08] §2). With the covector projectors P*, Q* of the metric at q_k:
//   (1a)  P*(D1 L_d(q_k, q_{k+1})) + P*(D2 L_d(q_{k−1}, q_k)) = 0      (DEL projected onto D)
//   (1b)  Q*(D1 L_d(q_k, q_{k+1})) − Q*(D2 L_d(q_{k−1}, q_k)) = 0      (elastic impact against D)
// or, with p⁺_k = D2 L_d(q_{k−1}, q_k) and p⁻_k = −D1 L_d(q_k, q_{k+1}), the momentum jump
//   p⁻_k = (P* − Q*) p⁺_k,   and the average momentum p~_k = ½(p⁺_k + p⁻_k) = P* p⁺_k ∈ Leg(D).
// One step: solve −D1 L_d(q_k, q_{k+1}) = p⁻_k (Newton, Jacobian D12 L_d), then
// p⁺_{k+1} = D2 L_d(q_k, q_{k+1}), p⁻_{k+1} = R* p⁺_{k+1}, p~_{k+1} = P* p⁺_{k+1}.
// No constraint force and no derivative of M is needed. Q* p± alternates in sign from step to
// step (a period-2 mode of size O(h), docs/methods.md); p~ is the momentum to compare with the
// continuous solution, H(q_k, p⁻_k) the energy the method conserves (exactly on Lie groups with a
// bi-invariant metric, and for a constant metric with a quadratic potential and midpoint L_d).
// A locally coupled model (model/local_terms.hpp) with the α-rule or the trapezoidal L_d is stepped
// term by term: Newton factorises the sparse D12 L_d, P* p = G v, v the velocity in D of p, comes
// from the sparse saddle-point system, and R* = P* − Q* = 2P* − I.
// With affine constraints M(q) v + b(q, t) = 0 (ours; [FIM08] has none) P* is the G⁻¹-orthogonal
// projection at t_k onto the momenta of the velocities on them, p − Mᵀλ with
// M G⁻¹ Mᵀ λ = M G⁻¹ p + b (model/projectors.hpp), and R* = 2P* − I the reflection through that
// affine set, still an involution: p~ = ½(p⁺ + p⁻) is the momentum of a velocity on the constraints.
// An external force F(q, v, t) (ours; [FIM08] has none, and a Lagrangian of t acts through one)
// enters DEL's equations as DLA's does, F_d^± = (h/2) F(q_{k+½}, (q_{k+1} − q_k)/h, t_k + h/2):
//   p⁻_k = −D1 L_d(q_k, q_{k+1}) − F_d^−,   p⁺_{k+1} = D2 L_d(q_k, q_{k+1}) + F_d^+,
// the reflection unchanged; H(q, p⁻) is then no longer conserved but balanced by the force's work.
#include <array>
#include <string_view>
#include <type_traits>

#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/discrete/local_discrete_lagrangian.hpp"
#include "dalembert/discrete/position_momentum_derivative.hpp"
#include "dalembert/model/local_saddle_point_derivatives.hpp"
#include "dalembert/model/projectors.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

/// How the first pre-momentum is chosen from (q0, v0) (the poster of [FIM08] does not say):
/// A: p⁻_0 = G v0, no jump at k = 0. Needs no Λ~; the conserved H(q, p⁻) equals the true E0. But
///    it starts the parasitic period-2 mode at amplitude O(h).
/// B: p⁻_0 = G v0 − (h/2) Λ~(q0, v0), half the constraint impulse, so that p⁺_0 and p⁻_0 straddle
///    G v0 as they do later. The period-2 mode starts at O(h³) (knife edge, h = 0.1: 6.6e-4
///    against 6.0e-2), the error constant is smaller, and on SO(3) the growth of the mode is
///    postponed (docs/methods.md). The conserved H(q, p⁻) is E0 + (h²/8)|Λ~|². The default.
enum class FimStart { A, B };

template <HasMetric S, DiscreteLagrangian Ld>
class MomentumEnergyIntegrator {
  /// D1, D2 and D12 L_d, dense or by terms (discrete/local_discrete_lagrangian.hpp).
  using LdDerivatives = local::LagrangianDerivativesAtStep<S, Ld>;

 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;
  /// Whether steps are assembled term by term (a locally coupled model).
  static constexpr bool by_terms = LdDerivatives::by_terms;
  static_assert(Ld::n == n, "discrete Lagrangian and system must have the same dimension");
  static_assert(!(by_terms && HasExternalForce<S>), "an external force is added by the dense steps only");

  struct State : OnTheGrid {
    VecN<S> q;
    VecN<S> p_minus;    ///< p⁻_k = −D1 L_d(q_k, q_{k+1})
    VecN<S> p_plus;     ///< p⁺_k = D2 L_d(q_{k−1}, q_k)  (at k = 0: R* p⁻_0)
    VecN<S> p_average;  ///< p~_k = ½(p⁺_k + p⁻_k) = P* p⁺_k
    VecN<S> last_jump;  ///< j_{k−1} = p⁺_{k−1} − p⁻_{k−1}, for the monitor of the period-2 mode
    VecN<S> last_velocity;  ///< (q_k − q_{k−1})/h, the Newton initial guess
    VecN<S> q_low = no_low_part<VecN<S>>();  ///< q_k below the last bit of q (solve/below_last_bit.hpp)
    VecN<S> p_low = no_low_part<VecN<S>>();  ///< p⁻_k below its last bit, where the step's momenta come split
  };

  MomentumEnergyIntegrator(const S& system, Ld discrete_lagrangian, FimStart start = FimStart::B,
                           NewtonOptions options = {})
      : system_(system), ld_(std::move(discrete_lagrangian)), force_(system, ld_.step_size()), start_(start),
        options_(options) {}

  double step_size() const { return ld_.step_size(); }
  const S& system() const { return system_; }
  const Ld& discrete_lagrangian() const { return ld_; }
  FimStart start() const { return start_; }

  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const {
    VecN<S> p = momentum(system_, q0, v0);
    if (start_ == FimStart::B) p -= 0.5 * step_size() * constraint_force_form(system_, q0, v0, 0.0);
    State s;
    s.q = q0;
    s.last_velocity = v0;
    set_momenta(s, p);
    return s;
  }

  /// The state at k = 0 that the pair (q0, q1) determines, p⁻_0 = −D1 L_d(q0, q1) (and
  /// p⁺_0 = R* p⁻_0); its first step returns q1.
  State initial_state_from_positions(const VecN<S>& q0, const VecN<S>& q1) const {
    State s;
    s.q = q0;
    s.last_velocity = (q1 - q0) / step_size();
    LdDerivatives d;
    d.evaluate(system_, ld_, q0, q1);
    set_momenta(s, VecN<S>(-d.D1() - force_.minus(q0, q1, 0.0)));
    return s;
  }

  /// Newton on −D1 L_d(q_k, q_{k+1}) − F_d^− = p⁻_k in q_{k+1}, Jacobian D12 L_d + ∂F_d^−/∂q1 (dense,
  /// or sparse from the terms of a locally coupled model, which has no force).
  void step(State& s) const {
    const double h = step_size();
    VecN<S> x = s.q + h * s.last_velocity;
    LdDerivatives d;  // of the last evaluation = at the solution
    bool forced = false;
    if constexpr (HasExternalForce<S>) forced = force_.active();
    TwoSidedForceDerivatives<n, max_n_of<S>()> f;  // F_d^± and ∂F_d^−/∂q1, where the model has a force
    const auto residual = [&](const VecN<S>& q1, VecN<S>& F) {
      d.evaluate(system_, ld_, s.q, q1);
      if (forced) f = differentiate(force_, s.q, q1, s.t);
      if constexpr (split) {  // small parts first (SplitDerivatives)
        if (s.p_low.size() != s.q.size()) s.p_low = VecN<S>::Zero(s.q.size());
        VecN<S> rest = d.D1_rest();
        if (forced) rest += f.minus;
        F = ((s.p_minus - d.Lv()) + rest) + s.p_low;
      } else {
        F = s.p_minus + d.D1();
        if (forced) F += f.minus;
      }
    };
    const auto jacobian = [&](const VecN<S>&, Jacobian& J) {
      d.jacobian(J);
      if constexpr (!by_terms) {
        if (forced) J += f.minus_q1;
      }
    };
    const auto momentum = [&] {
      if constexpr (split) {  // p⁺_{k+1} below its last bit, which the driver leaves in s.p_low
        MomentumBelowLastBit<VecN<S>> p{VecN<S>(s.q.size()), VecN<S>(s.q.size())};
        VecN<S> rest = d.D2_rest();
        if (forced) rest += f.plus;
        sum_below_last_bit(d.Lv(), rest, p.hi, p.lo);
        return p;
      } else {
        VecN<S> p = d.D2();
        if (forced) p += f.plus;
        return p;
      }
    };
    read_momenta(s, position_momentum_step<Jacobian>(s, h, std::move(x), s.p_minus.template lpNorm<Eigen::Infinity>(),
                                                     options_, SeparateEquations{residual, jacobian}, momentum));
  }

  /// ∂(q_{k+1}, p⁻_{k+1})/∂(q_k, p⁻_k) of the step from s, a 2n × 2n matrix (rows q_{k+1} then
  /// p⁻_{k+1}, columns q_k then p⁻_k): DEL's equations in p⁻ and the reflection p⁻_{k+1} =
  /// R*(q_{k+1}) p⁺_{k+1}, R* = 2P* − I (discrete/position_momentum_derivative.hpp). It takes a step
  /// of its own.
  Eigen::MatrixXd step_derivative(const State& s) const {
    if constexpr (by_terms) return sparse_step_derivative(s).matrix();
    return derivatives<false>(s).by_state;
  }

  /// step_derivative(s) and the derivative of the step's result by a constant external force f
  /// added to the model's over the step, at f = 0 (2n × n), from one factorisation: the A and B of
  /// the step's linearisation, for control. f enters as the model's force does, (h/2) f in each
  /// midpoint discrete force. It takes a step of its own.
  StepDerivatives step_derivatives(const State& s) const
    requires(!by_terms)
  {
    return derivatives<true>(s);
  }

  /// The same derivative by terms, as a map: D * (δq_k, δp⁻_k) is (δq_{k+1}, δp⁻_{k+1}), DEL's
  /// equations in p⁻ by terms (local::position_momentum_derivative_by_terms) and the reflection's
  /// derivative, whose projection couples every coordinate
  /// (model/local_saddle_point_derivatives.hpp). It takes a step of its own.
  SparseStepDerivative sparse_step_derivative(const State& s) const
    requires by_terms
  {
    const State next = step_from(*this, s);
    const int dn = coordinate_count(system_);
    const auto projection = local::momentum_projection_derivative(system_, next.q, next.p_plus);
    return local::position_momentum_derivative_by_terms(system_, ld_, std::nullopt, s.q, next.q, Eigen::VectorXd())
        .then([projection, dn](const Eigen::VectorXd& dx, const Eigen::VectorXd& dp_plus) {
          return Eigen::VectorXd(2.0 * projection(dx.head(dn), dp_plus) - dp_plus);
        });
  }

  /// The velocity of the average momentum p~_k (in D).
  VecN<S> velocity(const State& s) const { return legendre_inverse(system_, s.q, s.p_average); }
  const VecN<S>& carried_momentum(const State& s) const { return s.p_average; }

  /// (1a) + (1b) at (q0, q1, q2), q0 at t = 0, as one n-vector, with D1 L_d + F_d^− and D2 L_d + F_d^+
  /// where the model has a force: zero along the method's trajectories.
  VecN<S> two_step_residual(const VecN<S>& q0, const VecN<S>& q1, const VecN<S>& q2) const {
    const double h = step_size();
    const VecN<S> D2 = differentiate(ld_, q0, q1).D2 + force_.plus(q0, q1, 0.0),
                  D1 = differentiate(ld_, q1, q2).D1 + force_.minus(q1, q2, h);
    const auto pr = covector_projectors(system_, q1);
    return pr.P * (D1 + D2) + pr.Q * (D1 - D2);
  }

  /// Extra CSV columns: the energies of p⁻ (the conserved one), p⁺, the residual |Q* p~|_inf of
  /// the average momentum and |Q* p⁺|_inf = ½|p⁺ − p⁻|_inf, the period-2 mode with the impulse of
  /// the constraint force.
  static constexpr std::array<std::string_view, 4> extra_columns = {"energy_pminus", "energy_pplus",
                                                                   "qstar_p_average", "qstar_p_plus"};
  std::array<double, 4> extra_values(const State& s) const {
    const double qstar_p_average =
        (s.p_average - project_momentum(system_, s.q, s.p_average, s.t)).template lpNorm<Eigen::Infinity>();
    return {hamiltonian(system_, s.q, s.p_minus), hamiltonian(system_, s.q, s.p_plus), qstar_p_average,
            (0.5 * (s.p_plus - s.p_minus)).template lpNorm<Eigen::Infinity>()};
  }

  /// The amplitude of the parasitic period-2 mode, which the run's monitors watch (io/monitors.hpp):
  /// the alternating part ¼|j_k − j_{k−1}|_inf of the jump j = p⁺ − p⁻ = 2Q* p⁺. The jump holds the
  /// constraint force's impulse h Λ~ as well, which varies slowly and grows where the constraints do
  /// work (docs/decisions.md, Affine constraints of the time). Of a pure mode both read ½|j|.
  static constexpr std::string_view parasitic_mode_name = "FIM's period-2 mode |j_k - j_(k-1)|/4 (j = p+ - p-)";
  double parasitic_mode(const State& s) const {
    return (0.25 * ((s.p_plus - s.p_minus) - s.last_jump)).template lpNorm<Eigen::Infinity>();
  }

 private:
  /// Whether the momenta are carried below their last bit: L_d's derivatives come with their
  /// velocity part apart, on a compiled model with constraints (constraint_part_of_momentum).
  static constexpr bool split = LdDerivatives::split && !LocallyCoupled<S> && S::m != 0;
  using Jacobian = typename LdDerivatives::Jacobian;

  /// The step's derivatives by the state and, with ByForce, by a constant force f beside the model's:
  /// DEL's equations in p⁻ with DLA's midpoint discrete forces and the reflection
  /// p⁻_{k+1} = R*(q_{k+1}) p⁺_{k+1}, R* = 2P* − I.
  template <bool ByForce>
  StepDerivatives derivatives(const State& s) const {
    const State next = step_from(*this, s);
    const auto reflect = [&](const auto& q1, const auto& p1) {
      using Q = std::decay_t<decltype(p1)>;
      return Q(2.0 * project_momentum_generic(system_, q1, p1, next.t) - p1);
    };
    const auto forces = [&] {  // F_d^− = F_d^+, as DLA's
      if constexpr (ByForce) {
        return midpoint_forces_with_constant_force(system_, step_size(), s.t);
      } else {
        return midpoint_external_force(system_, step_size(), s.t);
      }
    }();
    return position_momentum_derivatives<ByForce>(system_, ld_, NoDiscreteConstraint{}, forces, forces, s.q,
                                                  s.p_minus, next.q, 0, reflect);
  }

  /// After the driver has taken the state to q_{k+1}: p⁺ = D2 L_d(q_k, q_{k+1}), p~ = P* p⁺ and
  /// p⁻ = R* p⁺ = 2 p~ − p⁺.
  void read_momenta(State& s, const VecN<S>& p_plus) const {
    s.last_jump = s.p_plus - s.p_minus;
    s.p_plus = p_plus;
    if constexpr (split) {
      // p⁻ = R* p⁺ = p⁺ − 2Q* p⁺ with p⁺ = p_plus + s.p_low: the reflection, of the size of the
      // constraint impulse, is added below the last bit, and s.p_low becomes p⁻'s
      const VecN<S> reflection = 2.0 * constraint_part_of_momentum(system_, s.q, p_plus);
      s.p_average = p_plus - 0.5 * reflection;
      sum_below_last_bit(p_plus, VecN<S>(s.p_low - reflection), s.p_minus, s.p_low);
    } else {
      s.p_average = project_momentum(system_, s.q, s.p_plus, s.t);
      s.p_minus = 2 * s.p_average - s.p_plus;
    }
  }

  void set_momenta(State& s, const VecN<S>& p_minus) const {
    s.p_minus = p_minus;
    s.p_average = project_momentum(system_, s.q, p_minus, s.t);
    s.p_plus = 2 * s.p_average - p_minus;  // R* p⁻: R* = 2P* − I is an involution
    s.last_jump = s.p_plus - s.p_minus;
  }

  S system_;
  Ld ld_;
  ModelForce<S> force_;  ///< the model's external force as DLA's discrete forces, if it has one
  FimStart start_;
  NewtonOptions options_;
};

/// FIM with the α-rule discrete Lagrangian (midpoint for α = ½: second order; α ≠ ½: first order).
template <HasMetric S>
auto make_fim(const S& system, double h, double alpha = 0.5, FimStart start = FimStart::B,
              NewtonOptions options = {}) {
  return MomentumEnergyIntegrator<S, AlphaRule<S>>(system, AlphaRule<S>(system, h, alpha), start, options);
}

}  // namespace dalembert
