#pragma once
// Runner of the momentum–energy integrator `fim` (Ferraro–Iglesias–Martín de Diego) with the α-rule
// (midpoint by default) or trapezoidal discrete Lagrangian; --fim-start A|B chooses the first
// pre-momentum. Extra CSV columns: energy_pminus, energy_pplus, qstar_p_average, qstar_p_plus.
#include "dalembert/io/observe.hpp"
#include "dalembert/method/momentum_energy.hpp"

namespace dalembert::runners {

inline FimStart parse_fim_start(const std::string& s) {
  if (s == "A" || s == "a") return FimStart::A;
  if (s == "B" || s == "b") return FimStart::B;
  throw BadOption("fim_start", "'" + s + "' is not a start of fim (known: A, B)");
}

struct MomentumEnergy {
  static std::vector<std::string> names() { return {"fim"}; }

  template <class S>
  static constexpr bool supports() {
    return CatalogueSystem<S>;
  }

  template <CatalogueSystem S>
  static RunResult run(const S& sys, const InitialData& init, const RunOptions& o) {
    const FimStart start_kind = parse_fim_start(o.fim_start);
    if (!is_mechanical(sys)) {
      throw BadInput("method fim projects with the metric G(q), but system " + name_of(sys) +
                     " does not define one (its Lagrangian is not 1/2 v^T G(q) v - V(q))");
    }
    if constexpr (!HasMetric<S>) {
      return {};  // not reached: is_mechanical is false without a metric
    } else {
      if (o.rule == "trapezoid") {
        const MomentumEnergyIntegrator<S, TrapezoidRule<S>> method(sys, TrapezoidRule<S>(sys, o.h), start_kind,
                                                                  o.newton);
        return start(sys, method, init, o);
      }
      return start(sys, make_fim(sys, o.h, o.alpha, start_kind, o.newton), init, o);
    }
  }

 private:
  template <CatalogueSystem S, class Method>
  static RunResult start(const S& sys, const Method& method, const InitialData& init, const RunOptions& o) {
    const VecN<S> q0 = detail::point_of<S>(init.q0);
    auto state = init.q1 ? method.initial_state_from_positions(q0, detail::point_of<S>(*init.q1))
                         : method.initial_state(q0, detail::point_of<S>(init.v0));
    return detail::observe_run(sys, method, state, o, "fim", std::nullopt);
  }
};

}  // namespace dalembert::runners
