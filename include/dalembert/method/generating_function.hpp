#pragma once
// Generating-function nonholonomic integrators of de León, Martín de Diego and Santamaría-Merino
// (dLMS: [dLMS04] §4, Remark 4.1, §5). The approximate generating function S~ is a discrete
// Lagrangian and the constraint force enters as a discrete force built from Λ~ = −Mᵀλ:
//
//   GF-α      S~ = S_α = h L(q_α, v),  q_α = (1−α) q0 + α q1,  v = (q1 − q0)/h
//             α0 = (1−α) h Λ~(q_α, v),   α1 = α h Λ~(q_α, v)
//   GF-sym-α  S~ = ½ S_α + ½ S_{1−α},   α0 = ½ h [(1−α) Λ~(q_α, v) + α Λ~(q_{1−α}, v)],
//             α1 = ½ h [α Λ~(q_α, v) + (1−α) Λ~(q_{1−α}, v)]    (the paper leaves the force open,
//             ours: this symmetric average is second order for every α)
//   two-step  D2 S~(q_{k−1}, q_k) + D1 S~(q_k, q_{k+1}) = α1(q_{k−1}, q_k) + α0(q_k, q_{k+1})
//   GF-CP     the same with P*(q_k) applied to the first slot's terms (dLMS (33), §5.1).
//
// Position–momentum form (dLMS (17)), the one implemented: given (q_k, p_k) solve
//   p_k = −D1 S~(q_k, q_{k+1}) + α0(q_k, q_{k+1})                          for q_{k+1},
//   p_{k+1} = D2 S~(q_k, q_{k+1}) − α1(q_k, q_{k+1})    and, for GF-CP,   p_{k+1} ← P*(q_{k+1}) p_{k+1},
// i.e. GF-CP is a GF step followed by the G⁻¹-orthogonal projection of the momentum onto
// Leg(D); it keeps φ~(q_k, q_{k+1}) = Ψ(q_k, p_k) = 0 at every step. The Newton Jacobian
// D12 S~ − ∂α0/∂q1 takes D12 S~ from the α-rules' derivatives (discrete/discrete_lagrangian.hpp)
// and ∂α0/∂q1 from automatic differentiation through Λ~ (model/projectors.hpp), which
// is evaluated with the raw multiplier formula at the finite-difference velocity, off D
// (as in [dLMS04] Example 4.2); on a locally coupled model the iteration uses D12 S~ alone, from
// the terms. An external force F(q, v, t) (ours; dLMS have none, and a Lagrangian of t acts through
// one) enters beside the constraint force, at the same points and times: Λ~ − F in place of Λ~, with
// Λ~ the constraint force of the motion under F: the forced discrete Euler–Lagrange equations of S~
// with the α-rule quadrature of the force. Constraints of
// the time, M(q) v + b(q, t) = 0, enter Λ~ at the times of its points, t_k + α h (and t_k + (1−α) h),
// and GF-CP's projection at t_{k+1}: onto the momenta of the velocities on the affine constraints,
// p̂ = p − Mᵀλ with M G⁻¹ Mᵀ λ = M G⁻¹ p + b(q_{k+1}, t_{k+1}) (model/projectors.hpp).
// A holonomic constraint φ(q) = 0 (model/model.hpp) is imposed on the new positions as DLA imposes
// it (SHAKE in position–momentum form): the step solves for (q_{k+1}, μ)
//   p_k = −D1 S~(q_k, q_{k+1}) + α0 − dφ(q_k)ᵀμ,   φ(q_{k+1}) = 0,
// and p_{k+1} = D2 S~ − α1 as before. Λ~ keeps φ's velocity form, so the impulse μ only corrects
// the step's drift off φ = 0 (of the size of its local error): φ holds to round-off and the order
// is the family's (docs/methods.md, Holonomic constraints).
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/discrete/local_discrete_lagrangian.hpp"
#include "dalembert/discrete/position_momentum_derivative.hpp"
#include "dalembert/model/local_saddle_point_derivatives.hpp"
#include "dalembert/model/projectors.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

/// S~ = S_α, or ½ S_α + ½ S_{1−α} when symmetric (a discrete Lagrangian in the sense of
/// discrete/discrete_lagrangian.hpp, so differentiate() applies).
template <Model S>
class GeneratingFunctionLagrangian {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  GeneratingFunctionLagrangian(const S& system, double h, double alpha, bool symmetric)
      : rule_(system, h, alpha), mirrored_(system, h, 1.0 - alpha), symmetric_(symmetric && alpha != 0.5) {}

