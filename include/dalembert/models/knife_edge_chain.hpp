#pragma once
// A chain of N knife edges (skates) joined by springs, a nonholonomic system of any size:
//   q = (x_1, y_1, φ_1, …, x_N, y_N, φ_N),
//   L = Σ_i ½ m (ẋ_i² + ẏ_i²) + ½ J φ̇_i² − V,
//   V = Σ_{i<N} ½ k ((x_{i+1} − x_i − ℓ)² + (y_{i+1} − y_i)²) + ½ κ (φ_{i+1} − φ_i)²,
//   constraints sin φ_i ẋ_i − cos φ_i ẏ_i = 0 (each blade moves along (cos φ_i, sin φ_i)).
// KnifeEdgeChain<N> is the generic model (automatic differentiation, dense Jacobians; every method
// of the library runs on it for small N: at N = 3 the nested automatic differentiation of some
// families exceeds Eigen's fixed-size limit). method/knife_edge_chain_dla.hpp steps the midpoint
// DLA for N chosen at run time with hand-written sparse Jacobians (N in the thousands); the
// catalogue system `knife-edge-chain` (src/catalogue/knife_edge_chain.cpp) runs that one.
#include <cmath>

#include <Eigen/Core>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/model.hpp"

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
    using ad::sin_cos;
    Mat<T, m, n> M = Mat<T, m, n>::Zero();
    for (int i = 0; i < N; ++i) {
      const auto [s, c] = sin_cos(q[3 * i + 2]);
      M(i, 3 * i) = s;
      M(i, 3 * i + 1) = -c;
    }
    return M;
  }
};

/// The default initial data of the catalogue's `knife-edge-chain` for N skates: skate i (from 0) at
/// (i ℓ, 0) with heading 0.1 i, moving along its blade at speed 1 − 0.2 (i mod 2), turning at
/// 0.3 (−1)^i.
inline void knife_edge_chain_initial(int N, const KnifeEdgeChainParameters& p, Eigen::VectorXd& q0,
                                     Eigen::VectorXd& v0) {
  q0.resize(3 * N);
  v0.resize(3 * N);
  for (int i = 0; i < N; ++i) {
    const double phi = 0.1 * i, s = 1.0 - 0.2 * (i % 2);
    q0.segment<3>(3 * i) << p.length * i, 0.0, phi;
    v0.segment<3>(3 * i) << s * std::cos(phi), s * std::sin(phi), 0.3 * (i % 2 ? -1 : 1);
  }
}

}  // namespace dalembert::models
