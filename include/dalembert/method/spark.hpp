#pragma once
// Jay's SPARK methods (Lobatto IIIA–IIIB) for the Lagrange–d'Alembert equations as an index-2 DAE
// ([Jay03]; the setting of odelab's `Spark`), for mechanical models L = ½ vᵀG(q)v − V(q) with
// constraints M(q)v = 0 and an external force F(q, v, t). In the variables (q, p), p = G(q)v,
// H(q, p) = ½ pᵀG(q)⁻¹p + V(q) and g(q, p) = M(q) G(q)⁻¹p:
//   q̇ = H_p(q, p)                             (integrated with Lobatto IIIA, coefficients a_ij)
//   ṗ = −H_q(q, p) + M(q)ᵀλ + F(q, H_p, t)     (integrated with Lobatto IIIB, coefficients â_ij)
//   0 = g(q, p).
// One step of s stages (Q_i, V_i, Λ_i), with the stage momenta P_i = G(Q_i)V_i and momentum rates
// R_i = −H_q(Q_i, P_i) + M(Q_i)ᵀΛ_i + F = −∇V(Q_i) + ½ V_iᵀ∂_qG(Q_i)V_i + M(Q_i)ᵀΛ_i + F(Q_i, V_i, t0 + c_i h):
//   Q_i = q0 + h Σ_j a_ij V_j,   P_i = p0 + h Σ_j â_ij R_j,                   i = 1 … s,
//   q1 = q0 + h Σ_j b_j V_j = Q_s (IIIA's last row is b),   p1 = p0 + h Σ_j b_j R_j,
//   0 = Σ_j a_ij M(Q_j)V_j,  i = 2 … s,     0 = g(q1, p1) = M(q1) v1 with G(q1) v1 = p1,
// the constraint conditions of Jay's SPARK for index-2 DAEs: the IIIA rows of the stage values of g
// (the first row of IIIA is zero), and g at the new step point, so that the constraint holds at
// every step point to Newton's tolerance. The rows of a holonomic constraint φ(q, t) = 0
// (model/model.hpp; its velocity form is a row of M) take φ itself at the stages,
//   0 = φ(Q_i, t0 + c_i h),  i = 2 … s,
// Jay's Lobatto IIIA–IIIB for holonomic constraints ([Jay96]; RATTLE for s = 2): the new positions
// Q_s = q1 stay on φ = 0 to round-off, and the momenta on its velocity form through g(q1, p1).
// Where an external force or moving constraints do work, the step adds h Σ_j b_j P_j to the work W of
// the run's energy balance (io/observe.hpp), P_j = (F + M(Q_j)ᵀΛ_j)·V_j the stages' power: the
// Lobatto quadrature of the stages, where the rows' trapezoidal rule is of order 2.
// Order 2s − 2 (s = 2 … 5: orders 2, 4, 6, 8). The tableaux and the conditions `tests/test_spark.cpp`
// checks on them are in docs/methods.md.
// The unknowns are the stages (Q_i, V_i, Λ_i) less Q_1 = q0 (IIIA's first row is zero), s(2n + m) − n
// of them. Written with the stage velocities, no stage equation needs G⁻¹ and each is a sum over the
// parts of the model (`stage_rates`): the whole model, or the terms of a locally coupled model
// (model/local_terms.hpp). The equations are stated once (`equations`), and the storage decides the
// rest:
//  - dense: v1 = G(q1)⁻¹p1 inside the last condition; chord iterations on a Jacobian kept from step
//    to step and renewed when they contract slowly (solve/step_driver.hpp);
//  - by terms (a locally coupled model without external force): v1 is one more unknown, with
//    G(q1)v1 − p1 = 0, and Newton factorises the sparse Jacobian.
// The Jacobian is assembled from each part's forward automatic derivatives of its stage rates, and
// the step's derivatives by its start and by a constant force, by the implicit-function theorem,
// from the same entries (`derivative`).
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "dalembert/method/metric_method.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/local_terms.hpp"
#include "dalembert/model/metric_derivatives.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

