#pragma once
// Runner of the one-step methods written for mechanical models L = ½ vᵀG(q)v − V(q) in terms of
// the metric, the energy or the Hamiltonian: `mclachlan-perlmutter` (McLachlan–Perlmutter's
// (4.18)), `discrete-gradient` (energy-preserving) and `spark` (Jay's Lobatto IIIA–IIIB, --stages
// 2 to 5). They start from (q0, v0).
#include "dalembert/io/observe.hpp"
#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/mclachlan_perlmutter.hpp"
#include "dalembert/method/spark.hpp"

namespace dalembert::runners {

struct Mechanical {
  static std::vector<std::string> names() { return {"mclachlan-perlmutter", "discrete-gradient", "spark"}; }

  template <class S>
  static constexpr bool supports() {
    return CatalogueSystem<S>;
  }

  template <CatalogueSystem S>
  static RunResult run(const S& sys, const InitialData& init, const RunOptions& o) {
    if (!is_mechanical(sys)) {
      throw BadInput("method " + o.method + " is written with the metric G(q) and the potential V(q), but system " +
                     name_of(sys) + " does not define them (its Lagrangian is not 1/2 v^T G(q) v - V(q))");
    }
    if constexpr (!HasMetric<S>) {
      return {};  // not reached: is_mechanical is false without a metric
    } else {
      if (o.method == "spark")  // its stages are checked with every option (io/method_options.hpp)
        return detail::run_one_step(sys, Spark<S>(sys, o.h, o.stages, o.newton), init, o, o.method);
      if (o.method == "discrete-gradient")
        return detail::run_one_step(sys, DiscreteGradient<S>(sys, o.h, o.newton), init, o, o.method);
      return detail::run_one_step(sys, McLachlanPerlmutter<S>(sys, o.h, o.newton), init, o, o.method);
    }
  }
};

}  // namespace dalembert::runners
