#pragma once
// The exact discrete nonholonomic flow ([ASMM22] §5.2, Thm 5.5; [AS21] §7.2, Thm 7.2.3):
//   F^+_{h,nh}l(q_{k−1}, q_k) = F^−_{h,nh}l(q_k, q_{k+1}),   (q_k, q_{k+1}) ∈ M^{e,nh}_h,
// with the exact discrete nonholonomic Legendre maps F^±_{h,nh}l = Fl∘R^{e±}_{h,nh}. Position–
// momentum form, state (q_k, p_k = FL(q_k, v_k)), v_k = R^{e+}(q_{k−1}, q_k) ∈ D: solve
//   E(q_k)ᵀ[∂L/∂v(q_k, R^{e−}(q_k, q_{k+1})) − p_k] = 0,   M(q_k) R^{e−}(q_k, q_{k+1}) = 0
// for q_{k+1} by Newton, each residual a shooting solve (discrete/shooting.hpp) and the Jacobian
// [E(q_k)ᵀW; M(q_k)] U(h)⁻¹ from its sensitivities; then v_{k+1} = R^{e+}(q_k, q_{k+1}). The first
// guess is one classical Runge–Kutta step, always corrected by at least one Newton step. Its
// iterates are the continuous trajectory at t_k = k h to the shooting tolerance, for any h below
// the first conjugate point; at a conjugate point the shooting Jacobian U(h) is singular and the
// step fails with a SolverError that says so.
//
// This is the library's reference for any Lagrange–d'Alembert model. For C++ use:
//   const ExactDiscreteFlow<MySystem> exact(sys, h);            // or exact_samples(sys, q0, v0, h, N)
//   auto s = exact.initial_state(q0, v0);  exact.step(s);  ... s.q, exact.velocity(s)
#include <vector>

#include "dalembert/discrete/exact_nonholonomic.hpp"
#include "dalembert/model/constrained_momentum.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <Model S>
class ExactDiscreteFlow {
 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;

  struct State {
    long k = 0;
    double t = 0.0;
    VecN<S> q;
    VecN<S> p;  ///< FL(q_k, v_k); E(q_k)ᵀp is the momentum on D* = F^+_{h,nh}l(q_{k−1}, q_k)
    VecN<S> v;  ///< v_k = R^{e+}(q_{k−1}, q_k) = R^{e−}(q_k, q_{k+1})
    double discrete_constraint = 0.0;  ///< |ω_e(q_{k−1}, q_k)|_inf
    int iterations = 0;                ///< Newton iterations of the last step
    int shooting_iterations = 0;       ///< shooting iterations of the last residual evaluation
  };

  ExactDiscreteFlow(const S& system, double h, ShootingOptions shooting = {}, NewtonOptions newton = {})
      : exact_(system, h, shooting), newton_(newton) {
    // The residual is known to the shooting accuracy only.
    newton_.tolerance = std::max(newton_.tolerance, shooting.tolerance);
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
        s.discrete_constraint =
            (system().template constraint_matrix<double>(q0) * a.v0).template lpNorm<Eigen::Infinity>();
    }
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
    VecN<S> x = runge_kutta_step(s.q, s.v, s.t);
    VecN<S> guess = s.v;  // R^{e−}(q_k, q_{k+1}) = v_k at the solution
    ArcOf<S> arc;         // of the last evaluation = at the solution
    const auto evaluate = [&](const VecN<S>& q1, VecN<S>& F, MatNN<S>& J) {
      arc = exact_.arc(s.q, q1, guess);
      guess = arc.v0;
      const auto d = lagrangian_derivatives(sys, s.q, arc.v0);
      MatNN<S> A(dn, dn);  // the residual's derivative with respect to R^{e−}
      A.template topRows<k>(dk) = E.transpose() * d.W;
      F.template head<k>(dk) = E.transpose() * (d.Lv - s.p);
      if constexpr (m != 0) {
        if (dm > 0) {
          A.template bottomRows<m>(dm) = Mq;
          F.template segment<m>(dk, dm) = Mq * arc.v0;
        }
      }
      J = arc.U.transpose().partialPivLu().solve(A.transpose()).transpose();  // A U⁻¹
    };
    NewtonReport r;
    try {
      // Always one Newton correction of the predictor, so that the result is the solution of the
      // exact discrete equations and not the predictor accepted within the tolerance.
      VecN<S> F(dn);
      MatNN<S> J(dn, dn);
      evaluate(x, F, J);
      // Positions are known to the relative shooting tolerance, the shot velocity R^{e−} therefore
      // to tolerance·(1 + |q|)·|U(h)⁻¹|: about 1/h for small h, and growing without bound towards
      // a conjugate point, where U(h) becomes singular. The residual's scale includes that.
      const double amplification =
          std::max(1.0 / h, MatNN<S>(arc.U.partialPivLu().inverse()).cwiseAbs().rowwise().sum().maxCoeff());
      const double scale = std::max({s.p.template lpNorm<Eigen::Infinity>(), s.v.template lpNorm<Eigen::Infinity>(),
                                     (1.0 + s.q.template lpNorm<Eigen::Infinity>()) * amplification});
      x -= J.partialPivLu().solve(F);
      r = newton_solve<n, max_n_of<S>()>(evaluate, x, scale, newton_);
      r.iterations += 1;
    } catch (const SolverError& e) {  // a shooting failure: conjugate point, no convergence, an arc's limit
      throw e.at(s.k + 1, grid_time(s.k + 1, h));
    }
    if (!r.converged) throw SolverError(s.k + 1, grid_time(s.k + 1, h), r);
    if constexpr (m != 0) {
      if (dm > 0) s.discrete_constraint = (Mq * arc.v0).template lpNorm<Eigen::Infinity>();
    }
    s.q = x;
    s.v = arc.v1;
    s.p = momentum(sys, x, arc.v1);
    advance(s, h);
    s.iterations = r.iterations;
    s.shooting_iterations = arc.iterations;
  }

  /// The velocity in D of the momentum on D* (v_k itself, projected onto D).
  VecN<S> velocity(const State& s) const { return velocity_in_distribution(system(), s.q, s.p); }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }

  /// p̄_k = E(q_k)ᵀ p_k, the momentum on D*.
  VecK<S> constrained_momentum(const State& s) const { return project_onto_distribution(system(), s.q, s.p); }

 private:
  VecN<S> runge_kutta_step(const VecN<S>& q, const VecN<S>& v, double t) const {
    const double h = step_size();
    const auto a = [&](const VecN<S>& qq, const VecN<S>& vv, double tt) { return acceleration(system(), qq, vv, tt); };
    const VecN<S> k1v = a(q, v, t);
    const VecN<S> k2q = v + 0.5 * h * k1v, k2v = a(q + 0.5 * h * v, k2q, t + 0.5 * h);
    const VecN<S> k3q = v + 0.5 * h * k2v, k3v = a(q + 0.5 * h * k2q, k3q, t + 0.5 * h);
    const VecN<S> k4q = v + h * k3v;
    return q + h / 6.0 * (v + 2.0 * k2q + 2.0 * k3q + k4q);
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
