#pragma once
// Jay's SPARK methods (Lobatto IIIA–IIIB) for the Lagrange–d'Alembert equations as an index-2 DAE
// ([Jay03]; the setting of odelab's `Spark`), for mechanical models L = ½ vᵀG(q)v − V(q) with
// constraints M(q)v = 0 and an external force F(q, v, t). In the variables (q, p), p = G(q)v,
// H(q, p) = ½ pᵀG(q)⁻¹p + V(q) and g(q, p) = M(q) G(q)⁻¹p:
//   q̇ = H_p(q, p)                             (integrated with Lobatto IIIA, coefficients a_ij)
//   ṗ = −H_q(q, p) + M(q)ᵀλ + F(q, H_p, t)     (integrated with Lobatto IIIB, coefficients â_ij)
//   0 = g(q, p).
// One step of s stages (Q_i, P_i, Λ_i), V_i = G(Q_i)⁻¹P_i, R_i = −H_q(Q_i, P_i) + M(Q_i)ᵀΛ_i + F(Q_i, V_i, t0 + c_i h):
//   Q_i = q0 + h Σ_j a_ij V_j,   P_i = p0 + h Σ_j â_ij R_j,                   i = 1 … s
//   q1 = q0 + h Σ_j b_j V_j,     p1 = p0 + h Σ_j b_j R_j,
//   0 = Σ_j a_ij g(Q_j, P_j),  i = 2 … s,     0 = g(q1, p1),
// the constraint conditions of Jay's SPARK for index-2 DAEs: the IIIA rows of the stage values of g
// (the first row of IIIA is zero), and g at the new step point, so that the constraint holds at
// every step point to Newton's tolerance. Order 2s − 2 (s = 2 … 5: orders 2, 4, 6, 8). The tableaux
// and the conditions `tests/test_spark.cpp` checks on them are in docs/methods.md.
// Unknowns (Q_i, P_i, Λ_i) less Q_1, which is q0 (IIIA's first row is zero): s(2n + m) − n, by chord
// iterations on a Jacobian kept from step to step and renewed when they contract slowly; the
// Jacobian is assembled from the forward automatic derivatives of each stage's rates.
// A locally coupled model without external force (model/local_terms.hpp) is stepped term by term
// (step_by_terms): with the stage velocities V_i and the end velocity v1 as unknowns too, through
// G(Q_i)V_i = P_i and G(q1)v1 = p1, no equation needs G⁻¹, every one is a sum of the terms', and
// Newton factorises a sparse Jacobian. A stage's momentum rate and constraint are stated once, for
// the whole model and for a term (momentum_rate_and_constraint).
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
  /// The stages less their start, (Q_i − q, P_i − p, Λ_i) in the step's order of unknowns, of the last
  /// steps: the next step's initial guess extrapolates them.
  StepIncrements<Vecd<Dynamic, max_unknowns>> stage_increments;
  /// The factorised Jacobian of the stage equations, kept from step to step (it changes by O(h)).
  KeptJacobian<Matd<Dynamic, Dynamic, max_unknowns, max_unknowns>> kept_jacobian;
};

template <HasMetric S>
class Spark : public MetricMethod<Spark<S>, S, SparkState<S>> {
  using Base = MetricMethod<Spark<S>, S, SparkState<S>>;
  friend Base;
  using Base::options_, Base::h_, Base::system_;

 public:
  using Base::n, Base::m;
  static constexpr int max_unknowns = SparkState<S>::max_unknowns;
  /// The unknowns (Q_i, P_i, Λ_i) of one stage, and a point (q, p) of phase space.
  static constexpr int stage_size = (S::n == Dynamic || S::m == Dynamic) ? Dynamic : 2 * S::n + S::m;
  /// The first stage's unknowns (P_1, Λ_1): its Q_1 is the start.
  static constexpr int first_stage_size = (S::n == Dynamic || S::m == Dynamic) ? Dynamic : S::n + S::m;
  static constexpr int phase_size = S::n == Dynamic ? Dynamic : 2 * S::n;

