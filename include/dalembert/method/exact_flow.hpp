#pragma once
// The exact discrete nonholonomic flow ([ASMM22] §5.2, Thm 5.5; [AS21] §7.2, Thm 7.2.3):
//   F^+_{h,nh}l(q_{k−1}, q_k) = F^−_{h,nh}l(q_k, q_{k+1}),   (q_k, q_{k+1}) ∈ M^{e,nh}_h,
// with the exact discrete nonholonomic Legendre maps F^±_{h,nh}l = Fl∘R^{e±}_{h,nh}. Position–
// momentum form, state (q_k, p_k = FL(q_k, v_k)), v_k = R^{e+}(q_{k−1}, q_k) ∈ D: solve
//   E(q_k)ᵀ[∂L/∂v(q_k, R^{e−}(q_k, q_{k+1})) − p_k] = 0,   M(q_k) R^{e−}(q_k, q_{k+1}) = 0
// for q_{k+1} by Newton, each residual a shooting solve (discrete/shooting.hpp) and the Jacobian
// [E(q_k)ᵀW; M(q_k)] U(h)⁻¹ from its sensitivities; then v_{k+1} = R^{e+}(q_k, q_{k+1}). The first
// guess is the flow from (q_k, v_k) over h, corrected by Newton until a correction of q_{k+1} is
// within the shooting tolerance. Its iterates are the continuous trajectory at t_k = k h to the
// shooting tolerance, for any h below the first conjugate point; at a conjugate point the shooting
// Jacobian U(h) is singular and the step fails with a SolverError that says so.
// A model of the time shoots its arcs from t_k = k h (a force or Lagrangian of t), and affine
// constraints M(q) v + b(q, t) = 0 replace the second equation by M(q_k) R^{e−} + b(q_k, t_k) = 0:
// the arc's M q̇ + b stays zero, and v_k is the velocity on them at t_k of the momentum on D*.
//
// This is the library's reference for any Lagrange–d'Alembert model. For C++ use:
//   const ExactDiscreteFlow<MySystem> exact(sys, h);            // or exact_samples(sys, q0, v0, h, N)
//   auto s = exact.initial_state(q0, v0);  exact.step(s);  ... s.q, exact.velocity(s)
#include <type_traits>
#include <utility>
#include <vector>

#include "dalembert/discrete/exact_nonholonomic.hpp"
#include "dalembert/model/constrained_momentum.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/solve/newton.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

template <Model S>
class ExactDiscreteFlow {
 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;

  struct State : OnTheGrid {
    VecN<S> q;
    VecN<S> p;  ///< FL(q_k, v_k); E(q_k)ᵀp is the momentum on D* = F^+_{h,nh}l(q_{k−1}, q_k)
    VecN<S> v;  ///< v_k = R^{e+}(q_{k−1}, q_k) = R^{e−}(q_k, q_{k+1})
    double discrete_constraint = 0.0;  ///< |ω_e(q_{k−1}, q_k)|_inf
    int shooting_iterations = 0;       ///< shooting iterations of the last residual evaluation
    double work = 0.0;  ///< W since t = 0 along the steps' arcs, where the forces do work (add_work)
  };

  ExactDiscreteFlow(const S& system, double h, ShootingOptions shooting = {}, NewtonOptions newton = {})
      : exact_(system, h, shooting), newton_(newton) {
    // The residual is known only as well as the shot velocity R^{e−}: to the shooting tolerance
    // times |U(h)⁻¹|, which is 1/h for small h and grows without bound towards a conjugate point. A
    // residual threshold that allows for this lets a step stop as far as the shooting tolerance
    // times (1 + |q|) from its solution, and the steps add these errors up. The correction of
    // q_{k+1} is free of the amplification (the Jacobian A U(h)⁻¹ undoes it), so the step
    // converges when a correction is within the shooting tolerance, never on the residual.
    newton_.correction_tolerance = std::max(newton_.tolerance, shooting.tolerance);
    newton_.tolerance = 0.0;
  }

  double step_size() const { return exact_.step_size(); }
  const S& system() const { return exact_.system(); }
  const ExactNonholonomic<S>& exact() const { return exact_; }
  ExactDiscreteConstraint<S> discrete_constraint() const { return ExactDiscreteConstraint<S>(exact_); }

  /// Position–momentum start from v0 ∈ D_{q0}.
  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const {
    State s;
    s.q = q0;
    s.v = v0;
    s.p = momentum(system(), q0, v0);
    return s;
  }

  /// Two-point start from (q0, q1) ∈ M^{e,nh}_h; the returned state is at k = 1.
  State initial_state_two_point(const VecN<S>& q0, const VecN<S>& q1) const {
    const ArcOf<S> a = exact_.arc(q0, q1);
    State s;
    s.k = 1;
    s.t = step_size();
    s.q = q1;
    s.v = a.v1;
    s.p = momentum(system(), q1, a.v1);
    if constexpr (m != 0) {
      if (constraint_count(system()) > 0)
        s.discrete_constraint = exact_.constraint(a, 0.0).template lpNorm<Eigen::Infinity>();
    }
    add_work(s, 0, q0, a.v0);
    return s;
  }

