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
// A holonomic constraint φ(q) = 0 (model/model.hpp) is imposed on the new positions: its row is
// φ(q1) = 0 in place of dφ(q1)·v1 = 0, and its force keeps M̃'s direction. Between two points of
// φ = 0 that direction is Gonzalez's discrete gradient of φ, dφ(q̄) + (φ(q1) − φ(q0) − dφ(q̄)Δq)
// Δq/|Δq|², so this is Gonzalez's conserving scheme for holonomic constraints ([Gon99]): φ holds at
// every step point to round-off, the energy is conserved as before, and dφ(q1)·v1 = O(h²). Written
// with M̃, the direction needs no difference φ(q1) − φ(q0), whose round-off over |Δq|² would grow
// without bound at a step of nearly zero length. The row is not divided by h: its Jacobian dφ(q1) is
// of the size of the drift rows', and φ's round-off over a small h would stay above Newton's
// tolerance.
// The equations are stated once, multiplied through by G(q̄) so that none needs G⁻¹, as the sum of
// the shares of the parts of the model (`shares`): the whole model, or the terms of a locally
// coupled model (model/local_terms.hpp). Two scalars couple all coordinates, c and
// σ = λ·M(q̄)Δq/|Δq|² (M̃ᵀλ = M(q̄)ᵀλ − σΔq); the storage decides how the step's one body (`solve`)
// gets its residual and Jacobian:
//  - dense: c and σ eliminated, which leaves the unknowns (q1, v1, λ), 2n + m
//    (`eliminated_equations`, generic in the scalar type of the start and of the unknowns): the
//    Jacobian and the step's derivatives by the start and by a constant force are its forward
//    derivatives. From sizes::discrete_gradient_chord_unknowns unknowns on, where the Jacobian
//    costs far more than the residual, chord iterations on a factorisation kept from step to step
//    (as SPARK's); below, Newton with a Jacobian at every iterate;
//  - by terms (a locally coupled model without external force): c and σ kept as unknowns, so that
//    the Jacobian stays sparse but for their rows and columns, assembled from each term's forward
//    derivatives (`equations`), and Newton on it; the step's derivative, a sparse map, from each
//    term's shares differentiated by its start too (`derivative_entries`).
// Either way one Newton correction beyond the tolerance follows, so that the energy is conserved
// to round-off.
#include <algorithm>
#include <type_traits>
#include <utility>

#include "dalembert/core/sizes.hpp"
#include "dalembert/method/metric_method.hpp"
#include "dalembert/model/local_terms.hpp"
#include "dalembert/model/metric_derivatives.hpp"
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
  StepIncrements<Vecd<unknowns, max_unknowns>> increments;
};

template <HasMetric S>
class DiscreteGradient : public MetricMethod<DiscreteGradient<S>, S, DiscreteGradientState<S>> {
  using Base = MetricMethod<DiscreteGradient<S>, S, DiscreteGradientState<S>>;
  friend Base;
  using Base::options_, Base::h_, Base::system_, Base::visit_parts;

 public:
  /// The state's multiplier is λ of the last step.
  using Base::n, Base::m, Base::by_terms, typename Base::State;
  /// φ(q1, t1) = 0 in the rows of the model's holonomic constraints (`shares`).
  static constexpr bool imposes_holonomic_constraints = true;
  /// The unknowns of a step, (q1, v1, λ) densely, (q1, v1, λ, c, σ) by terms, and their Jacobian.
  using Unknowns = Vecd<State::unknowns, State::max_unknowns>;
  using Jacobian = std::conditional_t<by_terms, Eigen::SparseMatrix<double>,
                                      Matd<State::unknowns, State::unknowns, State::max_unknowns, State::max_unknowns>>;

  DiscreteGradient(const S& system, double h, NewtonOptions options = {}) : Base(system, h, options) {}

  void step(State& s) const { solve(s); }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step by terms from s as a map (solve/step_driver.hpp):
  /// D * (δq_k, δp_k) is (δq_{k+1}, δv_{k+1}, δλ, δc, δσ, δp_{k+1}), at the cost of two sparse
  /// solves (densely, MetricMethod's step_derivative). It takes a step of its own.
  SparseStepDerivativeByVelocity sparse_step_derivative(const State& s) const
    requires by_terms
  {
    const DerivativeEntries e = derivative_entries(s);
    const int dn = coordinate_count(system_), size = static_cast<int>(e.x.size());
    using local::sparse_matrix;
    return SparseStepDerivativeByVelocity(sparse_matrix(size, 2 * dn, e.F_sigma), sparse_matrix(size, size, e.F_x),
                                          sparse_matrix(dn, 2 * dn, {}), sparse_matrix(dn, size, e.y_x),
                                          sparse_matrix(dn, dn, e.metric), sparse_matrix(dn, dn, e.momentum_by_q));
  }