  using typename Base::State;

  Spark(const S& system, double h, int stages, NewtonOptions options = {})
      : Base(system, h, options), pair_(lobatto_pair(stages)) {}

  int stages() const { return pair_.stages; }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step by terms from s, as a map (solve/step_driver.hpp):
  /// D * (δq_k, δp_k) is (δx, δq_{k+1}, δp_{k+1}), x the unknowns of step_by_terms (the stages
  /// (Q_i, V_i, P_i, Λ_i), then v1). By the implicit-function theorem on its equations by terms
  /// (equations_by_terms), whose Jacobian in x is the step's own and in which the start enters
  /// linearly, as −q_k in the rows of Q_i and −p_k in those of P_i and of G(q1)v1 − p1; q_{k+1} = Q_s
  /// and p_{k+1} = G(q1) v1 at the solution. It takes a step of its own.
  SparseStepDerivative sparse_step_derivative(const State& s) const
    requires SteppedByTerms<S>
  {
    const int dn = coordinate_count(system_), dm = constraint_count(system_), st = pair_.stages;
    const int block = 3 * dn + dm, end = st * block, last = (st - 1) * block, size = end + dn;
    State next = s;
    const Eigen::VectorXd x = solve_by_terms(next);
    Eigen::VectorXd F, p1;
    local::Triplets F_x, F_sigma, y_x;
    equations_by_terms(s, x, F, F_x, p1);
    for (int k = 0; k < dn; ++k) {
      for (int i = 0; i < st; ++i) {
        F_sigma.emplace_back(i * block + k, k, -1.0);
        F_sigma.emplace_back(i * block + 2 * dn + k, dn + k, -1.0);
      }
      F_sigma.emplace_back(end + k, dn + k, -1.0);
      y_x.emplace_back(k, last + k, 1.0);  // q1 = Q_s
    }
    system_.visit_terms([&](const auto& term, const auto& indices) {  // p1 = G(q1) v1
      using Term = std::decay_t<decltype(term)>;
      constexpr int K = Term::n, m_e = Term::m;
      Vecd<2 * K> z;
      z << local::gather(next.q, indices), local::gather(next.v, indices);
      Vecd<K + m_e> value;
      Matd<K + m_e, 2 * K> by_z;
      ad::value_and_jacobian<2 * K, K + m_e>([&](const auto& zd) { return term_end_point(term, zd); }, z, value, by_z);
      for (int r = 0; r < K; ++r)
        for (int c = 0; c < 2 * K; ++c)
          y_x.emplace_back(dn + indices[r], c < K ? last + indices[c] : end + indices[c - K], by_z(r, c));
    });
    using local::sparse_matrix;
    return SparseStepDerivative(sparse_matrix(size, 2 * dn, F_sigma), sparse_matrix(size, size, F_x),
                                sparse_matrix(2 * dn, 2 * dn, {}), sparse_matrix(2 * dn, size, y_x));
  }

  /// Where δq_{k+1} is among the rows of sparse_step_derivative's products: after the stages and δv_1.
  Eigen::Index next_position_row(const State& s) const {
    return pair_.stages * (3 * s.q.size() + s.multiplier.size()) + s.q.size();
  }

 private:
  /// Stage i's velocity V = G(Q)⁻¹P, momentum rate R = −H_q(Q, P) + M(Q)ᵀΛ + F(Q, V, t0 + c_i h) + f
  /// and constraint g(Q, P) = M(Q) V, from its unknowns y = (Q, P, Λ), as one vector (V, R, g); f is
  /// a constant external force added to the model's (none in a step).
  template <class Y, class F = NoConstantForce>
  auto stage_rates(const Y& y, int i, double t0, const F& f = {}) const {
    using T = typename Y::Scalar;
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const VecN<S, T> Q = y.template segment<n>(0, dn), P = y.template segment<n>(dn, dn);
    const MetricDerivatives<S, T> at(system_, Q);
    const VecN<S, T> V = at.metric_solve(P);
    auto [R, g] = momentum_rate_and_constraint(system_, at, Q, V, y.template segment<m>(2 * dn, dm));
    if constexpr (HasExternalForce<S>) {
      if (has_external_force(system_)) R += system_.template force<T>(Q, V, t0 + pair_.c[i] * h_);
    }
    add_constant_force(R, f);
    Vec<T, stage_size> rates(2 * dn + dm);
    rates << V, R, g;
    return rates;
  }

