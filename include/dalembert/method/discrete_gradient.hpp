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
// D), the scheme is symmetric, and it is of order 2 (docs/methods.md).
// The equations are stated once, multiplied through by G(q̄) so that none needs G⁻¹, as the shares
// of a part of the model (`shares`): the whole model's, or a term's of a locally coupled model
// (model/local_terms.hpp), whose sum is the model's. With the two scalars that couple all
// coordinates, c and σ = λ·M(q̄)Δq/|Δq|² (M̃ᵀλ = M(q̄)ᵀλ − σΔq), the storage decides the unknowns:
//  - dense: (q1, v1, λ), 2n + m, with c and σ eliminated (`equations`); the Jacobian by forward
//    automatic differentiation; from sizes::discrete_gradient_chord_unknowns unknowns on, where the
//    Jacobian costs far more than the residual, chord iterations on a factorisation kept from step
//    to step (as SPARK's), ending with one Newton step at the chord's solution;
//  - by terms (a locally coupled model without external force): (q1, v1, λ, c, σ), whose Jacobian
//    is sparse but for c's and σ's rows and columns, assembled from each term's derivatives
//    (`equations_by_terms`), by Newton.
// Either way one Newton correction beyond the tolerance follows, so that the energy is conserved
// to round-off. The equations are generic in the scalar type of the start (q0, v0) too, and the
// step's derivative by its start comes from them by the implicit-function theorem
// (step_derivative, sparse_step_derivative).
#include <type_traits>

#include "dalembert/core/sizes.hpp"
#include "dalembert/method/metric_method.hpp"
#include "dalembert/model/local_terms.hpp"
#include "dalembert/model/metric_derivatives.hpp"
#include "dalembert/solve/dual_lu.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

/// The discrete gradient's state: that of the methods written with the metric, and for the chord
/// iterations of large systems the factorised Jacobian kept from step to step and the increments of
/// the last steps' unknowns, (q1 − q0, v1 − v0, λ), from which the next step's guess is extrapolated.
template <HasMetric S>
struct DiscreteGradientState : MetricMethodState<S> {
  static constexpr int unknowns = sum_of_sizes(multiple_of_size(2, S::n), S::m),
                       max_unknowns = sum_of_sizes(multiple_of_size(2, max_n_of<S>()), max_m_of<S>());
  KeptJacobian<Matd<unknowns, unknowns, max_unknowns, max_unknowns>> kept_jacobian;
  StepIncrements<Vec<double, unknowns, max_unknowns>> increments;
};

template <HasMetric S>
class DiscreteGradient : public MetricMethod<DiscreteGradient<S>, S, DiscreteGradientState<S>> {
  using Base = MetricMethod<DiscreteGradient<S>, S, DiscreteGradientState<S>>;
  friend Base;
  using Base::options_, Base::h_, Base::system_;

 public:
  using Base::n, Base::m;
  /// The unknowns of a step, (q1, v1, λ), in the scalar type T.
  template <class T>
  using Unknowns = Vec<T, sum_of_sizes(multiple_of_size(2, n), m),
                       sum_of_sizes(multiple_of_size(2, max_n_of<S>()), max_m_of<S>())>;

  /// The multiplier is λ of the last step.
  using typename Base::State;

  DiscreteGradient(const S& system, double h, NewtonOptions options = {}) : Base(system, h, options) {}

