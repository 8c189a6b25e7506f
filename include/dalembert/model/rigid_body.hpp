#pragma once
// Rigid bodies on SO(3) with nonholonomic constraints on the body angular velocity Ω
// (our test systems for [FIM08] §3): configuration g ∈ SO(3), ġ = g hat(Ω), L = ½ Ωᵀ I Ω (left-invariant,
// no potential), m constraints A(g) Ω = 0 whose rows are body-frame covectors. A(g) constant is a
// left-invariant distribution (the Suslov problem); A depending on g is an arbitrary one.
//
// A rigid-body model is a struct with
//   static constexpr int m;
//   Matd<3,3> inertia() const;                               the body inertia tensor I (SPD)
//   template <class T> Mat<T,m,3> constraint_matrix(const Mat<T,3,3>& g) const;   rows: body covectors
// Continuous equations (Euler–Poincaré–d'Alembert, multiplier eliminated at every (g, Ω)):
//   I Ω' = (IΩ) × Ω + Aᵀλ,   λ = −C⁻¹(Ȧ Ω + A I⁻¹((IΩ) × Ω)),   C = A I⁻¹ Aᵀ,   Ȧ = DA(g)[g hat Ω].
#include <array>
#include <concepts>
#include <optional>
#include <string_view>

#include <Eigen/Cholesky>
#include <Eigen/Geometry>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/core/so3.hpp"

namespace dalembert {

template <class B>
concept RigidBodyModel = requires(const B& b, const Matd<3, 3>& g) {
  { B::m } -> std::convertible_to<int>;
  { b.inertia() } -> std::convertible_to<Matd<3, 3>>;
  { b.template constraint_matrix<double>(g) } -> std::convertible_to<Matd<B::m, 3>>;
};

/// A point of T SO(3) in body coordinates.
struct RigidBodyPoint {
  Matd<3, 3> g;
  Vecd<3> omega;
};

/// A catalogue rigid body: a RigidBodyModel plus name, summary, parameters() (as for R^n
/// systems, models/catalogue_entry.hpp), default_initial() and exact_solution(x0, t).
template <class B>
concept RigidBodySystem = RigidBodyModel<B> && requires(const B& b, const RigidBodyPoint& x0) {
  { B::name } -> std::convertible_to<std::string_view>;
  { B::summary } -> std::convertible_to<std::string_view>;
  B::parameters();
  { b.default_initial() } -> std::convertible_to<RigidBodyPoint>;
  { b.exact_solution(x0, 0.0) } -> std::convertible_to<std::optional<RigidBodyPoint>>;
};

/// The CSV coordinates of a rigid body: the entries of g, row by row.
inline constexpr std::array<std::string_view, 9> rotation_matrix_coordinates = {
    "g11", "g12", "g13", "g21", "g22", "g23", "g31", "g32", "g33"};

/// Ȧ = d/dt A(g(t)) along ġ = g hat(Ω) (one directional derivative by automatic differentiation).
template <RigidBodyModel B>
Matd<B::m, 3> constraint_matrix_rate(const B& body, const Matd<3, 3>& g, const Vecd<3>& omega) {
  using D = ad::Dual<double, 1>;
  const Matd<3, 3> gdot = g * so3::hat(omega);
  Mat<D, 3, 3> gd;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      gd(i, j) = ad::constant<1>(g(i, j));
      gd(i, j).derivatives()[0] = gdot(i, j);
    }
  const Mat<D, B::m, 3> A = body.template constraint_matrix<D>(gd);
  Matd<B::m, 3> Adot;
  for (int a = 0; a < B::m; ++a)
    for (int j = 0; j < 3; ++j) Adot(a, j) = ad::derivative(A(a, j), 0);
  return Adot;
}

struct RigidBodyAcceleration {
  Vecd<3> omega_dot;
  Eigen::VectorXd multiplier;  ///< λ (m entries), constraint torque Aᵀλ
};

template <RigidBodyModel B>
RigidBodyAcceleration rigid_body_acceleration(const B& body, const Matd<3, 3>& g, const Vecd<3>& omega) {
  constexpr int m = B::m;
  const Matd<3, 3> I = body.inertia();
  const Eigen::LDLT<Matd<3, 3>> Iinv(I);
  const Vecd<3> f = Iinv.solve(Vecd<3>((I * omega).cross(omega)));
  RigidBodyAcceleration out;
  out.omega_dot = f;
  out.multiplier = Eigen::VectorXd::Zero(m);
  if constexpr (m > 0) {
    const Matd<m, 3> A = body.template constraint_matrix<double>(g);
    const Matd<3, m> IinvAt = Iinv.solve(A.transpose());
    const Matd<m, m> C = A * IinvAt;
    const Vecd<m> lambda = -C.ldlt().solve(Vecd<m>(constraint_matrix_rate(body, g, omega) * omega + A * f));
    out.omega_dot += IinvAt * lambda;
    out.multiplier = lambda;
  }
  return out;
}

/// Λ~ in the body frame, −Aᵀλ (the constraint-force 1-form of [dLMS04] §2).
template <RigidBodyModel B>
Vecd<3> rigid_body_constraint_force_form(const B& body, const Matd<3, 3>& g, const Vecd<3>& omega) {
  if constexpr (B::m == 0) {
    return Vecd<3>::Zero();
  } else {
    const Vecd<B::m> lambda = rigid_body_acceleration(body, g, omega).multiplier;
    return -(body.template constraint_matrix<double>(g).transpose() * lambda);
  }
}

/// The kinetic energy ½ Ωᵀ I Ω at the phase point (g, Ω), which does not depend on g: the same verb
/// as a Lagrangian model's energy(sys, q, v) and a contact system's energy(sys, q, v, z).
template <RigidBodyModel B>
double energy(const B& body, const Matd<3, 3>&, const Vecd<3>& omega) {
  return 0.5 * omega.dot(body.inertia() * omega);
}

/// |A(g) Ω|_inf, the continuous constraint residual.
template <RigidBodyModel B>
double constraint_residual(const B& body, const Matd<3, 3>& g, const Vecd<3>& omega) {
  if constexpr (B::m == 0) {
    return 0.0;
  } else {
    return (body.template constraint_matrix<double>(g) * omega).template lpNorm<Eigen::Infinity>();
  }
}

/// Body covector projectors for the inertia metric (left-trivialised P*, Q* of [FIM08] §3):
/// Q* μ = Aᵀ C⁻¹ A I⁻¹ μ, P* = I − Q*.
struct BodyProjectors {
  Matd<3, 3> P, Q;
  Matd<3, 3> reflection() const { return P - Q; }
};

/// Q* at g, generic in the scalar type (dual numbers for a step's derivative).
template <class T, RigidBodyModel B>
Mat<T, 3, 3> body_constraint_projector(const B& body, const Mat<T, 3, 3>& g) {
  constexpr int m = B::m;
  if constexpr (m == 0) {
    return Mat<T, 3, 3>::Zero();
  } else {
    const Mat<T, m, 3> A = body.template constraint_matrix<T>(g);
    const Mat<T, 3, m> IinvAt = Mat<T, 3, 3>(body.inertia().template cast<T>()).ldlt().solve(A.transpose());
    const Mat<T, m, m> C = A * IinvAt;
    return A.transpose() * C.ldlt().solve(IinvAt.transpose());
  }
}

template <RigidBodyModel B>
BodyProjectors body_projectors(const B& body, const Matd<3, 3>& g) {
  BodyProjectors out;
  out.Q = body_constraint_projector<double>(body, g);
  out.P = Matd<3, 3>::Identity() - out.Q;
  return out;
}

}  // namespace dalembert
