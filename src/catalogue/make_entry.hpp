#pragma once
// Builds the catalogue entry of a compiled system type, of any kind: the one way to make an entry
// from a C++ model (model files and the knife-edge chain, whose sizes are run-time values, build
// theirs from an object: src/modelfile/entry.cpp, knife_edge_chain.cpp).
#include <cmath>
#include <sstream>

#include <Eigen/Cholesky>
#include <Eigen/SVD>

#include "catalogue/catalogue.hpp"
#include "catalogue/steady_motion.hpp"
#include "dalembert/model/rigid_body.hpp"
#include "dalembert/models/contact_entry.hpp"
#include "support/named_velocities.hpp"

namespace dalembert::catalogue {

namespace detail {

template <class Vector>
std::string format_vector(const Vector& x) {
  std::ostringstream out;
  out.precision(6);
  out << "(";
  for (Eigen::Index i = 0; i < x.size(); ++i) out << (i ? ", " : "") << x[i];
  out << ")";
  return out.str();
}

/// The model with its parameters overridden by `values` (any model with name and parameters()).
template <class S>
S configure(const ParameterValues& values) {
  S sys;
  const auto params = S::parameters();
  for (const auto& [name, value] : values) {
    bool found = false;
    for (const auto& p : params) {
      if (p.name == name) {
        if (!std::isfinite(value)) throw BadInput("parameter " + name + " must be a finite number");
        sys.*(p.member) = value;
        found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const auto& p : params) known += (known.empty() ? "" : ", ") + std::string(p.name);
      throw BadInput("unknown parameter '" + name + "' for system " + name_of(sys) +
                     (known.empty() ? " (it has no parameters)" : " (known: " + known + ")"));
    }
  }
  return sys;
}

/// `option` (--q0, --v0, --q1) has one value per coordinate of sys.
template <class S>
void check_size(const S& sys, const char* option, const Eigen::VectorXd& x) {
  const auto names = coordinate_names_of(sys);
  if (x.size() == static_cast<Eigen::Index>(names.size())) return;
  std::string list;
  for (const auto& c : names) list += (list.empty() ? "" : ", ") + c;
  throw BadInput(std::string(option) + " has " + std::to_string(x.size()) + " value(s) but system " + name_of(sys) +
                 " has " + std::to_string(names.size()) + " coordinates (" + list + ")");
}

/// Smallest over largest singular value; 0 for a zero or non-finite matrix.
inline double relative_rank_gap(const Eigen::MatrixXd& A) {
  if (A.size() == 0) return 1.0;
  if (!A.allFinite()) return 0.0;
  const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues();
  return s[0] > 0 ? s[s.size() - 1] / s[0] : 0.0;
}

/// Refuses parameters that make a system singular where it starts: the equations of motion need
/// the mass matrix W = ∂²L/∂v² invertible and the constraint matrix M of full rank.
inline void check_regular(const std::string& system, const ParameterValues& values, const Eigen::MatrixXd& W,
                          const Eigen::MatrixXd& M, const Eigen::VectorXd& q0) {
  const char* what = !(relative_rank_gap(W) > 1e-12) ? "the mass matrix d2L/dv2 is singular"
                     : !(relative_rank_gap(M) > 1e-12) ? "the constraint matrix M(q) does not have full rank"
                                                         : nullptr;
  if (!what) return;
  std::string given;
  for (const auto& [name, value] : values) {
    std::ostringstream v;
    v << value;
    given += " --param " + name + "=" + v.str();
  }
  throw BadInput(system + (given.empty() ? "" : " with" + given) + ": " + what + " at q0 = " + format_vector(q0) +
                 " (the equations of motion cannot be solved)");
}

/// v0 satisfies the constraints at q0: |M(q0) v0| within 1e-10 (relative).
inline void check_in_distribution(const std::string& system, double residual, const Eigen::VectorXd& q0,
                                  const Eigen::VectorXd& v0, bool default_v0) {
  if (residual <= 1e-10 * (1.0 + v0.lpNorm<Eigen::Infinity>())) return;
  throw BadInput("v0 = " + format_vector(v0) + " violates the constraints of " + system + " at q0 = " +
                 format_vector(q0) + ": |M(q0) v0| = " + format_residual(residual) +
                 (default_v0 ? " (v0 is the default; pass --v0 with a velocity in D)" : ""));
}

// --- What distinguishes the kinds of system --------------------------------------------------------
// Their initial data (q0, v0 on TQ; also z0 for contact systems; g0 ∈ SO(3) and Ω0 for rigid
// bodies), how these are filled in and checked before a run, and how a closed form is read back as
// positions. Everything else of an entry is the same for every kind (make_entry below).

/// The default initial data and whether a closed form exists, for describe.
template <class S>
void describe_start(const S& sys, SystemDescription& d) {
  if constexpr (RigidBodySystem<S>) {
    const RigidBodyPoint x0 = sys.default_initial();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) d.q0.push_back(x0.g(r, c));
    d.v0.assign(x0.omega.data(), x0.omega.data() + 3);
    d.velocities = {"omega1", "omega2", "omega3"};
    d.closed_form = sys.exact_solution(x0, 1.0).has_value();
  } else {
    const auto x0 = sys.default_initial();
    d.q0.assign(x0.q.data(), x0.q.data() + x0.q.size());
    d.v0.assign(x0.v.data(), x0.v.data() + x0.v.size());
    if constexpr (ContactCatalogueSystem<S>) d.z0 = x0.z;
    for (const auto& c : d.coordinates) d.velocities.push_back(velocity_column(c));
    d.closed_form = sys.exact_solution(x0, 1.0).has_value();
  }
}

/// The number of constraints: linear velocity constraints, or second-order ones (kinematic).
template <class S>
int constraints_of_kind(const S& sys) {
  if constexpr (ContactCatalogueSystem<S>) {
    return contact_constraint_count(sys);
  } else {
    return S::m;
  }
}

/// --project-v0 (InitialData::project_v0): v0 becomes the velocity in D(q0) with the same momentum
/// components on D, its projection orthogonal in the kinetic metric. For systems with linear
/// velocity constraints on TQ.
template <class S>
void project_initial_velocity(const S& sys, InitialData& init) {
  if (!init.project_v0) return;
  if (init.q1) throw BadInput("--project-v0 projects v0; a start from (q0, q1) has no v0 to project");
  const VecN<S> q = init.q0, v = init.v0;
  init.v0 = velocity_in_distribution(sys, q, momentum(sys, q, v));
}

/// --v0 by names (InitialData::v0_names): the velocities left out solved from M(q0) v0 = 0, for
/// systems with linear velocity constraints on TQ. `coordinates` are the system's names of q.
template <class S>
void complete_initial_velocity(const S& sys, const std::vector<std::string>& coordinates, InitialData& init) {
  if (init.v0_names.empty()) return;
  if (init.q1) throw BadInput("--v0 by names gives v0; the start from (q0, q1) has none");
  if (init.project_v0)
    throw BadInput("--project-v0 projects v0 onto the constraints; --v0 by names gives a velocity on them already");
  const Eigen::MatrixXd M = constraint_matrix(sys, VecN<S>(init.q0));
  init.v0 = support::complete_named_velocity(M, coordinates, init.v0_names, init.v0, name_of(sys), init.q0);
}

/// --project-v0 or --v0 by names on a system of another kind (`kind`: "a contact system"): refused.
inline void refuse_projection(const InitialData& init, const std::string& system, const char* kind) {
  if (init.project_v0)
    throw BadInput("--project-v0 projects v0 onto the linear velocity constraints of a system on TQ; " + system +
                   " is " + kind);
  if (!init.v0_names.empty())
    throw BadInput("--v0 by names solves the velocities left out from the linear velocity constraints of a system "
                   "on TQ; " + system + " is " + kind + ": give all of v0");
}

/// Reports a projection of v0 (project_initial_velocity) or its completion from names
/// (complete_initial_velocity) in the run's summary.
inline RunResult with_projection(RunResult result, const Eigen::VectorXd& given_v0, const InitialData& init) {
  if (!init.v0_names.empty())
    result.summary.completed_v0 = std::vector<double>(init.v0.data(), init.v0.data() + init.v0.size());
  if (init.project_v0 && given_v0.size() == init.v0.size())
    result.summary.projected_v0 = RunSummary::ProjectedVelocity{
        std::vector<double>(init.v0.data(), init.v0.data() + init.v0.size()), (init.v0 - given_v0).lpNorm<Eigen::Infinity>()};
  return result;
}

/// Fills in the defaults of `init` and refuses initial data or parameters the system cannot start
/// from (BadInput naming the value). Returns v0 as given or defaulted, before --project-v0.
template <class S>
Eigen::VectorXd prepare_start(const S& sys, const ParameterValues& values, InitialData& init, double h) {
  const std::string name = name_of(sys);
  if (!ContactCatalogueSystem<S> && init.z0)
    throw BadInput("--z0 is the action variable of a contact system; " + name + " is not one");
  const bool default_v0 = init.v0.size() == 0;
  if constexpr (RigidBodySystem<S>) {
    refuse_projection(init, name, "a rigid body (its velocity is the body angular velocity)");
    const Eigen::LLT<Matd<3, 3>> inertia(sys.inertia());
    if (inertia.info() != Eigen::Success || !sys.inertia().allFinite())
      throw BadInput("the inertia tensor of " + name + " must be positive definite");
    const RigidBodyPoint x0 = sys.default_initial();
    if (init.q0.size() == 0)
      init.q0 = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(Eigen::Matrix<double, 3, 3, Eigen::RowMajor>(x0.g).data());
    if (default_v0) init.v0 = x0.omega;
    if (init.q0.size() != 9)
      throw BadInput("--q0 has " + std::to_string(init.q0.size()) + " value(s) but system " + name +
                     " takes the 9 entries of g0 row by row (g11, ..., g33)");
    if (init.v0.size() != 3)
      throw BadInput("--v0 has " + std::to_string(init.v0.size()) + " value(s) but system " + name +
                     " takes the body angular velocity Omega0 (3 values)");
    const Matd<3, 3> g0 = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(init.q0.data());
    const double orthogonality = so3::orthogonality_error(g0);
    if (!(orthogonality <= 1e-10) || !(g0.determinant() > 0))
      throw BadInput("--q0 = " + format_vector(init.q0) + " is not a rotation matrix: |g0^T g0 - I| = " +
                     format_residual(orthogonality) + ", det g0 = " + format_residual(g0.determinant()));
    const Vecd<3> omega0 = init.v0;
    const double residual = constraint_residual(sys, g0, omega0);
    if (residual > 1e-10 * (1.0 + omega0.template lpNorm<Eigen::Infinity>()))
      throw BadInput("v0 = " + format_vector(omega0) + " violates the constraint of " + name +
                     " at g0: |A(g0) Omega0| = " + format_residual(residual) +
                     (default_v0 ? " (v0 is the default; pass --v0 with an admissible Omega0)" : ""));
    return init.v0;
  } else {
    if constexpr (requires { sys.parameter_problem(); }) {
      const std::string problem = sys.parameter_problem();
      if (!problem.empty()) throw BadInput("parameters of " + name + ": " + problem);
    }
    const auto x0 = sys.default_initial();
    if (init.q0.size() == 0) init.q0 = x0.q;
    if (default_v0) init.v0 = x0.v;
    if constexpr (ContactCatalogueSystem<S>) {
      if (!init.z0) init.z0 = x0.z;
    }
    check_size(sys, "--q0", init.q0);
    if constexpr (ContactCatalogueSystem<S>) refuse_projection(init, name, "a contact system");
    else if constexpr (SecondOrderCatalogueSystem<S>) refuse_projection(init, name, "a system with second-order constraints");
    else complete_initial_velocity(sys, coordinate_names_of(sys), init);
    check_size(sys, "--v0", init.v0);
    if (init.q1) check_size(sys, "--q1", *init.q1);
    using Point = Vecd<S::n>;
    const Point q = init.q0;
    const Eigen::VectorXd given_v0 = init.v0;
    if constexpr (!ContactCatalogueSystem<S> && !SecondOrderCatalogueSystem<S>) project_initial_velocity(sys, init);
    const Point v = init.q1 ? Point((Point(*init.q1) - q) / h) : Point(init.v0);
    if constexpr (ContactCatalogueSystem<S>) {
      check_regular(name, values, contact_lagrangian_hessian(sys, q, Point(init.v0), *init.z0).derivatives().W,
                    contact_constraint_matrix<S, double>(sys, q), init.q0);
      if (!init.q1) check_in_distribution(name, constraint_residual(sys, q, v), q, v, default_v0);
    } else if constexpr (SecondOrderCatalogueSystem<S>) {
      // second-order constraints: the equations of motion must be solvable for the acceleration
      Point a;
      const NewtonReport r = solve_acceleration(sys, q, v, a);
      if (v.allFinite() && !r.converged) {  // (a bad h is reported by run())
        throw BadInput(std::string(init.q1 ? "(q1 - q0)/h = " : "v0 = ") + format_vector(v) +
                       ": the equations of motion of " + name + " cannot be solved for the acceleration at q0 = " +
                       format_vector(q) + " (" + r.reason + ")");
      }
    } else {
      check_regular(name, values, lagrangian_derivatives(sys, q, v).W, constraint_matrix(sys, q), init.q0);
      if (!init.q1) check_in_distribution(name, constraint_residual(sys, q, v), q, v, default_v0);
    }
    return given_v0;
  }
}

/// Entry::exact: the closed-form positions from the initial data (defaults filled in as for run),
/// if the system has a closed form there.
template <class S>
std::optional<Eigen::VectorXd> closed_form_positions(const ParameterValues& values, InitialData init, double t) {
  const S sys = configure<S>(values);
  if (init.q1) return std::nullopt;
  if constexpr (RigidBodySystem<S>) {
    RigidBodyPoint start = sys.default_initial();
    if (init.q0.size() == 9) start.g = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(init.q0.data());
    if (init.v0.size() == 3) start.omega = init.v0;
    const auto s = sys.exact_solution(start, t);
    if (!s) return std::nullopt;
    const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> g = s->g;
    return Eigen::VectorXd(Eigen::Map<const Eigen::Matrix<double, 9, 1>>(g.data()));
  } else {
    auto start = sys.default_initial();
    if (init.q0.size()) check_size(sys, "--q0", init.q0);
    if constexpr (!ContactCatalogueSystem<S> && !SecondOrderCatalogueSystem<S>) {
      if (!init.v0_names.empty()) {
        if (!init.q0.size()) init.q0 = start.q;
        complete_initial_velocity(sys, coordinate_names_of(sys), init);
      }
    }
    if (init.v0.size()) check_size(sys, "--v0", init.v0);
    if (init.q0.size()) start.q = init.q0;
    if (init.v0.size()) start.v = init.v0;
    if constexpr (ContactCatalogueSystem<S>) start.z = init.z0.value_or(start.z);
    if constexpr (!ContactCatalogueSystem<S> && !SecondOrderCatalogueSystem<S>) {
      if (init.project_v0) start.v = velocity_in_distribution(sys, start.q, momentum(sys, start.q, start.v));
    }
    const auto s = sys.exact_solution(start, t);
    if (!s) return std::nullopt;
    return Eigen::VectorXd(s->q);
  }
}

/// Entry::steady of a Lagrange–d'Alembert model: the start prepared as for run (defaults, sizes,
/// regularity, v0 in D), symmetric in the coordinates named or else in those it declares cyclic.
template <class S>
SteadyMotion steady_motion(const ParameterValues& values, InitialData init, const SteadyRequest& request) {
  const S sys = configure<S>(values);
  prepare_start(sys, values, init, 1.0);  // h only converts a start from (q0, q1), which steady has not
  std::vector<int> declared;
  if constexpr (requires { S::cyclic_coordinates; })
    declared.assign(S::cyclic_coordinates.begin(), S::cyclic_coordinates.end());
  return steady_motion_of(sys, name_of(sys), coordinate_names_of(sys), init.q0, init.v0, request, declared);
}

}  // namespace detail