  /// ∂/∂(q_k, p_k) of the step by terms from s, as a map (solve/step_driver.hpp): D * (δq_k, δp_k) is
  /// (δq_{k+1}, δv_{k+1}, δλ, δc, δσ, δp_{k+1}). By the implicit-function theorem on the step's
  /// equations by terms (equations_by_terms), differentiated by (q_k, v_k): each term's share at its
  /// fixed size by its own (q_k, v_k, q_{k+1}, v_{k+1}, λ), and c and σ couple the terms through the
  /// rows and columns equations_by_terms gives them; v_k = G(q_k)⁻¹p_k. It takes a step of its own.
  SparseStepDerivativeByVelocity sparse_step_derivative(const State& s) const
    requires SteppedByTerms<S>
  {
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const int c_index = 2 * dn + dm, sigma_index = c_index + 1, size = c_index + 2;
    const double h = h_;
    State next = s;
    const Eigen::VectorXd x = solve_by_terms(next);
    const double c = x[c_index], sigma = x[sigma_index];
    const Eigen::VectorXd dq = x.head(dn) - s.q, dv = x.segment(dn, dn) - s.v;
    // c's and σ's rows hold c and σ alone at a step of zero length (equations_by_terms)
    const bool c_coupled = dq.squaredNorm() + dv.squaredNorm() > 0, sigma_coupled = dq.squaredNorm() > 0;
    // By x = (q1, v1, λ, c, σ): the step's own Jacobian; by σ = (q0, v0): the terms' shares and the
    // couplings through c and σ; p0 = G(q0) v0 and p1 = G(q1) v1 from the terms.
    Eigen::VectorXd F;
    local::Triplets F_x, F_sigma, y_x, metric, momentum_by_q;  // F_σ by σ = (q_k, v_k)
    equations_by_terms(s.q, s.v, x, F, F_x);
    int constraint_row = 0;
    system_.visit_terms([&](const auto& term, const auto& indices) {
      using Term = std::decay_t<decltype(term)>;
      constexpr int K = Term::n, m_e = Term::m, Z = 4 * K + m_e, R = 4 * K + m_e + 2;
      // z = (q0, v0, q1, v1, λ) of the term ↦ (its equations' shares, G(q0) v0, G(q1) v1)
      const auto shares = [&](const auto& z) {
        using T = typename std::decay_t<decltype(z)>::Scalar;
        const Vec<T, K> q0 = z.template head<K>(), v0 = z.template segment<K>(K);
        const Vec<T, K> q1 = z.template segment<K>(2 * K), v1 = z.template segment<K>(3 * K);
        const T E0 = 0.5 * v0.dot(dense_metric(term, q0) * v0) + term.template potential<T>(q0);
        Vec<T, R> out;
        const Vec<T, 2 * K + m_e> y = z.template tail<2 * K + m_e>();
        out.template head<2 * K + m_e + 2>() = term_shares(term, h, q0, v0, E0, y);
        out.template segment<K>(2 * K + m_e + 2) = dense_metric(term, q0) * v0;
        out.template tail<K>() = dense_metric(term, q1) * v1;
        return out;
      };
      Vecd<Z> z;
      z.template head<4 * K>() << local::gather(s.q, indices), local::gather(s.v, indices),
          local::gather(next.q, indices), local::gather(next.v, indices);
      if constexpr (m_e > 0) z.template tail<m_e>() = x.segment(2 * dn + constraint_row, m_e);
      Vecd<R> value;
      Matd<R, Z> J;
      ad::value_and_jacobian<Z, R>(shares, z, value, J);
      const auto row_of = [&](int r) {  // the row in the equations, or −1 for G(q0) v0's and G(q1) v1's
        if (r < K) return indices[r];
        if (r < 2 * K) return dn + indices[r - K];
        if (r < 2 * K + m_e) return 2 * dn + constraint_row + (r - 2 * K);
        if (r == 2 * K + m_e) return c_index;  // its share of the energy excess, which c's row subtracts
        if (r == 2 * K + m_e + 1) return sigma_index;  // its share of λ·M(q̄)Δq, which σ's row subtracts
        return -1;  // G(q0) v0 and G(q1) v1
      };
      for (int r = 0; r < R; ++r) {
        const int row = row_of(r);
        if ((row == c_index && !c_coupled) || (row == sigma_index && !sigma_coupled)) continue;
        const double sign = (row == c_index || row == sigma_index) ? -1.0 : 1.0;
        if (r >= 3 * K + m_e + 2) {  // p1 = G(q1) v1, by (q1, v1)
          const int p_row = indices[r - 3 * K - m_e - 2];
          for (int j = 2 * K; j < 4 * K; ++j)
            if (J(r, j) != 0.0)
              y_x.emplace_back(p_row, j < 3 * K ? indices[j - 2 * K] : dn + indices[j - 3 * K], J(r, j));
        } else if (row < 0) {  // p0 = G(q0) v0, by (q0, v0)
          const int p_row = indices[r - 2 * K - m_e - 2];
          for (int j = 0; j < 2 * K; ++j)
            if (J(r, j) != 0.0) (j < K ? momentum_by_q : metric).emplace_back(p_row, indices[j % K], J(r, j));
        } else {
          for (int j = 0; j < 2 * K; ++j)  // by (q0, v0) of the term
            if (J(r, j) != 0.0) F_sigma.emplace_back(row, j < K ? indices[j] : dn + indices[j - K], sign * J(r, j));
        }
      }
      constraint_row += m_e;
    });
    // The coupling through c and σ, by the start: the drift rows carry −h c Δv, the momentum rows
    // h (c + σ) Δq, c's row c |Δ|² and σ's row σ |Δq|² (at a step of non-zero length).
    for (int i = 0; i < dn; ++i) {
      F_sigma.emplace_back(i, dn + i, h * c);
      F_sigma.emplace_back(dn + i, i, -h * (c + sigma));
      if (c_coupled) {
        F_sigma.emplace_back(c_index, dn + i, -2.0 * c * dv[i]);
        F_sigma.emplace_back(c_index, i, -2.0 * c * dq[i]);
      }
      if (sigma_coupled) F_sigma.emplace_back(sigma_index, i, -2.0 * sigma * dq[i]);
    }
    using local::sparse_matrix;
    return SparseStepDerivativeByVelocity(sparse_matrix(size, 2 * dn, F_sigma), sparse_matrix(size, size, F_x),
                                          sparse_matrix(dn, 2 * dn, {}), sparse_matrix(dn, size, y_x),
                                          sparse_matrix(dn, dn, metric), sparse_matrix(dn, dn, momentum_by_q));
  }

