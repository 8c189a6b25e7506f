#pragma once
// A mechanical system with linear nonholonomic constraints, defined once and generic in the scalar
// type so that every derivative the integrators need comes from automatic differentiation.
//
// A model is a struct with
//   static constexpr int n, m;                              coordinates, constraints
//   template <class T> T lagrangian(const Vec<T,n>& q, const Vec<T,n>& v) const;
//   template <class T> Mat<T,m,n> constraint_matrix(const Vec<T,n>& q) const;   rows: 1-forms μ^a
// and optionally
//   template <class T> Vec<T,n> force(q, v) const;          external force (a covector)
//   Mat<double,n,n-m> frame(q) const;                       a basis of D_q = ker M(q)
// The convenience base Mechanical<Derived, n> builds L = ½ vᵀG(q)v − V(q) from
//   template <class T> Mat<T,n,n> metric(q) const;  template <class T> T potential(q) const;
// A constant metric may be returned with double entries (e.g. Eigen::DiagonalMatrix<double, n>),
// which spares automatic differentiation the products with constants, and
//   static constexpr std::array<int, K> cyclic_coordinates = {...};
// declares the coordinates that G and V do not depend on (see noncyclic_coordinates below).
// Catalogue metadata (names, parameters, default initial data, closed forms) is described in
// dalembert/models/catalogue_entry.hpp and is not needed by the integrators.
#include <array>
#include <concepts>

#include "dalembert/core/types.hpp"

namespace dalembert {

template <class S>
concept Model = requires(const S& s, const Vecd<S::n>& q) {
  { S::n } -> std::convertible_to<int>;
  { S::m } -> std::convertible_to<int>;
  { s.template lagrangian<double>(q, q) } -> std::convertible_to<double>;
  { s.template constraint_matrix<double>(q) } -> std::convertible_to<Matd<S::m, S::n>>;
};

template <class S>
concept HasExternalForce = Model<S> && requires(const S& s, const Vecd<S::n>& q) {
  { s.template force<double>(q, q) } -> std::convertible_to<Vecd<S::n>>;
};

template <class S>
concept HasMetric = Model<S> && requires(const S& s, const Vecd<S::n>& q) {
  { s.template metric<double>(q) } -> std::convertible_to<Matd<S::n, S::n>>;
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
concept HasFrame = Model<S> && requires(const S& s, const Vecd<S::n>& q) {
  { s.frame(q) } -> std::convertible_to<Matd<S::n, S::n - S::m>>;
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
/// The structured α-rule derivatives (discrete/discrete_lagrangian.hpp) differentiate G and V
/// along the coordinates returned here alone: a sleigh's Jacobian then needs hyper-duals in one
/// direction instead of three. A declaration is a promise about G and V at every q, which nothing
/// checks at run time; check_derivatives (diagnostics/derivative_check.hpp) compares it with
/// differences of L, and the tests do so for every catalogue declaration.
template <class S>
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
template <class Derived, int N>
struct Mechanical {
  template <class T>
  T lagrangian(const Vec<T, N>& q, const Vec<T, N>& v) const {
    const auto& self = static_cast<const Derived&>(*this);
    return 0.5 * v.dot(self.template metric<T>(q) * v) - self.template potential<T>(q);
  }
};

}  // namespace dalembert