/// The Lobatto IIIA (a) and IIIB (a_hat) coefficients of s stages, their common weights b and nodes c.
struct LobattoPair {
  static constexpr int max_stages = 5;
  int stages = 0;
  std::array<std::array<double, max_stages>, max_stages> a{}, a_hat{};
  std::array<double, max_stages> b{}, c{};
};

/// From the Lobatto nodes c (0, 1 and the roots of P'_{s−1}(2t − 1)) with the Lagrange basis ℓ_j of
/// the nodes: b_j = ∫₀¹ ℓ_j, a_ij = ∫₀^{c_i} ℓ_j (Lobatto IIIA, collocation), and Lobatto IIIB from
/// the symplectic pairing b_i â_ij + b_j a_ji = b_i b_j. IIIA's first row is then exactly zero, its
/// last row exactly b and IIIB's last column exactly zero (the method relies on these).
inline LobattoPair lobatto_pair(int stages) {
  LobattoPair t;
  t.stages = stages;
  // In long double, so that the coefficients are the exact ones rounded to double (measured: within
  // 7e-18 of the fractions of [Jay03] for s ≤ 4).
  using Wide = long double;
  const Wide r5 = std::sqrt(Wide(5)), r21 = std::sqrt(Wide(21));
  std::array<Wide, LobattoPair::max_stages> c{};
  if (stages == 2)
    c = {0, 1};
  else if (stages == 3)
    c = {0, Wide(0.5), 1};
  else if (stages == 4)
    c = {0, (5 - r5) / 10, (5 + r5) / 10, 1};
  else if (stages == 5)
    c = {0, (7 - r21) / 14, Wide(0.5), (7 + r21) / 14, 1};
  else
    throw std::invalid_argument("SPARK has 2 to 5 stages, not " + std::to_string(stages));
  std::array<std::array<Wide, LobattoPair::max_stages>, LobattoPair::max_stages> a{};
  std::array<Wide, LobattoPair::max_stages> b{};
  for (int j = 0; j < stages; ++j) {
    std::array<Wide, LobattoPair::max_stages> l{};  // ℓ_j's monomial coefficients, times its denominator
    l[0] = 1;
    Wide denominator = 1;
    for (int k = 0, degree = 0; k < stages; ++k) {
      if (k == j) continue;
      for (int d = ++degree; d >= 0; --d) l[d] = (d > 0 ? l[d - 1] : 0) - c[k] * l[d];
      denominator *= c[j] - c[k];
    }
    const auto integral_to = [&](Wide x) {  // ∫₀ˣ ℓ_j
      Wide sum = 0, power = x;
      for (int d = 0; d < stages; ++d, power *= x) sum += l[d] * power / (d + 1);
      return sum / denominator;
    };
    b[j] = integral_to(1);
    for (int i = 0; i < stages; ++i) a[i][j] = integral_to(c[i]);
  }
  for (int i = 0; i < stages; ++i) {
    t.c[i] = static_cast<double>(c[i]);
    t.b[i] = static_cast<double>(b[i]);
    for (int j = 0; j < stages; ++j) {
      t.a[i][j] = static_cast<double>(a[i][j]);
      t.a_hat[i][j] = static_cast<double>(b[j] * (1 - a[j][i] / b[i]));
    }
  }
  return t;
}

/// SPARK's state; the multiplier is Λ of the last stage of the last step.
template <HasMetric S>
struct SparkState : MetricMethodState<S> {
  /// At most 5 stages of 2n + m unknowns less Q_1 for a model of fixed sizes; on the heap for a model
  /// of run-time size, whose bound would make each dual number of the stages' derivatives several KB.
  static constexpr int max_unknowns =
      (S::n == Dynamic || S::m == Dynamic) ? Dynamic : LobattoPair::max_stages * (2 * S::n + S::m) - S::n;
  /// The unknowns less what they start from, (Q_i − q0, V_i − v0, Λ_i) (and v1 − v0 by terms), of the
  /// last steps: the next step's initial guess extrapolates them.
  StepIncrements<Vecd<Dynamic, max_unknowns>> stage_increments;
  /// The factorised Jacobian of the dense step's equations, kept from step to step (it changes by O(h)).
  KeptJacobian<Matd<Dynamic, Dynamic, max_unknowns, max_unknowns>> kept_jacobian;
  double work = 0.0;  ///< W since t = 0, where the forces do work (Spark::work_of_step)
};