  /// Where δq_{k+1} is among the rows of sparse_step_derivative's products: its products start with δq_{k+1}.
  Eigen::Index next_position_row(const State&) const { return 0; }

 private:
  /// The step's residual from (q0, v0), E0 = E(q0, v0), at x = (q1, v1, λ), with a constant external
  /// force f added to the model's: the whole model's shares (`shares`) with c and σ eliminated,
  ///   c = (E(q1, v1) − E0 − ∇E(q̄, v̄)·Δ)/|Δ|²,   σ = λ·M(q̄)Δq/|Δq|²
  /// (zero at a step of zero length), and added as ∇̄E = ∇E(q̄, v̄) + cΔ and M̃ᵀλ = M(q̄)ᵀλ − σΔq:
  /// the drift rows, the momentum rows, the constraint rows. Generic in x's scalar U (with `width`
  /// derivatives) and in the start's T, double in a step, U for its derivative.
  template <class T, class X, class F = NoConstantForce>
  auto equations(const VecN<S, T>& start_q, const VecN<S, T>& start_v, const T& E0, const X& x,
                 double t0, int width, const F& f = {}) const {
    using U = typename X::Scalar;
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = h_;
    const VecN<S, U> q0 = ad::in_scalar<U>(start_q, width), v0 = ad::in_scalar<U>(start_v, width);
    const auto forces = [&](VecN<S, U>& rows, const VecN<S, U>& q_mid, const VecN<S, U>& v_mid) {
      if constexpr (HasExternalForce<S>) {
        if (has_external_force(system_)) rows -= h * system_.template force<U>(q_mid, v_mid, t0 + 0.5 * h);
      }
      add_constant_force(rows, f, -h);
    };
    const auto share = shares(system_, h, q0, v0, E0, x, forces);
    const VecN<S, U> dq = x.template head<n>(dn) - q0, dv = x.template segment<n>(dn, dn) - v0;
    const U squared_dq = dq.squaredNorm(), squared_step = squared_dq + dv.squaredNorm();
    const U c = ad::plain(squared_step) > 0 ? U(share[2 * dn + dm] / squared_step) : ad::lift<U>(0.0);
    const U sigma = ad::plain(squared_dq) > 0 ? U(share[2 * dn + dm + 1] / squared_dq) : ad::lift<U>(0.0);
    Unknowns<U> r(2 * dn + dm);
    r << share.template head<n>(dn) - (h * c) * dv, share.template segment<n>(dn, dn) + (h * (c + sigma)) * dq,
        share.template segment<m>(2 * dn, dm);
    return r;
  }