  /// FL(q0, R^{e−}(q0, q1)), the momentum at q0 of a two-point start.
  VecN<S> pre_momentum(const VecN<S>& q0, const VecN<S>& q1) const {
    return momentum(system(), q0, exact_.retraction_minus(q0, q1));
  }

  void step(State& s) const {
    constexpr int k = k_of<S>;
    const double h = step_size();
    const S& sys = system();
    const int dn = coordinate_count(sys), dm = constraint_count(sys), dk = dn - dm;
    const MatNK<S> E = constraint_frame(sys, s.q);
    const MatMN<S> Mq = sys.template constraint_matrix<double>(s.q);
    ArcOf<S> arc;  // of the last evaluation = at the solution
    try {
      // The predictor is the flow from (q_k, v_k): with v_k in D, the solution to the accuracy of the
      // integration, whose arc is the shooting's answer at it, so Newton's first evaluation takes
      // it as it is. A predictor off the solution makes the shooting look for another arc, which
      // at a large h may not exist near the guess.
      arc = exact_.extended_flow().template integrate<Variations::velocity>(s.q, s.v, h, s.t);
      exact_.extended_flow().check_not_conjugate(arc);
    } catch (const SolverError& e) {  // a conjugate point, or the arc's limit
      throw e.at(s.k + 1, grid_time(s.k + 1, h));
    }
    VecN<S> x = arc.q1;
    bool at_predictor = true;
    const auto evaluate = [&](const VecN<S>& q1, VecN<S>& F, MatNN<S>& J) {
      // A shooting failure thrown here becomes step k + 1's in solve_step.
      if (!std::exchange(at_predictor, false)) arc = exact_.arc(s.q, q1, arc.v0, s.t);
      const auto d = lagrangian_derivatives(sys, s.q, arc.v0);
      MatNN<S> A(dn, dn);  // the residual's derivative with respect to R^{e−}
      A.template topRows<k>(dk) = E.transpose() * d.W;
      F.template head<k>(dk) = E.transpose() * (d.Lv - s.p);
      if constexpr (m != 0) {
        if (dm > 0) {
          A.template bottomRows<m>(dm) = Mq;
          F.template segment<m>(dk, dm) = Mq * arc.v0;
          add_constraint_offset(sys, s.q, s.t, F.template segment<m>(dk, dm));
        }
      }
      J = arc.U.transpose().partialPivLu().solve(A.transpose()).transpose();  // A U⁻¹
    };
    const NewtonReport r = solve_step<MatNN<S>>(s, h, JointEquations{evaluate}, x, 1.0, newton_);
    if constexpr (m != 0) {
      if (dm > 0) s.discrete_constraint = exact_.constraint(arc, s.t).template lpNorm<Eigen::Infinity>();
    }
    add_work(s, s.k, s.q, arc.v0);
    s.q = x;
    s.v = arc.v1;
    s.p = momentum(sys, x, arc.v1);
    advance(s, h);
    s.iterations = r.iterations;
    s.shooting_iterations = arc.iterations;
  }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from s, a 2n × 2n matrix as DLA's. The step is the
  /// flow over h from (q_k, v_k), v_k ∈ D the velocity of the momentum on D*:
  ///   ∂L/∂v(q_k, v_k) − p_k = M(q_k)ᵀμ,   M(q_k) v_k + b(q_k, t_k) = 0,
  /// so v_k is differentiated by the implicit-function theorem on these equations, the flow by its
  /// variational equations (Y = ∂q(h)/∂q(0), U = ∂q(h)/∂q̇(0) and their velocities,
  /// discrete/shooting.hpp), and p_{k+1} = ∂L/∂v(q_{k+1}, v_{k+1}) by L's second derivatives. No
  /// shooting: the step's own equations hold to the shooting tolerance, the flow's to the
  /// integration's.
  Eigen::MatrixXd step_derivative(const State& s) const {
    const S& sys = system();
    const int dn = coordinate_count(sys), dm = constraint_count(sys);
    const VecN<S> v0 = velocity(s);
    constexpr int max_n = max_n_of<S>(), max_m = max_m_of<S>();
    constexpr int N2 = multiple_of_size(2, n), MaxN2 = multiple_of_size(2, max_n);
    constexpr int NZ = sum_of_sizes(multiple_of_size(3, n), m), MaxNZ = sum_of_sizes(multiple_of_size(3, max_n), max_m);
    constexpr int NF = sum_of_sizes(n, m), MaxNF = sum_of_sizes(max_n, max_m);
    // z = (q_k, p_k, v_k, μ) ↦ (∂L/∂v(q_k, v_k) − p_k − M(q_k)ᵀμ, M(q_k) v_k + b(q_k, t_k))
    const auto equations = [&](const auto& z) {
      using T = typename std::decay_t<decltype(z)>::Scalar;
      const VecN<S, T> q = z.template segment<n>(0, dn), v = z.template segment<n>(2 * dn, dn);
      Vec<T, N2, MaxN2> w(2 * dn), gradient;
      w << q, v;
      T value;
      ad::value_and_gradient<N2, MaxN2>(
          [&](const auto& y) {
            using U = typename std::decay_t<decltype(y)>::Scalar;
            const VecN<S, U> q_of_y = y.template head<n>(dn), v_of_y = y.template segment<n>(dn, dn);
            return sys.template lagrangian<U>(q_of_y, v_of_y);
          },
          w, value, gradient);
      Vec<T, NF, MaxNF> F(dn + dm);
      F.template head<n>(dn) = gradient.template segment<n>(dn, dn) - z.template segment<n>(dn, dn);
      if constexpr (m != 0) {
        if (dm > 0) {
          const MatMN<S, T> M = sys.template constraint_matrix<T>(q);
          F.template head<n>(dn) -= M.transpose() * z.template segment<m>(3 * dn, dm);
          F.template segment<m>(dn, dm) = M * v;
          add_constraint_offset(sys, q, s.t, F.template segment<m>(dn, dm));
        }
      }
      return F;
    };
    Vecd<NZ, MaxNZ> z(3 * dn + dm);
    z.template head<n>(dn) = s.q;
    z.template segment<n>(dn, dn) = s.p;
    z.template segment<n>(2 * dn, dn) = v0;
    if constexpr (m != 0) {  // μ from the momentum's part off D*, Mᵀμ = ∂L/∂v − p
      if (dm > 0)
        z.template segment<m>(3 * dn, dm) =
            sys.template constraint_matrix<double>(s.q).transpose().colPivHouseholderQr().solve(
                VecN<S>(lagrangian_derivatives(sys, s.q, v0).Lv - s.p));
    }
    const Eigen::MatrixXd V = implicit_step_derivative<NZ, NF, MaxNZ, MaxNF>(equations, z, dn + dm).topRows(dn);
    const ArcOf<S> arc = exact_.extended_flow().template integrate<Variations::full>(s.q, v0, step_size(), s.t);
    Eigen::MatrixXd q1(dn, 2 * dn), v1(dn, 2 * dn);
    q1 << Eigen::MatrixXd(arc.Y) + arc.U * V.leftCols(dn), arc.U * V.rightCols(dn);
    v1 << Eigen::MatrixXd(arc.Y_dot) + arc.U_dot * V.leftCols(dn), arc.U_dot * V.rightCols(dn);
    const auto d = lagrangian_derivatives(sys, arc.q1, arc.v1);
    Eigen::MatrixXd D(2 * dn, 2 * dn);
    D << q1, Eigen::MatrixXd(d.B) * q1 + Eigen::MatrixXd(d.W) * v1;
    return D;
  }