  /// Where δq_{k+1} is among the rows of sparse_step_derivative's products: its products start with δq_{k+1}.
  Eigen::Index next_position_row(const State&) const { return 0; }

 private:
  /// The step from s, and its unknowns at the solution: Newton or the chord iterations (dense, from
  /// sizes::discrete_gradient_chord_unknowns unknowns on), then one more correction.
  Unknowns solve(State& s) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const int size = 2 * dn + dm + (by_terms ? 2 : 0);
    const double h = h_;
    constexpr bool may_chord =
        !by_terms && (State::unknowns == Dynamic || State::unknowns >= sizes::discrete_gradient_chord_unknowns);
    const bool chord = may_chord && size >= sizes::discrete_gradient_chord_unknowns;
    // E(q0, v0) for the dense residual (by terms each term's, in `equations`)
    const double E0 =
        by_terms ? 0.0 : 0.5 * s.v.dot(metric_matrix(system_, s.q) * s.v) + system_.template potential<double>(s.q);
    const auto dense_residual = [&](const auto& y) { return eliminated_equations(s.q, s.v, E0, s.t, y, size); };
    // First guess: for the chord iterations the last steps' increments extrapolated (StepIncrements,
    // solve/step_driver.hpp); for Newton, and at the first step, q drifting with v, v and λ as they
    // are (c = σ = 0 by terms).
    Unknowns x(size);
    if (chord && s.increments.extrapolate(x)) {
      x.template head<n>(dn) += s.q;
      x.template segment<n>(dn, dn) += s.v;
    } else {
      if constexpr (by_terms) {
        x << s.q + h * s.v, s.v, s.multiplier, 0.0, 0.0;
      } else {
        x << s.q + h * s.v, s.v, s.multiplier;
      }
    }
    const double scale = std::max(s.v.template lpNorm<Eigen::Infinity>(), s.p.template lpNorm<Eigen::Infinity>());
    // F and J of the latest evaluation, which is at the solution for the correction below: Newton's
    // last (solve/newton.hpp), or the one after the chord iterations. By terms J is assembled from
    // the entries when asked for.
    Unknowns F(size);
    Jacobian J(size, size);
    local::Triplets entries;
    const auto evaluate = [&](const Unknowns& y, Unknowns& out) {
      if constexpr (by_terms) {
        entries.clear();
        equations(s, y, out, entries);
      } else {
        ad::value_and_jacobian<State::unknowns, State::unknowns, State::max_unknowns, State::max_unknowns>(
            dense_residual, y, out, J);
      }
      F = out;
    };
    const auto latest_jacobian = [&](const Unknowns&, Jacobian& out) {
      if constexpr (by_terms) {
        out.setFromTriplets(entries.begin(), entries.end());
      } else {
        out = J;
      }
    };
    int iterations = 0;
    if (chord) {
      if constexpr (may_chord) {
        const auto residual = [&](const Unknowns& y) { return dense_residual(y); };
        const auto jacobian = [&](const Unknowns& y, Jacobian& out) {
          Unknowns scratch;
          evaluate(y, scratch);
          out = J;
        };
        iterations = chord_solve(s, h, residual, jacobian, x, scale, options_, s.kept_jacobian);
        Unknowns scratch;
        evaluate(x, scratch);
      }
    } else {
      iterations =
          solve_step<Jacobian>(s, h, SeparateEquations{evaluate, latest_jacobian}, x, scale, options_).iterations;
    }
    // A step's energy error is of the size of the residual the iterations stop at (Newton's
    // tolerance, 1e-13 by default): one Newton correction, quadratically convergent from there,
    // takes it to round-off.
    Unknowns correction;
    if constexpr (by_terms) {
      latest_jacobian(x, J);
      const Eigen::SparseLU<Jacobian> lu(J);
      if (lu.info() == Eigen::Success) correction = lu.solve(F);
    } else {
      correction = J.partialPivLu().solve(F);
    }
    if (correction.size() == size && correction.allFinite()) x -= correction;
    if (chord) {
      Unknowns increments = x;
      increments.template head<n>(dn) -= s.q;
      increments.template segment<n>(dn, dn) -= s.v;
      s.increments.record(std::move(increments));
    }
    s.q = x.template head<n>(dn);
    s.v = x.template segment<n>(dn, dn);
    if constexpr (by_terms) {
      s.p = local::momentum(system_, s.q, s.v);
    } else {
      s.p = metric_matrix(system_, s.q) * s.v;
    }
    s.multiplier = x.template segment<m>(2 * dn, dm);
    advance(s, h);
    s.iterations = iterations + 1;
    return x;
  }

  /// The dense step's residual from (q0, v0) at the time t0, with E0 = E(q0, v0), at x = (q1, v1, λ):
  /// the whole model's shares (`shares`) with c and σ eliminated,
  /// c = (E(q1, v1) − E0 − ∇E(q̄, v̄)·Δ)/|Δ|² and σ = λ·M(q̄)Δq/|Δq|² (zero at a step of zero length),
  /// added as ∇̄E = ∇E(q̄, v̄) + cΔ and M̃ᵀλ = M(q̄)ᵀλ − σΔq: the drift rows, the momentum rows, the
  /// constraint rows. With a constant external force f added to the model's. Generic
  /// in x's scalar U (with `width` derivatives) and in the start's T: its Jacobian and the step's
  /// derivatives are its forward derivatives.
  template <class T, class X, class F = NoConstantForce>
  auto eliminated_equations(const VecN<S, T>& start_q, const VecN<S, T>& start_v, const T& E0, double t0,
                            const X& x, int width, const F& f = {}) const {
    using U = typename X::Scalar;
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = h_;
    Vec<U, State::unknowns, State::max_unknowns> r(2 * dn + dm);
    visit_parts([&](const auto& part, const auto&, int, const auto& add_force) {  // the whole model
      const VecN<S, U> q0 = ad::in_scalar<U>(start_q, width), v0 = ad::in_scalar<U>(start_v, width);
      const auto forces = [&](auto& rows, const auto& q_mid, const auto& v_mid) {
        add_force(rows, q_mid, v_mid, t0 + 0.5 * h, -h);
        add_constant_force(rows, f, -h);
      };
      const auto share = shares(part, h, t0 + h, q0, v0, E0, x, forces);
      const VecN<S, U> dq = x.template head<n>(dn) - q0, dv = x.template segment<n>(dn, dn) - v0;
      const U squared_dq = dq.squaredNorm(), squared_step = squared_dq + dv.squaredNorm();
      const U c = ad::plain(squared_step) > 0 ? U(share[2 * dn + dm] / squared_step) : ad::lift<U>(0.0);
      const U sigma = ad::plain(squared_dq) > 0 ? U(share[2 * dn + dm + 1] / squared_dq) : ad::lift<U>(0.0);
      r << share.template head<n>(dn) - (h * c) * dv, share.template segment<n>(dn, dn) + (h * (c + sigma)) * dq,
          share.template segment<m>(2 * dn, dm);
    });
    return r;
  }

  /// The unknowns at the solution of the step s → next, and the equations from a start (q0, v0, p0)
  /// in any scalar type, with p1 = G(q1) v1: what the dense step's derivatives differentiate
  /// (MetricMethod::step_derivatives).
  Unknowns unknowns_at(const State&, const State& next) const {
    Unknowns x(2 * next.q.size() + next.multiplier.size());
    x << next.q, next.v, next.multiplier;
    return x;
  }
  template <class Q, class F, class X>
  auto step_equations(const Q& q0, const Q& v0, const Q& p0, const F& f, const X& x, double t0, int width) const {
    using U = typename Q::Scalar;
    const int dn = coordinate_count(system_);
    const U E0 = 0.5 * v0.dot(p0) + system_.template potential<U>(q0);
    struct {
      Vec<U, State::unknowns, State::max_unknowns> residual;
      VecN<S, U> q1, p1;
    } e{eliminated_equations(q0, v0, E0, t0, x, width, f), x.template head<n>(dn), VecN<S, U>(dn)};
    e.p1 = coefficient_product(dense_metric(system_, e.q1), VecN<S, U>(x.template segment<n>(dn, dn)));
    return e;
  }

  /// The step's equations from s = (q0, v0) at the time t0 by their entries, at x = (q1, v1, λ, c, σ):
  /// the sums of the parts' shares (`shares`) and the coupling through c and σ,
  ///   G(q̄)Δq − h ∇̄_vE = 0,   G(q̄)Δv − Ω(v̄)Δq + h ∇̄_qE − h M̃ᵀλ − h F̄ = 0,   M(q1) v1 = 0,
  ///   c |Δ|² − (E(q1, v1) − E0 − ∇E(q̄, v̄)·Δ) = 0,   σ |Δq|² − λ·M(q̄)Δq = 0,
  /// with ∇̄E = ∇E(q̄, v̄) + c Δ, M̃ᵀλ = M(q̄)ᵀλ − σ Δq; at a step of zero length c = 0 (σ = 0 when
  /// Δq = 0). The residual goes to F, the entries of its Jacobian by x to `entries` (duplicates add
  /// up): each part's from its forward derivatives, the coupling's written out.
  template <class X, class Residual>
  void equations(const State& s, const X& x, Residual& F, local::Triplets& entries) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const int c_index = 2 * dn + dm, sigma_index = c_index + 1;
    const double h = h_, c = x[c_index], sigma = x[sigma_index];
    const VecN<S> dq = x.template head<n>(dn) - s.q, dv = x.template segment<n>(dn, dn) - s.v;
    F.setZero(c_index + 2);
    // the rows of c's and σ's equations, dense in the unknowns they depend on
    Unknowns c_row = Unknowns::Zero(c_index + 2), sigma_row = Unknowns::Zero(c_index + 2);
    double energy_excess = 0.0, lambda_times_M_dq = 0.0;  // E1 − E0 − ∇E·Δ and λ·M(q̄)Δq
    visit_parts([&](const auto& part, const auto& indices, int constraint_row, const auto& add_force) {
      using Part = std::decay_t<decltype(part)>;
      constexpr int Y = sum_of_sizes(multiple_of_size(2, Part::n), Part::m);
      constexpr int MaxY = sum_of_sizes(multiple_of_size(2, max_n_of<Part>()), max_m_of<Part>());
      constexpr int R = sum_of_sizes(Y, 2), MaxR = sum_of_sizes(MaxY, 2);
      const int k = coordinate_count(part), width = 2 * k + constraint_count(part);
      const auto column = [&](int j) {
        return j < k ? indices[j] : j < 2 * k ? dn + indices[j - k] : 2 * dn + constraint_row + (j - 2 * k);
      };
      Vecd<Y, MaxY> y(width);
      for (int j = 0; j < width; ++j) y[j] = x[column(j)];
      const auto q0 = local::gather(s.q, indices), v0 = local::gather(s.v, indices);
      const double E0 = 0.5 * v0.dot(dense_metric(part, q0) * v0) + part.template potential<double>(q0);
      const auto part_shares = [&](const auto& w) {
        using T = typename std::decay_t<decltype(w)>::Scalar;
        const auto forces = [&](auto& rows, const auto& q_mid, const auto& v_mid) {
          add_force(rows, q_mid, v_mid, s.t + 0.5 * h, -h);
        };
        return shares(part, h, s.t + h, ad::in_scalar<T>(q0, width), ad::in_scalar<T>(v0, width), E0, w, forces);
      };
      Vecd<R, MaxR> value;
      Matd<R, Y, MaxR, MaxY> by_y;
      ad::value_and_jacobian<Y, R, MaxY, MaxR>(part_shares, y, value, by_y);
      const auto add_row = [&](int row, int local_row) {
        F[row] += value[local_row];
        for (int j = 0; j < width; ++j) entries.emplace_back(row, column(j), by_y(local_row, j));
      };
      for (int i = 0; i < k; ++i) add_row(indices[i], i);
      for (int i = 0; i < k; ++i) add_row(dn + indices[i], k + i);
      for (int r = 2 * k; r < width; ++r) add_row(2 * dn + constraint_row + (r - 2 * k), r);
      energy_excess += value[width];
      lambda_times_M_dq += value[width + 1];
      for (int j = 0; j < width; ++j) {
        c_row[column(j)] -= by_y(width, j);
        sigma_row[column(j)] -= by_y(width + 1, j);
      }
    });
    // the coupling through c and σ
    F.template head<n>(dn) -= (h * c) * dv;
    F.template segment<n>(dn, dn) += (h * (c + sigma)) * dq;
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
      c_row.template head<n>(dn) += (2 * c) * dq;
      c_row.template segment<n>(dn, dn) += (2 * c) * dv;
      c_row[c_index] = squared_step;
    } else {
      F[c_index] = c;
      c_row.setZero();
      c_row[c_index] = 1.0;
    }
    if (squared_dq > 0) {
      F[sigma_index] = sigma * squared_dq - lambda_times_M_dq;
      sigma_row.template head<n>(dn) += (2 * sigma) * dq;
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

  /// The entries of the derivatives of the step by terms from s at its solution x (it takes a step
  /// of its own), by the implicit-function theorem on `equations`: F_x, by the unknowns; F_σ, by
  /// σ = (q_k, v_k); y_x, of p_{k+1} = G(q_{k+1}) v_{k+1} by the unknowns (q_{k+1} is among them); and
  /// G(q_k) and ∂(G(q_k) v_k)/∂q_k, which take σ to (q_k, p_k). Each term's shares are differentiated
  /// by its own (q_k, v_k, q_{k+1}, v_{k+1}, λ), and c and σ couple the terms through their rows and
  /// columns.
  struct DerivativeEntries {
    Unknowns x;
    local::Triplets F_x, F_sigma, y_x, metric, momentum_by_q;
  };
  DerivativeEntries derivative_entries(const State& s) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const int c_index = 2 * dn + dm, sigma_index = c_index + 1;
    const double h = h_;
    DerivativeEntries e;
    State next = s;
    e.x = solve(next);
    Unknowns F;
    equations(s, e.x, F, e.F_x);
    const double c = e.x[c_index], sigma = e.x[sigma_index];
    const VecN<S> dq = next.q - s.q, dv = next.v - s.v;
    // c's and σ's rows hold c and σ alone at a step of zero length (equations)
    const bool c_coupled = dq.squaredNorm() + dv.squaredNorm() > 0, sigma_coupled = dq.squaredNorm() > 0;
    visit_parts([&](const auto& part, const auto& indices, int constraint_row, const auto& add_force) {
      using Part = std::decay_t<decltype(part)>;
      constexpr int K = Part::n, Z = sum_of_sizes(multiple_of_size(4, K), Part::m);
      constexpr int MaxZ = sum_of_sizes(multiple_of_size(4, max_n_of<Part>()), max_m_of<Part>());
      constexpr int R = sum_of_sizes(Z, 2), MaxR = sum_of_sizes(MaxZ, 2);
      constexpr int Y = sum_of_sizes(multiple_of_size(2, K), Part::m);
      constexpr int MaxY = sum_of_sizes(multiple_of_size(2, max_n_of<Part>()), max_m_of<Part>());
      const int k = coordinate_count(part), pm = constraint_count(part), width = 4 * k + pm;
      // z = (q0, v0, q1, v1, λ) of the part ↦ (its shares, G(q0) v0, G(q1) v1)
      const auto shares_and_momenta = [&](const auto& z) {
        using T = typename std::decay_t<decltype(z)>::Scalar;
        const VecN<Part, T> q0 = z.template segment<K>(0, k), v0 = z.template segment<K>(k, k);
        const VecN<Part, T> q1 = z.template segment<K>(2 * k, k), v1 = z.template segment<K>(3 * k, k);
        const VecN<Part, T> p0 = dense_metric(part, q0) * v0;
        const T E0 = 0.5 * v0.dot(p0) + part.template potential<T>(q0);
        const auto forces = [&](auto& rows, const auto& q_mid, const auto& v_mid) {
          add_force(rows, q_mid, v_mid, s.t + 0.5 * h, -h);
        };
        const Vec<T, Y, MaxY> y = z.tail(2 * k + pm);
        Vec<T, R, MaxR> out(width + 2);
        out.head(2 * k + pm + 2) = shares(part, h, s.t + h, q0, v0, E0, y, forces);
        out.segment(2 * k + pm + 2, k) = p0;
        out.tail(k) = dense_metric(part, q1) * v1;
        return out;
      };
      Vecd<Z, MaxZ> z(width);
      for (int i = 0; i < k; ++i) {
        z[i] = s.q[indices[i]];
        z[k + i] = s.v[indices[i]];
        z[2 * k + i] = next.q[indices[i]];
        z[3 * k + i] = next.v[indices[i]];
      }
      for (int r = 0; r < pm; ++r) z[4 * k + r] = e.x[2 * dn + constraint_row + r];
      Vecd<R, MaxR> value;
      Matd<R, Z, MaxR, MaxZ> J;
      ad::value_and_jacobian<Z, R, MaxZ, MaxR>(shares_and_momenta, z, value, J);
      const int p0_rows = 2 * k + pm + 2, p1_rows = p0_rows + k;
      for (int r = 0; r < width + 2; ++r) {
        if (r >= p1_rows) {  // p1 = G(q1) v1, by (q1, v1)
          for (int j = 2 * k; j < 4 * k; ++j) {
            const int column = j < 3 * k ? indices[j - 2 * k] : dn + indices[j - 3 * k];
            if (J(r, j) != 0.0) e.y_x.emplace_back(indices[r - p1_rows], column, J(r, j));
          }
        } else if (r >= p0_rows) {  // p0 = G(q0) v0, by (q0, v0)
          for (int j = 0; j < 2 * k; ++j)
            if (J(r, j) != 0.0)
              (j < k ? e.momentum_by_q : e.metric).emplace_back(indices[r - p0_rows], indices[j % k], J(r, j));
        } else {  // the equations, by (q0, v0); c's and σ's rows subtract the sums of their shares
          const int row = r < k              ? indices[r]
                          : r < 2 * k        ? dn + indices[r - k]
                          : r < 2 * k + pm   ? 2 * dn + constraint_row + (r - 2 * k)
                          : r == 2 * k + pm  ? c_index
                                             : sigma_index;
          if ((row == c_index && !c_coupled) || (row == sigma_index && !sigma_coupled)) continue;
          const double sign = (row == c_index || row == sigma_index) ? -1.0 : 1.0;
          for (int j = 0; j < 2 * k; ++j)
            if (J(r, j) != 0.0) e.F_sigma.emplace_back(row, j < k ? indices[j] : dn + indices[j - k], sign * J(r, j));
        }
      }
    });
    // The coupling through c and σ, by the start: the drift rows carry −h c Δv, the momentum rows
    // h (c + σ) Δq, c's row c |Δ|² and σ's row σ |Δq|² (at a step of non-zero length).
    for (int i = 0; i < dn; ++i) {
      e.F_sigma.emplace_back(i, dn + i, h * c);
      e.F_sigma.emplace_back(dn + i, i, -h * (c + sigma));
      if (c_coupled) {
        e.F_sigma.emplace_back(c_index, dn + i, -2.0 * c * dv[i]);
        e.F_sigma.emplace_back(c_index, i, -2.0 * c * dq[i]);
      }
      if (sigma_coupled) e.F_sigma.emplace_back(sigma_index, i, -2.0 * sigma * dq[i]);
    }
    return e;
  }

  /// A part's share of the step's equations, the whole model's or, for a locally coupled model, a
  /// term's, at its unknowns y = (q1, v1, λ) (λ: the part's constraint rows) from its (q0, v0) with
  /// E0 = E(q0, v0); with q̄, v̄, Δq, Δv of the part:
  ///   G(q̄)Δq − h G(q̄)v̄                                       (the drift rows),
  ///   G(q̄)Δv − Ω(v̄)Δq + h ∇_qE(q̄, v̄) − h M(q̄)ᵀλ − h F̄      (the momentum rows),
  ///   M(q1) v1, and φ(q1, t1) in a holonomic constraint's row (the constraint rows),
  ///   E(q1, v1) − E0 − ∇E(q̄, v̄)·(Δq, Δv),  λ·M(q̄)Δq          (its shares of two sums),
  /// where forces(rows, q̄, v̄) subtracts h F̄, the external forces at the midpoint (a term has none).
  /// These are the equations of the step multiplied through by G(q̄): no row needs G⁻¹, and the drift
  /// Δq/h stands for G(q̄)⁻¹∇̄_vE in the gyroscopic term, which the drift equation makes equal. The
  /// energy's share is O(h³), so that a sum of the terms' shares keeps its round-off small where E
  /// itself is large (E(q1, v1) − E(q0, v0) of the whole model, about 400 on a thousand skates,
  /// left the c equation at 1e-11). The start (q0, v0, E0) is in y's scalar type, or of doubles.
  template <class Part, class Q, class E, class Y, class Forces>
  static auto shares(const Part& part, double h, double t1, const Q& q0, const Q& v0, const E& E0, const Y& y,
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
        impose_holonomic_rows(part, q1, t1, out.template segment<m_e>(2 * k, dm));
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
};

}  // namespace dalembert
