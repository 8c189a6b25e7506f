#pragma once
// The step driver: what every implicit step does around its own equations. A method states the
// unknowns x of its step, its residual F(x) = 0 with the Jacobian (solve/newton.hpp: residual and
// jacobian apart, or evaluated together), the guess and the scale of the residual, and how the
// next state is read at the solution; the driver owns the rest:
//  - Newton's iteration, with the linear solver the Jacobian's storage chooses (solve/newton.hpp);
//  - a failure, reported as one of step k + 1 at its time on the grid (also a SolverError thrown
//    inside the residual, as exact ingredients' shooting does);
//  - for the position–momentum methods (DEL, DLA, MLA, GF, FIM), whose first equations read
//    F = p_k + D1 L_d(q_k, q_{k+1}) + … and whose next momentum is p_{k+1} = D2 L_d(q_k, q_{k+1}) + …,
//    the solution carried below the last bit of q (solve/below_last_bit.hpp), the next position, its
//    velocity (q_{k+1} − q_k)/h (the next guess), the other unknowns (the multipliers), the time
//    grid and the iteration count;
//  - for a step whose Jacobian is most of its cost and changes by O(h) from step to step (SPARK's
//    stages, the discrete gradient's larger steps), chord iterations on a factorisation kept from
//    step to step, from a guess extrapolated from the last steps' increments (StepIncrements);
//  - the derivative of a step with respect to the state it starts from, by the implicit-function
//    theorem on the converged equations (implicit_step_derivative), or for equations with a sparse
//    Jacobian as a map applied to a direction with one sparse solve (SparseStepDerivative; by the
//    momentum of a step differentiated by the velocity, SparseStepDerivativeByVelocity).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/core/sizes.hpp"
#include "dalembert/core/types.hpp"
#include "dalembert/solve/below_last_bit.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

/// A step's equations with the residual and its Jacobian apart: residual(x, F) and jacobian(x, J),
/// the Jacobian at the x of the latest residual call (newton_solve). The equations are the step's
/// own lambdas, held by reference, and the driver's functions are inlined into the step: the step
/// compiles to the code it had when it called Newton itself.
template <class Residual, class Jacobian>
struct SeparateEquations {
  Residual& residual;
  Jacobian& jacobian;
};
template <class Residual, class Jacobian>
SeparateEquations(Residual&, Jacobian&) -> SeparateEquations<Residual, Jacobian>;

/// A step's equations evaluated with their Jacobian at once: evaluate(x, F, J).
template <class Evaluate>
struct JointEquations {
  Evaluate& evaluate;
};
template <class Evaluate>
JointEquations(Evaluate&) -> JointEquations<Evaluate>;

/// Newton on the step from state s to s.k + 1: solves the equations in place from the guess x,
/// leaves the last Jacobian and what x could not hold in `last` if it is given, and throws the
/// SolverError of step k + 1 when it fails. JacobianMatrix is dense (fixed, bounded or run-time
/// size) or Eigen::SparseMatrix<double>.
template <class JacobianMatrix, class State, class Unknowns, class Equations>
DALEMBERT_INLINE NewtonReport solve_step(const State& s, double h, Equations&& equations, Unknowns& x, double scale,
                                         const NewtonOptions& options,
                                         Linearisation<JacobianMatrix, Unknowns>* last = nullptr) {
  constexpr int N = Unknowns::RowsAtCompileTime, MaxN = Unknowns::MaxRowsAtCompileTime;
  NewtonReport r;
  try {
    if constexpr (requires { equations.evaluate; }) {
      r = newton_solve<N, MaxN>(equations.evaluate, x, scale, options, last);
    } else {
      r = newton_solve<N, MaxN, JacobianMatrix>(equations.residual, equations.jacobian, x, scale, options, last);
    }
  } catch (const SolverError& e) {  // from a loop inside the residual
    throw e.at(s.k + 1, grid_time(s.k + 1, h));
  }
  if (!r.converged) throw SolverError(s.k + 1, grid_time(s.k + 1, h), r);
  return r;
}

