#pragma once
// Positions below their last bit: what removes the round-off floor of the position–momentum steps.
//
// A step q_{k+1} = q_k + Δ_k with |Δ_k| ≈ h|v| ≪ |q| keeps only the leading bits of Δ_k when q_{k+1}
// is stored as a double: the velocity (q_{k+1} − q_k)/h that the discrete equations read is off by
// up to ε|q|/h, and the momentum the step hands on inherits that error. Summed over T/h steps the
// global error grows like ε|q| T^{3/2} h^{-3/2}: below h ≈ 1e-5 on a unit-size system it overtakes a
// second-order method's error, and it scales with |q| (docs/methods.md, Positions below their last
// bit).
//
// The remedy keeps every discrete equation as it is written and refines its solution once:
//  - the state carries q_k as hi + lo, lo the part of q_k below the last bit of hi;
//  - Newton solves the step's equations F(q_k, x) = 0 with q_k = hi (the doubles it can evaluate),
//    x = (q_{k+1}, the other unknowns); its solution x̂ leaves the residual R = F(hi, x̂), which is
//    resolved (R is a difference of momenta of size |p|, and ε|p| ≪ the residual of a rounded x̂),
//    and Newton hands back y = J⁻¹R with its last Jacobian (solve/newton.hpp);
//  - the exact solution with q_k = hi + lo is x̂ + δ to first order, J δ = J_q lo − R, where J = ∂F/∂x
//    and J_q = −∂F/∂q_k. Only the velocity (q_{k+1} − q_k)/h makes these terms large (of size 1/h), and
//    through it ∂F/∂q_k = −∂F/∂q_{k+1} to leading order: δ = (lo, 0) − J⁻¹R, any J of the step (the
//    last Newton Jacobian) being accurate enough for a correction of the size of a last bit;
//  - q_{k+1} = x̂_q + δ_q is kept as hi + lo again, by an exact two-term sum.
// The momentum the step hands on, p_{k+1} = D2 L_d(q_k, q_{k+1}) + …, moves by the same leading terms:
// ∂p_{k+1}/∂q_{k+1} = −∂p_{k+1}/∂q_k = −∂F/∂q_{k+1} for the methods whose first equations read
// F = p_k + D1 L_d(q_k, q_{k+1}) + … (DEL, DLA, MLA, GF, FIM), so p_{k+1} gains J_qq y_q.
// What is left is the rounding of the arithmetic itself, of relative size ε per step.
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "dalembert/solve/newton.hpp"

namespace dalembert {

/// The part below the last bit of a position that has none: zero at a fixed size, empty at a run-time
/// size (taken as zero). States initialise their q_low with it.
template <class Position>
Position no_low_part() {
  if constexpr (Position::RowsAtCompileTime == Eigen::Dynamic) {
    return Position();
  } else {
    return Position::Zero();
  }
}

/// hi + lo = a + b exactly, hi the double nearest to the sum (Knuth's two-sum, per component); hi
/// may be a itself.
template <class A, class B, class Vector>
void sum_below_last_bit(const A& a, const B& b, Vector& hi, Vector& lo) {
  for (Eigen::Index i = 0; i < hi.size(); ++i) {
    const double x = a[i], y = b[i];
    const double s = x + y;
    const double x_part = s - y;
    lo[i] = (x - x_part) + (y - (s - x_part));
    hi[i] = s;
  }
}

/// A momentum carried below its last bit, hi + lo (lo the part below the last bit of hi): a step
/// whose momentum is a large velocity part plus small impulses hands it on so (SplitSlotDerivatives,
/// discrete/discrete_lagrangian.hpp), so that rounding p_{k+1} to a double does not drop the same
/// part of a constant impulse at every step.
template <class Momentum>
struct MomentumBelowLastBit {
  Momentum hi, lo;
};

/// The end of a step of a method whose first equations read F = p_k + D1 L_d(q_k, q_{k+1}) + … = 0
/// and whose next momentum is p_{k+1} = D2 L_d(q_k, q_{k+1}) + …: Newton's solution x (q_{k+1} first,
/// then any other unknowns), with Newton's last Jacobian J of F and y = J⁻¹R (R the residual at x),
/// refined below the last bit of q as the top of this file derives. q + q_low is q_k; p_next is
/// p_{k+1} at x, a vector or a MomentumBelowLastBit. On return x holds the refined solution (q_{k+1}
/// to the nearest double), q_low the rest of q_{k+1} and p_next the refined momentum. Returns
/// q_{k+1} − q_k to below its last bit, for the velocity (q_{k+1} − q_k)/h.
/// An empty q_low is zero. A method whose momentum has velocity-dependent terms of its own (GF's α1,
/// where its equations have α0) gives ∂p_{k+1}/∂q_{k+1} as momentum_by_q1 (else it is −J_qq).
template <class Unknowns, class Jacobian, class Position, class Momentum, class MomentumByQ1 = std::nullptr_t>
Position refine_below_last_bit(Unknowns& x, const Linearisation<Jacobian, Unknowns>& last, const Position& q,
                               Position& q_low, Momentum& p_next, const MomentumByQ1& momentum_by_q1 = nullptr) {
  constexpr int Nq = Position::RowsAtCompileTime;
  const Unknowns& y = last.below_last_bit;
  const Jacobian& J = last.jacobian;
  const Eigen::Index n = q.size(), others = x.size() - n;
  if (q_low.size() != n) q_low = Position::Zero(n);
  const auto add_to_momentum = [&](const Position& correction) {
    if constexpr (requires { p_next.lo; }) {
      sum_below_last_bit(p_next.hi, Position(p_next.lo + correction), p_next.hi, p_next.lo);
    } else {
      p_next += correction;
    }
  };
  if constexpr (!std::is_same_v<MomentumByQ1, std::nullptr_t>) {
    add_to_momentum(-(momentum_by_q1 * y.template head<Nq>(n)));
  } else {
    Unknowns along_q = y;
    along_q.tail(others).setZero();
    add_to_momentum(Unknowns(J * along_q).template head<Nq>(n));
  }
  x.tail(others) -= y.tail(others);
  Position high(n), low(n);
  sum_below_last_bit(x.template head<Nq>(n), Position(q_low - y.template head<Nq>(n)), high, low);
  const Position increment = (high - q) + (low - q_low);
  x.template head<Nq>(n) = high;
  q_low = low;
  return increment;
}

}  // namespace dalembert
