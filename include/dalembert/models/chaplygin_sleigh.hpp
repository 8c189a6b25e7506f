#pragma once
// The Chaplygin sleigh (thesis Ex. 3.6.7): a rigid body in the plane supported by a knife edge at
// the contact point (x, y), its centre of mass a distance a ahead along the blade.
//   L = m/2 (ẋ² + ẏ² − 2a ẋ θ̇ sin θ + 2a ẏ θ̇ cos θ) + (I + m a²) θ̇²/2,   ẏ cos θ − ẋ sin θ = 0.
#include <cmath>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

struct ChaplyginSleigh : Mechanical<ChaplyginSleigh, 3> {
  static constexpr int n = 3;
  static constexpr int m = 1;
  static constexpr std::string_view name = "chaplygin-sleigh";
  static constexpr std::string_view summary =
      "Chaplygin sleigh: knife edge at (x, y), centre of mass a ahead along the blade";
  static constexpr std::array<std::string_view, n> coordinates = {"x", "y", "theta"};
  static constexpr std::array<int, 2> cyclic_coordinates = {0, 1};  ///< G depends on θ alone

  double mass = 1.0;
  double inertia = 1.0;  ///< I, about the centre of mass
  double offset = 0.5;   ///< a, contact point to centre of mass

  static auto parameters() {
    return std::array{
        Parameter<ChaplyginSleigh>{"m", &ChaplyginSleigh::mass, "mass"},
        Parameter<ChaplyginSleigh>{"I", &ChaplyginSleigh::inertia, "moment of inertia about the centre of mass"},
        Parameter<ChaplyginSleigh>{"a", &ChaplyginSleigh::offset, "distance from the contact point to the centre of mass"}};
  }

  template <class T>
  Mat<T, 3, 3> metric(const Vec<T, 3>& q) const {
    using ad::sin_cos;
    const auto [s, c] = sin_cos(q[2]);
    Mat<T, 3, 3> G;
    G << T(mass), T(0.0), -mass * offset * s,  //
        T(0.0), T(mass), mass * offset * c,    //
        -mass * offset * s, mass * offset * c, T(inertia + mass * offset * offset);
    return G;
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
    M << -s, c, T(0.0);
    return M;
  }

  PhasePoint<3> default_initial() const {
    return {Vecd<3>::Zero(), Vecd<3>(1.0, 0.0, 1.0)};
  }
  std::optional<PhasePoint<3>> exact_solution(const PhasePoint<3>&, double) const { return std::nullopt; }
};

}  // namespace dalembert::models
