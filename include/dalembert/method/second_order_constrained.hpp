#pragma once
// DSOCS integrator of Borda, Fernández and Grillo ([BFG13] Theorem 3.3): given
// (q_{k−1}, q_k), solve for q_{k+1}
//   g_K(q_{k−1}, q_k, q_{k+1}) = 0                                               (m equations, D_K)
//   B_d(q_{k−1}, q_k, q_{k+1})ᵀ [D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1})] = 0  (n − m, β = 0)
// by Newton from the predictor 2 q_k − q_{k−1}, the Jacobian by automatic differentiation through
// L_d, g_K and B_d (B_d may depend on q_{k+1}).
//
// Several roots ([BFG13] §4.2; docs/methods.md). Where the kinematic constraint factors as spurious ⊙ physical,
// RootRule::physical (the default) solves the physical factor: a unique, well-conditioned root.
// RootRule::closest reproduces the paper's rule (§4.2 of the paper): the roots of both factors are
// the candidates and the one whose root-selection coordinate (θ for the inertia wheel pendulum) is
// closer to that of q_k is taken; when the candidates are closer than `root_separation` the paper
// takes "the solution that decreases F", which is the physical root (the spurious one has F = 0).
//
// Starts: from (q0, v0) the first step is q1 = q0 + h v0 (SecondOrderStart::forward_euler, the
// paper's) or q1 = q0 + h v0 + ½h² a0 with a0 from the continuous SOCS (SecondOrderStart::taylor2). The first
// makes an O(h²) error in q1, which the two-step recurrence turns into an O(h) global error: it
// caps the order at 1. The second keeps the scheme's order 2.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "dalembert/discrete/second_order.hpp"
#include "dalembert/solve/newton.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

enum class RootRule { physical, closest };
/// Which kinematic equations a step solves: the literal g_K, or one factor of a factored g_K.
enum class Branch { literal, physical, spurious };
enum class SecondOrderStart { forward_euler, taylor2 };

struct SecondOrderMethodOptions {
  RootRule roots = RootRule::physical;
  SecondOrderStart start = SecondOrderStart::taylor2;
  /// Candidates closer than this (relative to max(1, |coordinate|)) count as "not sufficiently
  /// apart" for RootRule::closest. 1e-8 is about where the two roots of the unfactored equation
  /// (10) stop being distinguishable in double precision at h = 0.1 (√(ε C/A), docs/methods.md).
  double root_separation = 1e-8;
  NewtonOptions newton;
};

template <DiscreteSecondOrderSystem Ds>
class DiscreteSecondOrderConstrained {
 public:
  static constexpr int n = Ds::n;
  static constexpr int m = Ds::m;
  static constexpr int max_n = max_n_of<Ds>();
  using Vector = VecN<Ds>;      ///< positions, velocities, accelerations, residuals
  using Matrix = MatNN<Ds>;     ///< Jacobians of the step equations

  struct State : OnTheGrid {
    Vector q;
    Vector previous;   ///< q_{k−1} (k ≥ 1)
    Vector v;          ///< velocity estimate at t_k (see velocity())
    Vector a;          ///< acceleration estimate at t_k (see acceleration())
    Vector last_central_acceleration;  ///< (q_k − 2q_{k−1} + q_{k−2})/h², NaN until known
    double discrete_constraint = 0.0;   ///< |g_K(q_{k−2}, q_{k−1}, q_k)|_inf of the last solve
    bool spurious = false;  ///< the last step took the spurious root (RootRule::closest only)
  };

  explicit DiscreteSecondOrderConstrained(Ds discrete_system, SecondOrderMethodOptions options = {})
      : ds_(std::move(discrete_system)), options_(options) {
    if (options_.roots == RootRule::closest && !HasFactoredDiscreteConstraint<Ds>)
      throw std::invalid_argument("root rule 'closest' needs a factored kinematic constraint");
    if (options_.start == SecondOrderStart::taylor2 && !HasContinuousSystem<Ds>)
      throw std::invalid_argument("the second-order start needs the continuous system");
  }

  double step_size() const { return ds_.step_size(); }
  const Ds& discrete_system() const { return ds_; }
  const auto& system() const { return ds_.system(); }
  const SecondOrderMethodOptions& options() const { return options_; }

