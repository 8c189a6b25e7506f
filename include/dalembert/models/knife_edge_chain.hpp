#pragma once
// A chain of N knife edges (skates) joined by springs, a nonholonomic system of any size:
//   q = (x_1, y_1, φ_1, …, x_N, y_N, φ_N),
//   L = Σ_i ½ m (ẋ_i² + ẏ_i²) + ½ J φ̇_i² − V,
//   V = Σ_{i<N} ½ k ((x_{i+1} − x_i − ℓ)² + (y_{i+1} − y_i)²) + ½ κ (φ_{i+1} − φ_i)²,
//   constraints sin φ_i ẋ_i − cos φ_i ẏ_i = 0 (each blade moves along (cos φ_i, sin φ_i)).
// N is chosen at run time. The model has the dense interface of every model (metric, potential,
// constraint matrix), with which every method runs on it, and the same system as a sum of local
// terms (model/local_terms.hpp): one Skate per knife edge (its kinetic energy and constraint) and one
// Spring between neighbours. With the terms, every method but `exact` and the trapezoid rules
// assembles sparse derivatives and its steps cost time linear in N (thousands of skates); those two
// are for small N.
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "dalembert/core/autodiff.hpp"
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

namespace chain_terms {

/// One knife edge (x, y, φ): kinetic energy ½ m (ẋ² + ẏ²) + ½ J φ̇², constraint sin φ ẋ − cos φ ẏ = 0.
struct Skate : Mechanical<Skate, 3> {
  static constexpr int n = 3, m = 1;
  static constexpr std::array<int, 2> cyclic_coordinates = {0, 1};
  double mass = 1.0, inertia = 0.5;

  template <class T>
  Eigen::DiagonalMatrix<double, 3> metric(const Vec<T, 3>&) const {
    return Eigen::DiagonalMatrix<double, 3>(mass, mass, inertia);
  }
  template <class T>
  T potential(const Vec<T, 3>&) const {
    return T(0.0);
  }
  template <class T>
  Mat<T, 1, 3> constraint_matrix(const Vec<T, 3>& q) const {
    using ad::sin_cos;
    const auto [s, c] = sin_cos(q[2]);
    Mat<T, 1, 3> M;
    M << s, -c, T(0.0);
    return M;
  }
};

/// The springs between neighbours (x_i, y_i, φ_i, x_{i+1}, y_{i+1}, φ_{i+1}): potential energy only.
struct Spring : Mechanical<Spring, 6> {
  static constexpr int n = 6, m = 0;
  double spring = 4.0, torsion = 1.0, length = 1.0;

  template <class T>
  Eigen::DiagonalMatrix<double, 6> metric(const Vec<T, 6>&) const {
    return Eigen::DiagonalMatrix<double, 6>(Vecd<6>::Zero());
  }
  template <class T>
  T potential(const Vec<T, 6>& q) const {
    const T dx = q[3] - q[0] - length, dy = q[4] - q[1], dphi = q[5] - q[2];
    return 0.5 * spring * (dx * dx + dy * dy) + 0.5 * torsion * dphi * dphi;
  }
  template <class T>
  Mat<T, 0, 6> constraint_matrix(const Vec<T, 6>&) const {
    return {};
  }
};

}  // namespace chain_terms

class KnifeEdgeChain : public Mechanical<KnifeEdgeChain, Eigen::Dynamic> {
 public:
  static constexpr int n = Eigen::Dynamic, m = Eigen::Dynamic;
  template <class T>
  using Q = Vec<T, Eigen::Dynamic>;

  explicit KnifeEdgeChain(int skates = 2, KnifeEdgeChainParameters parameters = {})
      : skates_(skates), p_(parameters) {}

  int skates() const { return skates_; }
  int dimension() const { return 3 * skates_; }
  int constraint_count() const { return skates_; }
  const KnifeEdgeChainParameters& chain_parameters() const { return p_; }