  double step_size() const { return rule_.step_size(); }
  double alpha() const { return rule_.alpha(); }
  bool symmetric() const { return symmetric_; }
  int dimension() const { return rule_.dimension(); }
  /// S_α, and S_{1−α}, which GF-sym averages with it.
  const AlphaRule<S>& rule() const { return rule_; }
  const AlphaRule<S>& mirrored_rule() const { return mirrored_; }

  template <class T>
  T operator()(const VecN<S, T>& q0, const VecN<S, T>& q1) const {
    if (!symmetric_) return rule_(q0, q1);
    return 0.5 * (rule_(q0, q1) + mirrored_(q0, q1));
  }

 private:
  AlphaRule<S> rule_, mirrored_;
  bool symmetric_;  ///< false for α = ½, where both halves coincide
};

/// S~'s derivatives are its α-rules': the structured paths of discrete/discrete_lagrangian.hpp (a
/// compiled model's metric, a model file's kernels) where they apply, as in the by-terms step, with
/// the velocity part apart where the α-rule gives it (SplitDerivatives).
template <Model S>
[[gnu::flatten]] auto differentiate(const GeneratingFunctionLagrangian<S>& ld, const VecN<S>& q0, const VecN<S>& q1) {
  auto d = differentiate(ld.rule(), q0, q1);
  if (!ld.symmetric()) return d;
  return detail::mean_of(std::move(d), differentiate(ld.mirrored_rule(), q0, q1));
}

/// The same for a locally coupled model, term by term (local::LagrangianDerivativesAtStep): D1 S~,
/// D2 S~ and the entries of D12 S~ from the terms' α-rules, two of them (α and 1 − α) for GF-sym.
template <LocallyCoupled S>
void discrete_lagrangian_derivatives(const S& sys, const GeneratingFunctionLagrangian<S>& ld, const Eigen::VectorXd& q0,
                                     const Eigen::VectorXd& q1, local::DiscreteDerivatives& d) {
  const double h = ld.step_size(), a = ld.alpha();
  if (!ld.symmetric()) {
    local::alpha_rule_derivatives(sys, h, a, q0, q1, d);
    return;
  }
  local::DiscreteDerivatives e;
  local::alpha_rule_derivatives(sys, h, a, q0, q1, e);
  d.D1 = 0.5 * e.D1;
  d.D2 = 0.5 * e.D2;
  d.omega.resize(0);
  d.by_q1.clear();
  for (const auto& t : e.by_q1) d.by_q1.emplace_back(t.row(), t.col(), 0.5 * t.value());
  local::alpha_rule_derivatives(sys, h, 1.0 - a, q0, q1, e);
  d.D1 += 0.5 * e.D1;
  d.D2 += 0.5 * e.D2;
  for (const auto& t : e.by_q1) d.by_q1.emplace_back(t.row(), t.col(), 0.5 * t.value());
}

/// S~ of one term of a locally coupled model, for the step's derivative by terms
/// (local::position_momentum_derivative_by_terms).
template <LocallyCoupled S>
auto rule_of_each_term(const GeneratingFunctionLagrangian<S>& ld) {
  return [h = ld.step_size(), alpha = ld.alpha(), symmetric = ld.symmetric()](const auto& term) {
    return GeneratingFunctionLagrangian<std::decay_t<decltype(term)>>(term, h, alpha, symmetric);
  };
}

template <class T, int N, int MaxN = N>
struct DiscreteConstraintForce {
  Vec<T, N, MaxN> alpha0;  ///< α0(q0, q1) ≈ ∫ (Λ~ − F) ∂q/∂q0, acts at q0
  Vec<T, N, MaxN> alpha1;  ///< α1(q0, q1) ≈ ∫ (Λ~ − F) ∂q/∂q1, acts at q1
};

/// The impulses μ of the holonomic constraints a step imposes, where a model may have them (the
/// step driver stores the unknowns after q_{k+1} there), and nothing where it cannot.
template <class S, bool Imposes>
struct ImposedImpulses {};
template <class S>
struct ImposedImpulses<S, true> {
  VecM<S> multiplier;  ///< μ of the last step, one per holonomic constraint
};

template <Model S, bool ConstraintPreserving = false>
  requires(!ConstraintPreserving || HasMetric<S>)
