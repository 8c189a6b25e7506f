#pragma once
// Builds a catalogue entry from a SecondOrderCatalogueSystem model type (a system with
// second-order constraints, spec seed-004). Like make_entry(), but the initial data are checked by
// solving the equations of motion for the acceleration at (q0, v0) instead of by M(q0) v0 = 0, and
// a model may reject its parameters through `std::string parameter_problem() const`.
#include "catalogue/make_entry.hpp"

namespace dalembert::catalogue {

template <SecondOrderCatalogueSystem S>
Entry make_second_order_entry() {
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
    d.constraints = S::m;  // kinematic (second-order) constraints
    const auto x0 = sys.default_initial();
    d.q0.assign(x0.q.data(), x0.q.data() + S::n);
    d.v0.assign(x0.v.data(), x0.v.data() + S::n);
    d.closed_form = sys.exact_solution(x0, 1.0).has_value();
    return d;
  };
  e.run = [](const ParameterValues& values, InitialData init, const RunOptions& options) {
    const S sys = detail::configure<S>(values);
    if constexpr (requires { sys.parameter_problem(); }) {
      const std::string problem = sys.parameter_problem();
      if (!problem.empty()) throw BadInput("parameters of " + std::string(S::name) + ": " + problem);
    }
    if (init.z0) throw BadInput("--z0 is the action variable of a contact system; " + std::string(S::name) + " is not one");
    const auto x0 = sys.default_initial();
    if (init.q0.size() == 0) init.q0 = x0.q;
    if (init.v0.size() == 0) init.v0 = x0.v;
    detail::check_size<S>("--q0", init.q0);
    detail::check_size<S>("--v0", init.v0);
    if (init.q1) detail::check_size<S>("--q1", *init.q1);
    const Vecd<S::n> q = init.q0;
    const Vecd<S::n> v = init.q1 ? Vecd<S::n>((Vecd<S::n>(*init.q1) - q) / options.h) : Vecd<S::n>(init.v0);
    Vecd<S::n> a;
    const NewtonReport r = solve_acceleration(sys, q, v, a);
    if (v.allFinite() && !r.converged) {  // (a bad h is reported by run())
      throw BadInput(std::string(init.q1 ? "(q1 - q0)/h = " : "v0 = ") + detail::format_vector(v) +
                     ": the equations of motion of " + std::string(S::name) + " cannot be solved for the acceleration at q0 = " +
                     detail::format_vector(q) + " (" + r.reason + ")");
    }
    return run(sys, init, options);
  };
  e.exact = detail::exact_positions<S>;
  return e;
}

}  // namespace dalembert::catalogue
