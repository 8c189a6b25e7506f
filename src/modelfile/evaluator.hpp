#pragma once
// What a model file becomes at run time: kernels that evaluate, at one point and in doubles, the
// Taylor coefficients of the Lagrangian, the constraint matrix and the external force up to order 3 (plus derived
// quantities and the closed-form solution), and the layout that says which coefficient is which.
// FileModel (file_model.hpp) turns them into functions of any automatic-differentiation scalar.
// The kernels come from generated C compiled into a shared library (native.hpp) or, without a
// compiler, from interpreting the same expressions (symbolic.hpp).
#include <array>
#include <string>
#include <vector>

namespace dalembert::modelfile {

/// The highest derivative order the kernels provide: enough for nested duals three deep (the
/// discrete Lagrangian's Newton Jacobian needs two; differentiating it once more, three).
inline constexpr int max_taylor_order = 3;

/// Taylor coefficients of one scalar function f(x) at a point x0, so that for |δ| small
///   f(x0 + δ) = c0 + Σ c_i δ_i + Σ_{i≤j} c_ij δ_i δ_j + Σ_{i≤j≤k} c_ijk δ_i δ_j δ_k + O(δ⁴),
/// listing only the monomials whose coefficient is not identically zero. The coefficients of f
/// start at `offset` in the kernel's output, in the order value, first, second, third.
struct TaylorTerms {
  int offset = 0;
  std::vector<int> first;
  std::vector<std::array<int, 2>> second;
  std::vector<std::array<int, 3>> third;

  int size() const { return static_cast<int>(1 + first.size() + second.size() + third.size()); }
};

/// A structurally nonzero entry M(row, column) of the constraint matrix, a function of q (or of
/// the metric, or an affine constraint's b(row)).
struct ConstraintEntry {
  int row = 0, column = 0;
  TaylorTerms terms;
};

struct Layout {
  int n = 0, m = 0;
  bool contact = false;                      ///< L(q, v, z) with an action variable z
  TaylorTerms lagrangian;                    ///< over x = (q, v), 2n variables, or (q, v, z) if contact
  int lagrangian_size = 0;                   ///< doubles written by the lagrangian kernels
  std::vector<ConstraintEntry> constraints;  ///< over q, n variables
  /// The parts b_a(q, t) of affine constraints M(q) v + b(q, t) = 0 that are not identically zero,
  /// in the same kernels as M's entries (column n: b multiplies no velocity).
  std::vector<ConstraintEntry> constraint_offsets;
  /// Their rates ∂b_a/∂t(q, t) that are not identically zero (column n + 1), in the same kernels.
  std::vector<ConstraintEntry> constraint_offset_rates;
  bool constraint_offsets_depend_on_time = false;  ///< whether t appears in some b_a
  /// The holonomic constraints' φ_b(q, t) themselves (column n + 2), whose velocity forms dφ_b are
  /// the last rows of M (with ∂φ_b/∂t their b): the discrete constraints that impose
  /// φ(q_{k+1}, t_{k+1}) = 0 evaluate them.
  std::vector<ConstraintEntry> holonomic;
  int constraints_size = 0;
  /// Mechanical: L = ½ vᵀG(q)v − V(q). Then the mechanics kernels give the Taylor coefficients of
  /// the entries G(i, j), i ≤ j, that are not identically zero, and of V, as functions of q.
  bool mechanical = false;
  std::vector<ConstraintEntry> metric;
  bool constant_metric = false;              ///< mechanical, and no entry of G has a term in q
  TaylorTerms potential;
  int mechanics_size = 0;
  /// External force: the Taylor coefficients of each component F_i(q, v) over x = (q, v), the
  /// file's `force` plus what a time-dependent Lagrangian exerts; empty where there is neither.
  std::vector<TaylorTerms> force;
  int force_size = 0;
  bool force_depends_on_time = false;        ///< whether t appears in the file's `force`
  int derived = 0;                           ///< number of derived quantities
  /// L depends on t: the lagrangian kernels give L(q, v, 0), the force includes the rest's, and the
  /// derived kernel writes, after the derived quantities, the energy's part −L_t(q, 0, t) and the
  /// momentum's ∂L_t/∂v(q, t) (n values).
  bool lagrangian_depends_on_time = false;
  bool has_solution = false;
  int solution_conditions = 0;               ///< the solution kernel writes them after (q, v)
};

/// The kernels of one model file. Arguments: x = (q, v) (for the solution: (q0, v0)), the
/// parameter values p in the order of the file, the time t; `out` receives the results.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  /// Taylor coefficients of L up to `order` (0..3) at x = (q, v).
  virtual void lagrangian(int order, const double* x, const double* p, double* out) const = 0;
  /// Taylor coefficients of the nonzero entries of M, of b, of ∂b/∂t and of the holonomic φ up to
  /// `order` at q and the time t (only b, ∂b/∂t and φ may depend on it).
  virtual void constraints(int order, const double* q, const double* p, double t, double* out) const = 0;
  /// Taylor coefficients of the metric entries and of the potential up to `order` at q
  /// (mechanical models only).
  virtual void mechanics(int order, const double* q, const double* p, double* out) const = 0;
  /// Taylor coefficients in x of the components of the external force up to `order` at x = (q, v)
  /// and the time t.
  virtual void force(int order, const double* x, const double* p, double t, double* out) const = 0;
  /// The derived quantities at (q, v, t) (and then −L_t(q, 0, t) and ∂L_t/∂v(q, t) if the
  /// Lagrangian depends on t).
  virtual void derived(const double* x, const double* p, double t, double* out) const = 0;
  /// The default initial data (q0, v0) for the parameters p.
  virtual void initial(const double* p, double* out) const = 0;
  /// The closed-form (q(t), v(t)) from x0 = (q0, v0), followed by the values of the conditions
  /// under which it holds (each must be zero).
  virtual void solution(const double* x0, const double* p, double t, double* out) const = 0;
  /// "native (path of the shared library)" or "interpreted".
  virtual std::string kind() const = 0;
};

}  // namespace dalembert::modelfile