class GeneratingFunctionIntegrator {
  /// D1, D2 and D12 S~, dense or, on any locally coupled model, by terms.
  using LdDerivatives = local::LagrangianDerivativesAtStep<S, GeneratingFunctionLagrangian<S>>;
  using Jacobian = typename LdDerivatives::Jacobian;

 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;
  /// Whether steps are assembled term by term (a locally coupled model).
  static constexpr bool by_terms = LdDerivatives::by_terms;
  /// φ(q_{k+1}) = 0 on the new positions, with an impulse μ of its own, where the model may have
  /// holonomic constraints: the step's unknowns are then (q_{k+1}, μ), with (q_{k+1}) alone where
  /// it has none.
  static constexpr bool imposes_holonomic_constraints = MayHaveHolonomicConstraints<S>;
  static_assert(!(by_terms && imposes_holonomic_constraints), "holonomic constraints are imposed densely");
  static_assert(!(by_terms && HasExternalForce<S>), "an external force is added by the dense steps only");
  using Unknowns = std::conditional_t<imposes_holonomic_constraints,
                                      Vecd<sum_of_sizes(n, m), sum_of_sizes(max_n_of<S>(), max_m_of<S>())>, VecN<S>>;
  using NewtonJacobian =
      std::conditional_t<imposes_holonomic_constraints,
                         Matd<sum_of_sizes(n, m), sum_of_sizes(n, m), sum_of_sizes(max_n_of<S>(), max_m_of<S>()),
                              sum_of_sizes(max_n_of<S>(), max_m_of<S>())>,
                         Jacobian>;

  struct State : OnTheGrid, ImposedImpulses<S, imposes_holonomic_constraints> {
    VecN<S> q;
    VecN<S> p;       ///< p_k = −D1 S~(q_k, q_{k+1}) + α0 (GF-CP: the projected momentum p̂_k)
    VecN<S> p_plus;  ///< D2 S~(q_{k−1}, q_k) − α1 before the projection (= p for GF)
    VecN<S> last_velocity;             ///< (q_k − q_{k−1})/h, the Newton initial guess
    VecN<S> q_low = no_low_part<VecN<S>>();  ///< q_k below the last bit of q (solve/below_last_bit.hpp)
    VecN<S> p_low = no_low_part<VecN<S>>();  ///< p below its last bit, where the step's momenta come split
    double discrete_constraint = 0.0;  ///< |M(q_α)(q_k − q_{k−1})/h|_inf of the last segment
  };

  GeneratingFunctionIntegrator(const S& system, double h, double alpha = 0.5, bool symmetric = false,
                               NewtonOptions options = {})
      : system_(system), ld_(system, h, alpha, symmetric), options_(options) {}

  double step_size() const { return ld_.step_size(); }
  double alpha() const { return ld_.alpha(); }
  const S& system() const { return system_; }
  const GeneratingFunctionLagrangian<S>& discrete_lagrangian() const { return ld_; }

  /// The discrete force of the segment (q0, q1) from the time t0, generic in the scalar type: Λ~ − F
  /// at q_α and the time t0 + α h (for constraints and forces of the time), with a constant force f
  /// beside F where a step's derivative by it asks (step_derivatives).
  template <class T, class F = NoConstantForce>
  DiscreteConstraintForce<T, n, max_n_of<S>()> discrete_force(const VecN<S, T>& q0, const VecN<S, T>& q1,
                                                              double t0 = 0.0, const F& constant = {}) const {
    const double h = step_size(), a = alpha();
    const VecN<S, T> v = (q1 - q0) / h;
    const VecN<S, T> La = force_form(VecN<S, T>((1.0 - a) * q0 + a * q1), v, t0 + a * h, constant);
    DiscreteConstraintForce<T, n, max_n_of<S>()> f;
    if (!ld_.symmetric()) {
      f.alpha0 = ((1.0 - a) * h) * La;
      f.alpha1 = (a * h) * La;
    } else {
      const VecN<S, T> Lb = force_form(VecN<S, T>(a * q0 + (1.0 - a) * q1), v, t0 + (1.0 - a) * h, constant);
      f.alpha0 = (0.5 * h) * ((1.0 - a) * La + a * Lb);
      f.alpha1 = (0.5 * h) * (a * La + (1.0 - a) * Lb);
    }
    return f;
  }