/// One step of a position–momentum method from state s (q_k below its last bit, p_k, the last
/// velocity and, if the state has them, the multipliers): Newton solves the equations from the guess
/// x = (q_{k+1}, the other unknowns); momentum_at_solution() gives p_{k+1} from the by-products of
/// the last residual evaluation (Newton makes it at the solution), or p_{k+1} below its last bit
/// (MomentumBelowLastBit, whose low part the state keeps in p_low). Returns p_{k+1} refined below the
/// last bit, for the method to store (as it is, or projected); the state holds the rest of step k + 1.
/// A method whose momentum has velocity-dependent terms of its own gives momentum_by_q1()
/// (solve/below_last_bit.hpp).
template <class JacobianMatrix, class State, class Unknowns, class Equations, class MomentumAtSolution,
          class MomentumByQ1 = std::nullptr_t>
DALEMBERT_INLINE auto position_momentum_step(State& s, double h, Unknowns x, double scale,
                                             const NewtonOptions& options, Equations&& equations,
                                             MomentumAtSolution&& momentum_at_solution,
                                             MomentumByQ1&& momentum_by_q1 = nullptr) {
  using Position = std::decay_t<decltype(s.q)>;
  Linearisation<JacobianMatrix, Unknowns> last;
  const NewtonReport r = solve_step(s, h, std::forward<Equations>(equations), x, scale, options, &last);
  auto p = momentum_at_solution();
  Position increment;
  if constexpr (std::is_same_v<std::decay_t<MomentumByQ1>, std::nullptr_t>) {
    increment = refine_below_last_bit(x, last, s.q, s.q_low, p);
  } else {
    increment = refine_below_last_bit(x, last, s.q, s.q_low, p, momentum_by_q1());
  }
  const Eigen::Index n = s.q.size();
  s.last_velocity = increment / h;
  s.q = x.template head<Position::RowsAtCompileTime>(n);
  if constexpr (requires { s.multiplier; }) {
    using Multiplier = std::decay_t<decltype(s.multiplier)>;
    s.multiplier = x.template segment<Multiplier::RowsAtCompileTime>(n, x.size() - n);
  }
  advance(s, h);
  s.iterations = r.iterations;
  if constexpr (requires { p.lo; }) {  // a momentum below its last bit: the state keeps the low part
    s.p_low = p.lo;
    return p.hi;
  } else {
    return p;
  }
}

/// A factorised Jacobian kept from step to step for chord iterations (chord_solve), the steps it
/// has served since it was computed, and the steps left before one is tried again after a failure
/// at its first reuse: on a system whose Jacobian changes fast (a rolling disk at large steps) such
/// a try costs more than it saves.
template <class JacobianMatrix>
struct KeptJacobian {
  Eigen::PartialPivLU<JacobianMatrix> factorisation;
  /// The round-off floor of each equation where the Jacobian was computed (detail::roundoff_floor,
  /// solve/newton.hpp).
  Eigen::Matrix<double, JacobianMatrix::RowsAtCompileTime, 1, 0, JacobianMatrix::MaxRowsAtCompileTime, 1> floor;
  int uses = 0;
  int skip = 0;
};