  /// The velocity in D of the momentum on D* (v_k itself, projected onto D), on the affine
  /// constraints at t_k where the model has them.
  VecN<S> velocity(const State& s) const { return velocity_in_distribution(system(), s.q, s.p, s.t); }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }

  /// p̄_k = E(q_k)ᵀ p_k, the momentum on D*.
  VecK<S> constrained_momentum(const State& s) const { return project_onto_distribution(system(), s.q, s.p); }

 private:
  /// W += the work of the forces along the arc of step k + 1, from (q, v) at t_k, where they do
  /// work: the energy balance's W of a run (io/observe.hpp) to the integration's accuracy, as the
  /// steps are, where the trapezoidal rule on the rows would know it to O(h²).
  void add_work(State& s, long k, const VecN<S>& q, const VecN<S>& v) const {
    if constexpr (HasExternalForce<S> || MayHaveAffineConstraints<S>) {
      if (forces_do_work(system())) {
        const double h = step_size();
        try {
          s.work += exact_.extended_flow().work(q, v, h, grid_time(k, h));
        } catch (const SolverError& e) {
          throw e.at(k + 1, grid_time(k + 1, h));
        }
      }
    }
  }

  ExactNonholonomic<S> exact_;
  NewtonOptions newton_;
};

/// The exact discrete trajectory q_k ≈ q(k h), k = 0..steps, from (q0, v0 ∈ D): the reference
/// samples of any Lagrange–d'Alembert model in one call.
template <Model S>
std::vector<PhasePointOf<S>> exact_samples(const S& system, const VecN<S>& q0, const VecN<S>& v0, double h,
                                           long steps, ShootingOptions shooting = {}) {
  const ExactDiscreteFlow<S> exact(system, h, shooting);
  auto s = exact.initial_state(q0, v0);
  std::vector<PhasePointOf<S>> out{{s.q, s.v}};
  for (long i = 0; i < steps; ++i) {
    exact.step(s);
    out.push_back({s.q, s.v});
  }
  return out;
}

}  // namespace dalembert