  /// Λ~ − F at (q, v, t): the constraint force form of the motion under the model's external force F,
  /// if it has one, less F. The force on the motion is F − Λ~ = F + Mᵀλ, and α0, α1 are minus its
  /// discrete forces (forced discrete mechanics: p_k = −D1 S~ − F_d^−, F_d^− = −α0). A constant force
  /// f counts as part of F: Λ~ is then the constraint force that balances F + f.
  template <class T, class F = NoConstantForce>
  VecN<S, T> force_form(const VecN<S, T>& q, const VecN<S, T>& v, double t, const F& constant = {}) const {
    VecN<S, T> f = constraint_force_form(system_, q, v, t, constant);
    if constexpr (HasExternalForce<S>) {
      if (has_external_force(system_)) f -= system_.template force<T>(q, v, t);
    }
    add_constant_force(f, constant, -1.0);
    return f;
  }

  /// Start from (q0, v0), v0 ∈ D: p0 = ∂L/∂v(q0, v0) (ours; dLMS do not say); the first solve then
  /// satisfies the paper's initial condition φ~(q0, q1, h) = 0.
  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const {
    State s;
    s.q = q0;
    s.p = momentum(system_, q0, v0);
    s.p_plus = s.p;
    s.last_velocity = v0;
    return s;
  }

  /// The state at k = 0 that the pair (q0, q1) determines, p0 = −D1 S~(q0, q1) + α0(q0, q1); its
  /// first step returns q1 (Newton starts there). The paper requires φ~(q0, q1, h) = 0.
  State initial_state_from_positions(const VecN<S>& q0, const VecN<S>& q1) const {
    const double h = step_size();
    State s;
    s.q = q0;
    LdDerivatives d;
    d.evaluate(system_, ld_, q0, q1);
    s.p = -d.D1() + discrete_force<double>(q0, q1).alpha0;
    s.p_plus = s.p;
    s.last_velocity = (q1 - q0) / h;
    return s;
  }

