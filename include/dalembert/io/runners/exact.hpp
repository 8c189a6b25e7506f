#pragma once
// Runner of the exact discrete nonholonomic flow: `exact` (shooting with sensitivities, tolerance
// --shooting-tolerance), for the R^n Lagrange–d'Alembert models. Contact systems have their own
// `exact` in another family.
#include "dalembert/io/observe.hpp"
#include "dalembert/method/exact_flow.hpp"

namespace dalembert::runners {

struct ExactNonholonomicFlow {
  static std::vector<std::string> names() { return {"exact"}; }

  template <class S>
  static constexpr bool supports() {
    return CatalogueSystem<S> && Model<S>;
  }

  template <CatalogueSystem S>
  static RunResult run(const S& sys, const InitialData& init, const RunOptions& o) {
    ShootingOptions shooting;
    shooting.tolerance = o.shooting_tolerance;
    const ExactDiscreteFlow<S> method(sys, o.h, shooting, o.newton);
    try {
      return detail::run_two_step(sys, method, init, o, "exact");
    } catch (const SolverError& e) {
      // Only a two-point start shoots before the first row (for R^{e−}(q0, q1)): a numerical
      // failure with nothing computed yet.
      // The columns of a normal run (from an empty one), no rows.
      RunOptions none = o;
      none.steps = 0;
      none.rows = nullptr;  // the row of k = 0 below is not one of the run's
      const VecN<S> q0 = detail::point_of<S>(init.q0);
      RunResult r = detail::observe_run(sys, method, method.initial_state(q0, VecN<S>::Zero(coordinate_count(sys))), none, "exact",
                                        std::nullopt);
      r.trajectory.values.clear();
      r.summary.status = "solver-failure";
      r.summary.message = std::string("two-point start (q0, q1): ") + e.what();
      return r;
    }
  }
};

}  // namespace dalembert::runners
