#pragma once
// Runner of the generating-function family (dLMS): `gf` (GF-α, --alpha), `gf-sym` (GF-sym-α) and
// `gf-cp` (GF-CP-α, needs a metric). All start from (q0, v0) with p0 = ∂L/∂v, or from (q0, q1)
// when (q0, q1) satisfies the paper's initial condition φ~(q0, q1, h) = 0.
#include "dalembert/io/observe.hpp"
#include "dalembert/method/generating_function.hpp"

namespace dalembert::runners {

struct GeneratingFunction {
  static std::vector<std::string> names() { return {"gf", "gf-sym", "gf-cp"}; }

  template <class S>
  static constexpr bool supports() {
    return CatalogueSystem<S>;
  }

  template <CatalogueSystem S>
  static RunResult run(const S& sys, const InitialData& init, const RunOptions& o) {
    if (o.rule != "alpha")
      throw BadOption("rule", o.rule + " does not apply: method " + o.method +
                                      " uses its own generating function S_alpha (its alpha is the option alpha)");
    if (o.method == "gf") return start(sys, make_gf(sys, o.h, o.alpha, o.newton), init, o);
    if (o.method == "gf-sym") return start(sys, make_gf_sym(sys, o.h, o.alpha, o.newton), init, o);
    if constexpr (HasMetric<S>) {
      if (is_mechanical(sys)) return start(sys, make_gf_cp(sys, o.h, o.alpha, false, o.newton), init, o);
    }
    throw BadInput("method gf-cp projects with the metric G(q), but system " + name_of(sys) +
                   " does not define one (its Lagrangian is not 1/2 v^T G(q) v - V(q))");
  }

 private:
  template <CatalogueSystem S, class Method>
  static RunResult start(const S& sys, const Method& method, const InitialData& init, const RunOptions& o) {
    const VecN<S> q0 = detail::point_of<S>(init.q0);
    if (!init.q1) return detail::observe_run(sys, method, method.initial_state(q0, detail::point_of<S>(init.v0)), o, o.method, std::nullopt);
    const VecN<S> q1 = detail::point_of<S>(*init.q1);
    const VecM<S> phi = method.generating_constraint(q0, q1);
    const double scale = 1.0 + ((q1 - q0) / o.h).template lpNorm<Eigen::Infinity>();
    if (constraint_count(sys) > 0 && phi.template lpNorm<Eigen::Infinity>() > 1e-10 * scale) {
      throw BadInput("(q0, q1) violates the initial condition of " + o.method + " on " + name_of(sys) +
                     ": |phi~(q0, q1, h)| = " + format_residual(phi.template lpNorm<Eigen::Infinity>()) +
                     " (tolerance 1e-10)");
    }
    return detail::observe_run(sys, method, method.initial_state_from_positions(q0, q1), o, o.method, std::nullopt);
  }
};

}  // namespace dalembert::runners