  /// The unknowns at the solution of the step s → next, and the equations from a start (q0, v0, p0)
  /// in any scalar type, with p1 = G(q1) v1: what the step's derivatives differentiate
  /// (MetricMethod::step_derivatives).
  Unknowns<double> unknowns_at(const State&, const State& next) const {
    Unknowns<double> x(2 * next.q.size() + next.multiplier.size());
    x << next.q, next.v, next.multiplier;
    return x;
  }
  template <class Q, class F, class X>
  auto step_equations(const Q& q0, const Q& v0, const Q& p0, const F& f, const X& x, double t0, int width) const {
    using U = typename Q::Scalar;
    const int dn = coordinate_count(system_);
    const U E0 = 0.5 * v0.dot(p0) + system_.template potential<U>(q0);
    struct {
      Unknowns<U> residual;
      VecN<S, U> q1, p1;
    } e{equations(q0, v0, E0, x, t0, width, f), x.template head<n>(dn), VecN<S, U>(dn)};
    e.p1 = coefficient_product(dense_metric(system_, e.q1), VecN<S, U>(x.template segment<n>(dn, dn)));
    return e;
  }

  void dense_step(State& s) const {
    constexpr int N = Unknowns<double>::RowsAtCompileTime, MaxN = Unknowns<double>::MaxRowsAtCompileTime;
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = h_;
    const double E0 = energy_of(s.q, s.v);
    const int size = 2 * dn + dm;
    const auto residual = [&](const auto& x) { return equations(s.q, s.v, E0, x, s.t, size); };
    constexpr bool may_chord = N == Dynamic || N >= sizes::discrete_gradient_chord_unknowns;
    const bool chord = may_chord && size >= sizes::discrete_gradient_chord_unknowns;
    // First guess: for the chord iterations the last steps' increments extrapolated (StepIncrements,
    // solve/step_driver.hpp); for Newton, and at the first step, q drifting with v, v and λ as they are.
    Unknowns<double> x(size);
    if (chord && s.increments.extrapolate(x)) {
      x.template head<n>(dn) += s.q;
      x.template segment<n>(dn, dn) += s.v;
    } else {
      x << s.q + h * s.v, s.v, s.multiplier;
    }
    const double scale = std::max(s.v.template lpNorm<Eigen::Infinity>(), s.p.template lpNorm<Eigen::Infinity>());
    // F and J at the solution to the tolerance, for the correction below: from the chord's solution,
    // or Newton's last evaluation, which is there (solve/newton.hpp).
    Unknowns<double> F(size);
    Matd<N, N, MaxN, MaxN> J(size, size);
    int iterations = 0;
    if (chord) {
      if constexpr (may_chord) {
        // The chord takes the Jacobian alone; the residual evaluated with it goes to F, overwritten below.
        const auto jacobian = [&](const Unknowns<double>& y, Matd<N, N, MaxN, MaxN>& out) {
          out.resize(size, size);
          ad::value_and_jacobian<N, N, MaxN, MaxN>(residual, y, F, out);
        };
        iterations = chord_solve(s, h, residual, jacobian, x, scale, options_, s.kept_jacobian);
        ad::value_and_jacobian<N, N, MaxN, MaxN>(residual, x, F, J);
      }
    } else {
      const auto residual_at = [&](const Unknowns<double>& y, Unknowns<double>& out) {
        ad::value_and_jacobian<N, N, MaxN, MaxN>(residual, y, F, J);
        out = F;
      };
      const auto jacobian_at = [&](const Unknowns<double>&, Matd<N, N, MaxN, MaxN>& out) { out = J; };
      iterations = solve_step<Matd<N, N, MaxN, MaxN>>(s, h, SeparateEquations{residual_at, jacobian_at}, x, scale,
                                                      options_)
                       .iterations;
    }
    // A step's energy error is of the size of the residual the iterations stop at (Newton's
    // tolerance, 1e-13 by default): one Newton correction, quadratically convergent from there,
    // takes it to round-off.
    const Unknowns<double> correction = J.partialPivLu().solve(F);
    if (correction.allFinite()) x -= correction;
    if (chord) {
      Unknowns<double> increments = x;
      increments.template head<n>(dn) -= s.q;
      increments.template segment<n>(dn, dn) -= s.v;
      s.increments.record(std::move(increments));
    }
    s.q = x.template head<n>(dn);
    s.v = x.template segment<n>(dn, dn);
    s.p = metric_matrix(system_, s.q) * s.v;
    s.multiplier = x.template segment<m>(2 * dn, dm);
    advance(s, h);
    s.iterations = iterations + 1;
  }

