#pragma once
// A chain of N knife edges (skates) joined by springs, a nonholonomic system of any size:
//   q = (x_1, y_1, φ_1, …, x_N, y_N, φ_N),
//   L = Σ_i ½ m (ẋ_i² + ẏ_i²) + ½ J φ̇_i² − V,
//   V = Σ_{i<N} ½ k ((x_{i+1} − x_i − ℓ)² + (y_{i+1} − y_i)²) + ½ κ (φ_{i+1} − φ_i)²,
//   constraints sin φ_i ẋ_i − cos φ_i ẏ_i = 0 (each blade moves along (cos φ_i, sin φ_i)).
// KnifeEdgeChain<N> is the generic model (automatic differentiation, dense Jacobians);
// method/knife_edge_chain_dla.hpp steps the same discrete equations for N chosen at run time with
// hand-written sparse Jacobians.
#include <cmath>

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
  KnifeEdgeChainParameters p;

  template <class T>
  Eigen::DiagonalMatrix<double, n> metric(const Vec<T, n>&) const {
    Vecd<n> d;
    for (int i = 0; i < N; ++i) d.template segment<3>(3 * i) << p.mass, p.mass, p.inertia;
    return Eigen::DiagonalMatrix<double, n>(d);
  }
  template <class T>
  T potential(const Vec<T, n>& q) const {
    T V(0.0);
    for (int i = 0; i + 1 < N; ++i) {
      const T dx = q[3 * i + 3] - q[3 * i] - p.length, dy = q[3 * i + 4] - q[3 * i + 1];
      const T dphi = q[3 * i + 5] - q[3 * i + 2];
      V += 0.5 * p.spring * (dx * dx + dy * dy) + 0.5 * p.torsion * dphi * dphi;
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

}  // namespace dalembert::models
