#pragma once
// A chain of N knife edges (skates) joined by springs, a nonholonomic system of any size:
//   q = (x_1, y_1, φ_1, …, x_N, y_N, φ_N),
//   L = Σ_i ½ m (ẋ_i² + ẏ_i²) + ½ J φ̇_i² − V,
//   V = Σ_{i<N} ½ k ((x_{i+1} − x_i − ℓ)² + (y_{i+1} − y_i)²) + ½ κ (φ_{i+1} − φ_i)²,
//   constraints sin φ_i ẋ_i − cos φ_i ẏ_i = 0 (each blade moves along (cos φ_i, sin φ_i)).
// KnifeEdgeChain<N> is the generic model (automatic differentiation, dense Jacobians);
// KnifeEdgeChain2 is the catalogue system `knife-edge-chain` (N = 2: the nested automatic
// differentiation of some method families exceeds Eigen's fixed-size limit at n = 9); method/knife_edge_chain_dla.hpp steps the midpoint DLA for N chosen at run time with
// hand-written sparse Jacobians (N in the thousands).
#include <cmath>
#include <optional>

#include "dalembert/model/model.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

struct KnifeEdgeChainParameters {
  double mass = 1.0;     ///< m of each skate
  double inertia = 0.5;  ///< J of each skate about its vertical axis
  double spring = 4.0;   ///< k: springs between neighbouring contact points
  double torsion = 1.0;  ///< κ: torsional springs between neighbouring headings
  double length = 1.0;   ///< ℓ: rest offset along x between neighbours
};

template <int N>
struct KnifeEdgeChain : Mechanical<KnifeEdgeChain<N>, 3 * N> {
  static constexpr int n = 3 * N;
  static constexpr int m = N;
  double mass = 1.0, inertia = 0.5, spring = 4.0, torsion = 1.0, length = 1.0;  // as KnifeEdgeChainParameters

  KnifeEdgeChainParameters chain_parameters() const { return {mass, inertia, spring, torsion, length}; }

  template <class T>
  Eigen::DiagonalMatrix<double, n> metric(const Vec<T, n>&) const {
    Vecd<n> d;
    for (int i = 0; i < N; ++i) d.template segment<3>(3 * i) << mass, mass, inertia;
    return Eigen::DiagonalMatrix<double, n>(d);
  }
  template <class T>
  T potential(const Vec<T, n>& q) const {
    T V(0.0);
    for (int i = 0; i + 1 < N; ++i) {
      const T dx = q[3 * i + 3] - q[3 * i] - length, dy = q[3 * i + 4] - q[3 * i + 1];
      const T dphi = q[3 * i + 5] - q[3 * i + 2];
      V += 0.5 * spring * (dx * dx + dy * dy) + 0.5 * torsion * dphi * dphi;
    }
    return V;
  }
  template <class T>
  Mat<T, m, n> constraint_matrix(const Vec<T, n>& q) const {
    using std::cos;
    using std::sin;
    Mat<T, m, n> M = Mat<T, m, n>::Zero();
    for (int i = 0; i < N; ++i) {
      M(i, 3 * i) = sin(q[3 * i + 2]);
      M(i, 3 * i + 1) = -cos(q[3 * i + 2]);
    }
    return M;
  }
};

/// The catalogue system `knife-edge-chain`: two skates.
struct KnifeEdgeChain2 : KnifeEdgeChain<2> {
  static constexpr std::string_view name = "knife-edge-chain";
  static constexpr std::string_view summary =
      "chain of 2 knife edges joined by springs: L = sum m/2 (x_i'^2 + y_i'^2) + J/2 phi_i'^2 - V, "
      "V = sum k/2 ((x_{i+1} - x_i - l)^2 + (y_{i+1} - y_i)^2) + kappa/2 (phi_{i+1} - phi_i)^2, "
      "blade i along (cos phi_i, sin phi_i); any N in C++ (method/knife_edge_chain_dla.hpp)";
  static constexpr std::array<std::string_view, n> coordinates = {"x1", "y1", "phi1", "x2", "y2", "phi2"};
  static auto parameters() {
    using P = Parameter<KnifeEdgeChain2>;
    return std::array{P{"m", &KnifeEdgeChain2::mass, "mass of each skate"},
                      P{"J", &KnifeEdgeChain2::inertia, "moment of inertia of each skate about its vertical axis"},
                      P{"k", &KnifeEdgeChain2::spring, "stiffness of the springs between neighbouring skates"},
                      P{"kappa", &KnifeEdgeChain2::torsion, "stiffness of the torsional springs between headings"},
                      P{"l", &KnifeEdgeChain2::length, "rest offset along x between neighbours"}};
  }
  /// Skates at (0, 0) and (l, 0) with headings 0 and 0.1, moving along their blades, turning at ±0.3.
  PhasePoint<n> default_initial() const {
    PhasePoint<n> x;
    for (int i = 0; i < 2; ++i) {
      const double phi = 0.1 * i, s = 1.0 - 0.2 * i;
      x.q.template segment<3>(3 * i) << length * i, 0.0, phi;
      x.v.template segment<3>(3 * i) << s * std::cos(phi), s * std::sin(phi), 0.3 * (i % 2 ? -1 : 1);
    }
    return x;
  }
  std::optional<PhasePoint<n>> exact_solution(const PhasePoint<n>&, double) const { return std::nullopt; }
};

}  // namespace dalembert::models