/// A step's unknowns less what they start from (their increments) over the last three steps, the
/// last first, and the next step's first guess from them: a quadratic through the three (a line or a
/// constant while fewer are known). Where the increments change smoothly from step to step, that
/// guess is off by O(h³) of their size where the last step's is off by O(h), and chord iterations
/// from it take fewer corrections and keep their factorisation longer (docs/decisions.md, SPARK's
/// Newton, (6)).
template <class Vector>
class StepIncrements {
 public:
  /// Writes the extrapolated increments of a step of x.size() unknowns to x; false, and x unchanged,
  /// while no step of that size is known.
  bool extrapolate(Vector& x) const {
    const auto& [last, before, earlier] = steps_;
    const auto size = x.size();
    if (last.size() != size) return false;
    if (earlier.size() == size)
      x = 3.0 * (last - before) + earlier;
    else if (before.size() == size)
      x = 2.0 * last - before;
    else
      x = last;
    return true;
  }
  /// The last step's increments (empty before the first step).
  const Vector& last() const { return steps_.front(); }
  void record(Vector increments) {
    std::rotate(steps_.begin(), steps_.end() - 1, steps_.end());
    steps_.front() = std::move(increments);
  }

 private:
  std::array<Vector, 3> steps_;
};

namespace detail {
/// Chord iterations' rules for newton_iterate: corrections from one factorised Jacobian, never
/// halved; converged where every equation is within Newton's threshold or its round-off floor, or
/// every component of the correction is at round-off; failed where the corrections contract by less
/// than `slowest_contraction` from one to the next, unless the Jacobian is fresh (computed for this
/// solve) and every equation is within its floor.
enum class JacobianAge { kept, fresh };
template <class Unknowns, class JacobianMatrix>
class ChordRules : public UndampedRules {
 public:
  using Floor = decltype(KeptJacobian<JacobianMatrix>::floor);
  ChordRules(const KeptJacobian<JacobianMatrix>& kept, JacobianAge age, double threshold, double slowest_contraction)
      : factorisation_(kept.factorisation), floor_(kept.floor), fresh_(age == JacobianAge::fresh),
        threshold_(threshold), slowest_contraction_(slowest_contraction) {}

  bool converged(const Unknowns&, double norm) const { return norm <= threshold_; }
  bool correct(const Unknowns&, const Unknowns& F, Unknowns& step) const {
    step = factorisation_.solve(F);
    return true;
  }
  // At round-off in every component, y cannot improve further. Component by component: a bound from
  // |y|_inf would stop the small components (momenta, multipliers) early once another (an angle) has
  // grown large over a long run.
  // A residual within its round-off floor cannot get smaller: far from the origin an equation's floor
  // (16 ε Σ_j |J_ij| |y_j|, a stage position's row of SPARK at |q| ≈ 2e3) can lie above the
  // threshold, and further corrections would be its noise (Newton's test (b), solve/newton.hpp).
  // Corrections that stop contracting on a kept Jacobian fail even within the floor: the Jacobian is
  // then renewed, which later steps need (docs/decisions.md, SPARK's Newton, (7)).
  AfterCorrection after(const Unknowns& step, double, const Unknowns& y, const Unknowns& F) {
    if ((step.array().abs() <= 4 * std::numeric_limits<double>::epsilon() * (1.0 + y.array().abs())).all())
      return AfterCorrection::converged;
    const double size = step.template lpNorm<Eigen::Infinity>();
    if (size > slowest_contraction_ * last_correction_)
      return fresh_ && within_roundoff_floor(F, floor_, threshold_) ? AfterCorrection::converged
                                                                    : AfterCorrection::failed;
    if (within_roundoff_floor(F, floor_, threshold_)) return AfterCorrection::converged;
    last_correction_ = size;
    return AfterCorrection::go_on;
  }
  std::string failure() const { return "the corrections stopped contracting"; }

 private:
  const Eigen::PartialPivLU<JacobianMatrix>& factorisation_;
  const Floor& floor_;
  bool fresh_;
  double threshold_, slowest_contraction_;
  double last_correction_ = std::numeric_limits<double>::infinity();
};
}  // namespace detail