  /// Newton on p_k + D1 S~(q_k, q_{k+1}) − α0(q_k, q_{k+1}) = 0 in q_{k+1}, with the Jacobian
  /// D12 S~ − ∂α0/∂q1; with holonomic constraints, on that equation less dφ(q_k)ᵀμ and the rows
  /// φ(q_{k+1}) = 0 in (q_{k+1}, μ), whose Jacobian gains the blocks −dφ(q_k)ᵀ and dφ(q_{k+1}).
  /// On a locally coupled model the Jacobian is D12 S~ alone, sparse, from the
  /// terms, and Λ~ comes from the sparse saddle-point system of the constrained acceleration
  /// (model/projectors.hpp): ∂α0/∂q1, the derivative of the multiplier, couples every coordinate (a
  /// dense matrix). Newton then converges linearly, by a factor of order h|v| per iteration
  /// (∂α0/∂q1 against D12 S~ ~ G/h), to the same solution (docs/methods.md); each iteration costs
  /// time linear in the number of terms.
  void step(State& s) const {
    const double h = step_size(), t1 = grid_time(s.k + 1, h);
    const int dn = coordinate_count(system_);
    const int dk = imposes_holonomic_constraints ? holonomic_constraint_count(system_) : 0;
    Unknowns x(dn + dk);
    x.template head<n>(dn) = s.q + h * s.last_velocity;
    MatMN<S> impulse_rows;  // dφ(q_k), μ's direction
    if constexpr (imposes_holonomic_constraints) {
      x.tail(dk).setZero();
      if (dk > 0) impulse_rows = system_.template constraint_matrix<double>(s.q).bottomRows(dk);
    }
    LdDerivatives d;  // of the last evaluation = at the solution
    VecN<S> alpha0, alpha1;
    MatNN<S> dalpha0, dalpha1;  // by q1, for the dense Jacobian
    const auto residual = [&](const Unknowns& y, Unknowns& F) {
      const auto& q1 = positions_in(y, dn);
      d.evaluate(system_, ld_, s.q, q1);
      if constexpr (by_terms) {
        const auto f = discrete_force<double>(s.q, q1, s.t);
        alpha0 = f.alpha0;
        alpha1 = f.alpha1;
      } else {
        force_and_jacobian(s.q, q1, s.t, alpha0, alpha1, dalpha0, dalpha1);
      }
      if constexpr (LdDerivatives::split && !ConstraintPreserving) {  // small parts first (SplitDerivatives)
        if (s.p_low.size() != s.p.size()) s.p_low = VecN<S>::Zero(s.p.size());
        F.template head<n>(dn) = ((s.p - d.Lv()) + VecN<S>(d.D1_rest() - alpha0)) + s.p_low;
      } else {
        F.template head<n>(dn) = s.p + d.D1() - alpha0;
      }
      if constexpr (imposes_holonomic_constraints) {
        if (dk > 0) {
          F.head(dn) -= impulse_rows.transpose() * y.tail(dk);
          impose_holonomic_rows(system_, q1, t1, F.tail(dk));
        }
      }
    };
    const auto jacobian = [&](const Unknowns& y, NewtonJacobian& J) {
      d.jacobian(J);
      if constexpr (!by_terms) J -= dalpha0;
      if constexpr (imposes_holonomic_constraints) {
        if (dk > 0) {
          J.conservativeResize(dn + dk, dn + dk);
          J.topRightCorner(dn, dk) = -impulse_rows.transpose();
          J.bottomLeftCorner(dk, dn) = system_.template constraint_matrix<double>(positions_in(y, dn)).bottomRows(dk);
          J.bottomRightCorner(dk, dk).setZero();
        }
      }
    };
    const auto momentum = [&] {
      if constexpr (LdDerivatives::split && !ConstraintPreserving) {  // p carried below its last bit
        MomentumBelowLastBit<VecN<S>> p{VecN<S>(s.p.size()), VecN<S>(s.p.size())};
        sum_below_last_bit(d.Lv(), VecN<S>(d.D2_rest() - alpha1), p.hi, p.lo);
        return p;
      } else {
        return VecN<S>(d.D2() - alpha1);
      }
    };
    const VecN<S> q0 = s.q;
    const double scale = s.p.template lpNorm<Eigen::Infinity>();
    VecN<S> p_plus;
    if constexpr (by_terms) {  // by q1: −D12 S~, as Newton's Jacobian (α1's part left out, as α0's)
      p_plus = position_momentum_step<NewtonJacobian>(s, h, std::move(x), scale, options_,
                                                      SeparateEquations{residual, jacobian}, momentum);
    } else {  // by q1: −D12 S~ − ∂α1/∂q1 (D2 S~ by q1 is −D12 S~ to leading order)
      const auto momentum_by_q1 = [&] {
        Jacobian D12;
        d.jacobian(D12);
        return MatNN<S>(-D12 - dalpha1);
      };
      p_plus = position_momentum_step<NewtonJacobian>(s, h, std::move(x), scale, options_,
                                                      SeparateEquations{residual, jacobian}, momentum,
                                                      momentum_by_q1);
    }
    read_momentum(s, q0, p_plus);
  }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from s (discrete/position_momentum_derivative.hpp,
  /// with F_d^− = −α0, F_d^+ = −α1, no multipliers and, for GF-CP, the projection P*(q_{k+1}) of
  /// the next momentum). It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const {
    if constexpr (by_terms) return sparse_step_derivative(s).matrix();
    return derivatives<false>(s).by_state;
  }

  /// step_derivative(s) and the derivative of the step's result by a constant external force f
  /// added to the model's over the step, at f = 0 (2n × n), from one factorisation: the A and B of
  /// the step's linearisation, for control. f enters as the model's force does, at the rule's
  /// points, with the constraint force that balances it (force_form). It takes a step of its own.
  StepDerivatives step_derivatives(const State& s) const
    requires(!by_terms)
  {
    return derivatives<true>(s);
  }

  /// The same derivative by terms, as a map: D * (δq_k, δp_k) is (δq_{k+1}, δp_{k+1})
  /// (local::position_momentum_derivative_by_terms without constraint rows), α0 and α1, whose
  /// derivative couples every coordinate, by a fixed-point iteration on them (SparseStepDerivative,
  /// model/local_saddle_point_derivatives.hpp), and GF-CP's projection P*(q_{k+1}) of the next
  /// momentum after it. It takes a step of its own.
  SparseStepDerivative sparse_step_derivative(const State& s) const
    requires by_terms
  {
    const State next = step_from(*this, s);
    const double a = alpha();
    // −α0 and −α1 are h F(q_β, v) weighted: F = −Λ~ at β = α (and at 1 − α for GF-sym)
    std::vector<local::ForceAtPoint> forces{{a, 1.0 - a, a}};
    if (ld_.symmetric()) forces = {{a, 0.5 * (1.0 - a), 0.5 * a}, {1.0 - a, 0.5 * a, 0.5 * (1.0 - a)}};
    const int dn = coordinate_count(system_);
    SparseStepDerivative D = local::position_momentum_derivative_by_terms(
        system_, ld_, std::nullopt, s.q, next.q, Eigen::VectorXd(),
        local::constraint_force_coupling(system_, step_size(), s.q, next.q, forces, dn));
    if constexpr (!ConstraintPreserving) {
      return D;
    } else {
      const auto projection = local::momentum_projection_derivative(system_, next.q, next.p_plus);
      return std::move(D).then([projection, dn](const Eigen::VectorXd& dx, const Eigen::VectorXd& dy) {
        return projection(dx.head(dn), dy);
      });
    }
  }