  /// A part's share of the step's equations, the whole model's or, for a locally coupled model, a
  /// term's, at its unknowns y = (q1, v1, λ) (λ: the part's constraint rows) from its (q0, v0) with
  /// E0 = E(q0, v0); with q̄, v̄, Δq, Δv of the part:
  ///   G(q̄)Δq − h G(q̄)v̄                                       (the drift rows),
  ///   G(q̄)Δv − Ω(v̄)Δq + h ∇_qE(q̄, v̄) − h M(q̄)ᵀλ − h F̄      (the momentum rows),
  ///   M(q1) v1                                                (the constraint rows),
  ///   E(q1, v1) − E0 − ∇E(q̄, v̄)·(Δq, Δv),  λ·M(q̄)Δq          (its shares of two sums),
  /// where forces(rows, q̄, v̄) subtracts h F̄, the external forces at the midpoint (a term has none).
  /// These are the equations of the step multiplied through by G(q̄): no row needs G⁻¹, and the drift
  /// Δq/h stands for G(q̄)⁻¹∇̄_vE in the gyroscopic term, which the drift equation makes equal. The
  /// energy's share is O(h³), so that a sum of the terms' shares keeps its round-off small where E
  /// itself is large (E(q1, v1) − E(q0, v0) of the whole model, about 400 on a thousand skates,
  /// left the c equation at 1e-11). The start (q0, v0, E0) is in y's scalar type, or of doubles.
  template <class Part, class Q, class E, class Y, class Forces>
  static auto shares(const Part& part, double h, const Q& q0, const Q& v0, const E& E0, const Y& y,
                     Forces&& forces) {
    using T = typename Y::Scalar;
    constexpr int K = Part::n, m_e = Part::m;
    const int k = coordinate_count(part), dm = constraint_count(part);
    const VecN<Part, T> q1 = y.template head<K>(k), v1 = y.template segment<K>(k, k);
    const VecN<Part, T> dq = q1 - q0, dv = v1 - v0;
    const VecN<Part, T> q_mid = 0.5 * (q0 + q1), v_mid = 0.5 * (v0 + v1);
    const MetricDerivatives<Part, T> mid(part, q_mid);
    const MatNN<Part, T> G = mid.constant() ? MatNN<Part, T>() : mid.metric();  // a varying metric, in T
    const auto metric_times = [&](const VecN<Part, T>& w) -> VecN<Part, T> {
      if (mid.constant()) return mid.metric_product(w);
      return coefficient_product(G, w);
    };
    const VecN<Part, T> grad_q = mid.potential_gradient_plus_half_quadratic(v_mid), momentum_mid = metric_times(v_mid);
    Vec<T, sum_of_sizes(sum_of_sizes(multiple_of_size(2, K), m_e), 2),
        sum_of_sizes(sum_of_sizes(multiple_of_size(2, max_n_of<Part>()), max_m_of<Part>()), 2)>
        out(2 * k + dm + 2);
    out.template head<K>(k) = metric_times(dq) - h * momentum_mid;
    VecN<Part, T> momentum_rows = metric_times(dv) - mid.gyroscopic(v_mid, dq) + h * grad_q;
    forces(momentum_rows, q_mid, v_mid);
    T lambda_times_M_dq = ad::lift<T>(0.0);
    if constexpr (m_e != 0) {
      if (dm > 0) {
        const VecM<Part, T> lambda = y.template segment<m_e>(2 * k, dm);
        const MatMN<Part, T> M_mid = part.template constraint_matrix<T>(q_mid);
        momentum_rows -= h * VecN<Part, T>(coefficient_product(M_mid.transpose(), lambda));
        lambda_times_M_dq = lambda.dot(VecM<Part, T>(coefficient_product(M_mid, dq)));
        out.template segment<m_e>(2 * k, dm) = coefficient_product(part.template constraint_matrix<T>(q1), v1);
      }
    }
    out.template segment<K>(k, k) = momentum_rows;
    const VecN<Part, T> G1v1 =
        mid.constant() ? metric_times(v1) : VecN<Part, T>(coefficient_product(dense_metric(part, q1), v1));
    const T E1 = 0.5 * v1.dot(G1v1) + part.template potential<T>(q1);
    out[2 * k + dm] = (E1 - E0) - (grad_q.dot(dq) + momentum_mid.dot(dv));
    out[2 * k + dm + 1] = lambda_times_M_dq;
    return out;
  }
  /// A term's shares, from its start of doubles or of y's scalar type: a term has no external force.
  template <class Term, class Q, class E, class Y>
  static auto term_shares(const Term& term, double h, const Q& q0, const Q& v0, const E& E0, const Y& y) {
    using T = typename Y::Scalar;
    const int width = static_cast<int>(y.size());
    return shares(term, h, ad::in_scalar<T>(q0, width), ad::in_scalar<T>(v0, width), E0, y, [](auto&&...) {});
  }

