#pragma once
// Builds a catalogue entry from a rigid body on SO(3) (model/rigid_body.hpp). Its coordinates are
// the nine entries of g row by row; its velocity (`v` of describe, --v0) is the body angular
// velocity Ω. Initial data are checked: g0 orthogonal with det +1, A(g0) Ω0 = 0.
#include "catalogue/make_entry.hpp"
#include "dalembert/model/rigid_body.hpp"

namespace dalembert::catalogue {

template <RigidBodySystem B>
Entry make_rigid_body_entry() {
  Entry e;
  e.name = std::string(B::name);
  e.describe = [](const ParameterValues& values) {
    const B body = detail::configure<B>(values);
    SystemDescription d;
    d.name = std::string(B::name);
    d.summary = std::string(B::summary);
    for (const auto& c : rotation_matrix_coordinates) d.coordinates.emplace_back(c);
    for (const auto& p : B::parameters())
      d.parameters.push_back({std::string(p.name), body.*(p.member), std::string(p.description)});
    d.constraints = B::m;
    const RigidBodyPoint x0 = body.default_initial();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) d.q0.push_back(x0.g(r, c));
    d.v0.assign(x0.omega.data(), x0.omega.data() + 3);
    d.closed_form = body.exact_solution(x0, 1.0).has_value();
    return d;
  };
  e.run = [](const ParameterValues& values, InitialData init, const RunOptions& options) {
    const B body = detail::configure<B>(values);
    if (init.z0) throw BadInput("--z0 is the action variable of a contact system; " + std::string(B::name) + " is not one");
    const Eigen::LLT<Matd<3, 3>> inertia(body.inertia());
    if (inertia.info() != Eigen::Success || !body.inertia().allFinite())
      throw BadInput("the inertia tensor of " + std::string(B::name) + " must be positive definite");
    const RigidBodyPoint x0 = body.default_initial();
    const bool default_v0 = init.v0.size() == 0;
    if (init.q0.size() == 0) init.q0 = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(Eigen::Matrix<double, 3, 3, Eigen::RowMajor>(x0.g).data());
    if (default_v0) init.v0 = x0.omega;
    if (init.q0.size() != 9)
      throw BadInput("--q0 has " + std::to_string(init.q0.size()) + " value(s) but system " + std::string(B::name) +
                     " takes the 9 entries of g0 row by row (g11, ..., g33)");
    if (init.v0.size() != 3)
      throw BadInput("--v0 has " + std::to_string(init.v0.size()) + " value(s) but system " + std::string(B::name) +
                     " takes the body angular velocity Omega0 (3 values)");
    const Matd<3, 3> g0 = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(init.q0.data());
    const double orthogonality = so3::orthogonality_error(g0);
    if (!(orthogonality <= 1e-10) || !(g0.determinant() > 0))
      throw BadInput("--q0 = " + detail::format_vector(init.q0) + " is not a rotation matrix: |g0^T g0 - I| = " +
                     std::to_string(orthogonality) + ", det g0 = " + std::to_string(g0.determinant()));
    const Vecd<3> omega0 = init.v0;
    const double residual = rigid_body_constraint_residual(body, g0, omega0);
    if (residual > 1e-10 * (1.0 + omega0.template lpNorm<Eigen::Infinity>()))
      throw BadInput("v0 = " + detail::format_vector(omega0) + " violates the constraint of " + std::string(B::name) +
                     " at g0: |A(g0) Omega0| = " + std::to_string(residual) +
                     (default_v0 ? " (v0 is the default; pass --v0 with an admissible Omega0)" : ""));
    return run(body, init, options);
  };
  e.exact = [](const ParameterValues& values, InitialData init, double t) -> std::optional<Eigen::VectorXd> {
    const B body = detail::configure<B>(values);
    if (init.q1) return std::nullopt;
    RigidBodyPoint start = body.default_initial();
    if (init.q0.size() == 9) start.g = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(init.q0.data());
    if (init.v0.size() == 3) start.omega = init.v0;
    const auto s = body.exact_solution(start, t);
    if (!s) return std::nullopt;
    const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> g = s->g;
    return Eigen::VectorXd(Eigen::Map<const Eigen::Matrix<double, 9, 1>>(g.data()));
  };
  return e;
}

}  // namespace dalembert::catalogue