/// Chord iterations (simplified Newton) for the step from s: y −= J⁻¹F(y) with one factorised J,
/// until every |F_i| meets Newton's threshold or its round-off floor at J (KeptJacobian::floor), or
/// every component of the correction is at round-off.
/// First on the kept Jacobian (unless one failed at its first reuse within the last 8 steps), then
/// on one computed afresh at the guess, which the next step tries; a chord solve fails when it
/// contracts by less than a factor 5 from one correction to the next (a factor 2 from
/// sizes::patient_chord_unknowns unknowns on) or diverges, and if both fail the damped Newton with
/// a fresh Jacobian at every iterate decides (its failure is the step's SolverError). Chord
/// iterations stop just below the tolerance, an error that would add up over long runs as a random
/// walk of the energy: one more correction divides it by the contraction factor. residual(y)
/// returns F(y); jacobian(y, J) fills J at y. Leaves the solution in x and the factorisation it
/// ended with in `kept`; returns the number of corrections.
template <class State, class Unknowns, class JacobianMatrix, class Residual, class Jacobian>
int chord_solve(const State& s, double h, Residual&& residual, Jacobian&& jacobian, Unknowns& x, double scale,
                const NewtonOptions& options, KeptJacobian<JacobianMatrix>& kept) {
  constexpr int N = Unknowns::RowsAtCompileTime, MaxN = Unknowns::MaxRowsAtCompileTime;
  const double threshold = options.tolerance * std::max(1.0, scale);
  const double slowest_contraction = x.size() >= sizes::patient_chord_unknowns ? 0.5 : 0.2;
  int iterations = 0;
  const auto factorise_at = [&](const Unknowns& y) {
    JacobianMatrix J;
    jacobian(y, J);
    kept.factorisation.compute(J);
    kept.floor = detail::roundoff_floor(J, y);
    kept.uses = 0;
  };
  const auto residual_at = [&](const Unknowns& y, Unknowns& F) { F = residual(y); };
  Unknowns last_residual(x.size());
  const auto chord = [&](Unknowns& y, detail::JacobianAge age) {
    detail::ChordRules<Unknowns, JacobianMatrix> rules(kept, age, threshold, slowest_contraction);
    const NewtonReport r = newton_iterate(rules, residual_at, y, last_residual, options.max_iterations);
    iterations += r.iterations;
    return r.converged;
  };
  bool converged = false;
  const bool try_kept = kept.factorisation.rows() == x.size() && kept.skip == 0;
  if (kept.floor.size() != x.size()) kept.floor.setZero(x.size());  // a factorisation given without one
  if (kept.skip > 0) --kept.skip;
  if (try_kept) {
    Unknowns y = x;
    converged = chord(y, detail::JacobianAge::kept);
    if (converged) {
      x = y;
      ++kept.uses;
    } else if (kept.uses == 0) {
      kept.skip = 8;
    }
  }
  if (!converged) {
    factorise_at(x);
    Unknowns y = x;
    if ((converged = chord(y, detail::JacobianAge::fresh))) x = y;
  }
  if (!converged) {
    const auto evaluate = [&](const Unknowns& y, Unknowns& F, JacobianMatrix& J) {
      F = residual(y);
      jacobian(y, J);
    };
    const NewtonReport r = newton_solve<N, MaxN>(evaluate, x, scale, options);
    iterations += r.iterations;
    if (!r.converged) throw SolverError(s.k + 1, grid_time(s.k + 1, h), r);
    factorise_at(x);
    last_residual = residual(x);
  }
  const Unknowns correction = kept.factorisation.solve(last_residual);
  if (correction.allFinite()) x -= correction;
  return iterations;
}

/// The state that one step of `method` from s reaches: what a step's derivative, which takes a step
/// of its own, linearises at.
template <class Method>
typename Method::State step_from(const Method& method, typename Method::State s) {
  method.step(s);
  return s;
}

