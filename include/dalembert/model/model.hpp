#pragma once
// A mechanical system with linear nonholonomic constraints, defined once and generic in the scalar
// type so that every derivative the integrators need comes from automatic differentiation.
//
// A model is a struct with
//   static constexpr int n, m;                              coordinates, constraints
//   template <class T> T lagrangian(const Vec<T,n>& q, const Vec<T,n>& v) const;
//   template <class T> Mat<T,m,n> constraint_matrix(const Vec<T,n>& q) const;   rows: 1-forms μ^a
// and optionally
//   template <class T> Vec<T,n> force(q, v, double t) const;  external force (a covector)
//   bool force_depends_on_time() const;                     false: `exact` may run it (default: true)
//   Mat<double,n,n-m> frame(q) const;                       a basis of D_q = ker M(q)
// The convenience base Mechanical<Derived, n> builds L = ½ vᵀG(q)v − V(q) from
//   template <class T> Mat<T,n,n> metric(q) const;  template <class T> T potential(q) const;
// A constant metric may be returned with double entries (e.g. Eigen::DiagonalMatrix<double, n>),
// which spares automatic differentiation the products with constants and the methods written with
// the metric the sums over its derivatives (model/metric_derivatives.hpp), and
//   static constexpr std::array<int, K> cyclic_coordinates = {...};
// declares the coordinates that G and V do not depend on (see noncyclic_coordinates below).
// Catalogue metadata (names, parameters, default initial data, closed forms) is described in
// dalembert/models/catalogue_entry.hpp and is not needed by the integrators.
#include <array>
#include <concepts>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "dalembert/core/types.hpp"

