#pragma once
// Builds a catalogue entry from a ContactCatalogueSystem model type (the contact counterpart of
// make_entry.hpp): initial data carry the action variable z0 (--z0, default from the model).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/contact_entry.hpp"

namespace dalembert::catalogue {

template <ContactCatalogueSystem S>
Entry make_contact_entry() {
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
    d.constraints = contact_constraint_count<S>();
    const auto x0 = sys.default_initial();
    d.q0.assign(x0.q.data(), x0.q.data() + S::n);
    d.v0.assign(x0.v.data(), x0.v.data() + S::n);
    d.z0 = x0.z;
    d.closed_form = sys.exact_solution(x0, 1.0).has_value();
    return d;
  };
  e.run = [](const ParameterValues& values, InitialData init, const RunOptions& options) {
    const S sys = detail::configure<S>(values);
    const auto x0 = sys.default_initial();
    const bool default_v0 = init.v0.size() == 0;
    if (init.q0.size() == 0) init.q0 = x0.q;
    if (default_v0) init.v0 = x0.v;
    if (!init.z0) init.z0 = x0.z;
    detail::check_size<S>("--q0", init.q0);
    detail::check_size<S>("--v0", init.v0);
    if (init.q1) detail::check_size<S>("--q1", *init.q1);
    detail::check_regular(std::string(S::name), values,
                          contact_lagrangian_hessian(sys, Vecd<S::n>(init.q0), Vecd<S::n>(init.v0), *init.z0).derivatives().W,
                          contact_constraint_matrix<S, double>(sys, Vecd<S::n>(init.q0)), init.q0);
    if (!init.q1) {
      const Vecd<S::n> q = init.q0, v = init.v0;
      const double residual = contact_constraint_residual(sys, q, v);
      if (residual > 1e-10 * (1.0 + v.template lpNorm<Eigen::Infinity>())) {
        throw BadInput("v0 = " + detail::format_vector(v) + " violates the constraints of " + std::string(S::name) +
                       " at q0 = " + detail::format_vector(q) + ": |M(q0) v0| = " + std::to_string(residual) +
                       (default_v0 ? " (v0 is the default; pass --v0 with a velocity in D)" : ""));
      }
    }
    return run(sys, init, options);
  };
  e.exact = [](const ParameterValues& values, InitialData init, double t) -> std::optional<Eigen::VectorXd> {
    const S sys = detail::configure<S>(values);
    if (init.q1) return std::nullopt;
    if (init.q0.size()) detail::check_size<S>("--q0", init.q0);
    if (init.v0.size()) detail::check_size<S>("--v0", init.v0);
    const auto x0 = sys.default_initial();
    const ContactPoint<S::n> start{init.q0.size() ? Vecd<S::n>(init.q0) : x0.q, init.v0.size() ? Vecd<S::n>(init.v0) : x0.v,
                                   init.z0.value_or(x0.z)};
    const auto s = sys.exact_solution(start, t);
    if (!s) return std::nullopt;
    return Eigen::VectorXd(s->q);
  };
  return e;
}

}  // namespace dalembert::catalogue