  /// State at k = 0; the first step applies the start rule of the options.
  State initial_state(const Vector& q0, const Vector& v0) const {
    State s;
    s.q = q0;
    s.previous = q0;
    s.v = v0;
    s.a = continuous_acceleration(q0, v0);
    s.last_central_acceleration.setConstant(coordinate_count(ds_), std::numeric_limits<double>::quiet_NaN());
    return s;
  }

  /// Two-point start from (q0, q1), as in the paper; the returned state is at k = 1, with velocity
  /// (q1 − q0)/h and the continuous acceleration there (NaN without a continuous system).
  State initial_state_two_point(const Vector& q0, const Vector& q1) const {
    State s;
    s.k = 1;
    s.t = step_size();
    s.q = q1;
    s.previous = q0;
    s.v = (q1 - q0) / step_size();
    s.a = continuous_acceleration(q1, s.v);
    s.last_central_acceleration.setConstant(coordinate_count(ds_), std::numeric_limits<double>::quiet_NaN());
    return s;
  }

  void step(State& s) const {
    const double h = step_size();
    if (s.k == 0) {
      start(s);
      return;
    }
    Vector next = 2.0 * s.q - s.previous;
    bool spurious = false;
    NewtonReport r = solve(s.previous, s.q, default_branch(), next);
    if constexpr (HasFactoredDiscreteConstraint<Ds>) {
      if (r.converged && options_.roots == RootRule::closest) {
        Vector candidate = 2.0 * s.q - s.previous;
        const NewtonReport rs = solve(s.previous, s.q, Branch::spurious, candidate);
        r.iterations += rs.iterations;
        constexpr int c = root_selection_coordinate();
        const double gap = std::abs(candidate[c] - next[c]);
        if (rs.converged && gap > options_.root_separation * std::max(1.0, std::abs(s.q[c])) &&
            std::abs(candidate[c] - s.q[c]) < std::abs(next[c] - s.q[c])) {
          next = candidate;
          spurious = true;
        }
      }
    }
    if (!r.converged) throw SolverError(s.k + 1, grid_time(s.k + 1, h), r);

    // Estimates at t_{k+1} from the central differences at t_k: v = BDF2 velocity (second order),
    // a = the central accelerations extrapolated linearly (second order once two are known).
    const Vector v_central = (next - s.previous) / (2.0 * h);
    const Vector a_central = (next - 2.0 * s.q + s.previous) / (h * h);
    s.discrete_constraint = discrete_residual(s.previous, s.q, next);
    s.v = v_central + h * a_central;
    s.a = s.last_central_acceleration.allFinite() ? Vector(2.0 * a_central - s.last_central_acceleration)
                                                  : a_central;
    s.last_central_acceleration = a_central;
    s.previous = s.q;
    s.q = next;
    advance(s, h);
    s.iterations = r.iterations;
    s.spurious = spurious;
  }

  /// The velocity estimate at t_k: (3q_k − 4q_{k−1} + q_{k−2})/(2h), i.e. the central difference at
  /// t_{k−1} advanced by h times the central second difference; v0 at k = 0.
  Vector velocity(const State& s) const { return s.v; }