/// The second half of a method's state, by which step_derivative differentiates beside q: its
/// momentum p, FIM's p⁻, or RK4's velocity v (it carries no momentum).
template <class State>
auto& momentum_of(State& s) {
  if constexpr (requires { s.p_minus; }) {
    return s.p_minus;
  } else if constexpr (requires { s.p; }) {
    return s.p;
  } else {
    return s.v;
  }
}
/// Whether that half is a velocity (RK4's state).
template <class State>
constexpr bool carries_velocity = !requires(const State& s) { s.p; } && !requires(const State& s) { s.p_minus; };

/// The derivatives of a step's result with respect to where it starts and to a constant external
/// force f over it (at f = 0): rows q_{k+1} then p_{k+1}.
struct StepDerivatives {
  Eigen::MatrixXd by_state;  ///< ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k), 2n × 2n, columns q_k then p_k
  Eigen::MatrixXd by_force;  ///< ∂(q_{k+1}, p_{k+1})/∂f, 2n × n (empty unless asked for)
};

/// [dx/dσ; dy/dσ] from the blocks of a step's equations at their solution, F(σ, x) = 0 and the parts
/// y(σ, x) of the next state computed explicitly: dx/dσ = −F_x⁻¹F_σ (one LU factorisation of F_x,
/// one solve per column of F_σ) and dy/dσ = y_σ + y_x dx/dσ. Throws std::runtime_error when F_x is
/// singular to working precision.
inline Eigen::MatrixXd implicit_derivative(const Eigen::MatrixXd& F_x, const Eigen::MatrixXd& F_sigma,
                                           const Eigen::MatrixXd& y_x, const Eigen::MatrixXd& y_sigma) {
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(F_x);
  if (F_x.rows() > 0 && !(lu.rcond() > std::numeric_limits<double>::epsilon()))
    throw std::runtime_error("the step's Jacobian is singular at its solution: the step has no derivative there");
  Eigen::MatrixXd D(F_x.rows() + y_x.rows(), F_sigma.cols());
  D.topRows(F_x.rows()) = -lu.solve(F_sigma);
  D.bottomRows(y_x.rows()) = y_sigma + y_x * D.topRows(F_x.rows());
  return D;
}

/// The derivative of a step's result with respect to the state it starts from, by the
/// implicit-function theorem on the step's converged equations. equations(z), generic in its scalar
/// type, takes z = (σ, x): σ the state's independent variables, x the step's unknowns at the
/// solution (the last `unknowns` entries of z); it returns (F, y): the step's residual F(σ, x)
/// (`unknowns` entries, zero at the solution) followed by the parts y(σ, x) of the next state that
/// the step computes from them explicitly. Returns [dx/dσ; dy/dσ] (implicit_derivative) from their
/// Jacobian by automatic differentiation, sizes::chunk_width columns at a time: every step's
/// equations are instantiated in one dual type, whatever the number of their variables, and
/// models of the same size share its Eigen types (docs/decisions.md, Build: the unit of cost is a
/// method compiled on a model type).
template <int NZ, int NOut, int MaxNZ = NZ, int MaxNOut = NOut, class Equations>
Eigen::MatrixXd implicit_step_derivative(Equations&& equations, const Vecd<NZ, MaxNZ>& z, int unknowns) {
  Vecd<NOut, MaxNOut> value;
  Matd<NOut, NZ, MaxNOut, MaxNZ> J;
  ad::value_and_jacobian_by_chunks<NZ, NOut, MaxNZ, MaxNOut>(equations, z, value, J);
  const int nx = unknowns, ns = static_cast<int>(z.size()) - nx, ny = static_cast<int>(value.size()) - nx;
  return implicit_derivative(J.block(0, ns, nx, nx), J.block(0, 0, nx, ns), J.block(nx, ns, ny, nx),
                             J.block(nx, 0, ny, ns));
}

