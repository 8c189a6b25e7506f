#pragma once
// An energy-preserving nonholonomic integrator from a discrete gradient, for mechanical models
// L = ½ vᵀG(q)v − V(q) with constraints M(q)v = 0 and an external force F(q, v, t). With the energy
// E(q, v) = ½ vᵀG(q)v + V(q), the Lagrange–d'Alembert equations are a skew-gradient system
//   q̇ = G⁻¹ ∂_vE,   G v̇ = −∂_qE + Ω(v) G⁻¹∂_vE + Mᵀλ + F,   M(q) v = 0,
// with the gyroscopic term (Ω(v) y)_k = Σ_ij v_i (∂_k G_ij − ∂_j G_ik) y_j, skew in (k, j)
// (model/metric_derivatives.hpp). One step from (q0, v0) to (q1, v1), at the midpoint
// (q̄, v̄) = ((q0 + q1)/2, (v0 + v1)/2), Δq = q1 − q0, Δv = v1 − v0:
//   Δq = h G(q̄)⁻¹ ∇̄_vE,
//   G(q̄) Δv = h [−∇̄_qE + Ω(v̄) G(q̄)⁻¹∇̄_vE + M̃ᵀλ + F(q̄, v̄, t0 + h/2)],
//   M(q1) v1 = 0,
// with Gonzalez's midpoint discrete gradient ∇̄E = ∇E(q̄, v̄) + c (Δq, Δv), where c makes
// ∇̄E·(Δq, Δv) = E(q1, v1) − E(q0, v0) exactly, and the constraint forces' directions
// M̃ = M(q̄)(I − Δq Δqᵀ/|Δq|²), whose rows are orthogonal to the step. Then
//   E(q1, v1) − E(q0, v0) = ∇̄E·(Δq, Δv) = (M̃Δq)·λ + Δq·F = Δq·F:
// without a force the energy is conserved to round-off and Newton's tolerance, and the constraint
// holds at every step point. M̃ differs from M(q̄) by O(h²) (M(q̄)Δq = O(h³) between two points of
// D), the scheme is symmetric, and it is of order 2 (docs/methods.md). Unknowns (q1, v1, λ), 2n + m;
// the Jacobian comes from forward automatic differentiation of the residual, and Newton takes one
// correction beyond its tolerance so that the energy is conserved to round-off.
#include "dalembert/model/metric_derivatives.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <HasMetric S>
class DiscreteGradient {
 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;

  /// The multiplier is λ of the last step.
  using State = MetricMethodState<S>;

  DiscreteGradient(const S& system, double h, NewtonOptions options = {}) : system_(system), h_(h), options_(options) {}

  double step_size() const { return h_; }
  const S& system() const { return system_; }

  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const { return metric_method_start(system_, q0, v0); }

  void step(State& s) const {
    constexpr int N = sum_of_sizes(multiple_of_size(2, n), m);
    constexpr int MaxN = sum_of_sizes(multiple_of_size(2, max_n_of<S>()), max_m_of<S>());
    using Unknowns = Vecd<N, MaxN>;
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = h_;
    const double E0 = energy_of(s.q, s.v);
    const bool forced = has_external_force(system_);

    const auto residual = [&](const auto& x) {
      using T = typename std::decay_t<decltype(x)>::Scalar;
      const int width = 2 * dn + dm;
      const VecN<S, T> q0 = ad::constants<T>(s.q, width), v0 = ad::constants<T>(s.v, width);
      const VecN<S, T> q1 = x.template head<n>(dn), v1 = x.template segment<n>(dn, dn);
      const VecN<S, T> dq = q1 - q0, dv = v1 - v0;
      const VecN<S, T> q_mid = 0.5 * (q0 + q1), v_mid = 0.5 * (v0 + v1);
      const MetricDerivatives<S, T> mid(system_, q_mid);
      const MatNN<S, T> G = mid.metric();
      VecN<S, T> grad_q = mid.potential_gradient_plus_half_quadratic(v_mid);
      VecN<S, T> grad_v = G * v_mid;
      const T squared_step = dq.squaredNorm() + dv.squaredNorm();
      if (ad::plain(squared_step) > 0) {  // at rest the midpoint gradient is already exact
        const T E1 = 0.5 * v1.dot(dense_metric(system_, q1) * v1) + system_.template potential<T>(q1);
        const T excess = (E1 - E0 - grad_q.dot(dq) - grad_v.dot(dv)) / squared_step;
        grad_q += excess * dq;
        grad_v += excess * dv;
      }
      const VecN<S, T> drift = G.partialPivLu().solve(grad_v);  // Δq/h
      VecN<S, T> force = mid.gyroscopic(v_mid, drift) - grad_q;
      if constexpr (m != 0) {
        if (dm > 0) {
          const MatMN<S, T> M_mid = system_.template constraint_matrix<T>(q_mid);
          MatMN<S, T> M_tilde = M_mid;
          const T squared_dq = dq.squaredNorm();
          if (ad::plain(squared_dq) > 0) M_tilde -= (M_mid * dq) * (dq.transpose() / squared_dq);
          force += M_tilde.transpose() * VecM<S, T>(x.template segment<m>(2 * dn, dm));
        }
      }
      if constexpr (HasExternalForce<S>) {
        if (forced) force += system_.template force<T>(q_mid, v_mid, s.t + 0.5 * h);
      }
      Vec<T, N, MaxN> r(width);
      r << dq - h * drift, G * dv - h * force, VecM<S, T>(system_.template constraint_matrix<T>(q1) * v1);
      return r;
    };
    const auto evaluate = [&](const Unknowns& x, Unknowns& F, Matd<N, N, MaxN, MaxN>& J) {
      ad::value_and_jacobian<N, N, MaxN, MaxN>(residual, x, F, J);
    };
    Unknowns x(2 * dn + dm);
    x << s.q + h * s.v, s.v, s.multiplier;
    const double scale = std::max(s.v.template lpNorm<Eigen::Infinity>(), s.p.template lpNorm<Eigen::Infinity>());
    const NewtonReport r = newton_solve<N, MaxN>(evaluate, x, scale, options_);
    if (!r.converged) throw SolverError(s.k + 1, grid_time(s.k + 1, h), r);
    // A step's energy error is of the size of the residual Newton stops at (its tolerance, 1e-13 by
    // default): one more correction, quadratically convergent from there, takes it to round-off.
    Unknowns F(x.size());
    Matd<N, N, MaxN, MaxN> J(x.size(), x.size());
    evaluate(x, F, J);
    const Unknowns correction = J.partialPivLu().solve(F);
    if (correction.allFinite()) x -= correction;
    s.q = x.template head<n>(dn);
    s.v = x.template segment<n>(dn, dn);
    s.p = metric_matrix(system_, s.q) * s.v;
    s.multiplier = x.template segment<m>(2 * dn, dm);
    advance(s, h);
    s.iterations = r.iterations + 1;
  }

  VecN<S> velocity(const State& s) const { return s.v; }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }

 private:
  /// E = ½ vᵀG(q)v + V(q), the same dense formula as in the residual (a locally coupled model's
  /// energy() sums its terms, which may differ in the last bits).
  double energy_of(const VecN<S>& q, const VecN<S>& v) const {
    return 0.5 * v.dot(metric_matrix(system_, q) * v) + system_.template potential<double>(q);
  }

  S system_;
  double h_;
  NewtonOptions options_;
};

}  // namespace dalembert
