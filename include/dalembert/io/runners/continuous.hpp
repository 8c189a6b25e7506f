#pragma once
// Runner of the integrators of the continuous equations: `rk4` (the papers' non-geometric
// baseline) and `reference` (Bulirsch–Stoer with tight tolerances, the truth for error plots).
#include "dalembert/io/observe.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/method/rk4.hpp"

namespace dalembert::runners {

struct Continuous {
  static std::vector<std::string> names() { return {"rk4", "reference"}; }

  template <class S>
  static constexpr bool supports() {
    return CatalogueSystem<S>;
  }

  template <CatalogueSystem S>
  static RunResult run(const S& sys, const InitialData& init, const RunOptions& o) {
    if (o.method == "rk4") return detail::run_one_step(sys, RungeKutta4<S>(sys, o.h), init, o, o.method);
    return detail::run_one_step(sys, ReferenceSolver<S>(sys, o.h, o.reference_tolerance), init, o, o.method);
  }
};

}  // namespace dalembert::runners