  /// What every stage states, of the whole model or of a term: the momentum rate without external
  /// forces, R = −H_q(Q, G(Q)V) + M(Q)ᵀΛ = −∇V(Q) + ½ Vᵀ∂_qG(Q)V + M(Q)ᵀΛ, and the constraint M(Q)V,
  /// at the stage's (Q, V, Λ), with G and V at Q in `at`.
  template <class Part, class T, class Multipliers>
  static auto momentum_rate_and_constraint(const Part& part, const MetricDerivatives<Part, T>& at,
                                           const VecN<Part, T>& Q, const VecN<Part, T>& V, const Multipliers& lambda) {
    const int dm = constraint_count(part);
    std::pair<VecN<Part, T>, VecM<Part, T>> out;
    out.first = -at.potential_gradient_plus_half_quadratic(V, -1.0);
    out.second.resize(dm);
    if constexpr (Part::m != 0) {
      if (dm > 0) {
        const MatMN<Part, T> M = part.template constraint_matrix<T>(Q);
        out.first += coefficient_product(M.transpose(), VecM<Part, T>(lambda));
        out.second = coefficient_product(M, V);
      }
    }
    return out;
  }

  /// g at the step point, g(q1, p1) = M(q1) G(q1)⁻¹ p1, of z = (q1, p1).
  template <class Z>
  auto end_constraint(const Z& z) const {
    using T = typename Z::Scalar;
    const int dn = coordinate_count(system_);
    const VecN<S, T> q1 = z.template segment<n>(0, dn);
    const VecN<S, T> v1 = metric_factorisation(system_, q1).solve(z.template segment<n>(dn, dn));
    return VecM<S, T>(coefficient_product(system_.template constraint_matrix<T>(q1), v1));
  }

