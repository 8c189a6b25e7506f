#pragma once
// Builds a catalogue entry from a CatalogueSystem model type.
#include <cmath>
#include <sstream>

#include <Eigen/SVD>

#include "catalogue/catalogue.hpp"

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

template <class S>  // any catalogue system, also a contact one
std::string coordinate_list() {
  std::string s;
  for (const auto& c : S::coordinates) s += (s.empty() ? "" : ", ") + std::string(c);
  return s;
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
      throw BadInput("unknown parameter '" + name + "' for system " + std::string(S::name) +
                     (known.empty() ? " (it has no parameters)" : " (known: " + known + ")"));
    }
  }
  return sys;
}

template <class S>  // any catalogue system, also a contact one
void check_size(const char* option, const Eigen::VectorXd& x) {
  if (x.size() != S::n) {
    throw BadInput(std::string(option) + " has " + std::to_string(x.size()) + " value(s) but system " +
                   std::string(S::name) + " has " + std::to_string(S::n) + " coordinates (" +
                   coordinate_list<S>() + ")");
  }
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

/// Entry::exact: the closed-form positions from (q0, v0), defaults filled in as for run.
template <CatalogueMetadata S>
std::optional<Eigen::VectorXd> exact_positions(const ParameterValues& values, InitialData init, double t) {
  const S sys = configure<S>(values);
  if (init.q1) return std::nullopt;
  if (init.q0.size()) check_size<S>("--q0", init.q0);
  if (init.v0.size()) check_size<S>("--v0", init.v0);
  const auto x0 = sys.default_initial();
  const PhasePoint<S::n> start{init.q0.size() ? Vecd<S::n>(init.q0) : x0.q, init.v0.size() ? Vecd<S::n>(init.v0) : x0.v};
  const auto s = sys.exact_solution(start, t);
  if (!s) return std::nullopt;
  return Eigen::VectorXd(s->q);
}

}  // namespace detail

template <CatalogueSystem S>
Entry make_entry() {
  Entry e;
  e.name = std::string(S::name);
  e.describe = [](const ParameterValues& values) {
    const S sys = detail::configure<S>(values);
    SystemDescription d;
    d.name = std::string(S::name);
    d.summary = std::string(S::summary);
    for (const auto& c : S::coordinates) d.coordinates.emplace_back(c);
    for (const auto& p : S::parameters())
      d.parameters.push_back({std::string(p.name), sys.*(p.member), std::string(p.description)});
    d.constraints = S::m;
    const auto x0 = sys.default_initial();
    d.q0.assign(x0.q.data(), x0.q.data() + S::n);
    d.v0.assign(x0.v.data(), x0.v.data() + S::n);
    d.closed_form = sys.exact_solution(x0, 1.0).has_value();
    d.external_force = has_external_force(sys);
    return d;
  };
  e.run = [](const ParameterValues& values, InitialData init, const RunOptions& options) {
    const S sys = detail::configure<S>(values);
    if (init.z0) throw BadInput("--z0 is the action variable of a contact system; " + std::string(S::name) + " is not one");
    const auto x0 = sys.default_initial();
    const bool default_v0 = init.v0.size() == 0;
    if (init.q0.size() == 0) init.q0 = x0.q;
    if (default_v0) init.v0 = x0.v;
    detail::check_size<S>("--q0", init.q0);
    detail::check_size<S>("--v0", init.v0);
    if (init.q1) detail::check_size<S>("--q1", *init.q1);
    const Vecd<S::n> v_start = init.q1 ? Vecd<S::n>((*init.q1 - init.q0) / options.h) : Vecd<S::n>(init.v0);
    detail::check_regular(std::string(S::name), values, lagrangian_derivatives(sys, Vecd<S::n>(init.q0), v_start).W,
                          constraint_matrix(sys, Vecd<S::n>(init.q0)), init.q0);
    if (!init.q1) {
      const Vecd<S::n> q = init.q0, v = init.v0;
      const double residual = constraint_residual(sys, q, v);
      if (residual > 1e-10 * (1.0 + v.template lpNorm<Eigen::Infinity>())) {
        throw BadInput("v0 = " + detail::format_vector(v) + " violates the constraints of " + std::string(S::name) +
                       " at q0 = " + detail::format_vector(q) + ": |M(q0) v0| = " + std::to_string(residual) +
                       (default_v0 ? " (v0 is the default; pass --v0 with a velocity in D)" : ""));
      }
    }
    return run(sys, init, options);
  };
  e.exact = detail::exact_positions<S>;
  return e;
}

}  // namespace dalembert::catalogue
