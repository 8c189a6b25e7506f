#pragma once
// Where one storage or algorithm gives way to another by the size of a system: every size threshold
// of the library, each with the decision behind it (docs/decisions.md).

namespace dalembert::sizes {

/// Newton's linear systems of up to this many unknowns are factorised by SmallLU (unrolled for a
/// size known at compile time, dispatched on a size known at run time), larger ones by Eigen's
/// PartialPivLU (docs/decisions.md, Newton's small linear systems).
inline constexpr int small_lu_max = 8;

/// Derivatives along a run-time number n of directions within a bound up to this one are taken at a
/// fixed width (4 for n <= 4, 8 for n <= 8, else the bound); an unbounded number, or a larger bound,
/// keeps the run-time width (docs/decisions.md, Run-time sizes).
inline constexpr int padded_width_max = 16;

/// The derivatives that take the most work are taken at a run-time width beyond padded_width_max a
/// chunk of this many directions at a time, at that fixed width (docs/decisions.md, Run-time sizes).
inline constexpr int chunk_width = 8;

/// Model files of up to this many coordinates run on storage bounded at this size, inside the
/// vectors (no heap allocation per step); larger ones on the heap (docs/decisions.md, Model files:
/// one compiled type, in a bounded and an unbounded instance).
inline constexpr int bounded_model_file = 8;

/// A linear system of dual numbers with at least this many equations is solved from its value's LU
/// factorisation and the derivative of the solve, a smaller one by Eigen's LU in dual arithmetic
/// (docs/decisions.md, Linear solves in dual numbers: the value factorised once).
inline constexpr int value_factorised_lu = 16;

/// Eigen unrolls the triangular solves of a vector whose size is known at compile time and at most
/// this one; its other triangular solves skip a right-hand side entry whose value is zero, which in
/// dual numbers loses the entry's derivatives. DualLU leaves Eigen's LU in dual arithmetic its
/// solves up to this size only (solve/dual_lu.hpp).
inline constexpr int unrolled_triangular_solve = 8;

/// Chord iterations on a kept factorisation (solve/step_driver.hpp, chord_solve) of at least this
/// many unknowns go on while a correction is at most half the one before; on fewer they take a
/// fresh factorisation once it is more than a fifth. A factorisation costs about N³, a correction
/// about N² and a residual, so the larger the system the more slow corrections one saves
/// (docs/decisions.md, SPARK's Newton: chord iterations on a Jacobian kept across steps).
inline constexpr int patient_chord_unknowns = 56;

/// The discrete gradient's step of at least this many unknowns (2n + m) solves by chord iterations
/// on a factorisation kept from step to step, ended by one Newton correction; a smaller one by
/// Newton with a Jacobian at every iterate, which is faster where the Jacobian costs little more
/// than the residual (docs/decisions.md, Newton: a fresh Jacobian at every iterate, no reuse).
inline constexpr int discrete_gradient_chord_unknowns = 14;

}  // namespace dalembert::sizes