  /// The stage equations from the start (q0, p0) at time t0, at the stages' unknowns x, with a
  /// constant external force f added to the model's: the residual, and the step point (q1, p1) the
  /// stages give. Generic in x's scalar U (with `width` derivatives) and in the start's T, double in
  /// a step, U for its derivative. The unknowns are (P_1, Λ_1, Q_2, P_2, Λ_2, …, Q_s, P_s, Λ_s):
  /// Q_1 = q0 is not one (IIIA's first row is zero). With block = 2n + m and the stages counted from
  /// 0 as in the code, stage i's P_i is at i·block, its Λ_i at i·block + n and its Q_i (i > 0) at
  /// i·block − n; its equations are in the same rows.
  template <class U>
  struct Equations {
    Vec<U, Dynamic, max_unknowns> residual;
    VecN<S, U> q1, p1;
  };
  template <class T, class X, class F = NoConstantForce>
  Equations<typename X::Scalar> equations(const VecN<S, T>& start_q, const VecN<S, T>& start_p, const X& x,
                                          double t0, int width, const F& f = {}) const {
    using U = typename X::Scalar;
    const int dn = coordinate_count(system_), dm = constraint_count(system_), st = pair_.stages;
    const int block = 2 * dn + dm;  // one stage: Q_i, P_i, Λ_i
    const double h = h_;
    const VecN<S, U> q0 = ad::in_scalar<U>(start_q, width), p0 = ad::in_scalar<U>(start_p, width);
    // Each stage's rates (V_i, R_i, g(Q_i, P_i)), then the step point (q1, p1). Stage i > 0 reads its
    // (Q_i, P_i, Λ_i) where they lie in x; the first stage's start is q0 with (P_1, Λ_1).
    std::array<Vec<U, stage_size>, LobattoPair::max_stages> rates;
    for (int i = 0; i < st; ++i) {
      if (i == 0) {
        Vec<U, stage_size> y(block);
        y << q0, x.template segment<first_stage_size>(0, dn + dm);
        rates[i] = stage_rates(y, i, t0, f);
      } else {
        rates[i] = stage_rates(x.template segment<stage_size>(i * block - dn, block), i, t0, f);
      }
    }
    const auto V = [&](int j) { return rates[j].template segment<n>(0, dn); };
    const auto R = [&](int j) { return rates[j].template segment<n>(dn, dn); };
    const auto constraint = [&](int j) { return rates[j].template segment<m>(2 * dn, dm); };
    Equations<U> e;
    e.q1 = q0;
    e.p1 = p0;
    for (int j = 0; j < st; ++j) {
      e.q1 += (h * pair_.b[j]) * V(j);
      e.p1 += (h * pair_.b[j]) * R(j);
    }
    e.residual.resize(st * block - dn);
    for (int i = 0; i < st; ++i) {
      // Q_i − q0 − h Σ_j a_ij V_j (none for Q_1 = q0) and P_i − p0 − h Σ_j â_ij R_j, in their rows
      if (i > 0) {
        auto rq = e.residual.template segment<n>(i * block - dn, dn);
        rq = x.template segment<n>(i * block - dn, dn) - q0;
        for (int j = 0; j < st; ++j)
          if (pair_.a[i][j] != 0.0) rq -= (h * pair_.a[i][j]) * V(j);
      }
      auto rp = e.residual.template segment<n>(i * block, dn);
      rp = x.template segment<n>(i * block, dn) - p0;
      for (int j = 0; j < st; ++j)
        if (pair_.a_hat[i][j] != 0.0) rp -= (h * pair_.a_hat[i][j]) * R(j);
      if (dm == 0) continue;
      auto condition = e.residual.template segment<m>(i * block + dn, dm);
      if (i + 1 < st) {  // Σ_j a_{i+1, j} g(Q_j, P_j): the IIIA rows 2 … s
        condition = pair_.a[i + 1][0] * constraint(0);
        for (int j = 1; j < st; ++j) condition += pair_.a[i + 1][j] * constraint(j);
      } else {  // g(q1, p1)
        Vec<U, phase_size> z(2 * dn);
        z << e.q1, e.p1;
        condition = end_constraint(z);
      }
    }
    return e;
  }

  /// The stages at the solution of the step s → next, and the equations from a start (q0, p0) in any
  /// scalar type: what the step's derivatives differentiate (MetricMethod::step_derivatives).
  Vecd<Dynamic, max_unknowns> unknowns_at(const State& s, const State& next) const {
    const int dn = coordinate_count(system_);
    const int block = (static_cast<int>(next.stage_increments.last().size()) + dn) / pair_.stages;
    Vecd<Dynamic, max_unknowns> x = next.stage_increments.last();
    for (int i = 0; i < pair_.stages; ++i) {  // the stages, from their increments over the start
      if (i > 0) x.segment(i * block - dn, dn) += s.q;
      x.segment(i * block, dn) += s.p;
    }
    return x;
  }
  template <class Q, class F, class X>
  auto step_equations(const Q& q0, const Q&, const Q& p0, const F& f, const X& x, double t0, int width) const {
    return equations(q0, p0, x, t0, width, f);
  }

