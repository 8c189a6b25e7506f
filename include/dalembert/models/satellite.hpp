#pragma once
// A satellite in a central gravitational field, in polar coordinates (thesis Ex. 3.7.9, Fig. 3.3):
//   L = ½ m (ṙ² + r² θ̇²) + k / r,   k = γ M m.
// θ is cyclic: p_θ = m r² θ̇ is conserved, and exactly so by any discrete Lagrangian invariant under
// θ-translations (discrete Noether).
#include <cmath>

#include "dalembert/model/model.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

struct Satellite {
  static constexpr int n = 2;
  static constexpr int m = 0;
  static constexpr std::string_view name = "satellite";
  static constexpr std::string_view summary = "satellite in polar coordinates: L = m/2 (r'^2 + r^2 theta'^2) + k/r";
  static constexpr std::array<std::string_view, n> coordinates = {"r", "theta"};

  double mass = 1.0;
  double attraction = 1.0;  ///< k = γ M m

  static auto parameters() {
    return std::array{Parameter<Satellite>{"m", &Satellite::mass, "mass of the satellite"},
                      Parameter<Satellite>{"k", &Satellite::attraction, "gamma M m: strength of the attraction"}};
  }

  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    return 0.5 * mass * (v[0] * v[0] + q[0] * q[0] * v[1] * v[1]) + attraction / q[0];
  }
  template <class T>
  Mat<T, 0, 2> constraint_matrix(const Vec<T, 2>&) const {
    return {};
  }

  /// r = 1 with angular rate 1.2 (the thesis' two-point start θ1 = 1.2 h): an eccentric orbit.
  PhasePoint<2> default_initial() const { return {Vecd<2>(1.0, 0.0), Vecd<2>(0.0, 1.2)}; }
  std::optional<PhasePoint<2>> exact_solution(const PhasePoint<2>&, double) const { return std::nullopt; }
};

}  // namespace dalembert::models