/// The same derivative for equations whose Jacobian is sparse (a locally coupled model's steps by
/// terms), given by the blocks of that Jacobian at the solution: F_σ, F_x (factorised once), y_σ and
/// y_x. Applied to a direction δσ it costs one sparse solve (a Jacobian–vector product, at a cost
/// linear in the number of terms); the whole matrix, one solve per column.
class SparseStepDerivative {
 public:
  using Sparse = Eigen::SparseMatrix<double>;
  /// A share of the equations and of the result that couples every coordinate (a force of the
  /// multiplier of the constrained acceleration: model/local_saddle_point_derivatives.hpp), linear
  /// in (δσ, δx): its part of δF and its part of δy.
  using Coupling =
      std::function<std::pair<Eigen::VectorXd, Eigen::VectorXd>(const Eigen::VectorXd&, const Eigen::VectorXd&)>;
  /// The derivative of a map applied to the result after the solve, y ↦ Φ(x, y) (a projection of
  /// the next momentum at q_{k+1}): (δx, δy) ↦ δΦ.
  using ResultMap = std::function<Eigen::VectorXd(const Eigen::VectorXd&, const Eigen::VectorXd&)>;

  /// The blocks, and a coupling, if the equations and the result have one (the step's Newton leaves
  /// its derivative out of F_x too).
  SparseStepDerivative(Sparse F_sigma, const Sparse& F_x, Sparse y_sigma, Sparse y_x, Coupling coupling = {})
      : F_sigma_(std::move(F_sigma)), y_sigma_(std::move(y_sigma)), y_x_(std::move(y_x)),
        F_x_(std::make_shared<Eigen::SparseLU<Sparse>>(F_x)), coupling_(std::move(coupling)) {
    if (F_x_->info() != Eigen::Success)
      throw std::runtime_error("the step's Jacobian is singular at its solution: the step has no derivative there");
  }
  /// The same derivative with the result mapped by Φ afterwards.
  SparseStepDerivative then(ResultMap result_map) && {
    result_map_ = std::move(result_map);
    return std::move(*this);
  }

  /// [dx/dσ; dy/dσ] δσ.
  Eigen::VectorXd operator*(const Eigen::VectorXd& direction) const {
    const Eigen::VectorXd F_sigma_direction = F_sigma_ * direction;
    Eigen::VectorXd dx = -F_x_->solve(F_sigma_direction);
    Eigen::VectorXd dy = y_sigma_ * direction;
    if (coupling_) {
      Eigen::VectorXd coupled_result;
      dx = coupled_unknowns(direction, F_sigma_direction, std::move(dx), coupled_result);
      dy += coupled_result;
    }
    dy += y_x_ * dx;
    if (result_map_) dy = result_map_(dx, dy);
    Eigen::VectorXd out(dx.size() + dy.size());
    out << dx, dy;
    return out;
  }
  /// [dx/dσ; dy/dσ]: one solve with every column of F_σ, or with a coupling or a result map a
  /// product per column.
  Eigen::MatrixXd matrix() const {
    if (coupling_ || result_map_) {
      Eigen::MatrixXd D(F_x_->rows() + y_sigma_.rows(), F_sigma_.cols());
      for (Eigen::Index j = 0; j < D.cols(); ++j) D.col(j) = *this * Eigen::VectorXd::Unit(D.cols(), j);
      return D;
    }
    const Eigen::MatrixXd dx = -F_x_->solve(Eigen::MatrixXd(F_sigma_));
    Eigen::MatrixXd D(dx.rows() + y_sigma_.rows(), dx.cols());
    D << dx, Eigen::MatrixXd(y_sigma_) + y_x_ * dx;
    return D;
  }