  /// The velocity of the momentum p_k (inverse Legendre map; not projected onto D for GF-α, so
  /// |M v| = |Ψ(q_k, p_k)| = |φ~(q_k, q_{k+1})| is the method's constraint error).
  VecN<S> velocity(const State& s) const { return legendre_inverse(system_, s.q, s.p); }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }

  /// Residual of the two-step equations at (q0, q1, q2), q0 at t = 0: zero along the method's
  /// trajectories.
  VecN<S> two_step_residual(const VecN<S>& q0, const VecN<S>& q1, const VecN<S>& q2) const {
    VecN<S> first = differentiate(ld_, q0, q1).D2 - discrete_force<double>(q0, q1).alpha1;
    if constexpr (ConstraintPreserving) first = project_momentum(system_, q1, first, step_size());
    return first + differentiate(ld_, q1, q2).D1 - discrete_force<double>(q1, q2, step_size()).alpha0;
  }

  /// The paper's discrete constraint φ~(q0, q1, h) = Ψ(q0, −D1 S~(q0, q1) + α0(q0, q1)) (18).
  VecM<S> generating_constraint(const VecN<S>& q0, const VecN<S>& q1) const {
    const VecN<S> p0 = initial_state_from_positions(q0, q1).p;
    return momentum_constraint(system_, q0, p0);
  }

 private:
  /// q_{k+1} among a step's unknowns: all of them, unless the step imposes holonomic constraints.
  static decltype(auto) positions_in(const Unknowns& y, int dn) {
    if constexpr (imposes_holonomic_constraints) {
      return VecN<S>(y.template head<n>(dn));
    } else {
      return (y);
    }
  }

  /// The step's derivatives by the state and, with ByForce, by a constant force f beside the model's
  /// (in F_d^− = −α0 and F_d^+ = −α1, each a callable of (q_k, q_{k+1}) and then f).
  template <bool ByForce>
  StepDerivatives derivatives(const State& s) const {
    const State next = step_from(*this, s);
    const auto alpha0 = [&](const auto& q0, const auto& q1, const auto&... f) {
      using Q = std::decay_t<decltype(q0)>;
      return Q(-discrete_force(q0, q1, s.t, f...).alpha0);
    };
    const auto alpha1 = [&](const auto& q0, const auto& q1, const auto&... f) {
      using Q = std::decay_t<decltype(q0)>;
      return Q(-discrete_force(q0, q1, s.t, f...).alpha1);
    };
    const auto finish = [&](const auto& q1, const auto& p1) {
      if constexpr (ConstraintPreserving) {
        return project_momentum_generic(system_, q1, p1, next.t);
      } else {
        return p1;
      }
    };
    if constexpr (imposes_holonomic_constraints) {
      if (holonomic_constraint_count(system_) > 0)
        return position_momentum_derivatives<ByForce>(system_, ld_, ImposedHolonomicRows<S>{system_, next.t}, alpha0,
                                                      alpha1, s.q, s.p, next.q, next.multiplier, finish);
    }
    return position_momentum_derivatives<ByForce>(system_, ld_, NoDiscreteConstraint{}, alpha0, alpha1, s.q, s.p,
                                                  next.q, 0, finish);
  }

  /// After the driver has taken the state to q_{k+1}: p⁺ = D2 S~ − α1, the momentum (GF-CP: P* p⁺)
  /// and the discrete constraint of the segment from q0 = q_k.
  void read_momentum(State& s, const VecN<S>& q0, const VecN<S>& p_plus) const {
    const double h = step_size(), a = alpha();
    s.discrete_constraint = constraint_residual(system_, VecN<S>((1.0 - a) * q0 + a * s.q), VecN<S>((s.q - q0) / h),
                                                s.t - (1.0 - a) * h);  // at q_α's time (s is at t_{k+1})
    s.p_plus = p_plus;
    if constexpr (ConstraintPreserving) {
      s.p = project_momentum(system_, s.q, s.p_plus, s.t);
    } else {
      s.p = s.p_plus;
    }
  }

  void force_and_jacobian(const VecN<S>& q0, const VecN<S>& q1, double t0, VecN<S>& alpha0, VecN<S>& alpha1,
                          MatNN<S>& dalpha0_dq1, MatNN<S>& dalpha1_dq1) const {
    const int dn = coordinate_count(system_);
    if constexpr (m == 0 && !HasExternalForce<S>) {
      alpha0.setZero(dn);
      alpha1.setZero(dn);
      dalpha0_dq1.setZero(dn, dn);
      dalpha1_dq1.setZero(dn, dn);
    } else if constexpr (ad::chunked_width<n, max_n_of<S>()>) {
      // a chunk of directions of q1 at a time, at a fixed width (core/autodiff.hpp)
      using D = ad::Dual<double, sizes::chunk_width>;
      VecN<S, D> x0(dn);
      for (int i = 0; i < dn; ++i) x0[i] = ad::constant<sizes::chunk_width>(q0[i]);
      alpha0.resize(dn);
      alpha1.resize(dn);
      dalpha0_dq1.resize(dn, dn);
      dalpha1_dq1.resize(dn, dn);
      ad::over_chunks<n, max_n_of<S>()>(
          q1, [&](const VecN<S, D>& x1) { return discrete_force<D>(x0, x1, t0); },
          [&](const DiscreteConstraintForce<D, n, max_n_of<S>()>& f, int first, int columns) {
            for (int i = 0; i < dn; ++i) {
              alpha0[i] = ad::value(f.alpha0[i]);
              alpha1[i] = ad::value(f.alpha1[i]);
              for (int j = 0; j < columns; ++j) {
                dalpha0_dq1(i, first + j) = ad::derivative(f.alpha0[i], j);
                dalpha1_dq1(i, first + j) = ad::derivative(f.alpha1[i], j);
              }
            }
          });
    } else {
      ad::at_width<n, max_n_of<S>()>(dn, [&]<int W, int MaxW>() DALEMBERT_INLINE {
        using D = ad::Dual<double, W, MaxW>;
        VecN<S, D> x0(dn), x1(dn);
        for (int i = 0; i < dn; ++i) {
          x0[i] = ad::constant<W, MaxW>(q0[i], dn);
          x1[i] = ad::variable<W, MaxW>(q1[i], i, dn);
        }
        const auto f = discrete_force<D>(x0, x1, t0);
        alpha0.resize(dn);
        alpha1.resize(dn);
        dalpha0_dq1.resize(dn, dn);
        dalpha1_dq1.resize(dn, dn);
        for (int i = 0; i < dn; ++i) {
          alpha0[i] = ad::value(f.alpha0[i]);
          alpha1[i] = ad::value(f.alpha1[i]);
          for (int j = 0; j < dn; ++j) {
            dalpha0_dq1(i, j) = ad::derivative(f.alpha0[i], j);
            dalpha1_dq1(i, j) = ad::derivative(f.alpha1[i], j);
          }
        }
      });
    }
  }

  S system_;
  GeneratingFunctionLagrangian<S> ld_;
  NewtonOptions options_;
};

/// GF-α (dLMS §4): first order for α ≠ ½, second order for α = ½.
template <Model S>
auto make_gf(const S& system, double h, double alpha = 0.5, NewtonOptions options = {}) {
  return GeneratingFunctionIntegrator<S, false>(system, h, alpha, false, options);
}

/// GF-sym-α (dLMS Remark 4.1): second order for every α.
template <Model S>
auto make_gf_sym(const S& system, double h, double alpha = 0.5, NewtonOptions options = {}) {
  return GeneratingFunctionIntegrator<S, false>(system, h, alpha, true, options);
}

/// GF-CP-α (dLMS §5.1): preserves the exact constraint Ψ(q_k, p_k) = 0; needs the metric.
template <HasMetric S>
auto make_gf_cp(const S& system, double h, double alpha = 0.5, bool symmetric = false, NewtonOptions options = {}) {
  return GeneratingFunctionIntegrator<S, true>(system, h, alpha, symmetric, options);
}

}  // namespace dalembert
