#pragma once
// The continuous methods' projection onto the constraints of a model with holonomic constraints
// φ(q, t) = 0 (index reduction with projection, [HLW06] §IV.4). RK4 and the reference solver
// integrate the multiplier extension, on which φ and M(q) v + b are first integrals; their
// truncation error moves the state off φ = 0 a little every step, and nothing brings it back. After
// each step they project the new state (q̃, ṽ) at its time t:
//   positions   q = q̃ + Φ(q̃)ᵀμ with φ(q, t) = 0, Φ = dφ: Newton on μ, (Φ(q) Φ(q̃)ᵀ) δμ = −φ(q, t)
//   velocities  v = ṽ − Mᵀ(M Mᵀ)⁻¹(M ṽ + b(q, t)), M = M(q) with every constraint row (the
//               velocity forms dφ are its last rows)
// the Euclidean projections of [HLW06], which keep the method's order. A model without holonomic
// constraints is not projected: the papers' RK4 is the unprojected baseline of their experiments.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/solve/dual_lu.hpp"

namespace dalembert {

namespace detail {
/// The largest |value| of a vector of (possibly dual) numbers.
template <class V>
double largest_value(const V& x) {
  double largest = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) largest = std::max(largest, std::abs(ad::plain(x[i])));
  return largest;
}
}  // namespace detail

/// The positions' Newton corrections a projection may take.
inline constexpr int max_projection_iterations = 10;

/// Projects (q, v) at the time t onto φ(q) = 0 and M(q) v + b(q, t) = 0 (above); nothing for a
/// model without holonomic constraints. In dual numbers it gives the projection's derivative too:
/// the last Newton correction starts within round-off of φ = 0, where it carries the derivative of
/// the implicit solution. Returns the largest of the positions' last Newton correction, relative
/// to 1 + |q|: at round-off where the projection converged (0 without holonomic constraints).
template <Model S, class T>
double project_onto_constraints(const S& sys, VecN<S, T>& q, VecN<S, T>& v, double t) {
  double last_correction = 0.0;
  if constexpr (MayHaveHolonomicConstraints<S>) {
    const int k = sys.holonomic_constraint_count();
    if (k == 0) return 0.0;
    using Square = Mat<T, S::m, S::m, max_m_of<S>(), max_m_of<S>()>;
    const MatMN<S, T> start = sys.template constraint_matrix<T>(q).bottomRows(k);  // Φ(q̃)
    for (int i = 0; i < max_projection_iterations; ++i) {
      const VecM<S, T> phi = sys.template holonomic_values<T>(q, t);
      // In dual numbers φ's value can be zero where its derivative is not: the correction carries it.
      if (std::is_same_v<T, double> && detail::largest_value(phi) == 0.0) {
        last_correction = 0.0;
        break;
      }
      const Square J = sys.template constraint_matrix<T>(q).bottomRows(k) * start.transpose();
      const VecN<S, T> correction = start.transpose() * DualLU<Square>(J).solve(phi);
      q -= correction;
      last_correction = detail::largest_value(correction) / (1 + detail::largest_value(q));
      if (last_correction <= 4 * std::numeric_limits<double>::epsilon()) break;
    }
    const MatMN<S, T> M = sys.template constraint_matrix<T>(q);
    VecM<S, T> residual = M * v;
    add_constraint_offset(sys, q, t, residual);
    const Square MMt = M * M.transpose();
    v -= M.transpose() * DualLU<Square>(MMt).solve(residual);
  }
  return last_correction;
}

}  // namespace dalembert