  /// ∂(q_k, q_{k+1})/∂(q_{k−1}, q_k) of the step from s (k ≥ 1; the first step applies the start
  /// rule): a 2n × 2n matrix, rows q_k then q_{k+1}, columns q_{k−1} then q_k, by the
  /// implicit-function theorem on the equations R(q_{k−1}, q_k, q_{k+1}) = 0 of the branch the step
  /// took (solve/step_driver.hpp, implicit_step_derivative). It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const {
    if (s.k == 0) throw std::invalid_argument("the first step applies the start rule: differentiate from k = 1");
    const State next = step_from(*this, s);
    const Branch branch = next.spurious ? Branch::spurious : default_branch();
    constexpr int N2 = multiple_of_size(2, n), MaxN2 = multiple_of_size(2, max_n);
    constexpr int N3 = multiple_of_size(3, n), MaxN3 = multiple_of_size(3, max_n);
    const int dn = coordinate_count(ds_);
    // z = (q_{k−1}, q_k, q_{k+1}) ↦ (R, q_k)
    const auto equations = [&](const auto& z) {
      using T = typename std::decay_t<decltype(z)>::Scalar;
      const VecN<Ds, T> q0 = z.template head<n>(dn), q1 = z.template segment<n>(dn, dn),
                        q2 = z.template segment<n>(2 * dn, dn);
      Vec<T, N2, MaxN2> out(2 * dn);
      out << step_equations<T>(branch, q0, q1, momentum(q0, q1), q2), q1;
      return out;
    };
    Vecd<N3, MaxN3> z(3 * dn);
    z << s.previous, s.q, next.q;
    const Eigen::MatrixXd D = implicit_step_derivative<N3, N2, MaxN3, MaxN2>(equations, z, dn);
    Eigen::MatrixXd out(2 * dn, 2 * dn);
    out << D.bottomRows(dn), D.topRows(dn);
    return out;
  }

  /// The acceleration estimate at t_k (for the kinematic constraint residual of a run).
  Vector acceleration(const State& s) const { return s.a; }

  /// The branch a step solves: the physical factor where g_K factors, otherwise g_K itself.
  static constexpr Branch default_branch() {
    return HasFactoredDiscreteConstraint<Ds> ? Branch::physical : Branch::literal;
  }

  /// The step residual R(q2) from (q0, q1) ([BFG13] Thm 3.3): [branch equations; B_dᵀ(D2 L_d + D1 L_d)].
  Vector residual(const Vector& q0, const Vector& q1, const Vector& q2, Branch branch = Branch::literal) const {
    return step_equations<double>(branch, q0, q1, momentum(q0, q1), q2);
  }

  /// ∂R/∂q2, the Newton Jacobian; its nonsingularity is condition 2 of [BFG13] Theorem 5.1.
  Matrix residual_jacobian(const Vector& q0, const Vector& q1, const Vector& q2,
                           Branch branch = Branch::literal) const {
    const Vector p = momentum(q0, q1);
    Vector F;
    Matrix J;
    ad::value_and_jacobian<n, n, max_n, max_n>(
        [&](const auto& x2) {
          using D = typename std::decay_t<decltype(x2)>::Scalar;
          return step_equations<D>(branch, q0, q1, p, x2);
        },
        q2, F, J);
    return J;
  }

  /// Solves the step equations of `branch` for q2, starting from q2. Each row is scaled at the
  /// start by Σ_j |∂R_i/∂q2_j| max(1, |q2_j|), so that the tolerance is relative to the round-off
  /// in q; after convergence one more Newton correction, from the last evaluation, leaves an error
  /// of the order of the square of the tolerance.
  NewtonReport solve(const Vector& q0, const Vector& q1, Branch branch, Vector& q2) const {
    const Vector p = momentum(q0, q1);  // D2 L_d(q0, q1) does not involve the unknown
    Vector row_scale = Vector::Zero(coordinate_count(ds_)), last_F;
    Matrix last_J;
    const auto evaluate = [&](const Vector& x, Vector& F, Matrix& J) {
      ad::value_and_jacobian<n, n, max_n, max_n>(
          [&](const auto& x2) {
            using D = typename std::decay_t<decltype(x2)>::Scalar;
            return step_equations<D>(branch, q0, q1, p, x2);
          },
          x, F, J);
      if (row_scale.isZero()) {
        const Vector size = x.cwiseAbs().cwiseMax(1.0);
        for (int i = 0; i < coordinate_count(ds_); ++i)
          row_scale[i] = 1.0 / std::max(J.row(i).cwiseAbs().dot(size), std::numeric_limits<double>::min());
      }
      F = row_scale.asDiagonal() * F;
      J = row_scale.asDiagonal() * J;
      last_F = F;
      last_J = J;
    };
    const NewtonReport r = newton_solve<n, max_n>(evaluate, q2, 1.0, options_.newton);
    if (r.converged) {
      const Vector correction = last_J.partialPivLu().solve(last_F);
      if (correction.allFinite()) q2 -= correction;
    }
    return r;
  }

 private:
  static constexpr int root_selection_coordinate() {
    if constexpr (HasContinuousSystem<Ds>) {
      using S = std::decay_t<decltype(std::declval<Ds>().system())>;
      if constexpr (requires { S::root_selection_coordinate; }) return S::root_selection_coordinate;
    }
    return 0;
  }

  /// D2 L_d(q0, q1), the discrete momentum at q1 (the paper's L_d has no factor h, [BFG13] §4),
  /// generic in the scalar type.
  template <class T>
  VecN<Ds, T> momentum(const VecN<Ds, T>& q0, const VecN<Ds, T>& q1) const {
    T value;
    VecN<Ds, T> p;
    ad::value_and_gradient<n, max_n>(
        [&](const auto& x1) {
          using D = typename std::decay_t<decltype(x1)>::Scalar;
          return ds_.template lagrangian<D>(ad::in_scalar<D>(q0, coordinate_count(ds_)), x1);
        },
        q1, value, p);
    return p;
  }

  /// The step equations of `branch` at q2, generic in the scalar type of the start (q0, q1 and
  /// p = D2 L_d(q0, q1): doubles for Newton, dual numbers for the step's derivative) as well as of
  /// the unknown q2.
  template <class D, class Start>
  VecN<Ds, D> step_equations(Branch branch, const VecN<Ds, Start>& q0, const VecN<Ds, Start>& q1,
                             const VecN<Ds, Start>& p, const VecN<Ds, D>& q2) const {
    const int dn = coordinate_count(ds_), dm = constraint_count(ds_);
    const VecN<Ds, D> x0 = ad::in_scalar<D>(q0, dn), x1 = ad::in_scalar<D>(q1, dn);
    // D1 L_d(q1, q2) as a function of q2: an inner gradient along q1
    D value;
    VecN<Ds, D> d1;
    ad::value_and_gradient<n, max_n>(
        [&](const auto& y1) {
          using E = typename std::decay_t<decltype(y1)>::Scalar;
          return ds_.template lagrangian<E>(y1, ad::constants<E>(q2, coordinate_count(ds_)));
        },
        x1, value, d1);
    const VecN<Ds, D> force = ad::in_scalar<D>(p, dn) + d1;  // D2 L_d(q0, q1) + D1 L_d(q1, q2)
    VecN<Ds, D> r;
    r.resize(dn);
    if constexpr (m != 0) {
      if (dm > 0) r.template head<m>(dm) = kinematic_equations<D>(branch, x0, x1, q2);
    }
    const MatNK<Ds, D> frame = ds_.template variational_frame<D>(x0, x1, q2);
    r.template segment<k_of<Ds>>(dm, dn - dm) = coefficient_product(frame.transpose(), force);
    return r;
  }

  template <class D>
  VecM<Ds, D> kinematic_equations(Branch branch, const VecN<Ds, D>& q0, const VecN<Ds, D>& q1,
                                  const VecN<Ds, D>& q2) const {
    if constexpr (HasFactoredDiscreteConstraint<Ds>) {
      if (branch == Branch::physical) return ds_.template physical_factor<D>(q0, q1, q2);
      if (branch == Branch::spurious) return ds_.template spurious_factor<D>(q0, q1, q2);
    } else if (branch != Branch::literal) {
      throw std::invalid_argument("this DSOCS has no factored kinematic constraint");
    }
    return ds_.template kinematic_constraint<D>(q0, q1, q2);
  }

  double discrete_residual(const Vector& q0, const Vector& q1, const Vector& q2) const {
    if constexpr (m == 0) {
      return 0.0;
    } else {
      if (constraint_count(ds_) == 0) return 0.0;
      return ds_.template kinematic_constraint<double>(q0, q1, q2).template lpNorm<Eigen::Infinity>();
    }
  }

  Vector continuous_acceleration(const Vector& q, const Vector& v) const {
    if constexpr (HasContinuousSystem<Ds>) {
      Vector a;
      if (solve_acceleration(ds_.system(), q, v, a).converged) return a;
    }
    return Vector::Constant(coordinate_count(ds_), std::numeric_limits<double>::quiet_NaN());
  }

  void start(State& s) const {
    const double h = step_size();
    const bool taylor = options_.start == SecondOrderStart::taylor2;
    if (taylor && !s.a.allFinite()) {
      NewtonReport r;
      r.reason = "no acceleration at (q0, v0) for the second-order start";
      throw SolverError(1, h, r);
    }
    const Vector q1 = taylor ? Vector(s.q + h * s.v + 0.5 * h * h * s.a) : Vector(s.q + h * s.v);
    if (s.a.allFinite()) s.v += h * s.a;
    s.previous = s.q;
    s.q = q1;
    s.k = 1;
    s.t = h;
    s.iterations = 0;
    s.discrete_constraint = 0.0;
  }

  Ds ds_;
  SecondOrderMethodOptions options_;
};

/// The paper's DSOCS integrator of a SOCS (forward-difference L_d, central-difference D_K, D_V).
template <SecondOrderSystem S>
auto make_dsocs(const S& system, double h, SecondOrderMethodOptions options = {}) {
  return DiscreteSecondOrderConstrained<DiscretizedSecondOrderSystem<S>>(discretize(system, h), options);
}

}  // namespace dalembert