/// The catalogue entry of a compiled system of any kind: Lagrange–d'Alembert (CatalogueSystem),
/// with second-order constraints, contact (Herglotz) or a rigid body on SO(3). Names and
/// parameters are read from a configured object (name_of, summary_of, coordinate_names_of).
template <class S>
  requires CatalogueSystem<S> || SecondOrderCatalogueSystem<S> || ContactCatalogueSystem<S> || RigidBodySystem<S>
Entry make_entry() {
  Entry e;
  e.name = name_of(S{});
  e.describe = [](const ParameterValues& values) {
    const S sys = detail::configure<S>(values);
    SystemDescription d;
    d.name = name_of(sys);
    d.summary = summary_of(sys);
    d.coordinates = coordinate_names_of(sys);
    for (const auto& p : S::parameters())
      d.parameters.push_back({std::string(p.name), sys.*(p.member), std::string(p.description)});
    d.constraints = detail::constraints_of_kind(sys);
    detail::describe_start(sys, d);
    if constexpr (Model<S>) {
      d.external_force = has_external_force(sys);
      d.force_depends_on_time = has_time_dependent_force(sys);
    }
    return d;
  };
  e.run = [](const ParameterValues& values, InitialData init, const RunOptions& options) {
    const S sys = detail::configure<S>(values);
    const Eigen::VectorXd given_v0 = detail::prepare_start(sys, values, init, options.h);
    return detail::with_projection(run(sys, init, options), given_v0, init);
  };
  e.exact = detail::closed_form_positions<S>;
  if constexpr (CatalogueSystem<S> && !ContactCatalogueSystem<S> && !SecondOrderCatalogueSystem<S>)
    e.steady = detail::steady_motion<S>;
  return e;
}

}  // namespace dalembert::catalogue
