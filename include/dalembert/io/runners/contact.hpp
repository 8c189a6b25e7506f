#pragma once
// Runner of the contact (Herglotz) family, for contact catalogue systems only:
//   herglotz   discrete Herglotz(–d'Alembert) integrator; --rule alpha (default: the thesis' midpoint
//              in q, left end in z, α from --alpha), trapezoid, or exponential (ours, order 2)
//   exact      the exact discrete Herglotz flow: the exact discrete contact Lagrangian by shooting
//              (unconstrained contact systems)
//   rk4, reference   the continuous Herglotz equations (RK4; Bulirsch–Stoer reference)
// Lagrange–d'Alembert systems are served by the other families under the same names.
#include <string>

#include "dalembert/io/observe.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/method/herglotz.hpp"

namespace dalembert::runners {

struct Contact {
  static std::vector<std::string> names() { return {"herglotz", "exact", "rk4", "reference"}; }

  template <class S>
  static constexpr bool supports() {
    return ContactCatalogueSystem<S>;
  }

  template <ContactCatalogueSystem S>
  static RunResult run(const S& sys, const InitialData& init, const RunOptions& o) {
    const double z0 = init.z0.value_or(0.0);
    if (o.method == "herglotz") return run_herglotz(sys, init, z0, o);
    if (o.method == "exact") return run_exact(sys, init, z0, o);
    if (o.rule != "alpha")
      throw BadOption("rule", o.rule + " applies to the discrete methods (herglotz), not to " + o.method);
    if (init.q1)
      throw BadOption("q1", "starts a two-step method (herglotz, exact); " + o.method + " starts from (q0, v0)");
    const VecN<S> q0 = detail::point_of<S>(init.q0), v0 = detail::point_of<S>(init.v0);
    if (o.method == "rk4") {
      const RungeKutta4<S> method(sys, o.h);
      return detail::observe_run(sys, method, method.initial_state(q0, v0, z0), o, o.method, std::nullopt);
    }
    const ReferenceSolver<S> method(sys, o.h, o.reference_tolerance);
    return detail::observe_run(sys, method, method.initial_state(q0, v0, z0), o, o.method, std::nullopt);
  }

 private:
  template <ContactCatalogueSystem S>
  static RunResult run_herglotz(const S& sys, const InitialData& init, double z0, const RunOptions& o) {
    const auto with = [&](auto ld) { return run_two_step(sys, make_herglotz(sys, std::move(ld), o.alpha, o.newton), init, z0, o); };
    if (o.rule == "trapezoid") return with(ContactTrapezoidRule<S>(sys, o.h));
    if (o.rule == "exponential") {
      if constexpr (LinearInAction<S>) {
        return with(ExponentialRule<S>(sys, o.h, o.alpha));
      } else {
        throw BadOption("rule", "exponential needs a Lagrangian L0(q, v) + gamma z; " + name_of(sys) +
                                    " is not of that form");
      }
    }
    return with(ContactAlphaRule<S>(sys, o.h, o.alpha));
  }

  template <ContactCatalogueSystem S>
  static RunResult run_exact(const S& sys, const InitialData& init, double z0, const RunOptions& o) {
    if constexpr (contact_constraint_count<S>() != 0) {  // fixed or known at run time: m = 0 is another type
      throw BadInput("method exact for contact systems needs an unconstrained Lagrangian, but system " +
                     name_of(sys) + " has " + std::to_string(contact_constraint_count(sys)) +
                     " constraint(s); use herglotz");
    } else {
      if (o.rule != "alpha")
        throw BadOption("rule", o.rule + " does not apply to method exact (its L_d is the exact one)");
      const double tolerance = std::max(o.reference_tolerance, 1e-14);
      return run_two_step(sys, make_exact_herglotz(sys, o.h, tolerance, std::max(o.newton.tolerance, 1e-12), o.newton), init,
                          z0, o);
    }
  }

  /// A discrete Herglotz method from (q0, v0, z0), or from (q0, q1, z0) as in the thesis.
  template <ContactCatalogueSystem S, class Method>
  static RunResult run_two_step(const S& sys, const Method& method, const InitialData& init, double z0,
                                const RunOptions& o) {
    const VecN<S> q0 = detail::point_of<S>(init.q0);
    const VecN<S> q1 = init.q1 ? detail::point_of<S>(*init.q1) : VecN<S>(q0 + o.h * detail::point_of<S>(init.v0));
    if (init.q1 && o.steps < 1) throw BadOption("q1", "a two-point start needs at least one step");
    if constexpr (contact_constraint_count<S>() != 0) {
      if (init.q1) {
        const auto w = method.discrete_constraint()(q0, q1);
        const double scale = 1.0 + ((q1 - q0) / o.h).template lpNorm<Eigen::Infinity>();
        if (w.template lpNorm<Eigen::Infinity>() > 1e-10 * scale) {
          throw BadInput("(q0, q1) violates the discrete constraint of " + name_of(sys) +
                         ": |omega(q0, q1)| = " + format_residual(w.template lpNorm<Eigen::Infinity>()) + " (tolerance 1e-10)");
        }
      }
    }
    // σ_d at the start: for L = L0 + γz and the thesis' rule it is 1 + hγ everywhere.
    ContactDiscreteDerivativesOf<std::decay_t<decltype(method.discrete_lagrangian())>> d;
    try {
      d = differentiate(method.discrete_lagrangian(), q0, q1, z0);
    } catch (const DiscreteLagrangianError& e) {
      throw BadInput(std::string("cannot start from the initial data: ") + e.what());
    }
    if (!(std::abs(d.sigma()) > minimal_conformal_factor)) {
      throw BadOption("h", format_residual(o.h) + " makes sigma_d = 1 + D_z L_d = " + format_residual(d.sigma()) +
                                " vanish at the initial data, so the discrete Legendre map is undefined (the thesis' "
                                "rule with L = ... + gamma z fails at h = -1/gamma); choose another step size");
    }
    if (!init.q1) return detail::observe_run(sys, method, method.initial_state(q0, detail::point_of<S>(init.v0), z0), o, o.method, std::nullopt);
    // The velocity at k = 0 is that of the momentum of F⁻L_d(q0, q1, z0) (its part on D).
    const PhasePointOf<S> start{q0, contact_velocity(sys, q0, d.minus_momentum(), z0)};
    return detail::observe_run(sys, method, method.initial_state_two_point(q0, q1, z0), o, o.method, start, z0);
  }
};

}  // namespace dalembert::runners