namespace dalembert {

// --- Sizes ----------------------------------------------------------------------------------------
// n and m are compile-time constants, or Eigen::Dynamic for a model whose sizes are known only at
// run time (a model file): such a model has `int dimension() const` and `int constraint_count()
// const`, and may bound its sizes at compile time with `static constexpr int max_n, max_m` (storage
// inside the vectors, no heap; without them the sizes are unbounded). Methods are written once for
// both: the types below are Eigen's fixed-size types when the sizes are fixed.

/// The compile-time bound of a model's n (of m): S::max_n (S::max_m) if declared, else n (m).
template <class S>
constexpr int max_n_of() {
  if constexpr (requires { S::max_n; }) {
    return S::max_n;
  } else {
    return S::n;
  }
}
template <class S>
constexpr int max_m_of() {
  if constexpr (requires { S::max_m; }) {
    return S::max_m;
  } else {
    return S::m;
  }
}

/// Vectors and matrices of a model's sizes: coordinates, velocities and momenta (VecN), multipliers
/// (VecM), the constraint matrix (MatMN), its transpose (MatNM), square matrices (MatNN), frames of
/// D (MatNK, K = n − m columns) and vectors of D's coordinates (VecK).
template <class S, class T = double>
using VecN = Vec<T, S::n, max_n_of<S>()>;
template <class S, class T = double>
using VecM = Vec<T, S::m, max_m_of<S>()>;
template <class S, class T = double>
using MatNN = Mat<T, S::n, S::n, max_n_of<S>(), max_n_of<S>()>;
template <class S, class T = double>
using MatMN = Mat<T, S::m, S::n, max_m_of<S>(), max_n_of<S>()>;
template <class S, class T = double>
using MatNM = Mat<T, S::n, S::m, max_n_of<S>(), max_m_of<S>()>;
template <class S>
inline constexpr int k_of = difference_of_sizes(S::n, S::m);  ///< n − m, the rank of D
template <class S, class T = double>
using VecK = Vec<T, k_of<S>, max_n_of<S>()>;
template <class S, class T = double>
using MatNK = Mat<T, S::n, k_of<S>, max_n_of<S>(), max_n_of<S>()>;
template <class S, class T = double>
using MatKK = Mat<T, k_of<S>, k_of<S>, max_n_of<S>(), max_n_of<S>()>;

/// A point (q, v) of the tangent bundle, of a fixed or bounded size.
template <int N, int MaxN = N>
struct PhasePoint {
  Vecd<N, MaxN> q;
  Vecd<N, MaxN> v;
};
template <class S>
using PhasePointOf = PhasePoint<S::n, max_n_of<S>()>;

/// The number of coordinates n of a model, at run time.
template <class S>
int coordinate_count(const S& s) {
  if constexpr (S::n == Eigen::Dynamic) {
    return s.dimension();
  } else {
    return S::n;
  }
}
/// The number of constraints m of a model, at run time.
template <class S>
int constraint_count(const S& s) {
  if constexpr (S::m == Eigen::Dynamic) {
    return s.constraint_count();
  } else {
    return S::m;
  }
}

template <class S>
concept Model = requires(const S& s, const VecN<S>& q) {
  { S::n } -> std::convertible_to<int>;
  { S::m } -> std::convertible_to<int>;
  { coordinate_count(s) } -> std::convertible_to<int>;
  { constraint_count(s) } -> std::convertible_to<int>;
  { s.template lagrangian<double>(q, q) } -> std::convertible_to<double>;
  { s.template constraint_matrix<double>(q) } -> std::convertible_to<MatMN<S>>;
};

/// A model whose constraints may be affine in the velocities, M(q) v + b(q, t) = 0 (a ball on a
/// turntable), and says at run time whether they are (a model file): constraint_offset<T>(q, t) is
/// b, and constraint_offset_depends_on_time() whether b has t. The discrete constraints of the
/// α-rule and the trapezoidal rule, the constrained acceleration (through the model's
/// constraint_curvature, which then includes (∂b/∂q) v + ∂b/∂t) and the constraint residual add b at
/// the time of the point they evaluate; methods that would leave it out refuse such a model
/// (src/modelfile/entry.cpp).
template <class S>
concept MayHaveAffineConstraints = Model<S> && requires(const S& s, const VecN<S>& q) {
  { s.has_constraint_offset() } -> std::convertible_to<bool>;
  { s.constraint_offset_depends_on_time() } -> std::convertible_to<bool>;
  { s.template constraint_offset<double>(q, 0.0) } -> std::convertible_to<VecM<S>>;
};

template <class S>
bool has_affine_constraints(const S& sys) {
  if constexpr (MayHaveAffineConstraints<S>) {
    return sys.has_constraint_offset();
  } else {
    return false;
  }
}

/// Whether b of affine constraints M(q) v + b(q, t) = 0 depends on the time.
template <class S>
bool has_time_dependent_constraints(const S& sys) {
  if constexpr (MayHaveAffineConstraints<S>) {
    return sys.has_constraint_offset() && sys.constraint_offset_depends_on_time();
  } else {
    return false;
  }
}

/// rows += b(q, t): turns the values M(q) v of a model's constraint rows into M(q) v + b(q, t), in
/// q's scalar type (nothing for linear constraints, or for a model or term that has none).
template <class S, class Point, class Rows>
void add_constraint_offset(const S& sys, const Point& q, double t, Rows&& rows) {
  if constexpr (MayHaveAffineConstraints<S>) {
    if (sys.has_constraint_offset()) rows += sys.template constraint_offset<typename Point::Scalar>(q, t);
  }
}

/// Throws std::logic_error when b depends on the time: for the computations that evaluate M(q) v +
/// b without being given a time (a caller that may meet such a model passes its time instead).
template <class S>
void require_time_independent_constraints(const S& sys, const char* what) {
  if (has_time_dependent_constraints(sys))
    throw std::logic_error(std::string(what) + " was asked for without a time, but the constraints depend on t");
}

/// A model some of whose constraints are holonomic, φ(q, t) = 0 (a model file's `holonomic`): the
/// last holonomic_constraint_count() rows of its M are their velocity forms dφ(q) (with ∂φ/∂t in b
/// where φ depends on the time), and holonomic_values<T>(q, t) gives φ(q, t). The α-rule's and the
/// trapezoidal rule's discrete constraints and the discrete gradient impose φ(q_{k+1}, t_{k+1}) = 0
/// on those rows (impose_holonomic_rows, below), the generating-function family in rows of its own,
/// SPARK φ at its stages; the other methods take the velocity form.
template <class S>
concept MayHaveHolonomicConstraints = Model<S> && requires(const S& s, const VecN<S>& q) {
  { s.holonomic_constraint_count() } -> std::convertible_to<int>;
  { s.template holonomic_values<double>(q, 0.0) } -> std::convertible_to<VecM<S>>;
};

template <class S>
int holonomic_constraint_count(const S& sys) {
  if constexpr (MayHaveHolonomicConstraints<S>) {
    return sys.holonomic_constraint_count();
  } else {
    return 0;
  }
}

/// The rows of a model's holonomic constraints φ(q, t) = 0 (the last rows) become φ(q1, t1) at
/// the step's end time t1: a step imposes φ(q_{k+1}, t_{k+1}) = 0 on the new positions, as SHAKE
/// and RATTLE do, where the discretised velocity form dφ(q̄)·(q1 − q0)/h + ∂φ/∂t would keep φ only
/// to the step's error (docs/methods.md, Holonomic constraints). The rows are not divided by h: that
/// would not change Newton's corrections, but φ's round-off over a small h stays above Newton's
/// tolerance (docs/decisions.md, Holonomic constraints).
template <class S, class Point, class Rows>
void impose_holonomic_rows(const S& sys, const Point& q1, double t1, Rows&& omega) {
  if constexpr (MayHaveHolonomicConstraints<S>) {
    const int k = sys.holonomic_constraint_count();
    if (k > 0) omega.tail(k) = sys.template holonomic_values<typename Point::Scalar>(q1, t1);
  }
}

/// The same with ∂ω/∂q1, whose rows become dφ(q1): the model's last rows of M at q1.
template <class S, class Rows, class Jacobian>
void impose_holonomic_rows(const S& sys, const VecN<S>& q1, double t1, Rows& omega, Jacobian& by_q1) {
  if constexpr (MayHaveHolonomicConstraints<S>) {
    const int k = sys.holonomic_constraint_count();
    if (k == 0) return;
    impose_holonomic_rows(sys, q1, t1, omega);
    by_q1.bottomRows(k) = sys.template constraint_matrix<double>(q1).bottomRows(k);
  }
}

/// Whether a model's sizes are known only at run time.
template <class S>
inline constexpr bool sized_at_run_time = S::n == Eigen::Dynamic;

/// A model with an external force F(q, v, t), a covector in the coordinates' basis: force<T>(q, v, t).
/// The methods evaluate it at the times of their steps and stages, so it may depend on t.
template <class S>
concept HasExternalForce = Model<S> && requires(const S& s, const VecN<S>& q) {
  { s.template force<double>(q, q, 0.0) } -> std::convertible_to<VecN<S>>;
};

/// A model with force<T>() that knows only at run time whether it has a force (a model file: one
/// compiled type serves files with and without `force`).
template <class S>
concept ForceAtRunTime = HasExternalForce<S> && requires(const S& s) {
  { s.has_force() } -> std::convertible_to<bool>;
};

/// Whether the methods add sys's external force: the code that does so is compiled for
/// HasExternalForce<S> and runs where this is true.
template <class S>
bool has_external_force(const S& sys) {
  if constexpr (ForceAtRunTime<S>) {
    return sys.has_force();
  } else {
    return HasExternalForce<S>;
  }
}

/// No constant external force: what the equations of a step add to the model's force in the step,
/// where the step's derivative by such a force (StepDerivatives::by_force, solve/step_driver.hpp)
/// adds a force f, a variable at f = 0.
struct NoConstantForce {};

/// The constant force f of a step's derivative by it: the n entries of z from `first`, as a Force,
/// when ByForce; NoConstantForce otherwise.
template <bool ByForce, class Force, class Z>
auto constant_force_in(const Z& z, int first, int n) {
  if constexpr (ByForce) {
    return Force(z.segment(first, n));
  } else {
    return NoConstantForce{};
  }
}

/// force += factor · f, nothing for NoConstantForce.
template <class Force, class F>
void add_constant_force(Force& force, const F& f, double factor = 1.0) {
  if constexpr (!std::is_same_v<F, NoConstantForce>) force += factor * f;
}

/// Whether sys's external force depends on the time. A model says so with
/// force_depends_on_time() (a model file knows it from its expressions); a compiled model that does
/// not is taken to depend on it, the safe answer for the methods that must refuse such a force.
template <class S>
bool has_time_dependent_force(const S& sys) {
  if constexpr (requires { { sys.force_depends_on_time() } -> std::convertible_to<bool>; }) {
    return has_external_force(sys) && sys.force_depends_on_time();
  } else {
    return has_external_force(sys);
  }
}

/// A model that may have a Lagrangian of the time takes that dependence as part of its force and
/// gives the parts of the energy and the momentum that its time-free lagrangian() leaves out (a
/// model file: FileModel::lagrangian_depends_on_time). At time t the energy v·∂L/∂v − L is
/// energy(sys, q, v) + energy_at_time(q, t), which is not conserved, and add_momentum_at_time turns
/// the momentum of lagrangian() into ∂L/∂v.
template <class S>
concept LagrangianMayDependOnTime = Model<S> && requires(const S& s, const VecN<S>& q, double t, double* p) {
  { s.lagrangian_depends_on_time() } -> std::convertible_to<bool>;
  { s.energy_at_time(q, t) } -> std::convertible_to<double>;
  s.add_momentum_at_time(q, t, p);
};

template <class S>
concept HasMetric = Model<S> && requires(const S& s, const VecN<S>& q) {
  { s.template metric<double>(q) } -> std::convertible_to<MatNN<S>>;
  { s.template potential<double>(q) } -> std::convertible_to<double>;
};

/// A model with metric() and potential() that knows only at run time whether its Lagrangian is
/// ½ vᵀG(q)v − V(q) (a model file: one compiled type serves files of both kinds, see
/// src/modelfile/file_model.hpp). Compiled models with a metric are always mechanical.
template <class S>
concept MechanicalAtRunTime = HasMetric<S> && requires(const S& s) {
  { s.is_mechanical() } -> std::convertible_to<bool>;
};

/// Whether the metric fast paths (energy, Legendre maps, constraint force, projectors) apply to sys.
template <Model S>
bool is_mechanical(const S& sys) {
  if constexpr (MechanicalAtRunTime<S>) {
    return sys.is_mechanical();
  } else {
    return HasMetric<S>;
  }
}

template <class S>
concept HasFrame = Model<S> && requires(const S& s, const VecN<S>& q) {
  { s.frame(q) } -> std::convertible_to<MatNK<S>>;
};

namespace detail {
template <std::size_t K>
constexpr bool increasing_and_below(const std::array<int, K>& indices, int n) {
  for (std::size_t i = 0; i < K; ++i) {
    if (indices[i] < 0 || indices[i] >= n || (i > 0 && indices[i] <= indices[i - 1])) return false;
  }
  return true;
}
}  // namespace detail

/// The coordinates that L = ½ vᵀG(q)v − V(q) depends on, in increasing order: all of them, unless
/// the model declares its cyclic (ignorable) coordinates, those that enter L only through their
/// velocities (the sleigh's x and y, the knife edge's blade angle):
///   static constexpr std::array<int, 2> cyclic_coordinates = {0, 1};
/// The structured α-rule derivatives (discrete/discrete_lagrangian.hpp) and the mechanical path of
/// the constrained acceleration (model/dynamics.hpp) differentiate G and V along the coordinates
/// returned here alone: a sleigh's Jacobian then needs hyper-duals in one direction instead of
/// three. A declaration is a promise about G and V at every q, which nothing
/// checks at run time; check_derivatives (diagnostics/derivative_check.hpp) compares it with
/// differences of L, and the tests do so for every catalogue declaration.
template <class S>
  requires(S::n != Eigen::Dynamic)
constexpr auto noncyclic_coordinates() {
  if constexpr (requires { S::cyclic_coordinates; }) {
    constexpr auto cyclic = S::cyclic_coordinates;
    static_assert(detail::increasing_and_below(cyclic, S::n),
                  "cyclic_coordinates must list distinct coordinate indices in 0..n-1, in increasing order");
    std::array<int, S::n - cyclic.size()> rest{};
    std::size_t r = 0, c = 0;
    for (int i = 0; i < S::n; ++i) {
      if (c < cyclic.size() && cyclic[c] == i) {
        ++c;
      } else {
        rest[r++] = i;
      }
    }
    return rest;
  } else {
    std::array<int, S::n> all{};
    for (int i = 0; i < S::n; ++i) all[i] = i;
    return all;
  }
}

/// L(q, v) = ½ vᵀ G(q) v − V(q) from Derived::metric and Derived::potential.
template <class Derived, int N, int MaxN = N>
struct Mechanical {
  template <class T>
  T lagrangian(const Vec<T, N, MaxN>& q, const Vec<T, N, MaxN>& v) const {
    const auto& self = static_cast<const Derived&>(*this);
    return 0.5 * v.dot(self.template metric<T>(q) * v) - self.template potential<T>(q);
  }
};

}  // namespace dalembert