  std::string_view name() const { return "knife-edge-chain"; }
  std::string_view summary() const {
    return "chain of N knife edges joined by springs: L = sum m/2 (x_i'^2 + y_i'^2) + J/2 phi_i'^2 - V, "
           "V = sum k/2 ((x_{i+1} - x_i - l)^2 + (y_{i+1} - y_i)^2) + kappa/2 (phi_{i+1} - phi_i)^2, "
           "blade i along (cos phi_i, sin phi_i); N at run time (every method but exact at any N, exact up to 3)";
  }
  std::vector<std::string> coordinate_names() const {
    std::vector<std::string> names;
    for (int i = 1; i <= skates_; ++i)
      for (const char* c : {"x", "y", "phi"}) names.push_back(c + std::to_string(i));
    return names;
  }

  // --- the dense interface ---
  template <class T>
  Eigen::DiagonalMatrix<double, Eigen::Dynamic> metric(const Q<T>&) const {
    Eigen::VectorXd d(3 * skates_);
    for (int i = 0; i < skates_; ++i) d.segment<3>(3 * i) << p_.mass, p_.mass, p_.inertia;
    return Eigen::DiagonalMatrix<double, Eigen::Dynamic>(d);
  }
  template <class T>
  T potential(const Q<T>& q) const {
    T V(0.0);
    const chain_terms::Spring spring = spring_term();
    for (int i = 0; i + 1 < skates_; ++i) V += spring.potential<T>(q.template segment<6>(3 * i));
    return V;
  }
  template <class T>
  Mat<T, Eigen::Dynamic, Eigen::Dynamic> constraint_matrix(const Q<T>& q) const {
    Mat<T, Eigen::Dynamic, Eigen::Dynamic> M = Mat<T, Eigen::Dynamic, Eigen::Dynamic>::Zero(skates_, 3 * skates_);
    const chain_terms::Skate skate = skate_term();
    for (int i = 0; i < skates_; ++i) M.template block<1, 3>(i, 3 * i) = skate.constraint_matrix<T>(q.template segment<3>(3 * i));
    return M;
  }

  // --- the same system as local terms (model/local_terms.hpp) ---
  template <class Visit>
  void visit_terms(Visit&& visit) const {
    const chain_terms::Skate skate = skate_term();
    const chain_terms::Spring spring = spring_term();
    for (int i = 0; i < skates_; ++i) visit(skate, std::array<int, 3>{3 * i, 3 * i + 1, 3 * i + 2});
    for (int i = 0; i + 1 < skates_; ++i)
      visit(spring, std::array<int, 6>{3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3, 3 * i + 4, 3 * i + 5});
  }

  /// Skate i (from 0) at (i ℓ, 0) with heading 0.1 i, moving along its blade at speed 1 − 0.2 (i mod 2),
  /// turning at 0.3 (−1)^i.
  PhasePoint<Eigen::Dynamic> default_initial() const {
    PhasePoint<Eigen::Dynamic> x{Eigen::VectorXd(3 * skates_), Eigen::VectorXd(3 * skates_)};
    for (int i = 0; i < skates_; ++i) {
      const double phi = 0.1 * i, s = 1.0 - 0.2 * (i % 2);
      x.q.segment<3>(3 * i) << p_.length * i, 0.0, phi;
      x.v.segment<3>(3 * i) << s * std::cos(phi), s * std::sin(phi), 0.3 * (i % 2 ? -1 : 1);
    }
    return x;
  }
  /// The parameters are values of the object (chain_parameters() above), chosen with N in the catalogue
  /// entry (src/catalogue/knife_edge_chain.cpp); the chain has no closed form.
  static std::array<Parameter<KnifeEdgeChain>, 0> parameters() { return {}; }
  std::optional<PhasePoint<Eigen::Dynamic>> exact_solution(const PhasePoint<Eigen::Dynamic>&, double) const {
    return std::nullopt;
  }

 private:
  chain_terms::Skate skate_term() const {
    chain_terms::Skate s;
    s.mass = p_.mass;
    s.inertia = p_.inertia;
    return s;
  }
  chain_terms::Spring spring_term() const {
    chain_terms::Spring s;
    s.spring = p_.spring;
    s.torsion = p_.torsion;
    s.length = p_.length;
    return s;
  }

  int skates_;
  KnifeEdgeChainParameters p_;
};

}  // namespace dalembert::models