 private:
  /// δx of F_σ δσ + F_x δx + C(δσ, δx) = 0: the fixed point of δx ← −F_x⁻¹(F_σ δσ + C(δσ, δx)),
  /// from δx without C. It converges as the step's Newton does with F_x alone as its Jacobian,
  /// linearly by a factor of order ‖F_x⁻¹ C_x‖ (h|v| for a constraint force), to the last bits;
  /// `result` gets C's part of δy at the last iterate but one (within the last change of δx, which
  /// saves an application of C). Throws std::runtime_error where it does not contract.
  Eigen::VectorXd coupled_unknowns(const Eigen::VectorXd& direction, const Eigen::VectorXd& F_sigma_direction,
                                   Eigen::VectorXd dx, Eigen::VectorXd& result) const {
    constexpr int most_iterations = 200;
    double last_change = std::numeric_limits<double>::infinity();
    for (int i = 0; i < most_iterations; ++i) {
      auto [in_equations, in_result] = coupling_(direction, dx);
      result = std::move(in_result);
      Eigen::VectorXd next = -F_x_->solve(Eigen::VectorXd(F_sigma_direction + in_equations));
      const double change = (next - dx).template lpNorm<Eigen::Infinity>();
      const double size = next.template lpNorm<Eigen::Infinity>();
      dx = std::move(next);
      if (change <= 8.0 * std::numeric_limits<double>::epsilon() * size) return dx;
      if (change >= last_change) {  // no longer contracting: at the round-off floor, or diverging
        if (change <= 1e-10 * size) return dx;
        break;
      }
      last_change = change;
    }
    throw std::runtime_error(
        "the step's derivative does not converge: the constraint force couples too strongly at this step size");
  }

  Sparse F_sigma_, y_sigma_, y_x_;
  std::shared_ptr<const Eigen::SparseLU<Sparse>> F_x_;  ///< factorised once, shared by copies
  Coupling coupling_;
  ResultMap result_map_;
};

/// A SparseStepDerivative by (q_k, v_k) of a step whose state carries p_k = G(q_k) v_k, as a map by
/// (q_k, p_k): δv_k = G(q_k)⁻¹(δp_k − ∂(G(q_k) v_k)/∂q_k δq_k) first, from a sparse factorisation of
/// the metric, then the map by (q_k, v_k); two sparse solves a product. (With v_k as one more unknown
/// of the equations, their factorisation would fill in.)
class SparseStepDerivativeByVelocity {
 public:
  using Sparse = Eigen::SparseMatrix<double>;
  /// The blocks of the SparseStepDerivative by σ = (q_k, v_k), then G(q_k) and ∂(G(q_k) v_k)/∂q_k.
  SparseStepDerivativeByVelocity(Sparse F_sigma, const Sparse& F_x, Sparse y_sigma, Sparse y_x, const Sparse& metric,
                                 Sparse momentum_by_q)
      : by_velocity_(std::move(F_sigma), F_x, std::move(y_sigma), std::move(y_x)),
        momentum_by_q_(std::move(momentum_by_q)) {
    metric_.compute(metric);
    if (metric_.info() != Eigen::Success)
      throw std::runtime_error("the metric is singular at the start: the step has no derivative there");
  }
  /// [dx/dσ; dy/dσ] δσ, σ = (q_k, p_k).
  Eigen::VectorXd operator*(const Eigen::VectorXd& direction) const {
    const Eigen::Index n = momentum_by_q_.rows();
    Eigen::VectorXd by_velocity(2 * n);
    by_velocity << direction.head(n),
        metric_.solve(Eigen::VectorXd(direction.tail(n) - momentum_by_q_ * direction.head(n)));
    return by_velocity_ * by_velocity;
  }
  /// The whole matrix, a product per column.
  Eigen::MatrixXd matrix() const {
    const Eigen::Index columns = 2 * momentum_by_q_.rows();
    Eigen::MatrixXd D;
    for (Eigen::Index j = 0; j < columns; ++j) {
      const Eigen::VectorXd column = *this * Eigen::VectorXd::Unit(columns, j);
      if (j == 0) D.resize(column.size(), columns);
      D.col(j) = column;
    }
    return D;
  }

 private:
  SparseStepDerivative by_velocity_;
  Sparse momentum_by_q_;
  Eigen::SparseLU<Sparse> metric_;
};

}  // namespace dalembert
