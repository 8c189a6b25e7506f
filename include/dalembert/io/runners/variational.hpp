#pragma once
// Runner of the variational family: `del` (discrete Euler–Lagrange, unconstrained systems) and
// `dla` (discrete Lagrange–d'Alembert of Cortés–Martínez), with the α-rule or trapezoidal L_d, and
// the α-rule or (with the α-rule L_d) the trapezoidal discrete constraint.
#include "dalembert/io/observe.hpp"
#include "dalembert/method/del.hpp"
#include "dalembert/method/dla.hpp"

namespace dalembert::runners {

struct Variational {
  static std::vector<std::string> names() { return {"del", "dla"}; }

  template <class S>
  static constexpr bool supports() {
    return CatalogueSystem<S>;
  }

  template <CatalogueSystem S>
  static RunResult run(const S& sys, const InitialData& init, const RunOptions& o) {
    if (o.rule == "exponential")
      throw BadOption("rule",
                      "exponential is a contact rule (method herglotz); " + o.method + " takes alpha or trapezoid");
    return o.method == "del" ? run_del(sys, init, o) : run_dla(sys, init, o);
  }

 private:
  template <CatalogueSystem S>
  static RunResult run_dla(const S& sys, const InitialData& init, const RunOptions& o) {
    if (o.constraint_rule == "trapezoid") {
      if (o.rule == "trapezoid")
        throw BadOption("constraint_rule", "trapezoid is taken with the alpha-rule discrete Lagrangian (rule alpha)");
      const DiscreteLagrangeDAlembert<S, AlphaRule<S>, TrapezoidConstraint<S>> method(
          sys, AlphaRule<S>(sys, o.h, o.alpha), TrapezoidConstraint<S>(sys, o.h), o.newton);
      return detail::run_two_step(sys, method, init, o, "dla");
    }
    if (o.rule == "trapezoid") {
      const DiscreteLagrangeDAlembert<S, TrapezoidRule<S>, AlphaConstraint<S>> method(
          sys, TrapezoidRule<S>(sys, o.h), AlphaConstraint<S>(sys, o.h, 0.5), o.newton);
      return detail::run_two_step(sys, method, init, o, "dla");
    }
    return detail::run_two_step(sys, make_dla(sys, o.h, o.alpha, o.newton), init, o, "dla");
  }

  template <CatalogueSystem S>
  static RunResult run_del(const S& sys, const InitialData& init, const RunOptions& o) {
    if (constraint_count(sys) > 0)
      throw BadInput("method del integrates the unconstrained Lagrangian, but system " + name_of(sys) + " has " +
                     std::to_string(constraint_count(sys)) + " constraint(s); use dla");
    if constexpr (S::m == 0 || S::m == Eigen::Dynamic) {
      if (o.rule == "trapezoid") {
        const DiscreteEulerLagrange<S, TrapezoidRule<S>> method(sys, TrapezoidRule<S>(sys, o.h), o.newton);
        return detail::run_two_step(sys, method, init, o, "del");
      }
      const DiscreteEulerLagrange<S, AlphaRule<S>> method(sys, AlphaRule<S>(sys, o.h, o.alpha), o.newton);
      return detail::run_two_step(sys, method, init, o, "del");
    } else {
      return {};  // not reached: a system with constraints was refused above
    }
  }
};

}  // namespace dalembert::runners