template <HasMetric S>
class Spark : public MetricMethod<Spark<S>, S, SparkState<S>> {
  using Base = MetricMethod<Spark<S>, S, SparkState<S>>;
  using Base::options_, Base::h_, Base::system_, Base::visit_parts;

 public:
  using Base::n, Base::m, Base::by_terms, typename Base::State;  // by terms, v1 is among the unknowns
  static constexpr int max_unknowns = SparkState<S>::max_unknowns;
  using Unknowns = Vecd<Dynamic, max_unknowns>;
  /// φ(Q_i) = 0 at the stages (a steady motion's linearisation sets the level of φ aside).
  static constexpr bool imposes_holonomic_constraints = true;
  static_assert(!(by_terms && MayHaveHolonomicConstraints<S>), "holonomic constraints are imposed densely");

  Spark(const S& system, double h, int stages, NewtonOptions options = {})
      : Base(system, h, options),
        pair_(lobatto_pair(stages)),
        does_work_(forces_do_work(system)) {}

  int stages() const { return pair_.stages; }

  /// One step: the equations solved from the stages of the last steps extrapolated (StepIncrements),
  /// or at the first step from the stages drifting with v0; densely by chord iterations, by terms by
  /// Newton.
  void step(State& s) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_), st = pair_.stages;
    const int size = unknown_count();
    const double h = h_;
    Unknowns x = Unknowns::Zero(size);
    if (!s.stage_increments.extrapolate(x)) {  // the stages drifting with v0
      for (int i = 0; i < st; ++i) {
        if (i > 0) x.template segment<n>(q_at(i), dn) = (pair_.c[i] * h) * s.v;
        x.template segment<m>(lambda_at(i), dm) = s.multiplier;
      }
    }
    shift_by_start(x, s.q, s.v, 1.0);
    const double scale = s.p.template lpNorm<Eigen::Infinity>();
    VecN<S> p1;
    int iterations = 0;
    if constexpr (by_terms) {
      local::Triplets entries;  // of the latest evaluation, which Newton makes at the solution; p1 likewise
      const auto residual = [&](const Eigen::VectorXd& y, Eigen::VectorXd& F) {
        entries.clear();
        p1 = equations<By::unknowns>(s, y, F, [&](int r, int c, double v) {
          if (r < size && c < size) entries.emplace_back(r, c, v);
        });
      };
      const auto jacobian = [&](const Eigen::VectorXd&, Eigen::SparseMatrix<double>& J) {
        J.setFromTriplets(entries.begin(), entries.end());
      };
      iterations = solve_step<Eigen::SparseMatrix<double>>(s, h, SeparateEquations{residual, jacobian}, x, scale,
                                                           options_)
                       .iterations;
    } else {
      // Chord iterations on a factorised Jacobian kept from step to step: the Jacobian, from the
      // stages' automatic derivatives, is most of a step's cost, and it changes by O(h) per step.
      using Jacobian = Matd<Dynamic, Dynamic, max_unknowns, max_unknowns>;
      const auto residual = [&](const Unknowns& y) {
        Unknowns F;
        equations<By::nothing>(s, y, F, no_entries);
        return F;
      };
      const auto jacobian = [&](const Unknowns& y, Jacobian& J) {
        J.setZero(size, size);
        Unknowns F;
        equations<By::unknowns>(s, y, F, [&](int r, int c, double v) DALEMBERT_INLINE {
          if (r < size && c < size) J(r, c) += v;
        });
      };
      iterations = chord_solve(s, h, residual, jacobian, x, scale, options_, s.kept_jacobian);
      Unknowns F;
      p1 = equations<By::nothing>(s, x, F, no_entries);
    }
    if (does_work_) s.work += work_of_step(s, x);
    Unknowns increments = x;
    shift_by_start(increments, s.q, s.v, -1.0);
    s.stage_increments.record(std::move(increments));
    s.q = x.template segment<n>(q_at(st - 1), dn);
    s.p = p1;
    if constexpr (by_terms) {
      s.v = x.tail(dn);
    } else {
      s.v = metric_factorisation(system_, s.q).solve(s.p);
    }
    s.multiplier = x.template segment<m>(lambda_at(st - 1), dm);
    advance(s, h);
    s.iterations = iterations;
  }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from s: a 2n × 2n matrix, rows q_{k+1} then p_{k+1},
  /// columns q_k then p_k. It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const { return derivative(s, false); }

  /// step_derivative(s) and the derivative of the step's result by a constant external force f
  /// added to the model's over the step, at f = 0 (2n × n): the A and B of the step's linearisation,
  /// for control. It takes a step of its own.
  StepDerivatives step_derivatives(const State& s) const {
    const Eigen::Index dn = s.q.size();
    const Eigen::MatrixXd D = derivative(s, true);
    return {D.leftCols(2 * dn), D.rightCols(dn)};
  }

  /// The same derivative by terms, as a map: D * (δq_k, δp_k) is (δx, δq_{k+1}, δp_{k+1}), x the
  /// step's unknowns, at the cost of one sparse solve. It takes a step of its own.
  SparseStepDerivative sparse_step_derivative(const State& s) const
    requires by_terms
  {
    return sparse_map(derivative_entries(s, false));
  }

  /// Where δq_{k+1} is among the rows of sparse_step_derivative's products: after the unknowns.
  Eigen::Index next_position_row(const State&) const
    requires by_terms
  {
    return unknown_count();
  }

 private:
  /// Where stage i's Q_i (i > 0), V_i and Λ_i are among the unknowns, and its equations among the
  /// rows: Q_i − q0 − h Σ_j a_ij V_j in Q_i's, P_i − p0 − h Σ_j â_ij R_j in V_i's, and in Λ_i's the
  /// constraint condition i + 1 (Σ_j a_{i+1, j} M(Q_j)V_j, or φ(Q_{i+1}) in a holonomic row, for
  /// i < s; g(q1, p1) for i = s).
  int block() const { return 2 * coordinate_count(system_) + constraint_count(system_); }
  int q_at(int i) const { return i * block() - coordinate_count(system_); }
  int v_at(int i) const { return i * block(); }
  int lambda_at(int i) const { return i * block() + coordinate_count(system_); }
  /// The stages' unknowns, and by terms v1 after them.
  int stage_unknowns() const { return pair_.stages * block() - coordinate_count(system_); }
  int unknown_count() const { return stage_unknowns() + (by_terms ? coordinate_count(system_) : 0); }

  /// Adds (sign 1) or subtracts (−1) what the unknowns start from, q0 at each Q_i and v0 at each V_i
  /// and at v1: the unknowns from their increments, or back.
  void shift_by_start(Unknowns& x, const VecN<S>& q0, const VecN<S>& v0, double sign) const {
    const int dn = coordinate_count(system_);
    for (int i = 0; i < pair_.stages; ++i) {
      if (i > 0) x.segment(q_at(i), dn) += sign * q0;
      x.segment(v_at(i), dn) += sign * v0;
    }
    if constexpr (by_terms) x.tail(dn) += sign * v0;
  }

  static constexpr auto no_entries = [](int, int, double) {};

  /// h Σ_j b_j P_j, the work of the forces over the step from s by the Lobatto quadrature of the
  /// converged stages x, P_j their power at (Q_j, V_j, Λ_j) and the stage's time.
  double work_of_step(const State& s, const Unknowns& x) const {
    double work = 0.0;
    if constexpr (HasExternalForce<S> || MayHaveAffineConstraints<S>) {
      const int dn = coordinate_count(system_), dm = constraint_count(system_);
      for (int j = 0; j < pair_.stages; ++j) {
        const VecN<S> Q = j == 0 ? s.q : VecN<S>(x.template segment<n>(q_at(j), dn));
        const VecN<S> V = x.template segment<n>(v_at(j), dn);
        const VecM<S> multiplier = x.template segment<m>(lambda_at(j), dm);
        work += pair_.b[j] * power_of_forces(system_, Q, V, s.t + pair_.c[j] * h_, &multiplier);
      }
    }
    return h_ * work;
  }

  /// What `equations` differentiates: nothing (a residual), the unknowns (a step's Jacobian), or
  /// the unknowns and the start (a step's derivative).
  enum class By { nothing, unknowns, unknowns_and_start };

  /// A part's stage rates at y = (Q, V, Λ) (Λ: the part's constraint rows): its momentum G(Q)V, its
  /// momentum rate R = −∇V(Q) + ½ Vᵀ∂_qG(Q)V + M(Q)ᵀΛ, with forces(R, Q, V) adding the external
  /// forces (a term has none), and its constraint M(Q)V (+ b(Q, t), affine, at the stage's time t),
  /// as one vector.
  template <class Part, class Y, class Forces>
  static auto stage_rates(const Part& part, const Y& y, double t, Forces&& forces) {
    using T = typename Y::Scalar;
    constexpr int K = Part::n, mK = Part::m;
    const int k = coordinate_count(part), dm = constraint_count(part);
    const VecN<Part, T> Q = y.template segment<K>(0, k), V = y.template segment<K>(k, k);
    const MetricDerivatives<Part, T> at(part, Q);
    VecN<Part, T> R = -at.potential_gradient_plus_half_quadratic(V, -1.0);
    constexpr int Size = sum_of_sizes(multiple_of_size(2, K), mK);
    constexpr int MaxSize = sum_of_sizes(multiple_of_size(2, max_n_of<Part>()), max_m_of<Part>());
    Vec<T, Size, MaxSize> out(2 * k + dm);
    if constexpr (mK != 0) {
      if (dm > 0) {
        const MatMN<Part, T> M = part.template constraint_matrix<T>(Q);
        R += coefficient_product(M.transpose(), VecM<Part, T>(y.template segment<mK>(2 * k, dm)));
        out.template segment<mK>(2 * k, dm) = coefficient_product(M, V);
        add_constraint_offset(part, Q, t, out.template segment<mK>(2 * k, dm));
      }
    }
    forces(R, Q, V);
    out.template head<K>(k) = at.metric_product(V);
    out.template segment<K>(k, k) = R;
    return out;
  }

  /// g at the step point, g(q1, p1) = M(q1) G(q1)⁻¹ p1 (+ b(q1, t1)), of z = (q1, p1) at the time t1:
  /// the dense last condition.
  template <class Z>
  auto end_constraint(const Z& z, double t1) const {
    using T = typename Z::Scalar;
    const int dn = coordinate_count(system_);
    const VecN<S, T> q1 = z.template segment<n>(0, dn);
    const VecN<S, T> v1 = metric_factorisation(system_, q1).solve(z.template segment<n>(dn, dn));
    VecM<S, T> g = coefficient_product(system_.template constraint_matrix<T>(q1), v1);
    add_constraint_offset(system_, q1, t1, g);
    return g;
  }

  /// A term's G(q1)v1 and M(q1)v1 at z = (q1, v1): its share of the rows of v1 and of the last condition.
  template <class Term, class Z>
  static auto term_end_point(const Term& term, const Z& z) {
    using T = typename Z::Scalar;
    constexpr int K = Term::n, m_e = Term::m;
    const Vec<T, K> q1 = z.template head<K>(), v1 = z.template tail<K>();
    Vec<T, K + m_e> out;
    out.template head<K>() = dense_metric(term, q1) * v1;
    if constexpr (m_e > 0) out.template tail<m_e>() = term.template constraint_matrix<T>(q1) * v1;
    return out;
  }

  /// The step's equations from s at the unknowns x: the residual in F (rows in the order of the
  /// unknowns, by terms G(q1)v1 − p1 in v1's), and p1 = p0 + h Σ_j b_j R_j, returned. The entries
  /// of their derivatives that `by` asks for go to entry(row, column, value): rows the residual's,
  /// then n rows of p1's; columns the unknowns', then from unknown_count() on those of σ = (q0, p0)
  /// and, with by_force, of a constant force f added to the model's (at f = 0).
  template <By by, class X, class Residual, class Entry>
  VecN<S> equations(const State& s, const X& x, Residual& F, Entry&& entry, bool by_force = false) const {
    constexpr bool Derivatives = by != By::nothing, by_start = by == By::unknowns_and_start;
    const int dn = coordinate_count(system_), dm = constraint_count(system_), st = pair_.stages;
    const int rows = unknown_count(), sigma = rows, p1_row = rows, last = st - 1;
    const int first_holonomic = dm - holonomic_constraint_count(system_);  // the last rows of M
    const double h = h_;
    F.setZero(rows);
    VecN<S> p1 = s.p;
    // dense: p1's entries, for the last condition's (through v1 = G(q1)⁻¹p1)
    constexpr int p1_columns = max_unknowns == Dynamic ? Dynamic : max_unknowns + 3 * S::n;
    Matd<n, Dynamic, max_n_of<S>(), p1_columns> p1_by;
    if constexpr (Derivatives && !by_terms) p1_by.setZero(dn, by_start ? sigma + 3 * dn : rows);
    const auto add_entry = [&](int row, int column, double value) DALEMBERT_INLINE {
      if constexpr (Derivatives) {
        if (!by_start && column >= sigma) return;
        if (row >= p1_row) {
          if constexpr (by_terms) {
            entry(stage_unknowns() + (row - p1_row), column, -value);  // in G(q1)v1 − p1
          } else {
            p1_by(row - p1_row, column) += value;
          }
          if constexpr (!by_start) return;  // p1's own rows: the derivative's result
        }
        entry(row, column, value);
      }
    };
    // what is linear in the unknowns and the start
    for (int k = 0; k < dn; ++k) {
      for (int i = 0; i < st; ++i) {
        if (i > 0) {  // Q_i − q0 − h Σ_j a_ij V_j
          const int row = q_at(i) + k;
          F[row] += x[row] - s.q[k];
          add_entry(row, row, 1.0);
          add_entry(row, sigma + k, -1.0);
          for (int j = 0; j < st; ++j) {
            if (pair_.a[i][j] == 0.0) continue;
            F[row] -= (h * pair_.a[i][j]) * x[v_at(j) + k];
            add_entry(row, v_at(j) + k, -h * pair_.a[i][j]);
          }
        }
        F[v_at(i) + k] -= s.p[k];  // − p0
        add_entry(v_at(i) + k, sigma + dn + k, -1.0);
        if (by_force)  // f in every R_j
          for (int j = 0; j < st; ++j) add_entry(v_at(i) + k, sigma + 2 * dn + k, -h * pair_.a_hat[i][j]);
      }
      add_entry(p1_row + k, sigma + dn + k, 1.0);
      if (by_force) add_entry(p1_row + k, sigma + 2 * dn + k, h);  // h Σ_j b_j = h
    }
    // the stages' rates, part by part
    for (int j = 0; j < st; ++j) {
      visit_parts([&](const auto& part, const auto& indices, int constraint_row, const auto& forces) {
        using Part = std::decay_t<decltype(part)>;
        constexpr int Y = sum_of_sizes(multiple_of_size(2, Part::n), Part::m);
        const int k = coordinate_count(part), width = 2 * k + constraint_count(part);
        const auto column = [&](int c) {  // stage j's Q_1 = q0 is σ's
          return c < k       ? (j == 0 ? sigma : q_at(j)) + indices[c]
                 : c < 2 * k ? v_at(j) + indices[c - k]
                             : lambda_at(j) + constraint_row + (c - 2 * k);
        };
        Vecd<Y> y(width);
        for (int c = 0; c < width; ++c) y[c] = j == 0 && c < k ? s.q[indices[c]] : x[column(c)];
        const double t = s.t + pair_.c[j] * h;
        const auto rates = [&](const auto& w) {
          return stage_rates(part, w, t, [&](auto& R, const auto& Q, const auto& V) { forces(R, Q, V, t, 1.0); });
        };
        Vecd<Y> value;
        [[maybe_unused]] Matd<Y, Y> by_y;
        if constexpr (Derivatives) {
          ad::value_and_jacobian<Y, Y>(rates, y, value, by_y);
        } else {
          value = rates(y);
        }
        const auto add = [&](int row, int local_row, double factor) DALEMBERT_INLINE {
          (row < p1_row ? F[row] : p1[row - p1_row]) += factor * value[local_row];
          if constexpr (Derivatives)
            for (int c = 0; c < width; ++c) add_entry(row, column(c), factor * by_y(local_row, c));
        };
        for (int r = 0; r < k; ++r) {
          add(v_at(j) + indices[r], r, 1.0);  // P_j
          for (int i = 0; i < st; ++i)
            if (pair_.a_hat[i][j] != 0.0) add(v_at(i) + indices[r], k + r, -h * pair_.a_hat[i][j]);
          add(p1_row + indices[r], k + r, h * pair_.b[j]);
        }
        for (int r = 0; r < width - 2 * k; ++r) {
          if (constraint_row + r >= first_holonomic) continue;  // φ itself, below
          for (int i = 1; i < st; ++i)
            if (pair_.a[i][j] != 0.0) add(lambda_at(i - 1) + constraint_row + r, 2 * k + r, pair_.a[i][j]);
        }
      });
    }
    // the holonomic rows: φ(Q_i, t_i), whose derivative by Q_i is dφ(Q_i), the model's last rows of M
    if constexpr (MayHaveHolonomicConstraints<S>) {
      for (int i = 1; i < st && first_holonomic < dm; ++i) {
        const VecN<S> Q = x.template segment<n>(q_at(i), dn);
        const int row = lambda_at(i - 1) + first_holonomic, count = dm - first_holonomic;
        F.segment(row, count) = system_.template holonomic_values<double>(Q, s.t + pair_.c[i] * h);
        if constexpr (Derivatives) {
          const MatMN<S> dphi = system_.template constraint_matrix<double>(Q);
          for (int r = 0; r < count; ++r)
            for (int c = 0; c < dn; ++c) add_entry(row + r, q_at(i) + c, dphi(first_holonomic + r, c));
        }
      }
    }
    // the step point, (q1, v1) = (Q_s, v1)
    if constexpr (by_terms) {
      const int v1 = stage_unknowns();
      F.segment(v1, dn) -= p1;
      int constraint_row = 0;
      system_.visit_terms([&](const auto& term, const auto& indices) {
        using Term = std::decay_t<decltype(term)>;
        constexpr int K = Term::n, m_e = Term::m;
        const auto column = [&](int c) { return c < K ? q_at(last) + indices[c] : v1 + indices[c - K]; };
        Vecd<2 * K> z;
        for (int c = 0; c < 2 * K; ++c) z[c] = x[column(c)];
        Vecd<K + m_e> value;
        [[maybe_unused]] Matd<K + m_e, 2 * K> by_z;
        const auto end_point = [&](const auto& w) { return term_end_point(term, w); };
        if constexpr (Derivatives) {
          ad::value_and_jacobian<2 * K, K + m_e>(end_point, z, value, by_z);
        } else {
          value = end_point(z);
        }
        for (int r = 0; r < K + m_e; ++r) {
          const int row = r < K ? v1 + indices[r] : lambda_at(last) + constraint_row + (r - K);
          F[row] += value[r];
          if constexpr (Derivatives)
            for (int c = 0; c < 2 * K; ++c) entry(row, column(c), by_z(r, c));
        }
        constraint_row += m_e;
      });
    } else if constexpr (S::m != 0) {
      if (dm == 0) return p1;
      constexpr int Z = multiple_of_size(2, S::n);
      Vecd<Z> z(2 * dn);
      z << x.template segment<n>(q_at(last), dn), p1;
      const auto condition = [&](const auto& w) { return end_constraint(w, s.t + h); };
      if constexpr (Derivatives) {
        Vecd<m> g1(dm);
        Matd<m, Z> E(dm, 2 * dn);  // ∂g(q1, p1)/∂(q1, p1)
        ad::value_and_jacobian<Z, m>(condition, z, g1, E);
        F.template segment<m>(lambda_at(last), dm) = g1;
        const Matd<m, Dynamic, max_m_of<S>(), p1_columns> through_p1 = E.rightCols(dn) * p1_by;
        for (int r = 0; r < dm; ++r) {
          for (int c = 0; c < dn; ++c) entry(lambda_at(last) + r, q_at(last) + c, E(r, c));
          for (Eigen::Index c = 0; c < through_p1.cols(); ++c)
            if (through_p1(r, c) != 0.0) entry(lambda_at(last) + r, static_cast<int>(c), through_p1(r, c));
        }
      } else {
        F.template segment<m>(lambda_at(last), dm) = condition(z);
      }
    }
    return p1;
  }

  /// The entries of the derivatives of the step from s at its solution x by σ = (q_k, p_k) and, with
  /// by_force, by a constant force f added to the model's (at f = 0): those of the equations by x
  /// and by σ, and of the results y = (q_{k+1}, p_{k+1}) = (Q_s, p1) by x and by σ. It takes a step
  /// of its own.
  struct DerivativeEntries {
    int unknowns, width, results;
    local::Triplets F_x, F_sigma, y_x, y_sigma;
  };
  DerivativeEntries derivative_entries(const State& s, bool by_force) const {
    const State next = step_from(*this, s);
    const int dn = coordinate_count(system_), size = unknown_count();
    DerivativeEntries e{size, (by_force ? 3 : 2) * dn, 2 * dn, {}, {}, {}, {}};
    Unknowns x = next.stage_increments.last();  // the unknowns at the solution, from their increments
    shift_by_start(x, s.q, s.v, 1.0);
    Unknowns F;
    const auto entry = [&](int r, int c, double v) {
      const bool unknown = c < size;
      if (r < size) {
        (unknown ? e.F_x : e.F_sigma).emplace_back(r, unknown ? c : c - size, v);
      } else {
        (unknown ? e.y_x : e.y_sigma).emplace_back(dn + (r - size), unknown ? c : c - size, v);
      }
    };
    equations<By::unknowns_and_start>(s, x, F, entry, by_force);
    for (int k = 0; k < dn; ++k) e.y_x.emplace_back(k, q_at(pair_.stages - 1) + k, 1.0);  // q1 = Q_s
    return e;
  }

  static SparseStepDerivative sparse_map(const DerivativeEntries& e) {
    using local::sparse_matrix;
    return SparseStepDerivative(sparse_matrix(e.unknowns, e.width, e.F_sigma),
                                sparse_matrix(e.unknowns, e.unknowns, e.F_x),
                                sparse_matrix(e.results, e.width, e.y_sigma),
                                sparse_matrix(e.results, e.unknowns, e.y_x));
  }

  /// ∂(q_{k+1}, p_{k+1})/∂σ by the implicit-function theorem on those entries: from a sparse
  /// factorisation by terms (sparse_step_derivative), from a dense one otherwise.
  Eigen::MatrixXd derivative(const State& s, bool by_force) const {
    const DerivativeEntries e = derivative_entries(s, by_force);
    if constexpr (by_terms) {
      return sparse_map(e).matrix().bottomRows(e.results);
    } else {
      const auto dense = [](int rows, int columns, const local::Triplets& entries) {
        Eigen::MatrixXd A = Eigen::MatrixXd::Zero(rows, columns);
        for (const auto& t : entries) A(t.row(), t.col()) += t.value();
        return A;
      };
      return implicit_derivative(dense(e.unknowns, e.unknowns, e.F_x), dense(e.unknowns, e.width, e.F_sigma),
                                 dense(e.results, e.unknowns, e.y_x), dense(e.results, e.width, e.y_sigma))
          .bottomRows(e.results);
    }
  }

  LobattoPair pair_;
  bool does_work_;  ///< whether a step adds to W (work_of_step)
};

}  // namespace dalembert