  void dense_step(State& s) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_), st = pair_.stages;
    const int block = 2 * dn + dm;  // one stage: Q_i, P_i, Λ_i
    const double h = h_;
    const auto residual = [&](const auto& x) {
      return equations(s.q, s.p, x, s.t, static_cast<int>(x.size())).residual;
    };
    using Unknowns = Vecd<Dynamic, max_unknowns>;
    using Jacobian = Matd<Dynamic, Dynamic, max_unknowns, max_unknowns>;
    // Initial guess: the stages' increments over their start extrapolated from the last steps
    // (StepIncrements), or, at the first step, the start drifting with v0. The unknowns are in the
    // order of `equations`.
    const int size = st * block - dn;
    Unknowns x = Unknowns::Zero(size);
    const bool warm = s.stage_increments.extrapolate(x);
    for (int i = 0; i < st; ++i) {
      if (i > 0) x.template segment<n>(i * block - dn, dn) += warm ? s.q : VecN<S>(s.q + (pair_.c[i] * h) * s.v);
      x.template segment<n>(i * block, dn) += s.p;
      if (!warm) x.template segment<m>(i * block + dn, dm) = s.multiplier;
    }
    // Chord iterations on a factorised Jacobian kept from step to step (solve/step_driver.hpp): the
    // Jacobian of all stages, by automatic differentiation, is most of a step's cost, and it changes
    // by O(h) per step.
    const double scale = s.p.template lpNorm<Eigen::Infinity>();
    // The Jacobian of the residual from each stage's own derivatives: stage j's rates depend on its
    // unknowns alone, so s derivatives of width 2n + m (and one of g(q1, p1), of width 2n) give the
    // whole Jacobian, for a quarter of the work of differentiating the residual in all s(2n + m)
    // directions at s = 4.
    const auto jacobian = [&](const Unknowns& x, Jacobian& J) {
      J.setZero(size, size);
      std::array<Matd<stage_size, stage_size>, LobattoPair::max_stages> D;  // ∂(V, R, g)/∂(Q, P, Λ) of each stage
      VecN<S> q1 = s.q, p1 = s.p;
      for (int j = 0; j < st; ++j) {
        Vecd<stage_size> y(block), rates(block);
        if (j == 0)
          y << s.q, x.template segment<first_stage_size>(0, dn + dm);
        else
          y = x.template segment<stage_size>(j * block - dn, block);
        ad::value_and_jacobian<stage_size, stage_size>([&](const auto& w) { return stage_rates(w, j, s.t); }, y,
                                                       rates, D[j]);
        q1 += (h * pair_.b[j]) * rates.template segment<n>(0, dn);
        p1 += (h * pair_.b[j]) * rates.template segment<n>(dn, dn);
      }
      Matd<m, phase_size> E(dm, 2 * dn);  // ∂g(q1, p1)/∂(q1, p1)
      if (dm > 0) {
        Vecd<phase_size> z(2 * dn);
        z << q1, p1;
        Vecd<m> g1(dm);
        ad::value_and_jacobian<phase_size, m>([&](const auto& w) { return end_constraint(w); }, z, g1, E);
      }
      for (int i = 0; i < st; ++i) {
        if (i > 0) J.block(i * block - dn, i * block - dn, dn, dn).setIdentity();
        J.block(i * block, i * block, dn, dn).setIdentity();
        for (int j = 0; j < st; ++j) {
          // Stage j's columns: all of D[j] from j·block − n, or for stage 1 those of (P_1, Λ_1) from 0.
          const int first = j == 0 ? dn : 0, column = j == 0 ? 0 : j * block - dn, width = block - first;
          const auto dV = D[j].block(0, first, dn, width), dR = D[j].block(dn, first, dn, width);
          const auto dg = D[j].block(2 * dn, first, dm, width);
          if (i > 0) J.block(i * block - dn, column, dn, width) -= (h * pair_.a[i][j]) * dV;
          J.block(i * block, column, dn, width) -= (h * pair_.a_hat[i][j]) * dR;
          if (dm == 0) continue;
          if (i + 1 < st) {
            J.block(i * block + dn, column, dm, width) = pair_.a[i + 1][j] * dg;
          } else {
            J.block(i * block + dn, column, dm, width) =
                (h * pair_.b[j]) * (E.leftCols(dn) * dV + E.rightCols(dn) * dR);
          }
        }
      }
    };
    const int iterations = chord_solve(s, h, residual, jacobian, x, scale, options_, s.kept_jacobian);
    const auto y = equations(s.q, s.p, x, s.t, static_cast<int>(x.size()));
    Unknowns increments = x;
    for (int i = 0; i < st; ++i) {
      if (i > 0) increments.template segment<n>(i * block - dn, dn) -= s.q;
      increments.template segment<n>(i * block, dn) -= s.p;
    }
    s.stage_increments.record(std::move(increments));
    s.q = y.q1;
    s.p = y.p1;
    s.v = metric_factorisation(system_, s.q).solve(s.p);
    s.multiplier = x.template segment<m>((st - 1) * block + dn, dm);
    advance(s, h);
    s.iterations = iterations;
  }

  /// A term's stage rates at y = (Q, V, Λ) (Λ: the term's constraint rows): G(Q)V, and the momentum
  /// rate and constraint of momentum_rate_and_constraint.
  template <class Term, class Y>
  static auto term_stage_rates(const Term& term, const Y& y) {
    using T = typename Y::Scalar;
    constexpr int K = Term::n, m_e = Term::m;
    const Vec<T, K> Q = y.template head<K>(), V = y.template segment<K>(K);
    const MetricDerivatives<Term, T> at(term, Q);
    const auto [R, g] = momentum_rate_and_constraint(term, at, Q, V, y.template tail<m_e>());
    Vec<T, 2 * K + m_e> out;
    out << at.metric() * V, R, g;
    return out;
  }

  /// A term's G(q1)v1 and M(q1)v1 at z = (q1, v1).
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

  /// The equations of step_by_terms at x and their Jacobian's entries; p1 = p0 + h Σ_j b_j R_j. Stage
  /// i's unknowns (Q_i, V_i, P_i, Λ_i) start at i (3n + m), v1 follows the last stage; stage i's rows,
  /// in the same places:
  ///   Q_i − q0 − h Σ_j a_ij V_j = 0,   G(Q_i)V_i − P_i = 0,   P_i − p0 − h Σ_j â_ij R_j = 0,
  ///   Σ_j a_{i+1, j} M(Q_j)V_j = 0 (i < s), M(q1) v1 = 0 (i = s),
  /// and G(q1)v1 − p1 = 0 with q1 = Q_s (IIIA's last row is b).
  void equations_by_terms(const State& s, const Eigen::VectorXd& x, Eigen::VectorXd& F, local::Triplets& entries,
                          Eigen::VectorXd& p1) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_), st = pair_.stages;
    const int block = 3 * dn + dm, end = st * block, last = (st - 1) * block;
    const double h = h_;
    F.setZero(x.size());
    entries.clear();
    p1 = s.p;
    // the linear parts
    for (int i = 0; i < st; ++i) {
      const int Qi = i * block, Vi = Qi + dn, Pi = Qi + 2 * dn;
      for (int k = 0; k < dn; ++k) {
        F[Qi + k] += x[Qi + k] - s.q[k];
        entries.emplace_back(Qi + k, Qi + k, 1.0);
        for (int j = 0; j < st; ++j) {
          if (pair_.a[i][j] == 0.0) continue;
          F[Qi + k] -= (h * pair_.a[i][j]) * x[j * block + dn + k];
          entries.emplace_back(Qi + k, j * block + dn + k, -h * pair_.a[i][j]);
        }
        F[Vi + k] -= x[Pi + k];
        entries.emplace_back(Vi + k, Pi + k, -1.0);
        F[Pi + k] += x[Pi + k] - s.p[k];
        entries.emplace_back(Pi + k, Pi + k, 1.0);
      }
    }
    F.tail(dn) -= s.p;
    // the stage rates, term by term
    for (int j = 0; j < st; ++j) {
      const int Qj = j * block;
      int constraint_row = 0;
      system_.visit_terms([&](const auto& term, const auto& indices) {
        using Term = std::decay_t<decltype(term)>;
        constexpr int K = Term::n, m_e = Term::m, Y = 2 * K + m_e;
        const auto column = [&](int c) {
          return c < K       ? Qj + indices[c]
                 : c < 2 * K ? Qj + dn + indices[c - K]
                             : Qj + 3 * dn + constraint_row + (c - 2 * K);
        };
        Vecd<Y> y;
        for (int c = 0; c < Y; ++c) y[c] = x[column(c)];
        Vecd<Y> rates;
        Matd<Y, Y> by_y;
        ad::value_and_jacobian<Y, Y>([&](const auto& yd) { return term_stage_rates(term, yd); }, y, rates, by_y);
        const auto add = [&](int row, int local_row, double factor) {
          F[row] += factor * rates[local_row];
          for (int c = 0; c < Y; ++c) entries.emplace_back(row, column(c), factor * by_y(local_row, c));
        };
        for (int r = 0; r < K; ++r) {
          add(Qj + dn + indices[r], r, 1.0);  // G(Q_j)V_j
          for (int i = 0; i < st; ++i)
            if (pair_.a_hat[i][j] != 0.0) add(i * block + 2 * dn + indices[r], K + r, -h * pair_.a_hat[i][j]);
          add(end + indices[r], K + r, -h * pair_.b[j]);
          p1[indices[r]] += (h * pair_.b[j]) * rates[K + r];
        }
        for (int r = 0; r < m_e; ++r)
          for (int i = 1; i < st; ++i)
            if (pair_.a[i][j] != 0.0) add((i - 1) * block + 3 * dn + constraint_row + r, 2 * K + r, pair_.a[i][j]);
        constraint_row += m_e;
      });
    }
    // the end point (q1, v1) = (Q_s, v1)
    int constraint_row = 0;
    system_.visit_terms([&](const auto& term, const auto& indices) {
      using Term = std::decay_t<decltype(term)>;
      constexpr int K = Term::n, m_e = Term::m;
      const auto column = [&](int c) { return c < K ? last + indices[c] : end + indices[c - K]; };
      Vecd<2 * K> z;
      for (int c = 0; c < 2 * K; ++c) z[c] = x[column(c)];
      Vecd<K + m_e> value;
      Matd<K + m_e, 2 * K> by_z;
      ad::value_and_jacobian<2 * K, K + m_e>([&](const auto& zd) { return term_end_point(term, zd); }, z, value, by_z);
      for (int r = 0; r < K + m_e; ++r) {
        const int row = r < K ? end + indices[r] : last + 3 * dn + constraint_row + (r - K);
        F[row] += value[r];
        for (int c = 0; c < 2 * K; ++c) entries.emplace_back(row, column(c), by_z(r, c));
      }
      constraint_row += m_e;
    });
  }

  void step_by_terms(State& s) const { solve_by_terms(s); }

  /// The step of the same method with a sparse Jacobian (equations_by_terms), by Newton from the
  /// stages drifting with v0; its unknowns at the solution.
  Eigen::VectorXd solve_by_terms(State& s) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_), st = pair_.stages;
    const int block = 3 * dn + dm, end = st * block, last = (st - 1) * block;
    const double h = h_;
    Eigen::VectorXd x(end + dn);
    for (int i = 0; i < st; ++i) {
      x.segment(i * block, dn) = s.q + (pair_.c[i] * h) * s.v;
      x.segment(i * block + dn, dn) = s.v;
      x.segment(i * block + 2 * dn, dn) = s.p;
      x.segment(i * block + 3 * dn, dm) = s.multiplier;
    }
    x.tail(dn) = s.v;
    Eigen::VectorXd p1;       // of the latest evaluation, which Newton makes at the solution
    local::Triplets entries;  // likewise
    const auto residual = [&](const Eigen::VectorXd& y, Eigen::VectorXd& F) {
      equations_by_terms(s, y, F, entries, p1);
    };
    const auto jacobian = [&](const Eigen::VectorXd&, Eigen::SparseMatrix<double>& J) {
      J.setFromTriplets(entries.begin(), entries.end());
    };
    const NewtonReport r = solve_step<Eigen::SparseMatrix<double>>(s, h, SeparateEquations{residual, jacobian}, x,
                                                                   s.p.template lpNorm<Eigen::Infinity>(), options_);
    s.q = x.segment(last, dn);
    s.p = p1;
    s.v = x.tail(dn);
    s.multiplier = x.segment(last + 3 * dn, dm);
    advance(s, h);
    s.iterations = r.iterations;
    return x;
  }

  LobattoPair pair_;
};

}  // namespace dalembert
