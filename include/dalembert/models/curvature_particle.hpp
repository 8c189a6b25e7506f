#pragma once
// Particle in the plane with prescribed signed curvature (Borda–Fernández–Grillo,
// [BFG13] Ex. 4.1): L = ½(ẋ² + ẏ²) (the paper leaves the mass open; it cancels), the kinematic constraint (5)
//   (ẋ ÿ − ẍ ẏ) / |(ẋ, ẏ)|³ = k,
// and C_V = span{(ẋ, ẏ)}: the constraint force is normal to the velocity, so the speed is conserved
// and the path is a circle of radius 1/k traversed at constant speed.
#include <cmath>

#include <Eigen/Geometry>

#include "dalembert/model/second_order.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

struct CurvatureParticle {
  static constexpr int n = 2;
  static constexpr int m = 1;
  static constexpr std::string_view name = "curvature-particle";
  static constexpr std::string_view summary =
      "particle in the plane moving with prescribed signed curvature k (second-order constraint)";
  static constexpr std::array<std::string_view, n> coordinates = {"x", "y"};

  double curvature = 1.0;  ///< k, the signed curvature (k > 0: counter-clockwise)

  static auto parameters() {
    return std::array{Parameter<CurvatureParticle>{"k", &CurvatureParticle::curvature,
                                                   "constant signed curvature of the path (k > 0 turns left)"}};
  }

  template <class T>
  T lagrangian(const Vec<T, 2>&, const Vec<T, 2>& v) const {
    return 0.5 * v.squaredNorm();
  }
  template <class T>
  Vec<T, 1> kinematic_constraint(const Vec<T, 2>&, const Vec<T, 2>& v, const Vec<T, 2>& a) const {
    using std::sqrt;
    const T speed = sqrt(v.squaredNorm());
    return Vec<T, 1>((v[0] * a[1] - a[0] * v[1]) / (speed * speed * speed) - curvature);
  }
  template <class T>
  Mat<T, 2, 1> variational_frame(const Vec<T, 2>&, const Vec<T, 2>& v, const Vec<T, 2>&) const {
    return v;
  }

  /// The paper's data (§4.1.2): q(0) = (0, 0), q̇(0) = (1, 1).
  PhasePoint<2> default_initial() const { return {Vecd<2>(0.0, 0.0), Vecd<2>(1.0, 1.0)}; }

  /// The circle through q0 tangent to v0 with curvature k, traversed at speed |v0| (a straight line
  /// for k = 0). For the paper's data: x = cos(√2 t − π/4) − √2/2, y = sin(√2 t − π/4) + √2/2.
  std::optional<PhasePoint<2>> exact_solution(const PhasePoint<2>& x0, double t) const {
    const double speed = x0.v.norm();
    if (!(speed > 0)) return std::nullopt;
    if (curvature == 0.0) return PhasePoint<2>{x0.q + t * x0.v, x0.v};
    const Vecd<2> normal(-x0.v[1] / speed, x0.v[0] / speed);  // the velocity turned by +90°
    const Vecd<2> centre = x0.q + normal / curvature;
    const double angle = curvature * speed * t;
    const Eigen::Rotation2D<double> turn(angle);
    return PhasePoint<2>{centre + turn * (x0.q - centre), turn * x0.v};
  }
};

}  // namespace dalembert::models