  /// The equations of step_by_terms and their Jacobian's entries at x = (q1, v1, λ, c, σ):
  ///   G(q̄)Δq − h ∇̄_vE = 0,   G(q̄)Δv − Ω(v̄)Δq + h ∇̄_qE − h M̃ᵀλ = 0,   M(q1) v1 = 0,
  ///   c |Δ|² − (E(q1, v1) − E0 − ∇E(q̄, v̄)·Δ) = 0,   σ |Δq|² − λ·M(q̄)Δq = 0,
  /// with ∇̄E = ∇E(q̄, v̄) + c Δ, M̃ᵀλ = M(q̄)ᵀλ − σ Δq; at a step of zero length c = 0 (σ = 0 when
  /// Δq = 0), as in the dense step.
  void equations_by_terms(const Eigen::VectorXd& q0, const Eigen::VectorXd& v0, const Eigen::VectorXd& x,
                          Eigen::VectorXd& F, local::Triplets& entries) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const int c_index = 2 * dn + dm, sigma_index = c_index + 1;
    const double h = h_, c = x[c_index], sigma = x[sigma_index];
    const Eigen::VectorXd dq = x.head(dn) - q0, dv = x.segment(dn, dn) - v0;
    F.setZero(x.size());
    entries.clear();
    // the rows of c's and σ's equations, dense in the unknowns they depend on
    Eigen::VectorXd c_row = Eigen::VectorXd::Zero(x.size()), sigma_row = Eigen::VectorXd::Zero(x.size());
    double energy_excess = 0.0, lambda_times_M_dq = 0.0;  // E1 − E0 − ∇E·Δ and λ·M(q̄)Δq
    int constraint_row = 0;
    system_.visit_terms([&](const auto& term, const auto& indices) {
      using Term = std::decay_t<decltype(term)>;
      constexpr int K = Term::n, m_e = Term::m, Y = 2 * K + m_e, R = 2 * K + m_e + 2;
      const auto column = [&](int j) {
        return j < K ? indices[j] : j < 2 * K ? dn + indices[j - K] : 2 * dn + constraint_row + (j - 2 * K);
      };
      Vecd<Y> y;
      for (int j = 0; j < Y; ++j) y[j] = x[column(j)];
      Vecd<R> value;
      Matd<R, Y> jacobian;
      const Vecd<K> q0e = local::gather(q0, indices), v0e = local::gather(v0, indices);
      const double E0 = 0.5 * v0e.dot(dense_metric(term, q0e) * v0e) + term.template potential<double>(q0e);
      ad::value_and_jacobian<Y, R>([&](const auto& yd) { return term_shares(term, h, q0e, v0e, E0, yd); }, y, value,
                                   jacobian);
      const auto add_row = [&](int row, int local_row) {
        F[row] += value[local_row];
        for (int j = 0; j < Y; ++j) entries.emplace_back(row, column(j), jacobian(local_row, j));
      };
      for (int i = 0; i < K; ++i) add_row(indices[i], i);
      for (int i = 0; i < K; ++i) add_row(dn + indices[i], K + i);
      for (int r = 0; r < m_e; ++r) add_row(2 * dn + constraint_row + r, 2 * K + r);
      energy_excess += value[2 * K + m_e];
      lambda_times_M_dq += value[2 * K + m_e + 1];
      for (int j = 0; j < Y; ++j) {
        c_row[column(j)] -= jacobian(2 * K + m_e, j);
        sigma_row[column(j)] -= jacobian(2 * K + m_e + 1, j);
      }
      constraint_row += m_e;
    });
    // the coupling through c and σ
    F.head(dn) -= (h * c) * dv;
    F.segment(dn, dn) += (h * (c + sigma)) * dq;
    for (int i = 0; i < dn; ++i) {
      entries.emplace_back(i, dn + i, -h * c);
      entries.emplace_back(i, c_index, -h * dv[i]);
      entries.emplace_back(dn + i, i, h * (c + sigma));
      entries.emplace_back(dn + i, c_index, h * dq[i]);
      entries.emplace_back(dn + i, sigma_index, h * dq[i]);
    }
    const double squared_dq = dq.squaredNorm(), squared_step = squared_dq + dv.squaredNorm();
    if (squared_step > 0) {
      F[c_index] = c * squared_step - energy_excess;
      c_row.head(dn) += (2 * c) * dq;
      c_row.segment(dn, dn) += (2 * c) * dv;
      c_row[c_index] = squared_step;
    } else {
      F[c_index] = c;
      c_row.setZero();
      c_row[c_index] = 1.0;
    }
    if (squared_dq > 0) {
      F[sigma_index] = sigma * squared_dq - lambda_times_M_dq;
      sigma_row.head(dn) += (2 * sigma) * dq;
      sigma_row[sigma_index] = squared_dq;
    } else {
      F[sigma_index] = sigma;
      sigma_row.setZero();
      sigma_row[sigma_index] = 1.0;
    }
    // the same pattern at every call: c's row over (q1, v1, c), σ's over (q1, λ, σ)
    for (int j = 0; j < 2 * dn; ++j) entries.emplace_back(c_index, j, c_row[j]);
    entries.emplace_back(c_index, c_index, c_row[c_index]);
    for (int j = 0; j < dn; ++j) entries.emplace_back(sigma_index, j, sigma_row[j]);
    for (int j = 2 * dn; j < c_index; ++j) entries.emplace_back(sigma_index, j, sigma_row[j]);
    entries.emplace_back(sigma_index, sigma_index, sigma_row[sigma_index]);
  }

  void step_by_terms(State& s) const { solve_by_terms(s); }

  /// The step of the same equations with a sparse Jacobian (equations_by_terms), and the one
  /// correction beyond Newton's tolerance of the dense step; its unknowns (q1, v1, λ, c, σ).
  Eigen::VectorXd solve_by_terms(State& s) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_), size = 2 * dn + dm + 2;
    const double h = h_;
    local::Triplets entries;  // of the latest evaluation, which Newton makes at the solution
    Eigen::VectorXd F(size);  // the same
    const auto residual = [&](const Eigen::VectorXd& x, Eigen::VectorXd& out) {
      equations_by_terms(s.q, s.v, x, out, entries);
      F = out;
    };
    const auto jacobian = [&](const Eigen::VectorXd&, Eigen::SparseMatrix<double>& J) {
      J.setFromTriplets(entries.begin(), entries.end());
    };
    Eigen::VectorXd x(size);
    x << s.q + h * s.v, s.v, s.multiplier, 0.0, 0.0;
    const double scale = std::max(s.v.template lpNorm<Eigen::Infinity>(), s.p.template lpNorm<Eigen::Infinity>());
    const NewtonReport r =
        solve_step<Eigen::SparseMatrix<double>>(s, h, SeparateEquations{residual, jacobian}, x, scale, options_);
    Eigen::SparseMatrix<double> J(size, size);
    jacobian(x, J);
    const Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(J);
    if (lu.info() == Eigen::Success) {
      const Eigen::VectorXd correction = lu.solve(F);
      if (correction.allFinite()) x -= correction;
    }
    s.q = x.head(dn);
    s.v = x.segment(dn, dn);
    s.p = local::momentum(system_, s.q, s.v);
    s.multiplier = x.segment(2 * dn, dm);
    advance(s, h);
    s.iterations = r.iterations + 1;
    return x;
  }

  /// E = ½ vᵀG(q)v + V(q), the same dense formula as in the residual (a locally coupled model's
  /// energy() sums its terms, which may differ in the last bits).
  double energy_of(const VecN<S>& q, const VecN<S>& v) const {
    return 0.5 * v.dot(metric_matrix(system_, q) * v) + system_.template potential<double>(q);
  }

};

}  // namespace dalembert
