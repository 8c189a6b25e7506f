#pragma once
// Rigid bodies on SO(3) with one constraint on the body angular velocity (our test systems for [FIM08] §3).
// Coordinates for the command line: the nine entries of g, row by row; the velocity is Ω (3 numbers).
#include <cmath>

#include "dalembert/model/rigid_body.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

/// Suslov problem: L = ½ ΩᵀIΩ, I = diag(I1, I2, I3), body-fixed constraint a·Ω = 0
/// (a left-invariant distribution).
struct Suslov {
  static constexpr int m = 1;
  static constexpr std::string_view name = "suslov";
  static constexpr std::string_view summary =
      "Suslov problem: rigid body, I = diag(I1, I2, I3), body-fixed constraint a . Omega = 0 "
      "(coordinates: entries of g row by row; velocity: body angular velocity Omega)";
  static constexpr const auto& coordinates = rotation_matrix_coordinates;

  double I1 = 1.0, I2 = 2.0, I3 = 3.0;
  double a1 = 0.0, a2 = 0.0, a3 = 1.0;

  static auto parameters() {
    return std::array{Parameter<Suslov>{"I1", &Suslov::I1, "principal moment of inertia 1"},
                      Parameter<Suslov>{"I2", &Suslov::I2, "principal moment of inertia 2"},
                      Parameter<Suslov>{"I3", &Suslov::I3, "principal moment of inertia 3"},
                      Parameter<Suslov>{"a1", &Suslov::a1, "body constraint covector a, component 1"},
                      Parameter<Suslov>{"a2", &Suslov::a2, "body constraint covector a, component 2"},
                      Parameter<Suslov>{"a3", &Suslov::a3, "body constraint covector a, component 3"}};
  }

  Matd<3, 3> inertia() const { return Vecd<3>(I1, I2, I3).asDiagonal(); }

  template <class T>
  Mat<T, 1, 3> constraint_matrix(const Mat<T, 3, 3>&) const {
    return Mat<double, 1, 3>(a1, a2, a3).template cast<T>();
  }

  /// g0 = identity and Ω0 = (1, 0.5, 0) projected onto a⊥.
  RigidBodyPoint default_initial() const {
    const Vecd<3> a(a1, a2, a3), w(1.0, 0.5, 0.0);
    const double aa = a.squaredNorm();
    return {Matd<3, 3>::Identity(), aa > 0 ? Vecd<3>(w - a * (a.dot(w) / aa)) : w};
  }

  /// With a along a principal axis, (IΩ) × Ω is parallel to a for every Ω ⊥ a: Ω stays constant
  /// and g(t) = g0 exp(t hat Ω0).
  std::optional<RigidBodyPoint> exact_solution(const RigidBodyPoint& x0, double t) const {
    const int nonzero = (a1 != 0.0) + (a2 != 0.0) + (a3 != 0.0);
    if (nonzero != 1) return std::nullopt;
    return RigidBodyPoint{x0.g * so3::exp(Vecd<3>(t * x0.omega)), x0.omega};
  }
};

/// Rigid body with an attitude-dependent constraint (ours; the setting of FIM's
/// Theorem 1 for I = identity): body constraint covector a(g) = (g11 + 2, g22, g33), a
/// distribution that is neither left- nor right-invariant.
struct RigidBodyAttitudeConstraint {
  static constexpr int m = 1;
  static constexpr std::string_view name = "rigid-body-attitude-constraint";
  static constexpr std::string_view summary =
      "rigid body, I = diag(I1, I2, I3), attitude-dependent constraint (g11 + 2, g22, g33) . Omega = 0 "
      "(coordinates: entries of g row by row; velocity: body angular velocity Omega)";
  static constexpr const auto& coordinates = rotation_matrix_coordinates;

  double I1 = 1.0, I2 = 1.0, I3 = 1.0;

  static auto parameters() {
    using P = Parameter<RigidBodyAttitudeConstraint>;
    return std::array{P{"I1", &RigidBodyAttitudeConstraint::I1, "principal moment of inertia 1"},
                      P{"I2", &RigidBodyAttitudeConstraint::I2, "principal moment of inertia 2"},
                      P{"I3", &RigidBodyAttitudeConstraint::I3, "principal moment of inertia 3"}};
  }

  Matd<3, 3> inertia() const { return Vecd<3>(I1, I2, I3).asDiagonal(); }

  template <class T>
  Mat<T, 1, 3> constraint_matrix(const Mat<T, 3, 3>& g) const {
    Mat<T, 1, 3> a;
    a << g(0, 0) + 2.0, g(1, 1), g(2, 2);
    return a;
  }

  /// g0 = identity (a = (3, 1, 1)) and Ω0 = (0.2, 0.4, −1).
  RigidBodyPoint default_initial() const { return {Matd<3, 3>::Identity(), Vecd<3>(0.2, 0.4, -1.0)}; }
  std::optional<RigidBodyPoint> exact_solution(const RigidBodyPoint&, double) const { return std::nullopt; }
};

}  // namespace dalembert::models
